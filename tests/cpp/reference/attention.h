// float64 reference of attention with every positional encoding
// (src/ops/attention.h semantics, docs/formulas.md#attention-kernel): causal,
// sliding window, key mask, grouped-query heads, ALiBi, T5, Shaw, additive
// bias, RoPE / xPos inside attention. Every logit is materialised; nothing is
// tiled. Positions are derived from the options here, from their documented
// meaning, never by calling the code under test.
#ifndef POSENC_TESTS_CPP_REFERENCE_ATTENTION_H_
#define POSENC_TESTS_CPP_REFERENCE_ATTENTION_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ops/attention.h"

namespace posenc {
namespace ref {

// Token slot of query i: i + query_offset (default Tk - Tq).
int64_t QuerySlot(const AttentionOptions& o, size_t i);

// RoPE positions of the call (attention.h, docs/formulas.md "Positions,
// padding and the KV cache"): explicit ones as given; otherwise every token
// slot gets one, walking the sequence from slot 0: keys are at their slot
// (or, with positions_from_mask and a key mask, at the number of real tokens
// before them, pads at 1); slots past the keys hold real tokens continuing
// from the slot before. A query takes the position of its slot.
struct AttentionPositions {
  std::vector<int64_t> q;  // [Tq]
  std::vector<int64_t> k;  // [Tk]
};
AttentionPositions Positions(const AttentionOptions& o);

// q: [H, Tq, D], k: [Hkv, Tk, D] rotated by o.rope at `pos` (k only when
// rotate_k) with one context for both: the longest position rotated + 1.
// Unrotated copies when RoPE is off.
struct RotatedQK {
  std::vector<double> q;  // [H, Tq, D]
  std::vector<double> k;  // [Hkv, Tk, D]
};
RotatedQK RotateQK(const AttentionOptions& o, const std::vector<float>& q,
                   const std::vector<float>& k, const AttentionPositions& pos);

// Whether query i of head h sees key j: the causal rule, the window, the key
// mask, and a -inf entry of the additive bias.
bool Visible(const AttentionOptions& o, size_t h, size_t i, size_t j);

struct AttentionResult {
  std::vector<double> out;      // [H, Tq, D]; rows without a visible key 0
  std::vector<double> weights;  // [H, Tq, Tk]; 0 for keys not visible
  // Per row [H, Tq], for the callers' tolerances:
  std::vector<size_t> visible_keys;
  // max over visible keys of the sum of |terms| of the logit (scale |q_e k_e|
  // summed, Shaw's likewise, |ALiBi|, |T5|, |bias|)
  std::vector<double> logit_mag;
  std::vector<double> value_max;      // max |v + aV| over visible keys
  std::vector<double> value_abs_max;  // max |v| + |aV| over visible keys
  // a visible key's T5 bucket sits on a float32 rounding edge (the reference
  // used the exact-math bucket, T5BucketRange::hi)
  std::vector<uint8_t> t5_edge;
};

// Attention over already-rotated qr: [H, Tq, D] and kr: [Hkv, Tk, D] with
// v: [Hkv, Tk, D]. rows: the query rows to compute (every row if null);
// weights are filled only when with_weights.
AttentionResult AttentionOnRotated(const AttentionOptions& o,
                                   const std::vector<double>& qr,
                                   const std::vector<double>& kr,
                                   const std::vector<float>& v,
                                   const std::vector<size_t>* rows = nullptr,
                                   bool with_weights = true);

// The whole call: positions, rotation, kernel. q: [H, Tq, D], k, v:
// [Hkv, Tk, D] (contiguous heads; o.k_head_stride is ignored).
AttentionResult Attention(const AttentionOptions& o,
                          const std::vector<float>& q,
                          const std::vector<float>& k,
                          const std::vector<float>& v,
                          const std::vector<size_t>* rows = nullptr,
                          bool with_weights = true);

}  // namespace ref
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_REFERENCE_ATTENTION_H_
