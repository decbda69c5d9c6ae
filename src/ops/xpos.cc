#include "ops/xpos.h"

#include <cmath>

namespace posenc {

Status ValidateXpos(int64_t r, double scale_base) {
  if (r < 2 || r % 2 != 0) {
    return Status::Invalid(StrCat("rotaryDim must be even and >= 2, got ", r));
  }
  return CheckFiniteAbove("xpos.scaleBase", scale_base, 0.0);
}

int64_t XposMaxDistance(double scale_base) {
  // ln(FLT_MIN) = -87.3: a margin of 0.3 keeps rounding inside the range.
  return static_cast<int64_t>(std::floor(87.0 / std::log(3.5) * scale_base));
}

Status XposScales(const int32_t* positions, size_t T, size_t r,
                  double scale_base, int64_t center, bool key, float* out) {
  const int64_t limit = XposMaxDistance(scale_base);
  for (size_t t = 0; t < T; ++t) {
    const int64_t d = static_cast<int64_t>(positions[t]) - center;
    if (d > limit || d < -limit) {
      return Status::Invalid(StrCat(
          "xpos: position ", positions[t], " is ", d < 0 ? -d : d,
          " from xpos.center = ", center,
          "; with xpos.scaleBase = ", scale_base,
          " the scales zeta^((p - center) / scaleBase) leave the "
          "float32 range beyond ",
          limit,
          " (put xpos.center near the positions, e.g. their middle, for both "
          "queries and keys)"));
    }
  }
  const size_t h = r / 2;
  for (size_t t = 0; t < T; ++t) {
    const double e = static_cast<double>(positions[t] - center) / scale_base *
                     (key ? -1 : 1);
    for (size_t i = 0; i < h; ++i) {
      const double zeta = (2.0 * i + 0.4 * r) / (1.4 * r);
      out[t * h + i] = static_cast<float>(std::pow(zeta, e));
    }
  }
  return Status::Ok();
}

}  // namespace posenc
