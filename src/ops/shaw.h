// Relative position representations (Shaw et al. 2018).
// a_ij = w[clip(j - i, -k, k) + k]; logits e_ij = q_i . (k_j + aK_ij) * scale;
// z_i = sum_j p_ij (v_j + aV_ij). When Q < K, queries are the last Q key
// positions (query i sits at i + K - Q).
// Shapes: Q, K lengths, D head dim, c = clip distance k, R = 2c + 1 rows.
#ifndef POSENC_OPS_SHAW_H_
#define POSENC_OPS_SHAW_H_

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace posenc {

Status ValidateShaw(int64_t Q, int64_t K, int64_t clip);

// out: [Q, K] table row index clip(j - i, -c, c) + c.
void ShawIndices(size_t Q, size_t K, int32_t clip, int32_t* out);

// logits: [Q, K] = (q[i] . (k[j] + table_k[idx(i, j)])) * scale.
// q: [Q, D], k: [K, D], table_k: [2c + 1, D].
void ShawLogits(const float* q, const float* k, const float* table_k, size_t Q,
                size_t K, size_t D, int32_t clip, float scale, float* logits);

// out: [Q, D] = sum_j probs[i, j] (v[j] + table_v[idx(i, j)]).
// probs: [Q, K], v: [K, D], table_v: [2c + 1, D].
void ShawValues(const float* probs, const float* v, const float* table_v,
                size_t Q, size_t K, size_t D, int32_t clip, float* out);

}  // namespace posenc

#endif  // POSENC_OPS_SHAW_H_
