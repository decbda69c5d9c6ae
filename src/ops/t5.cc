#include "ops/t5.h"

#include <cmath>
#include <vector>

namespace posenc {

Status ValidateT5Buckets(int64_t num_buckets, int64_t max_distance,
                         bool bidirectional, const char* path) {
  const int64_t min_buckets = bidirectional ? 4 : 2;
  if (num_buckets < min_buckets || num_buckets > 65536) {
    return Status::Invalid(StrCat(path, "numBuckets must be an integer in [",
                                  min_buckets, ", 65536], got ", num_buckets,
                                  " (when bidirectional is ",
                                  bidirectional ? "true" : "false", ")"));
  }
  const int64_t per_sign = bidirectional ? num_buckets / 2 : num_buckets;
  const int64_t max_exact = per_sign / 2;
  if (max_distance <= max_exact || max_distance > (int64_t{1} << 30)) {
    return Status::Invalid(StrCat(
        path, "maxDistance must be an integer in [", max_exact + 1,
        ", 1073741824], got ", max_distance, " (more than the exact buckets)"));
  }
  return Status::Ok();
}

int32_t T5Bucket(int64_t rel, int32_t num_buckets, int32_t max_distance,
                 bool bidirectional) {
  int32_t bucket = 0;
  int32_t nb = num_buckets;
  int64_t n;
  if (bidirectional) {
    nb /= 2;
    if (rel > 0) bucket += nb;
    n = rel < 0 ? -rel : rel;
  } else {
    n = rel < 0 ? -rel : 0;
  }
  const int32_t max_exact = nb / 2;
  if (n < max_exact) return bucket + static_cast<int32_t>(n);
  // n >= max_exact >= 1 here: the log argument is >= 1.
  const float scaled =
      std::log(static_cast<float>(n) / static_cast<float>(max_exact)) /
      static_cast<float>(
          std::log(static_cast<double>(max_distance) / max_exact)) *
      static_cast<float>(nb - max_exact);
  // Cap before converting: the value is finite and >= 0, and anything at or
  // past the last bucket maps to it (no out-of-range float-to-int cast).
  const float last = static_cast<float>(nb - 1 - max_exact);
  const int32_t large =
      scaled >= last ? nb - 1 : max_exact + static_cast<int32_t>(scaled);
  return bucket + large;
}

Status ValidateT5Shape(int64_t Q, int64_t K, int64_t q_offset) {
  if (Q < 0)
    return Status::Invalid(StrCat("queryLength must be >= 0, got ", Q));
  if (K < 0) return Status::Invalid(StrCat("keyLength must be >= 0, got ", K));
  if (q_offset < 0 || q_offset > (int64_t{1} << 30)) {
    return Status::Invalid(StrCat(
        "queryOffset must be an integer in [0, 1073741824], got ", q_offset));
  }
  return Status::Ok();
}

void T5Buckets(size_t Q, size_t K, int64_t q_offset, int32_t num_buckets,
               int32_t max_distance, bool bidirectional, int32_t* out) {
  if (Q == 0 || K == 0) return;
  // The bucket depends only on rel = j - (q_offset + i), which takes
  // Q + K - 1 values: each is computed once (one log each, not Q K), and
  // row i is the run of them starting at rel = -(q_offset + i).
  const int64_t rel_min = -(q_offset + static_cast<int64_t>(Q) - 1);
  std::vector<int32_t> by_rel(Q + K - 1);
  for (size_t e = 0; e < by_rel.size(); ++e) {
    by_rel[e] = T5Bucket(rel_min + static_cast<int64_t>(e), num_buckets,
                         max_distance, bidirectional);
  }
  for (size_t i = 0; i < Q; ++i) {
    const int32_t* row = by_rel.data() + (Q - 1 - i);
    for (size_t j = 0; j < K; ++j) out[i * K + j] = row[j];
  }
}

void T5Bias(const float* table, size_t H, const int32_t* buckets, size_t Q,
            size_t K, float* out) {
  for (size_t h = 0; h < H; ++h) {
    for (size_t e = 0; e < Q * K; ++e) {
      out[h * Q * K + e] = table[static_cast<size_t>(buckets[e]) * H + h];
    }
  }
}

}  // namespace posenc
