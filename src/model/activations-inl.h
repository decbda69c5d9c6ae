// Per-target exp and GELU kernels (Highway). See activations.h for the
// arithmetic; each line matches a line of the scalar reference in
// activations.cc.
#if defined(POSENC_MODEL_ACTIVATIONS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POSENC_MODEL_ACTIVATIONS_INL_H_
#undef POSENC_MODEL_ACTIVATIONS_INL_H_
#else
#define POSENC_MODEL_ACTIVATIONS_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "model/activations.h"
#include "model/activations_constants.h"
#include "model/exp-inl.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// tanh(z) = 1 - 2 / (Exp(2 z) + 1).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V TanhVec(D d, V z) {
  const V one = hn::Set(d, 1.0f);
  const V e = ExpVec(d, hn::Mul(hn::Set(d, 2.0f), z));
  return hn::Sub(one, hn::Div(hn::Set(d, 2.0f), hn::Add(e, one)));
}

// The tanh of the GELU: tanh(a ((u + (b u) u) u)).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V GeluTanhVec(D d, V u) {
  namespace k = gelu_constants;
  const V u3 = hn::Mul(hn::Mul(hn::Mul(hn::Set(d, k::kB), u), u), u);
  return TanhVec(d, hn::Mul(hn::Set(d, k::kA), hn::Add(u, u3)));
}

// y[n] = GELU(x); th[n] (if not null) its tanh.
HWY_NOINLINE void GeluForwardKernel(const float* HWY_RESTRICT x, size_t n,
                                    float* HWY_RESTRICT y,
                                    float* HWY_RESTRICT th) {
  const hn::ScalableTag<float> d;
  const size_t L = hn::Lanes(d);
  const auto half = hn::Set(d, 0.5f), one = hn::Set(d, 1.0f);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    const auto u = hn::LoadU(d, x + i);
    const auto t = GeluTanhVec(d, u);
    hn::StoreU(hn::Mul(hn::Mul(half, u), hn::Add(one, t)), d, y + i);
    if (th) hn::StoreU(t, d, th + i);
  }
  if (i < n) GeluForwardScalar(x + i, n - i, y + i, th ? th + i : nullptr);
}

// dx[n] += dy GELU'(x), th[n] being the forward's tanh.
HWY_NOINLINE void GeluBackwardKernel(const float* HWY_RESTRICT x,
                                     const float* HWY_RESTRICT th,
                                     const float* HWY_RESTRICT dy, size_t n,
                                     float* HWY_RESTRICT dx) {
  namespace k = gelu_constants;
  const hn::ScalableTag<float> d;
  const size_t L = hn::Lanes(d);
  const auto half = hn::Set(d, 0.5f), one = hn::Set(d, 1.0f);
  const auto a = hn::Set(d, k::kA), b3 = hn::Set(d, k::kB3);
  size_t i = 0;
  for (; i + L <= n; i += L) {
    const auto u = hn::LoadU(d, x + i);
    const auto t = hn::LoadU(d, th + i);
    // dth = ((1 - t t) a) (1 + (b3 u) u)
    const auto dth = hn::Mul(hn::Mul(hn::Sub(one, hn::Mul(t, t)), a),
                             hn::Add(one, hn::Mul(hn::Mul(b3, u), u)));
    // dx += dy (0.5 (1 + t) + (0.5 u) dth)
    const auto g =
        hn::Add(hn::Mul(half, hn::Add(one, t)), hn::Mul(hn::Mul(half, u), dth));
    hn::StoreU(hn::Add(hn::LoadU(d, dx + i), hn::Mul(hn::LoadU(d, dy + i), g)),
               d, dx + i);
  }
  if (i < n) GeluBackwardScalar(x + i, th + i, dy + i, n - i, dx + i);
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_MODEL_ACTIVATIONS_INL_H_
