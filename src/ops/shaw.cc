#include "ops/shaw.h"

namespace posenc {

Status ValidateShaw(int64_t Q, int64_t K, int64_t clip) {
  if (Q < 0)
    return Status::Invalid(StrCat("queryLength must be >= 0, got ", Q));
  if (K < 0) return Status::Invalid(StrCat("keyLength must be >= 0, got ", K));
  if (Q > K) {
    return Status::Invalid(StrCat("queryLength (", Q,
                                  ") must not exceed keyLength (", K,
                                  "): queries are the last positions"));
  }
  if (clip < 0 || clip > (1 << 20)) {
    return Status::Invalid(
        StrCat("clip must be an integer in [0, 2^20], got ", clip));
  }
  return Status::Ok();
}

namespace {
inline size_t ShawIndex(size_t i, size_t j, size_t Q, size_t K, int64_t c) {
  int64_t rel = static_cast<int64_t>(j) - static_cast<int64_t>(i + K - Q);
  rel = rel < -c ? -c : (rel > c ? c : rel);
  return static_cast<size_t>(rel + c);
}
}  // namespace

void ShawIndices(size_t Q, size_t K, int32_t clip, int32_t* out) {
  for (size_t i = 0; i < Q; ++i) {
    for (size_t j = 0; j < K; ++j) {
      out[i * K + j] = static_cast<int32_t>(ShawIndex(i, j, Q, K, clip));
    }
  }
}

void ShawLogits(const float* q, const float* k, const float* table_k, size_t Q,
                size_t K, size_t D, int32_t clip, float scale, float* logits) {
  for (size_t i = 0; i < Q; ++i) {
    for (size_t j = 0; j < K; ++j) {
      const float* a = table_k + ShawIndex(i, j, Q, K, clip) * D;
      float sum = 0.0f;
      for (size_t e = 0; e < D; ++e)
        sum += q[i * D + e] * (k[j * D + e] + a[e]);
      logits[i * K + j] = sum * scale;
    }
  }
}

void ShawValues(const float* probs, const float* v, const float* table_v,
                size_t Q, size_t K, size_t D, int32_t clip, float* out) {
  for (size_t i = 0; i < Q; ++i) {
    float* o = out + i * D;
    for (size_t e = 0; e < D; ++e) o[e] = 0.0f;
    for (size_t j = 0; j < K; ++j) {
      const float p = probs[i * K + j];
      const float* a = table_v + ShawIndex(i, j, Q, K, clip) * D;
      for (size_t e = 0; e < D; ++e) o[e] += p * (v[j * D + e] + a[e]);
    }
  }
}

}  // namespace posenc
