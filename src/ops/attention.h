// Causal / bidirectional attention with every positional encoding fused in:
//   O = softmax(Q K^T * scale + bias + mask) V     (per head)
// tiled with an online softmax (flash-attention style), so working memory is
// O(T * D), never O(T^2), unless the caller asks for the weights.
//
// Shapes: H query heads, Hkv key/value heads (Hkv divides H: grouped-query
// and multi-query attention), Tq queries, Tk keys, D head dim.
//   q: [H, Tq, D]   k, v: [Hkv, Tk, D] (head stride may be larger: a cache)
//   out: [H, Tq, D]  weights (optional): [H, Tq, Tk]
// Query i sits at index qpos(i) = i + query_offset in the key sequence
// (default Tk - Tq: queries are the last Tq tokens). Relative encodings and
// masks use rel = j - qpos(i):
//   causal:   key j visible iff rel <= 0
//   window W: key j visible iff -rel < W (and the causal rule, if causal)
//   key mask: key j visible iff key_mask[j] != 0
//   ALiBi:    + slope_h * rel              (= -m (i - j) for visible keys)
//   T5:       + table[bucket(rel), h]      (scale is usually 1 for T5)
//   Shaw:     + scale * q_i . aK[clip(rel)]; out += sum_j p_ij aV[clip(rel)]
//   bias:     + bias[h, i, j] (any additive bias, e.g. a materialised mask)
// RoPE / xPos rotate q and k before the product (keys at their positions,
// queries at theirs). A row with no visible key outputs zeros (never NaN).
#ifndef POSENC_OPS_ATTENTION_H_
#define POSENC_OPS_ATTENTION_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "base/fields.h"
#include "base/status.h"
#include "ops/rope_apply.h"
#include "ops/t5.h"
#include "ops/xpos.h"

namespace posenc {

// RoPE / xPos inside attention. Positions: explicit [Tq] / [Tk] ([3, Tq] /
// [3, Tk] with M-RoPE: freq.mrope_section), or
// derived: keys j -> j (or, with a key mask and positions_from_mask,
// cumsum(mask) - 1), queries -> the position of key slot qpos(i); past the
// keys, positions go on from the last key's (from the number of real keys
// with positions_from_mask). The fields JS sets, as a field list
// (base/fields.h); head_dim of freq must equal D.
#define POSENC_ATTENTION_ROPE_FIELDS(X)                                \
  X(bool, enabled, enabled, Plain, false)                              \
  X(RopeFrequencyConfig, freq, freq, Plain, {})                        \
  X(RopeLayout, layout, layout, EnumName, RopeLayout::kHalf)           \
  X(const int32_t*, q_positions, queryPositions, Address, nullptr)     \
  X(const int32_t*, k_positions, keyPositions, Address, nullptr)       \
  X(bool, positions_from_mask, positionsFromPadding, Plain, false)     \
  X(bool, xpos, xpos, Plain, false)                                    \
  X(double, xpos_scale_base, xposScaleBase, Plain, kXposScaleBase)     \
  /* dynamic / longrope: the context length q and k share; -1 = the */ \
  /* longest position the call rotates, + 1 */                         \
  X(int64_t, context_length, contextLength, Plain, -1)

struct AttentionRope {
  POSENC_ATTENTION_ROPE_FIELDS(POSENC_DECLARE_FIELD)
  // false when k comes from a cache (already rotated); set in C++ only.
  bool rotate_k = true;
};

// The fields JS sets (base/fields.h): sizes, scale (0 = 1/sqrt(D)), masks,
// the encodings' tables (T5: table [B, H]; Shaw: tables [2 clip + 1, D];
// bias: [H, Tq, Tk]) and the optional weights output [H, Tq, Tk].
#define POSENC_ATTENTION_FIELDS(X)                                           \
  X(size_t, H, heads, Plain, 0)                                              \
  X(size_t, Hkv, kvHeads, Plain, 0)                                          \
  X(size_t, Tq, queryLength, Plain, 0)                                       \
  X(size_t, Tk, keyLength, Plain, 0)                                         \
  X(size_t, D, headDim, Plain, 0)                                            \
  X(float, scale, scale, Plain, 0.0f)                                        \
  X(bool, causal, causal, Plain, true)                                       \
  X(int64_t, query_offset, queryOffset, Plain, -1)       /* -1 = Tk - Tq */  \
  X(int64_t, window, window, Plain, 0)                   /* 0 = no window */ \
  X(const uint8_t*, key_mask, keyMask, Address, nullptr) /* != 0: real */    \
  X(const float*, alibi_slopes, alibiSlopes, Address, nullptr) /* [H] */     \
  X(const float*, t5_table, t5Table, Address, nullptr)                       \
  X(int32_t, t5_buckets, t5Buckets, Plain, kT5NumBuckets)                    \
  X(int32_t, t5_max_distance, t5MaxDistance, Plain, kT5MaxDistance)          \
  X(bool, t5_bidirectional, t5Bidirectional, Plain, false)                   \
  X(const float*, shaw_k, shawK, Address, nullptr)                           \
  X(const float*, shaw_v, shawV, Address, nullptr)                           \
  X(int32_t, shaw_clip, shawClip, Plain, 0)                                  \
  X(const float*, bias, bias, Address, nullptr)                              \
  X(AttentionRope, rope, rope, Plain, {})                                    \
  X(float*, weights, weights, Address, nullptr)

struct AttentionOptions {
  POSENC_ATTENTION_FIELDS(POSENC_DECLARE_FIELD)
  // Elements between kv heads; 0 = Tk * D (a cache sets more). C++ only.
  size_t k_head_stride = 0;
};

Status ValidateAttention(const AttentionOptions& o);

// out: [H, Tq, D]. Validates, rotates (RoPE/xPos) into scratch, runs the
// kernel. q, k, v are not modified.
Status Attention(const AttentionOptions& o, const float* q, const float* k,
                 const float* v, float* out);

// Positions used for RoPE (exposed for the KV cache and tests): [Tq] and
// [Tk], or [3, Tq] and [3, Tk] with M-RoPE.
void AttentionPositions(const AttentionOptions& o, std::vector<int32_t>* qpos,
                        std::vector<int32_t>* kpos);

// A run of positions a rotation's context length covers: data [n].
struct PositionRun {
  const int32_t* data;
  size_t n;
};

// The op options that rotate x [heads, n, D] by `rope` at `positions` ([n],
// or [3, n] with M-RoPE; keys take xPos's inverse scale), with the one
// context length (dynamic / longrope) every rotation of a call shares:
// rope.context_length when set, else max(at_least, the largest position of
// `seen` + 1). Attention, the KV cache and the model's decoder all rotate
// through it, so q and k always see the same frequencies.
RopeApplyOptions RotationOf(const AttentionRope& rope, size_t heads, size_t n,
                            const int32_t* positions, bool key,
                            std::initializer_list<PositionRun> seen,
                            int64_t at_least = 0);

// The kernel itself on already-rotated q and k (no validation). Dispatched
// once per call to the best Highway target.
void AttentionKernel(const AttentionOptions& o, const float* q, const float* k,
                     const float* v, float* out);

}  // namespace posenc

#endif  // POSENC_OPS_ATTENTION_H_
