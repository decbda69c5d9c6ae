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
#include <vector>

#include "ops/rope_apply.h"
#include "ops/status.h"

namespace posenc {

struct AttentionRope {
  bool enabled = false;
  RopeFrequencyConfig freq;  // head_dim must equal D
  RopeLayout layout = RopeLayout::kHalf;
  // Positions: explicit [Tq] / [Tk], or derived: keys j -> j (or, with a key
  // mask and positions_from_mask, cumsum(mask) - 1), queries -> the position
  // of key slot qpos(i); past the keys, positions go on from the last key's
  // (from the number of real keys with positions_from_mask).
  const int32_t* q_positions = nullptr;
  const int32_t* k_positions = nullptr;
  bool positions_from_mask = false;
  bool rotate_k = true;  // false when k comes from a cache (already rotated)
  bool xpos = false;
  double xpos_scale_base = 512.0;
};

struct AttentionOptions {
  size_t H = 0, Hkv = 0, Tq = 0, Tk = 0, D = 0;
  size_t k_head_stride = 0;  // elements between kv heads; 0 = Tk * D
  float scale = 0.0f;        // 0 = 1/sqrt(D)
  bool causal = true;
  int64_t query_offset = -1;            // -1 = Tk - Tq
  int64_t window = 0;                   // 0 = no sliding window
  const uint8_t* key_mask = nullptr;    // [Tk], nonzero = real token
  const float* alibi_slopes = nullptr;  // [H]
  // T5: table [B, H] and bucket settings.
  const float* t5_table = nullptr;
  int32_t t5_buckets = 32;
  int32_t t5_max_distance = 128;
  bool t5_bidirectional = false;
  // Shaw: tables [2 clip + 1, D].
  const float* shaw_k = nullptr;
  const float* shaw_v = nullptr;
  int32_t shaw_clip = 0;
  const float* bias = nullptr;  // [H, Tq, Tk]
  AttentionRope rope;
  float* weights = nullptr;  // [H, Tq, Tk] output, optional
};

Status ValidateAttention(const AttentionOptions& o);

// out: [H, Tq, D]. Validates, rotates (RoPE/xPos) into scratch, runs the
// kernel. q, k, v are not modified.
Status Attention(const AttentionOptions& o, const float* q, const float* k,
                 const float* v, float* out);

// Positions used for RoPE (exposed for the KV cache and tests).
void AttentionPositions(const AttentionOptions& o, std::vector<int32_t>* qpos,
                        std::vector<int32_t>* kpos);

// The kernel itself on already-rotated q and k (no validation). Dispatched
// once per call to the best Highway target.
void AttentionKernel(const AttentionOptions& o, const float* q, const float* k,
                     const float* v, float* out);

}  // namespace posenc

#endif  // POSENC_OPS_ATTENTION_H_
