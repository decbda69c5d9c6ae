// Per-target attention kernel (Highway). See attention.h for the contract.
//
// Tiling: for each kv head the keys are packed once into vectors of N keys
// (kp: [Tk' / N, D, N], Tk' = Tk rounded up plus one tile, zero padded), so
// that a tile of kRows queries x kKeys keys is a register-blocked product:
// for each d, a vector of keys is loaded and multiplied by each query's
// broadcast q[r][d]. Scores get scale, biases and masks in place, then an
// online softmax (running max m, running sum l, accumulator rescaled by
// exp(m_old - m_new)) folds the tile into acc: [kRows, D] with p * V.
// Key tiles entirely above the causal diagonal or before the window are never
// visited. Working memory: kp (Tk' * D), acc and one score tile, plus T5's
// per-distance bias (Tq + Tk): O(T * D), never O(T^2).
#if defined(POSENC_OPS_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POSENC_OPS_ATTENTION_INL_H_
#undef POSENC_OPS_ATTENTION_INL_H_
#else
#define POSENC_OPS_ATTENTION_INL_H_
#endif

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "ops/attention.h"
#include "ops/t5.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr size_t kRows = 4;   // queries per tile
constexpr size_t kKeys = 64;  // keys per tile (a multiple of every lane count)
// How far (in logits) the online softmax's running max may trail the true
// one before it is moved: exp(8) = 2981 keeps every sum far from overflow.
constexpr float kMaxLag = 8.0f;

// S[r][0, nk_pad) = q_r . k_j for R query rows (q rows at stride D) and the
// keys j0 .. j0 + nk_pad. Keys are packed per vector of N keys:
// kp[((j / N) * D + d) * N + j % N], so each step loads one vector of N keys
// at one d and multiplies it by each row's broadcast q[r][d]; two key vectors
// per step give 8 independent accumulators. kD > 0 fixes D at compile time
// (constant offsets, unrolled: much better code from V8).
template <size_t R, size_t kD>
HWY_INLINE void ScoreTile(const float* HWY_RESTRICT q, size_t D_runtime,
                          const float* HWY_RESTRICT kp, size_t j0,
                          size_t nk_pad, float* HWY_RESTRICT S) {
  const size_t D = kD ? kD : D_runtime;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const float* q1 = q + (R > 1 ? D : 0);
  const float* q2 = q + (R > 2 ? 2 * D : 0);
  const float* q3 = q + (R > 3 ? 3 * D : 0);
  size_t jj = 0;
  for (; jj + 2 * N <= nk_pad; jj += 2 * N) {
    const float* k0 = kp + (j0 + jj) * D;  // = ((j0 + jj) / N) * D * N
    const float* k1 = k0 + D * N;
    hn::Vec<decltype(d)> a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0;
    hn::Vec<decltype(d)> b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    for (size_t dd = 0; dd < D; ++dd) {
      const hn::Vec<decltype(d)> x = hn::LoadU(d, k0 + dd * N);
      const hn::Vec<decltype(d)> y = hn::LoadU(d, k1 + dd * N);
      const hn::Vec<decltype(d)> s0 = hn::Set(d, q[dd]);
      a0 = hn::MulAdd(s0, x, a0);
      b0 = hn::MulAdd(s0, y, b0);
      if constexpr (R > 1) {
        const hn::Vec<decltype(d)> s1 = hn::Set(d, q1[dd]);
        a1 = hn::MulAdd(s1, x, a1);
        b1 = hn::MulAdd(s1, y, b1);
      }
      if constexpr (R > 2) {
        const hn::Vec<decltype(d)> s2 = hn::Set(d, q2[dd]);
        a2 = hn::MulAdd(s2, x, a2);
        b2 = hn::MulAdd(s2, y, b2);
      }
      if constexpr (R > 3) {
        const hn::Vec<decltype(d)> s3 = hn::Set(d, q3[dd]);
        a3 = hn::MulAdd(s3, x, a3);
        b3 = hn::MulAdd(s3, y, b3);
      }
    }
    hn::StoreU(a0, d, S + jj);
    hn::StoreU(b0, d, S + jj + N);
    if constexpr (R > 1) {
      hn::StoreU(a1, d, S + kKeys + jj);
      hn::StoreU(b1, d, S + kKeys + jj + N);
    }
    if constexpr (R > 2) {
      hn::StoreU(a2, d, S + 2 * kKeys + jj);
      hn::StoreU(b2, d, S + 2 * kKeys + jj + N);
    }
    if constexpr (R > 3) {
      hn::StoreU(a3, d, S + 3 * kKeys + jj);
      hn::StoreU(b3, d, S + 3 * kKeys + jj + N);
    }
  }
  for (; jj < nk_pad; jj += N) {
    const float* k0 = kp + (j0 + jj) * D;
    hn::Vec<decltype(d)> a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0;
    for (size_t dd = 0; dd < D; ++dd) {
      const hn::Vec<decltype(d)> x = hn::LoadU(d, k0 + dd * N);
      a0 = hn::MulAdd(hn::Set(d, q[dd]), x, a0);
      if constexpr (R > 1) a1 = hn::MulAdd(hn::Set(d, q1[dd]), x, a1);
      if constexpr (R > 2) a2 = hn::MulAdd(hn::Set(d, q2[dd]), x, a2);
      if constexpr (R > 3) a3 = hn::MulAdd(hn::Set(d, q3[dd]), x, a3);
    }
    hn::StoreU(a0, d, S + jj);
    if constexpr (R > 1) hn::StoreU(a1, d, S + kKeys + jj);
    if constexpr (R > 2) hn::StoreU(a2, d, S + 2 * kKeys + jj);
    if constexpr (R > 3) hn::StoreU(a3, d, S + 3 * kKeys + jj);
  }
}

