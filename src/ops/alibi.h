// ALiBi (Press et al. 2022): a per-head linear bias on attention logits.
// Shapes: H = heads, Q = query length, K = key length (Q <= K; queries are the
// last Q of the K positions, so query i sits at position i + K - Q).
#ifndef POSENC_OPS_ALIBI_H_
#define POSENC_OPS_ALIBI_H_

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace posenc {

enum class AlibiSlopes : int {
  // The paper's rule: n a power of two -> m_h = 2^(-8(h+1)/n); otherwise the
  // slopes for c = 2^floor(log2 n), then every other slope of the 2c set.
  kPaper = 0,
  // The seed article's teaching simplification: m_h = 1 / 2^h, h = 0..n-1.
  kSimple = 1,
};
constexpr int kNumAlibiSlopes = 2;
// "paper", "simple" ("invalid" out of range).
const char* AlibiSlopesName(AlibiSlopes variant);

Status ValidateAlibi(int64_t H, AlibiSlopes variant);
// slopes: [H], computed in double, rounded once.
void AlibiSlopeValues(size_t H, AlibiSlopes variant, float* slopes);

// out: [K] = bias row for query position qpos:
//   causal:        -m (qpos - j) for j <= qpos, -Infinity for j > qpos
//   bidirectional: -m |qpos - j|   (not defined by the paper; posenc's option)
void AlibiBiasRow(float slope, int64_t qpos, size_t K, bool causal, float* out);
void AlibiBiasRowScalar(float slope, int64_t qpos, size_t K, bool causal,
                        float* out);

// out: [H, Q, K], rows as above with qpos = i + K - Q.
Status ValidateAlibiBias(int64_t H, int64_t Q, int64_t K);
void AlibiBias(const float* slopes, size_t H, size_t Q, size_t K, bool causal,
               float* out);

}  // namespace posenc

#endif  // POSENC_OPS_ALIBI_H_
