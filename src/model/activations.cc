#include "model/activations.h"

#include <cstdint>
#include <cstring>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "model/activations.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "model/activations-inl.h"
#include "model/layers.h"

#if HWY_ONCE
namespace posenc {
namespace {

float TanhOfExp(float z) { return 1.0f - 2.0f / (Exp(2.0f * z) + 1.0f); }

float GeluTanh(float u) {
  namespace k = gelu_constants;
  const float u3 = ((k::kB * u) * u) * u;
  return TanhOfExp(k::kA * (u + u3));
}

}  // namespace

float Exp(float x) {
  namespace k = exp_constants;
  if (x != x) return x;
  if (x < k::kMin) return 0.0f;
  if (x > k::kMax) return std::numeric_limits<float>::infinity();
  const float t = x * k::kLog2e + k::kShifter;
  const float nf = t - k::kShifter;
  int32_t tb, sb;
  std::memcpy(&tb, &t, 4);
  std::memcpy(&sb, &k::kShifter, 4);
  const int32_t n = tb - sb;
  const float r = (x - nf * k::kLn2Hi) - nf * k::kLn2Lo;
  float p = k::kC6;
  p = p * r + k::kC5;
  p = p * r + k::kC4;
  p = p * r + k::kC3;
  p = p * r + k::kC2;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const uint32_t sbits = static_cast<uint32_t>(n + 127) << 23;
  float scale;
  std::memcpy(&scale, &sbits, 4);
  return p * scale;
}

HWY_EXPORT(GeluForwardKernel);
HWY_EXPORT(GeluBackwardKernel);

void GeluForward(const float* x, size_t n, float* y, float* th) {
  HWY_DYNAMIC_DISPATCH(GeluForwardKernel)(x, n, y, th);
}

void GeluBackward(const float* x, const float* th, const float* dy, size_t n,
                  float* dx) {
  HWY_DYNAMIC_DISPATCH(GeluBackwardKernel)(x, th, dy, n, dx);
}

void GeluForwardScalar(const float* x, size_t n, float* y, float* th) {
  for (size_t i = 0; i < n; ++i) {
    const float u = x[i];
    const float t = GeluTanh(u);
    y[i] = (0.5f * u) * (1.0f + t);
    if (th) th[i] = t;
  }
}

void GeluBackwardScalar(const float* x, const float* th, const float* dy,
                        size_t n, float* dx) {
  namespace k = gelu_constants;
  for (size_t i = 0; i < n; ++i) {
    const float u = x[i], t = th[i];
    const float dth = ((1.0f - t * t) * k::kA) * (1.0f + (k::kB3 * u) * u);
    dx[i] += dy[i] * (0.5f * (1.0f + t) + (0.5f * u) * dth);
  }
}

}  // namespace posenc
#endif  // HWY_ONCE