// acc[r] += sum_{jj < nk} P[r][jj] * v[jj] for R rows; v rows at stride D.
// Two d vectors per step: 8 accumulators for 4 rows.
template <size_t R, size_t kD>
HWY_INLINE void AccumulateTile(const float* HWY_RESTRICT P, size_t nk,
                               const float* HWY_RESTRICT v, size_t D_runtime,
                               float* HWY_RESTRICT acc) {
  const size_t D = kD ? kD : D_runtime;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const float* P1 = P + kKeys;
  const float* P2 = P + 2 * kKeys;
  const float* P3 = P + 3 * kKeys;
  size_t dd = 0;
  for (; dd + 2 * N <= D; dd += 2 * N) {
    hn::Vec<decltype(d)> a0 = hn::LoadU(d, acc + dd), a1 = a0, a2 = a0, a3 = a0;
    hn::Vec<decltype(d)> b0 = hn::LoadU(d, acc + dd + N), b1 = b0, b2 = b0,
                         b3 = b0;
    if constexpr (R > 1) {
      a1 = hn::LoadU(d, acc + D + dd);
      b1 = hn::LoadU(d, acc + D + dd + N);
    }
    if constexpr (R > 2) {
      a2 = hn::LoadU(d, acc + 2 * D + dd);
      b2 = hn::LoadU(d, acc + 2 * D + dd + N);
    }
    if constexpr (R > 3) {
      a3 = hn::LoadU(d, acc + 3 * D + dd);
      b3 = hn::LoadU(d, acc + 3 * D + dd + N);
    }
    const float* vr = v + dd;
    for (size_t jj = 0; jj < nk; ++jj, vr += D) {
      const hn::Vec<decltype(d)> x = hn::LoadU(d, vr);
      const hn::Vec<decltype(d)> y = hn::LoadU(d, vr + N);
      const hn::Vec<decltype(d)> p0 = hn::Set(d, P[jj]);
      a0 = hn::MulAdd(p0, x, a0);
      b0 = hn::MulAdd(p0, y, b0);
      if constexpr (R > 1) {
        const hn::Vec<decltype(d)> p1 = hn::Set(d, P1[jj]);
        a1 = hn::MulAdd(p1, x, a1);
        b1 = hn::MulAdd(p1, y, b1);
      }
      if constexpr (R > 2) {
        const hn::Vec<decltype(d)> p2 = hn::Set(d, P2[jj]);
        a2 = hn::MulAdd(p2, x, a2);
        b2 = hn::MulAdd(p2, y, b2);
      }
      if constexpr (R > 3) {
        const hn::Vec<decltype(d)> p3 = hn::Set(d, P3[jj]);
        a3 = hn::MulAdd(p3, x, a3);
        b3 = hn::MulAdd(p3, y, b3);
      }
    }
    hn::StoreU(a0, d, acc + dd);
    hn::StoreU(b0, d, acc + dd + N);
    if constexpr (R > 1) {
      hn::StoreU(a1, d, acc + D + dd);
      hn::StoreU(b1, d, acc + D + dd + N);
    }
    if constexpr (R > 2) {
      hn::StoreU(a2, d, acc + 2 * D + dd);
      hn::StoreU(b2, d, acc + 2 * D + dd + N);
    }
    if constexpr (R > 3) {
      hn::StoreU(a3, d, acc + 3 * D + dd);
      hn::StoreU(b3, d, acc + 3 * D + dd + N);
    }
  }
  for (; dd < D; ++dd) {  // the rest, one lane at a time
    for (size_t r = 0; r < R; ++r) {
      float sum = acc[r * D + dd];
      for (size_t jj = 0; jj < nk; ++jj) {
        sum += P[r * kKeys + jj] * v[jj * D + dd];
      }
      acc[r * D + dd] = sum;
    }
  }
}

