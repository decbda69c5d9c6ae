// T5 relative position bias (Raffel et al. 2020), matching Hugging Face
// `T5Attention._relative_position_bucket` / `compute_bias`.
// Shapes: B = num buckets, H = heads, Q = query length, K = key length.
#ifndef POSENC_OPS_T5_H_
#define POSENC_OPS_T5_H_

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace posenc {

// The defaults of Hugging Face's T5Config (relative_attention_num_buckets,
// relative_attention_max_distance), the only place they are written.
inline constexpr int32_t kT5NumBuckets = 32;
inline constexpr int32_t kT5MaxDistance = 128;

// B >= 4 (bidirectional) or >= 2 (causal) so that max_exact >= 1, and
// max_distance > max_exact, so no log(0) or log of a ratio <= 1 is formed.
// The messages name the parameters with `path` in front (e.g. "t5.").
Status ValidateT5Buckets(int64_t num_buckets, int64_t max_distance,
                         bool bidirectional, const char* path = "");

// Bucket of rel = key_pos - query_pos. Bidirectional: B/2 buckets per sign
// (+B/2 for rel > 0), n = |rel|; causal: n = max(-rel, 0). max_exact = B'/2
// (B' the buckets for this sign); n < max_exact is its own bucket, larger n
// fall in log-spaced buckets capped at B' - 1. The log term is evaluated only
// for n >= max_exact >= 1, in float32 as the reference does.
int32_t T5Bucket(int64_t rel, int32_t num_buckets, int32_t max_distance,
                 bool bidirectional);

// out: [Q, K] buckets for query positions q_offset + i and key positions j.
Status ValidateT5Shape(int64_t Q, int64_t K, int64_t q_offset);
void T5Buckets(size_t Q, size_t K, int64_t q_offset, int32_t num_buckets,
               int32_t max_distance, bool bidirectional, int32_t* out);

// out: [H, Q, K] = table[bucket(i, j), h] with table: [B, H].
void T5Bias(const float* table, size_t H, const int32_t* buckets, size_t Q,
            size_t K, float* out);

}  // namespace posenc

#endif  // POSENC_OPS_T5_H_
