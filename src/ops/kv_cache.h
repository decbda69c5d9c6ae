// A key/value cache for incremental decoding. Keys are stored after RoPE /
// xPos at their true positions (past_len + t, or explicit), values as given;
// attending a new query runs the attention kernel over everything cached.
// Re-rotating the cache by a position delta (cache shift, attention sinks)
// is a pure rotation: no attention factor is applied again.
//
// Dynamic NTK / LongRoPE: like Hugging Face, keys are rotated with the
// frequencies in force when they were appended (the context length is the
// longest position appended so far); they are not re-rotated when a longer
// context changes the frequencies, so cached and uncached results differ
// once positions pass the threshold (transformers issue 25104).
// `consistent` mode keeps an unrotated copy of the keys and rotates all of
// them again (from that copy, so no error accumulates) whenever the context
// length changes their frequencies: cached decoding then equals the
// uncached pass at every length, for twice the key memory.
//
// Shapes: Hkv kv heads, D head dim, storage [Hkv, capacity, D].
#ifndef POSENC_OPS_KV_CACHE_H_
#define POSENC_OPS_KV_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "ops/attention.h"

namespace posenc {

class KvCache {
 public:
  // rope.enabled selects RoPE/xPos for keys (and, in Attend, queries);
  // positions pointers in `rope` are ignored.
  static Status Validate(size_t Hkv, size_t D, const AttentionRope& rope);
  KvCache(size_t Hkv, size_t D, const AttentionRope& rope,
          bool consistent = false);

  // k, v: [Hkv, Tn, D]; positions: [Tn] or null (length() + t).
  Status Append(const float* k, const float* v, size_t Tn,
                const int32_t* positions);

  // q: [H, Tq, D] -> out: [H, Tq, D] over all cached keys. `o` supplies H,
  // Tq, masks and bias encodings (its Hkv, Tk, D and rope are ignored);
  // queries are the last Tq cached tokens unless o.query_offset is set, and
  // are rotated at those tokens' positions (or q_positions: [Tq]).
  Status Attend(const AttentionOptions& o, const float* q,
                const int32_t* q_positions, float* out) const;

  // Rotates every cached key by `delta` positions.
  Status Shift(int32_t delta);

  size_t kv_heads() const { return Hkv_; }
  size_t head_dim() const { return D_; }
  size_t length() const { return length_; }
  size_t capacity() const { return capacity_; }
  const std::vector<int32_t>& positions() const { return positions_; }
  // True when keys are rotated again as the context grows (consistent mode
  // with a dynamic / longrope scaling and no explicit context length).
  bool rerotates() const { return rerotate_; }

 private:
  void Reserve(size_t tokens);
  // Rotates the raw keys of slots [t0, length_) into k_ for `context`.
  Status RotateFromRaw(size_t t0, int64_t context);

  size_t Hkv_, D_;
  AttentionRope rope_;
  size_t length_ = 0, capacity_ = 0;
  std::vector<float> k_, v_;  // [Hkv, capacity, D]
  std::vector<int32_t> positions_;
  bool rerotate_ = false;
  std::vector<float> raw_k_;  // [Hkv, capacity, D] when rerotate_
  int64_t context_ = 0;       // the context length k_ is rotated for
};

}  // namespace posenc

#endif  // POSENC_OPS_KV_CACHE_H_