// exp(x) for the softmax numerators, x = logit - running max <= kMaxLag
// (the max may trail); -inf and anything below -87 give 0.
// 2^(x log2 e) = 2^n * 2^f with f in [-0.5, 0.5], and 2^f by a degree-5
// polynomial with the least maximum relative error (fitted by
// tools/fit_exp2.mjs: 1.9e-7 in float32 Horner steps, as good as the
// degree-6 Taylor polynomial it replaced). About two thirds of the
// operations of a general exp.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V SoftmaxExp(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V t = hn::Mul(hn::Max(x, hn::Set(d, -87.0f)), hn::Set(d, 1.44269504f));
  const V n = hn::Round(t);
  const V f = hn::Sub(t, n);
  V p = hn::Set(d, 1.3264727e-3f);
  p = hn::MulAdd(p, f, hn::Set(d, 9.6715130e-3f));
  p = hn::MulAdd(p, f, hn::Set(d, 5.5507336e-2f));
  p = hn::MulAdd(p, f, hn::Set(d, 2.4022242e-1f));
  p = hn::MulAdd(p, f, hn::Set(d, 6.9314700e-1f));
  p = hn::MulAdd(p, f, hn::Set(d, 1.0f));
  // Scale by 2^n through the exponent bits (n in [-126, 12]).
  const auto bits = hn::ShiftLeft<23>(hn::ConvertTo(di, n));
  const V y = hn::BitCast(d, hn::Add(hn::BitCast(di, p), bits));
  return hn::IfThenZeroElse(hn::Lt(x, hn::Set(d, -87.0f)), y);
}

// row[t] = exp(row[t] - m) for t < n (a multiple of the lane count, every
// row[t] <= m + kMaxLag); returns their sum. Out of line: when the tile
// function was compiled by V8's mid-tier register allocator (see AttendTile)
// this kept the polynomial's constants in registers; with the full allocator
// inline and out of line measure the same.
HWY_NOINLINE float ExpRow(float* HWY_RESTRICT row, size_t n, float m) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const hn::Vec<decltype(d)> vm = hn::Set(d, m);
  hn::Vec<decltype(d)> vsum = hn::Zero(d);
  for (size_t t = 0; t < n; t += N) {
    const hn::Vec<decltype(d)> p =
        SoftmaxExp(d, hn::Sub(hn::LoadU(d, row + t), vm));
    vsum = hn::Add(vsum, p);
    hn::StoreU(p, d, row + t);
  }
  return hn::GetLane(hn::SumOfLanes(d, vsum));
}

