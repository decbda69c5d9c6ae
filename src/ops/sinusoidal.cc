#include "ops/sinusoidal.h"

#include <cmath>

#include "ops/rope.h"

namespace posenc {

const char* SinusoidalLayoutName(SinusoidalLayout layout) {
  static const char* const kNames[kNumSinusoidalLayouts] = {"interleaved",
                                                            "concat"};
  const int i = static_cast<int>(layout);
  return i >= 0 && i < kNumSinusoidalLayouts ? kNames[i] : "invalid";
}

Status ValidateSinusoidal(int64_t L, int64_t D, double base,
                          SinusoidalLayout layout) {
  if (L < 0) return Status::Invalid(StrCat("length must be >= 0, got ", L));
  if (D < 2 || D % 2 != 0) {
    return Status::Invalid(StrCat("dim must be even and >= 2, got ", D));
  }
  if (layout == SinusoidalLayout::kConcat && D < 4) {
    return Status::Invalid(StrCat(
        "dim must be >= 4 for the 'concat' layout (ln(base)/(dim/2 - 1)), got ",
        D));
  }
  if (layout != SinusoidalLayout::kConcat &&
      layout != SinusoidalLayout::kInterleaved) {
    return Status::Invalid(
        StrCat("layout is not a valid enum value: ", static_cast<int>(layout)));
  }
  return CheckFiniteAbove("base", base, 1.0);
}

std::vector<double> SinusoidalFrequencies(size_t D, double base,
                                          SinusoidalLayout layout) {
  const size_t h = D / 2;
  std::vector<double> w(h);
  for (size_t i = 0; i < h; ++i) {
    w[i] = layout == SinusoidalLayout::kInterleaved
               ? std::pow(base, -2.0 * static_cast<double>(i) / D)
               : std::exp(-static_cast<double>(i) * std::log(base) / (h - 1.0));
  }
  return w;
}

namespace {

// Writes the [L, D/2] cos and sin tables into `out` in the layout's order.
void Scatter(size_t L, size_t D, SinusoidalLayout layout, const float* cos,
             const float* sin, float* out) {
  const size_t h = D / 2;
  for (size_t p = 0; p < L; ++p) {
    float* row = out + p * D;
    const float* c = cos + p * h;
    const float* s = sin + p * h;
    if (layout == SinusoidalLayout::kInterleaved) {
      for (size_t i = 0; i < h; ++i) {
        row[2 * i] = s[i];
        row[2 * i + 1] = c[i];
      }
    } else {
      for (size_t i = 0; i < h; ++i) {
        row[i] = s[i];
        row[h + i] = c[i];
      }
    }
  }
}

template <class CosSin>
void Table(size_t L, size_t D, double base, SinusoidalLayout layout, float* out,
           CosSin cos_sin) {
  const std::vector<double> w = SinusoidalFrequencies(D, base, layout);
  const size_t h = D / 2;
  // Frequencies stay in double (the reference implementations round them to
  // float32, which costs ~p * 6e-8 radians at position p).
  std::vector<int32_t> pos(L);
  for (size_t p = 0; p < L; ++p) pos[p] = static_cast<int32_t>(p);
  std::vector<float> cos(L * h), sin(L * h);
  cos_sin(pos.data(), L, w.data(), h, 1.0f, cos.data(), sin.data());
  Scatter(L, D, layout, cos.data(), sin.data(), out);
}

}  // namespace

void SinusoidalTable(size_t L, size_t D, double base, SinusoidalLayout layout,
                     float* out) {
  Table(L, D, base, layout, out, RopeCosSin);
}

void SinusoidalTableScalar(size_t L, size_t D, double base,
                           SinusoidalLayout layout, float* out) {
  Table(L, D, base, layout, out, RopeCosSinScalar);
}

}  // namespace posenc
