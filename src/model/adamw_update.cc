#include "model/adamw_update.h"

#include <cmath>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "model/adamw_update.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "model/adamw_update-inl.h"

#if HWY_ONCE
namespace posenc {

HWY_EXPORT(AdamWUpdateKernel);

void AdamWUpdate(const AdamWUpdateArgs& a, const float* g, size_t n, float* w,
                 float* m, float* v) {
  HWY_DYNAMIC_DISPATCH(AdamWUpdateKernel)(a, g, n, w, m, v);
}

void AdamWUpdateScalar(const AdamWUpdateArgs& a, const float* g, size_t n,
                       float* w, float* m, float* v) {
  for (size_t i = 0; i < n; ++i) {
    m[i] = a.beta1 * m[i] + (1.0f - a.beta1) * g[i];
    v[i] = a.beta2 * v[i] + (1.0f - a.beta2) * g[i] * g[i];
    const float denom = std::sqrt(v[i]) * a.inv_sqrt_bc2 + a.eps;
    w[i] = w[i] * a.decay - a.step_size * m[i] / denom;
  }
}

}  // namespace posenc
#endif  // HWY_ONCE