// Everything the tiles of one head share.
struct HeadContext {
  const AttentionOptions* o;
  size_t h;      // query head
  int64_t qoff;  // query i sits at key index i + qoff
  float scale;
  float slope;      // ALiBi slope of head h, 0 if none
  const float* t5;  // per-distance bias of head h: index rel + t5_zero
  int64_t t5_zero;
  const float* mask_add;  // [Tk'] 0 or -inf from the key mask
  const float* kp;        // keys packed per vector: [Tk' / N, D, N]
  const float* v;         // kv head's values, rows at stride D
  const float* shaw_qa;   // [R, 2c+1] q_r . aK[c'] * scale, per tile
  float* q_scaled;        // [kRows, D] the tile's queries times scale
  bool plain;  // no per-key term at all: only the causal mask can apply
};

// Largest element of row[0, n), n a multiple of the lane count. The logits
// of a tile with nothing to add or mask are the raw scores: FinishLogits
// reduces to this (no pass rewriting the row).
HWY_INLINE float RowMax(const float* HWY_RESTRICT row, size_t n) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  hn::Vec<decltype(d)> m0 = hn::LoadU(d, row), m1 = m0;
  size_t jj = N;
  for (; jj + 2 * N <= n; jj += 2 * N) {
    m0 = hn::Max(m0, hn::LoadU(d, row + jj));
    m1 = hn::Max(m1, hn::LoadU(d, row + jj + N));
  }
  for (; jj < n; jj += N) m0 = hn::Max(m0, hn::LoadU(d, row + jj));
  return hn::GetLane(hn::MaxOfLanes(d, hn::Max(m0, m1)));
}

// FinishLogits for a plain head (only the causal mask): keys past qpos
// become -inf, up to nk_pad (so the tile's keys must end at the causal
// limit, not at Tk). Returns the row's largest logit.
HWY_INLINE float CausalLogits(int64_t qpos, size_t j0, size_t nk_pad,
                              float* HWY_RESTRICT row) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const hn::Vec<decltype(d)> vninf =
      hn::Set(d, -std::numeric_limits<float>::infinity());
  const hn::Vec<decltype(d)> step = hn::Set(d, static_cast<float>(N));
  // rel = j - qpos as exact floats (|rel| < 2^24 is validated).
  hn::Vec<decltype(d)> rel =
      hn::Add(hn::Iota(d, 0.0f),
              hn::Set(d, static_cast<float>(static_cast<int64_t>(j0) - qpos)));
  hn::Vec<decltype(d)> vmax = vninf;
  for (size_t jj = 0; jj < nk_pad; jj += N, rel = hn::Add(rel, step)) {
    const hn::Vec<decltype(d)> s =
        hn::IfThenElse(hn::Gt(rel, hn::Zero(d)), vninf, hn::LoadU(d, row + jj));
    vmax = hn::Max(vmax, s);
    hn::StoreU(s, d, row + jj);
  }
  return hn::GetLane(hn::MaxOfLanes(d, vmax));
}

