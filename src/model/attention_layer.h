// Multi-head attention of the training path, forward and backward, with
// every positional term the tiny models use (RoPE / xPos are applied to q
// and k before; ALiBi, T5 and Shaw here). Attention is materialised per
// head: P [H, T, T] is kept for the backward pass and the page's maps.
//
//   S_ij = scale q_i . k_j + bias_ij, bias_ij = (ALiBi row of head h)
//          (+ scale q_i . aK[idx(i, j)], Shaw) (+ t5[bucket(i, j), h])
//          summed first, in that order, when several are present
//          (causal: keys j > i masked)
//   P = softmax_j(S);  O_i = sum_j P_ij (v_j + aV[idx(i, j)])
//
// Every product goes through MatMulAcc (matmul.h), so the sums are taken in
// an order that does not depend on the vector width: the same bits on
// every target. Heads are column slices of [T, C] (C = H Dh).
#ifndef POSENC_MODEL_ATTENTION_LAYER_H_
#define POSENC_MODEL_ATTENTION_LAYER_H_

#include <cstddef>
#include <cstdint>

namespace posenc {

struct AttentionLayerShape {
  size_t T = 0;   // tokens
  size_t H = 0;   // heads
  size_t Dh = 0;  // head dim; C = H Dh
  bool causal = true;
  float scale = 1.0f;
};

// The positional terms (null / 0 when absent).
struct AttentionTerms {
  const float* alibi_slopes = nullptr;  // [H]; a 0 slope adds nothing
  const float* t5_table = nullptr;      // [buckets, H]
  const int32_t* t5_bucket = nullptr;   // [T, T]
  const float* shaw_k = nullptr;        // [R, Dh], R = 2 clip + 1
  const float* shaw_v = nullptr;        // [R, Dh]
  const int32_t* shaw_idx = nullptr;    // [T, T] rows of the Shaw tables
  size_t shaw_rows = 0;                 // R
};

// qr, kr: [T, C] rotated queries / keys (what the dot products see); q:
// [T, C] unrotated queries (Shaw's term); v: [T, C]. p: [H, T, T] out; att:
// [T, C] out (overwritten).
void AttentionForward(const AttentionLayerShape& s, const AttentionTerms& e,
                      const float* qr, const float* kr, const float* q,
                      const float* v, float* p, float* att);

// Gradients of the forward above, accumulated (+=): datt [T, C] in; dqr,
// dkr: [T, C] (through the rotated q, k); dq: [T, C] (Shaw's term, through
// the unrotated q); dv: [T, C]; d_t5 [buckets, H], d_shaw_k, d_shaw_v
// [R, Dh] when the term is present.
struct AttentionGrads {
  float* dqr = nullptr;
  float* dkr = nullptr;
  float* dq = nullptr;
  float* dv = nullptr;
  float* d_t5 = nullptr;
  float* d_shaw_k = nullptr;
  float* d_shaw_v = nullptr;
};
void AttentionBackward(const AttentionLayerShape& s, const AttentionTerms& e,
                       const float* qr, const float* kr, const float* q,
                       const float* v, const float* p, const float* datt,
                       const AttentionGrads& g);

}  // namespace posenc

#endif  // POSENC_MODEL_ATTENTION_LAYER_H_
