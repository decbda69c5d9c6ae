// Per-target ALiBi bias row (Highway). See alibi.h.
#if defined(POSENC_OPS_ALIBI_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POSENC_OPS_ALIBI_INL_H_
#undef POSENC_OPS_ALIBI_INL_H_
#else
#define POSENC_OPS_ALIBI_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <limits>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// out: [K]. Lane j gets m * (j - qpos) (causal; -inf past qpos) or
// -m * |j - qpos|. Distances are formed as exact integers in float
// (|j - qpos| < 2^24 for any K we accept) before the multiply.
HWY_NOINLINE void AlibiBiasRowKernel(float slope, int64_t qpos, size_t K,
                                     bool causal, float* HWY_RESTRICT out) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const hn::Vec<decltype(d)> m = hn::Set(d, slope);
  const hn::Vec<decltype(d)> q = hn::Set(d, static_cast<float>(qpos));
  const hn::Vec<decltype(d)> neg_inf =
      hn::Set(d, -std::numeric_limits<float>::infinity());
  const hn::Vec<decltype(d)> step = hn::Set(d, static_cast<float>(N));
  hn::Vec<decltype(d)> j = hn::Iota(d, 0.0f);
  size_t i = 0;
  for (; i + N <= K; i += N, j = hn::Add(j, step)) {
    const hn::Vec<decltype(d)> rel = hn::Sub(j, q);  // j - qpos
    hn::Vec<decltype(d)> v;
    if (causal) {
      v = hn::IfThenElse(hn::Gt(rel, hn::Zero(d)), neg_inf, hn::Mul(m, rel));
    } else {
      v = hn::Neg(hn::Mul(m, hn::Abs(rel)));
    }
    hn::StoreU(v, d, out + i);
  }
  for (; i < K; ++i) {
    const float rel = static_cast<float>(static_cast<int64_t>(i) - qpos);
    out[i] = causal ? (rel > 0.0f ? -std::numeric_limits<float>::infinity()
                                  : slope * rel)
                    : -(slope * (rel < 0.0f ? -rel : rel));
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_OPS_ALIBI_INL_H_