// Finishes the logits of row r (query position qpos) for keys j0..j0+nk:
// S holds raw dot products; on return it holds the final logits, -inf for
// masked keys and for the padding lanes up to nk_pad.
// Returns the largest logit of the row (-inf if none is visible). The
// scale is already folded into q (see AttendRows).
HWY_INLINE float FinishLogits(const HeadContext& c, size_t i, int64_t qpos,
                              size_t r, size_t j0, size_t nk, size_t nk_pad,
                              float* HWY_RESTRICT row) {
  const AttentionOptions& o = *c.o;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const hn::Vec<decltype(d)> vslope = hn::Set(d, c.slope);
  const hn::Vec<decltype(d)> vninf = hn::Set(d, neg_inf);
  // rel = j - qpos as exact floats (|rel| < 2^24 is validated).
  const hn::Vec<decltype(d)> rel0 =
      hn::Add(hn::Iota(d, 0.0f),
              hn::Set(d, static_cast<float>(static_cast<int64_t>(j0) - qpos)));
  const float* bias_row = o.bias ? o.bias + (c.h * o.Tq + i) * o.Tk : nullptr;
  // Only a tile reaching past qpos needs the causal select.
  const bool diagonal = o.causal && static_cast<int64_t>(j0 + nk) - 1 > qpos;
  const hn::Vec<decltype(d)> step = hn::Set(d, static_cast<float>(N));
  hn::Vec<decltype(d)> rel = rel0;
  hn::Vec<decltype(d)> vmax = vninf;
  size_t jj = 0;
  for (; jj + N <= nk; jj += N, rel = hn::Add(rel, step)) {
    hn::Vec<decltype(d)> s = hn::LoadU(d, row + jj);
    // ALiBi: m * (j - i) = -m (i - j) causally; -m |i - j| bidirectionally.
    if (c.slope != 0.0f) {
      s = hn::MulAdd(vslope, o.causal ? rel : hn::Neg(hn::Abs(rel)), s);
    }
    if (o.key_mask) s = hn::Add(s, hn::LoadU(d, c.mask_add + j0 + jj));
    if (c.t5) {
      s = hn::Add(s, hn::LoadU(d, c.t5 + (static_cast<int64_t>(j0 + jj) - qpos +
                                          c.t5_zero)));
    }
    if (bias_row) s = hn::Add(s, hn::LoadU(d, bias_row + j0 + jj));
    if (diagonal) s = hn::IfThenElse(hn::Gt(rel, hn::Zero(d)), vninf, s);
    if (o.window > 0) {
      s = hn::IfThenElse(
          hn::Ge(hn::Neg(rel), hn::Set(d, static_cast<float>(o.window))), vninf,
          s);
    }
    vmax = hn::Max(vmax, s);
    hn::StoreU(s, d, row + jj);
  }
  float mx = hn::GetLane(hn::MaxOfLanes(d, vmax));
  for (; jj < nk; ++jj) {
    const int64_t j = static_cast<int64_t>(j0 + jj);
    const int64_t rel = j - qpos;
    const float alibi_rel =
        static_cast<float>(o.causal ? rel : (rel < 0 ? rel : -rel));
    float s = row[jj] + c.slope * alibi_rel + c.mask_add[j];
    if (c.t5) s += c.t5[rel + c.t5_zero];
    if (bias_row) s += bias_row[j];
    if ((o.causal && rel > 0) || (o.window > 0 && -rel >= o.window)) {
      s = neg_inf;
    }
    row[jj] = s;
    mx = s > mx ? s : mx;
  }
  for (; jj < nk_pad; ++jj) row[jj] = neg_inf;
  if (o.shaw_k) {
    const int64_t cl = o.shaw_clip;
    const float* qa = c.shaw_qa + r * (2 * cl + 1);
    for (size_t t = 0; t < nk; ++t) {
      int64_t rel = static_cast<int64_t>(j0 + t) - qpos;
      rel = rel < -cl ? -cl : (rel > cl ? cl : rel);
      row[t] += qa[rel + cl];
    }
    mx = neg_inf;
    for (size_t t = 0; t < nk; ++t) mx = row[t] > mx ? row[t] : mx;
  }
  return mx;
}

