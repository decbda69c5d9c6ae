#include "ops/xpos.h"

#include <cmath>

namespace posenc {

Status ValidateXpos(int64_t r, double scale_base) {
  if (r < 2 || r % 2 != 0) {
    return Status::Invalid(StrCat("rotaryDim must be even and >= 2, got ", r));
  }
  if (!std::isfinite(scale_base) || scale_base <= 0.0) {
    return Status::Invalid(
        StrCat("xpos.scaleBase must be a finite number > 0, got ", scale_base));
  }
  return Status::Ok();
}

void XposScales(const int32_t* positions, size_t T, size_t r, double scale_base,
                int64_t center, bool key, float* out) {
  const size_t h = r / 2;
  for (size_t t = 0; t < T; ++t) {
    const double e = static_cast<double>(positions[t] - center) / scale_base *
                     (key ? -1 : 1);
    for (size_t i = 0; i < h; ++i) {
      const double zeta = (2.0 * i + 0.4 * r) / (1.4 * r);
      out[t * h + i] = static_cast<float>(std::pow(zeta, e));
    }
  }
}

}  // namespace posenc
