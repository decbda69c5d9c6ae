// ExpVec, the per-target exp of activations.h (Highway), shared by the
// activation kernels (activations-inl.h) and the softmax rows (rows-inl.h).
// Inline functions only: every .cc that includes it may define its kernels.
#if defined(POSENC_MODEL_EXP_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POSENC_MODEL_EXP_INL_H_
#undef POSENC_MODEL_EXP_INL_H_
#else
#define POSENC_MODEL_EXP_INL_H_
#endif

#include <limits>

#include "hwy/highway.h"
#include "model/activations_constants.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Exp of each lane (activations.h).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpVec(D d, V x) {
  namespace k = exp_constants;
  const hn::RebindToSigned<D> di;
  const V lo = hn::Set(d, k::kMin), hi = hn::Set(d, k::kMax);
  const V shifter = hn::Set(d, k::kShifter);
  // Clamped with compare and select (wasm's f32x4.min / max cost several
  // instructions each); lanes outside [lo, hi] are replaced below.
  const V xc =
      hn::IfThenElse(hn::Lt(x, lo), lo, hn::IfThenElse(hn::Gt(x, hi), hi, x));
  const V t = hn::Add(hn::Mul(xc, hn::Set(d, k::kLog2e)), shifter);
  const V nf = hn::Sub(t, shifter);
  const auto n = hn::Sub(hn::BitCast(di, t), hn::BitCast(di, shifter));
  const V r = hn::Sub(hn::Sub(xc, hn::Mul(nf, hn::Set(d, k::kLn2Hi))),
                      hn::Mul(nf, hn::Set(d, k::kLn2Lo)));
  V p = hn::Set(d, k::kC6);
  p = hn::Add(hn::Mul(p, r), hn::Set(d, k::kC5));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, k::kC4));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, k::kC3));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, k::kC2));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 1.0f));
  p = hn::Add(hn::Mul(p, r), hn::Set(d, 1.0f));
  const V scale =
      hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n, hn::Set(di, 127))));
  V y = hn::Mul(p, scale);
  y = hn::IfThenElse(hn::Lt(x, lo), hn::Zero(d), y);
  y = hn::IfThenElse(hn::Gt(x, hi),
                     hn::Set(d, std::numeric_limits<float>::infinity()), y);
  return hn::IfThenElse(hn::IsNaN(x), x, y);
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_MODEL_EXP_INL_H_