// Runs R (<= kRows) query rows i0..i0+R-1 of head c.h over their keys.
template <size_t R, size_t kD>
HWY_NOINLINE void AttendRows(const HeadContext& c, const float* q, size_t i0,
                             float* HWY_RESTRICT S, float* HWY_RESTRICT acc,
                             float* HWY_RESTRICT shaw_mass, float* out) {
  const AttentionOptions& o = *c.o;
  const size_t D = o.D, Tk = o.Tk;
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const int64_t q_first = static_cast<int64_t>(i0) + c.qoff;
  const int64_t q_last = q_first + static_cast<int64_t>(R) - 1;
  // Visible key range of the tile.
  int64_t j_begin = 0, j_end = static_cast<int64_t>(Tk);
  if (o.causal) j_end = q_last + 1 < j_end ? q_last + 1 : j_end;
  if (o.window > 0 && q_first - o.window + 1 > j_begin) {
    j_begin = q_first - o.window + 1;
  }
  j_begin -= j_begin % static_cast<int64_t>(N);  // vector-aligned start
  // Queries past the keys with a window can see none of them: an empty range
  // (and the weights' zero fill below stays inside the row).
  if (j_begin > j_end) j_begin = j_end;
  // Probability mass per Shaw distance bucket, for the value table (a key
  // table alone needs none).
  const size_t nshaw = o.shaw_v ? 2 * static_cast<size_t>(o.shaw_clip) + 1 : 0;
  float m[kRows], l[kRows];
  for (size_t r = 0; r < R; ++r) {
    m[r] = neg_inf;
    l[r] = 0.0f;
  }
  for (size_t e = 0; e < R * D; ++e) acc[e] = 0.0f;
  // The tile's queries times the scale, so logits need no multiply.
  float* qs = c.q_scaled;
  for (size_t e = 0; e < R * D; ++e) qs[e] = q[e] * c.scale;
  for (size_t e = 0; e < R * nshaw; ++e) shaw_mass[e] = 0.0f;

  // Two passes when weights are requested: the first finds m and l, the
  // second writes the normalised probabilities (exact, not online).
  for (int pass = 0; pass < (o.weights ? 2 : 1); ++pass) {
    for (int64_t j0 = j_begin; j0 < j_end; j0 += kKeys) {
      const size_t nk = static_cast<size_t>(
          j_end - j0 < static_cast<int64_t>(kKeys) ? j_end - j0 : kKeys);
      const size_t nk_pad = (nk + N - 1) / N * N;
      ScoreTile<R, kD>(qs, D, c.kp, static_cast<size_t>(j0), nk_pad, S);
      // Below the diagonal and full: the raw scores are the logits.
      const bool raw =
          c.plain && nk == nk_pad &&
          !(o.causal && j0 + static_cast<int64_t>(nk) - 1 > q_first);
      for (size_t r = 0; r < R; ++r) {
        float* row = S + r * kKeys;
        const int64_t qpos = q_first + static_cast<int64_t>(r);
        const float tile_max =
            raw ? RowMax(row, nk)
            : c.plain && o.causal && j_end == q_last + 1
                ? CausalLogits(qpos, static_cast<size_t>(j0), nk_pad, row)
                : FinishLogits(c, i0 + r, q_first + static_cast<int64_t>(r), r,
                               static_cast<size_t>(j0), nk, nk_pad, row);
        if (pass == 1) {  // exact probabilities with the final m and l
          float* w = o.weights + (c.h * o.Tq + i0 + r) * Tk + j0;
          for (size_t t = 0; t < nk; ++t) {
            w[t] = l[r] > 0.0f ? std::exp(row[t] - m[r]) / l[r] : 0.0f;
          }
          continue;
        }
        // The running max moves only when a tile exceeds it by more than
        // kMaxLag: otherwise numerators reach at most e^kMaxLag (no
        // overflow, same relative precision) and the rescale is skipped.
        const float m_new = tile_max > m[r] + kMaxLag ? tile_max : m[r];
        if (m_new == neg_inf) {  // nothing visible yet: p = 0
          for (size_t t = 0; t < nk_pad; ++t) row[t] = 0.0f;
          continue;
        }
        // 0 when m was -inf; exactly 1 (no exp call) when the max held.
        const float corr = m_new == m[r] ? 1.0f : std::exp(m[r] - m_new);
        l[r] = l[r] * corr + ExpRow(row, nk_pad, m_new);
        m[r] = m_new;
        if (corr != 1.0f) {
          const hn::Vec<decltype(d)> vc = hn::Set(d, corr);
          size_t e = 0;
          for (; e + N <= D; e += N) {
            float* a = acc + r * D + e;
            hn::StoreU(hn::Mul(hn::LoadU(d, a), vc), d, a);
          }
          for (; e < D; ++e) acc[r * D + e] *= corr;
          for (size_t e = 0; e < nshaw; ++e) shaw_mass[r * nshaw + e] *= corr;
        }
        if (nshaw) {
          const int64_t cl = o.shaw_clip;
          for (size_t t = 0; t < nk; ++t) {
            int64_t rel = j0 + static_cast<int64_t>(t) - q_first -
                          static_cast<int64_t>(r);
            rel = rel < -cl ? -cl : (rel > cl ? cl : rel);
            shaw_mass[r * nshaw + static_cast<size_t>(rel + cl)] += row[t];
          }
        }
      }
      if (pass == 0) {
        AccumulateTile<R, kD>(S, nk, c.v + static_cast<size_t>(j0) * D, D, acc);
      }
    }
  }
  // Weights of keys outside the visited range are exactly 0.
  if (o.weights) {
    for (size_t r = 0; r < R; ++r) {
      float* w = o.weights + (c.h * o.Tq + i0 + r) * Tk;
      // j_begin passes Tk when a windowed query lies beyond the keys.
      const int64_t before = j_begin < static_cast<int64_t>(Tk)
                                 ? j_begin
                                 : static_cast<int64_t>(Tk);
      for (int64_t j = 0; j < before; ++j) w[j] = 0.0f;
      for (int64_t j = j_end > 0 ? j_end : 0; j < static_cast<int64_t>(Tk);
           ++j) {
        w[j] = 0.0f;
      }
    }
  }
  for (size_t r = 0; r < R; ++r) {
    float* o_row = out + (c.h * o.Tq + i0 + r) * D;
    if (l[r] == 0.0f) {  // no visible key: exactly 0, even where a masked
      for (size_t e = 0; e < D; ++e) o_row[e] = 0.0f;  // v is inf or NaN
      continue;
    }
    const float inv = 1.0f / l[r];
    for (size_t e = 0; e < D; ++e) o_row[e] = acc[r * D + e] * inv;
    for (size_t b = 0; b < nshaw && o.shaw_v; ++b) {  // values optional
      const float w = shaw_mass[r * nshaw + b] * inv;
      for (size_t e = 0; e < D; ++e) o_row[e] += w * o.shaw_v[b * D + e];
    }
  }
}

