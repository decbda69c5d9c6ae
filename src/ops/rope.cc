// Dispatch of the RoPE kernels (rope-inl.h) and their scalar references.
#include "ops/rope.h"

#include <cmath>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/rope.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "ops/rope-inl.h"

#if HWY_ONCE
namespace posenc {

const char* RopeLayoutName(RopeLayout layout) {
  static const char* const kNames[kNumRopeLayouts] = {"half", "interleaved"};
  const int i = static_cast<int>(layout);
  return i >= 0 && i < kNumRopeLayouts ? kNames[i] : "invalid";
}

HWY_EXPORT(RopeCosSinKernel);
HWY_EXPORT(ApplyRopeKernel);

void RopeCosSin(const int32_t* positions, size_t T, const double* inv_freq,
                size_t h, float magnitude, float* cos, float* sin) {
  HWY_DYNAMIC_DISPATCH(RopeCosSinKernel)
  (positions, T, inv_freq, h, magnitude, cos, sin);
}

void ApplyRope(RopeLayout layout, const float* x, size_t H, size_t T, size_t d,
               size_t r, const float* cos, const float* sin, float* out) {
  HWY_DYNAMIC_DISPATCH(ApplyRopeKernel)(layout, x, H, T, d, r, cos, sin, out);
}

void RopeCosSinScalar(const int32_t* positions, size_t T,
                      const double* inv_freq, size_t h, float magnitude,
                      float* cos, float* sin) {
  for (size_t t = 0; t < T; ++t) {
    for (size_t i = 0; i < h; ++i) {
      const double a = ReducedAngle(positions[t], inv_freq[i]);
      cos[t * h + i] = static_cast<float>(magnitude * std::cos(a));
      sin[t * h + i] = static_cast<float>(magnitude * std::sin(a));
    }
  }
}

void ApplyRopeScalar(RopeLayout layout, const float* x, size_t H, size_t T,
                     size_t d, size_t r, const float* cos, const float* sin,
                     float* out) {
  ApplyRopeScalarStrided(layout, x, H, T, d, r, cos, sin, out, T * d, d);
}

void ApplyRopeScalarStrided(RopeLayout layout, const float* x, size_t H,
                            size_t T, size_t d, size_t r, const float* cos,
                            const float* sin, float* out, size_t head_stride,
                            size_t token_stride) {
  const size_t h = r / 2;
  for (size_t head = 0; head < H; ++head) {
    for (size_t t = 0; t < T; ++t) {
      const float* xr = x + head * head_stride + t * token_stride;
      float* o = out + head * head_stride + t * token_stride;
      const float* ct = cos + t * h;
      const float* st = sin + t * h;
      if (layout == RopeLayout::kHalf) {
        for (size_t i = 0; i < h; ++i) {
          const float a = xr[i], b = xr[i + h];
          o[i] = a * ct[i] - b * st[i];
          o[i + h] = b * ct[i] + a * st[i];
        }
      } else {
        for (size_t i = 0; i < h; ++i) {
          const float a = xr[2 * i], b = xr[2 * i + 1];
          o[2 * i] = a * ct[i] - b * st[i];
          o[2 * i + 1] = b * ct[i] + a * st[i];
        }
      }
      if (o != xr) {
        for (size_t j = r; j < d; ++j) o[j] = xr[j];
      }
    }
  }
}

}  // namespace posenc
#endif  // HWY_ONCE
