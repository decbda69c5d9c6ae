// Per-target AdamWUpdate (Highway). See adamw_update.h for the arithmetic.
#if defined(POSENC_MODEL_ADAMW_UPDATE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POSENC_MODEL_ADAMW_UPDATE_INL_H_
#undef POSENC_MODEL_ADAMW_UPDATE_INL_H_
#else
#define POSENC_MODEL_ADAMW_UPDATE_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "model/adamw_update.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// w, m, v: [n] in place; g: [n].
HWY_NOINLINE void AdamWUpdateKernel(const AdamWUpdateArgs& a,
                                    const float* HWY_RESTRICT g, size_t n,
                                    float* HWY_RESTRICT w,
                                    float* HWY_RESTRICT m,
                                    float* HWY_RESTRICT v) {
  const hn::ScalableTag<float> d;
  const size_t L = hn::Lanes(d);
  const auto b1 = hn::Set(d, a.beta1), c1 = hn::Set(d, 1.0f - a.beta1);
  const auto b2 = hn::Set(d, a.beta2), c2 = hn::Set(d, 1.0f - a.beta2);
  const auto eps = hn::Set(d, a.eps), decay = hn::Set(d, a.decay);
  const auto step = hn::Set(d, a.step_size);
  const auto inv = hn::Set(d, a.inv_sqrt_bc2);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    const auto gi = hn::LoadU(d, g + i);
    const auto mi = hn::Add(hn::Mul(b1, hn::LoadU(d, m + i)), hn::Mul(c1, gi));
    const auto vi =
        hn::Add(hn::Mul(b2, hn::LoadU(d, v + i)), hn::Mul(hn::Mul(c2, gi), gi));
    const auto denom = hn::Add(hn::Mul(hn::Sqrt(vi), inv), eps);
    const auto wi = hn::Sub(hn::Mul(hn::LoadU(d, w + i), decay),
                            hn::Div(hn::Mul(step, mi), denom));
    hn::StoreU(mi, d, m + i);
    hn::StoreU(vi, d, v + i);
    hn::StoreU(wi, d, w + i);
  }
  if (i < n) AdamWUpdateScalar(a, g + i, n - i, w + i, m + i, v + i);
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_MODEL_ADAMW_UPDATE_INL_H_