// POSENC_ATTENTION_HEAD_DIM_TILES 0 builds only the runtime-head-dim tiles
// (AttendTile<0>): the wasm models module's copy of the ops leaves out the
// 64 and 128 ones (the shipped tiny models' heads are 8 and 16 wide; a model
// trained with heads of 64 or 128 runs the runtime-dim tiles there).
#ifndef POSENC_ATTENTION_HEAD_DIM_TILES
#define POSENC_ATTENTION_HEAD_DIM_TILES 1
#endif

// AttendRows for the R (1..kRows) rows of a tile, called through a table of
// function pointers on purpose: each AttendRows instance has one call site,
// and Binaryen (the optimiser behind emcc) inlines every single-caller
// function whatever its size or noinline attribute. All twelve instances
// then formed one function so large that V8 compiles it with its mid-tier
// register allocator, which spills the tile's accumulators to the stack on
// every loop iteration (17% of the wasm kernel's speed). An indirect call is
// never inlined, and costs one call per tile of rows.
template <size_t kD>
HWY_INLINE void AttendTile(size_t R, const HeadContext& c, const float* q,
                           size_t i0, float* S, float* acc, float* mass,
                           float* out) {
  using Fn = void (*)(const HeadContext&, const float*, size_t, float*, float*,
                      float*, float*);
  static constexpr Fn kAttend[kRows] = {&AttendRows<1, kD>, &AttendRows<2, kD>,
                                        &AttendRows<3, kD>, &AttendRows<4, kD>};
  kAttend[R - 1](c, q, i0, S, acc, mass, out);
}

// See AttentionKernel in attention.h.
HWY_NOINLINE void AttentionKernelImpl(const AttentionOptions& o, const float* q,
                                      const float* k, const float* v,
                                      float* out) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const size_t H = o.H, Hkv = o.Hkv, Tq = o.Tq, Tk = o.Tk, D = o.D;
  const size_t group = H / Hkv;
  const size_t kstride = o.k_head_stride ? o.k_head_stride : Tk * D;
  const size_t ld = (Tk + N - 1) / N * N + kKeys;  // padded key count
  const float neg_inf = -std::numeric_limits<float>::infinity();

  HeadContext c;
  c.o = &o;
  c.qoff = o.query_offset < 0
               ? static_cast<int64_t>(Tk) - static_cast<int64_t>(Tq)
               : o.query_offset;
  c.scale = o.scale != 0.0f ? o.scale : 1.0f / std::sqrt(static_cast<float>(D));

  std::vector<float> kp(D * ld, 0.0f);
  std::vector<float> mask_add(ld, 0.0f);
  if (o.key_mask) {
    for (size_t j = 0; j < Tk; ++j)
      mask_add[j] = o.key_mask[j] ? 0.0f : neg_inf;
  }
  c.mask_add = mask_add.data();
  // T5: bias by distance rel in [-(qoff + Tq - 1), Tk - 1 - min(qoff, 0)].
  std::vector<int32_t> t5_bucket;
  std::vector<float> t5_bias;
  c.t5 = nullptr;
  c.t5_zero = 0;
  if (o.t5_table) {
    const int64_t lo = -(c.qoff + static_cast<int64_t>(Tq) - 1) - 1;
    const int64_t hi = static_cast<int64_t>(Tk) - c.qoff + kKeys;
    c.t5_zero = -lo;
    t5_bucket.resize(static_cast<size_t>(hi - lo + 1));
    for (int64_t rel = lo; rel <= hi; ++rel) {
      t5_bucket[rel - lo] =
          T5Bucket(rel, o.t5_buckets, o.t5_max_distance, o.t5_bidirectional);
    }
    t5_bias.resize(t5_bucket.size());
  }
  const size_t nshaw = o.shaw_k ? 2 * static_cast<size_t>(o.shaw_clip) + 1 : 0;
  std::vector<float> S(kRows * kKeys), acc(kRows * D), qa(kRows * nshaw + 1),
      mass(kRows * nshaw + 1);
  c.shaw_qa = qa.data();
  c.plain = !o.alibi_slopes && !o.key_mask && !o.t5_table && !o.bias &&
            o.window <= 0 && !o.shaw_k;
  std::vector<float> q_scaled(kRows * D);
  c.q_scaled = q_scaled.data();

  for (size_t g = 0; g < Hkv; ++g) {
    const float* kg = k + g * kstride;
    for (size_t j = 0; j < Tk; ++j) {
      float* dst = kp.data() + (j / N) * D * N + j % N;
      for (size_t dd = 0; dd < D; ++dd) dst[dd * N] = kg[j * D + dd];
    }
    c.kp = kp.data();
    c.v = v + g * kstride;
    for (size_t h = g * group; h < (g + 1) * group; ++h) {
      c.h = h;
      c.slope = o.alibi_slopes ? o.alibi_slopes[h] : 0.0f;
      if (o.t5_table) {
        for (size_t e = 0; e < t5_bucket.size(); ++e) {
          t5_bias[e] = o.t5_table[static_cast<size_t>(t5_bucket[e]) * H + h];
        }
        c.t5 = t5_bias.data();
      }
      const float* qh = q + h * Tq * D;
      for (size_t i0 = 0; i0 < Tq; i0 += kRows) {
        const size_t R = Tq - i0 < kRows ? Tq - i0 : kRows;
        if (nshaw) {  // q_r . aK[b] * scale for the tile's rows
          for (size_t r = 0; r < R; ++r) {
            for (size_t b = 0; b < nshaw; ++b) {
              float sum = 0.0f;
              for (size_t e = 0; e < D; ++e) {
                sum += qh[(i0 + r) * D + e] * o.shaw_k[b * D + e];
              }
              qa[r * nshaw + b] = sum * c.scale;
            }
          }
        }
        const float* qt = qh + i0 * D;
        switch (D) {  // head dims 64 and 128 get compile-time tiles
#if POSENC_ATTENTION_HEAD_DIM_TILES
          case 64:
            AttendTile<64>(R, c, qt, i0, S.data(), acc.data(), mass.data(),
                           out);
            break;
          case 128:
            AttendTile<128>(R, c, qt, i0, S.data(), acc.data(), mass.data(),
                            out);
            break;
#endif
          default:
            AttendTile<0>(R, c, qt, i0, S.data(), acc.data(), mass.data(), out);
        }
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_OPS_ATTENTION_INL_H_
