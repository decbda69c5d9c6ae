// The Embind surface of the core module (posenc-<flavour>): the encodings,
// attention and the KV cache. It translates arguments into core calls and
// nothing more: every function returns "" on success or the core's error
// message, which the TypeScript loader (bindings/ts/heap.ts) turns into a
// RangeError. The core validates every value again, and every output buffer
// comes with its capacity (codecs.h), so a call that bypasses the TypeScript
// checks still cannot read or write out of bounds.
#include <emscripten/bind.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "base/targets.h"
#include "codecs.h"
#include "ops/alibi.h"
#include "ops/attention.h"
#include "ops/encoding.h"
#include "ops/kv_cache.h"
#include "ops/learned.h"
#include "ops/rope.h"
#include "ops/rope_apply.h"
#include "ops/rope_frequencies.h"
#include "ops/shaw.h"
#include "ops/sinusoidal.h"
#include "ops/t5.h"
#include "ops/xpos.h"

namespace posenc {
namespace {

// Every struct declared from a field list that crosses into this module:
// X(struct, its list).
#define POSENC_CORE_STRUCTS(X)                      \
  X(RopeScaling, POSENC_ROPE_SCALING_FIELDS)        \
  X(RopeFrequencyConfig, POSENC_ROPE_CONFIG_FIELDS) \
  X(RopeApplyOptions, POSENC_ROPE_APPLY_FIELDS)     \
  X(AttentionRope, POSENC_ATTENTION_ROPE_FIELDS)    \
  X(AttentionOptions, POSENC_ATTENTION_FIELDS)

// The contract of the structs that cross the boundary, as
// tests/ts/contract.test.ts reads it: "jsName jsType" per field, in order
// ("" for a name that is not one of them).
std::string ContractJs(const std::string& name) {
  POSENC_CORE_STRUCTS(POSENC_DESCRIBE_STRUCT)
  return "";
}

// The name table the parser of `list` reads (or that the enum index the
// loader sends refers to), one name per line; "" for an unknown list.
// bindings/ts/names.ts must hold the same names in the same order
// (tests/ts/names.test.ts).
std::string NamesJs(const std::string& list) {
  if (list == "encoding") return NameLines(EncodingName, kNumEncodings);
  if (list == "ropeLayout") return NameLines(RopeLayoutName, kNumRopeLayouts);
  if (list == "ropeScaling") {
    return NameLines(RopeScalingTypeName, kNumRopeScalingTypes);
  }
  if (list == "sinusoidalLayout") {
    return NameLines(SinusoidalLayoutName, kNumSinusoidalLayouts);
  }
  if (list == "alibiVariant") {
    return NameLines(AlibiSlopesName, kNumAlibiSlopes);
  }
  return "";
}

// RequiredScalingFields of a scaling type given by name ("" for an unknown
// name: the TS layer has checked it).
std::string RequiredScalingFieldsJs(const std::string& type) {
  RopeScalingType t;
  return ParseRopeScalingType(type, &t).ok() ? RequiredScalingFields(t) : "";
}

// The defaults of the value objects, as JS sees them: the TS layer starts
// every call from these.
RopeFrequencyConfig DefaultRopeConfigJs() { return RopeFrequencyConfig(); }
RopeApplyOptions DefaultRopeApplyJs() { return RopeApplyOptions(); }
AttentionOptions DefaultAttentionJs() { return AttentionOptions(); }

// inv_freq: float32 [r/2] at out_freq (capacity floats); attention factor:
// float64 at out_factor.
std::string RopeFrequenciesJs(const RopeFrequencyConfig& c, int seq_len,
                              uintptr_t out_freq, double capacity,
                              uintptr_t out_factor) {
  std::vector<double> inv;
  double factor = 1.0;
  const Status s = RopeFrequencies(c, seq_len, &inv, &factor);
  if (!s.ok()) return s.message();
  const std::string room = CheckCapacity("invFreq", inv.size(), capacity);
  if (!room.empty()) return room;
  float* out = Ptr<float>(out_freq);
  for (size_t i = 0; i < inv.size(); ++i) out[i] = static_cast<float>(inv[i]);
  *Ptr<double>(out_factor) = factor;
  return "";
}

// x: float32 [heads, seqLen, headDim] ([x_len]); out: the same shape, in a
// buffer of `capacity` floats.
std::string RopeApplyJs(const RopeApplyOptions& o, uintptr_t x, double x_len,
                        uintptr_t out, double capacity) {
  if (!(x_len >= 0 && x_len <= 2147483648.0)) {
    return StrCat("x must have at most 2^31 floats, got ", x_len);
  }
  const size_t n = static_cast<size_t>(x_len);
  const std::string room = CheckCapacity("out", n, capacity);
  if (!room.empty()) return room;
  return MessageOf(RopeApplyChecked(o, Ptr<float>(x), n, Ptr<float>(out)));
}

// cos, sin: float32 [seqLen, r/2] each, in buffers of `capacity` floats,
// for o's positions (one head: o.heads is not read).
std::string RopeCacheJs(const RopeApplyOptions& options, uintptr_t cos,
                        uintptr_t sin, double capacity) {
  RopeApplyOptions o = options;
  o.heads = 1;
  const size_t cap = capacity >= 0 ? static_cast<size_t>(capacity) : 0;
  return MessageOf(RopeTableChecked(o, Ptr<float>(cos), Ptr<float>(sin), cap));
}

// out: float32 [length, dim] in a buffer of `capacity` floats.
std::string SinusoidalJs(double length, double dim, double base, int layout,
                         uintptr_t out, double capacity) {
  const auto l = static_cast<SinusoidalLayout>(layout);
  const Status s = ValidateSinusoidal(static_cast<int64_t>(length),
                                      static_cast<int64_t>(dim), base, l);
  if (!s.ok()) return s.message();
  const size_t L = static_cast<size_t>(length), D = static_cast<size_t>(dim);
  const std::string room = CheckCapacity("out", L * D, capacity);
  if (!room.empty()) return room;
  SinusoidalTable(L, D, base, l, Ptr<float>(out));
  return "";
}

// out: float32 [heads] in a buffer of `capacity` floats.
std::string AlibiSlopesJs(int heads, int variant, uintptr_t out,
                          double capacity) {
  const Status s = ValidateAlibi(heads, static_cast<AlibiSlopes>(variant));
  if (!s.ok()) return s.message();
  const std::string room =
      CheckCapacity("out", static_cast<size_t>(heads), capacity);
  if (!room.empty()) return room;
  AlibiSlopeValues(heads, static_cast<AlibiSlopes>(variant), Ptr<float>(out));
  return "";
}

// out: float32 [heads, q, k] in a buffer of `capacity` floats.
std::string AlibiBiasJs(int heads, int variant, double q, double k, bool causal,
                        uintptr_t out, double capacity) {
  Status s = ValidateAlibi(heads, static_cast<AlibiSlopes>(variant));
  if (s.ok()) {
    s = ValidateAlibiBias(heads, static_cast<int64_t>(q),
                          static_cast<int64_t>(k));
  }
  if (!s.ok()) return s.message();
  const size_t Q = static_cast<size_t>(q), K = static_cast<size_t>(k);
  const std::string room = CheckCapacity("out", heads * Q * K, capacity);
  if (!room.empty()) return room;
  std::vector<float> slopes(heads);
  AlibiSlopeValues(heads, static_cast<AlibiSlopes>(variant), slopes.data());
  AlibiBias(slopes.data(), heads, Q, K, causal, Ptr<float>(out));
  return "";
}

// The checks t5Buckets and t5Bias share: the bucket settings, then the shape.
Status ValidateT5Call(double q, double k, double q_offset, int num_buckets,
                      int max_distance, bool bidirectional) {
  Status s = ValidateT5Buckets(num_buckets, max_distance, bidirectional);
  if (!s.ok()) return s;
  return ValidateT5Shape(static_cast<int64_t>(q), static_cast<int64_t>(k),
                         static_cast<int64_t>(q_offset));
}

// out: int32 [q, k] in a buffer of `capacity` ints.
std::string T5BucketsJs(double q, double k, double q_offset, int num_buckets,
                        int max_distance, bool bidirectional, uintptr_t out,
                        double capacity) {
  const Status s =
      ValidateT5Call(q, k, q_offset, num_buckets, max_distance, bidirectional);
  if (!s.ok()) return s.message();
  const size_t Q = static_cast<size_t>(q), K = static_cast<size_t>(k);
  const std::string room = CheckCapacity("out", Q * K, capacity, "ints");
  if (!room.empty()) return room;
  T5Buckets(Q, K, static_cast<int64_t>(q_offset), num_buckets, max_distance,
            bidirectional, Ptr<int32_t>(out));
  return "";
}

// table: float32 [numBuckets, heads]; out: float32 [heads, q, k] in a buffer
// of `capacity` floats.
std::string T5BiasJs(uintptr_t table, int heads, double q, double k,
                     double q_offset, int num_buckets, int max_distance,
                     bool bidirectional, uintptr_t out, double capacity) {
  if (heads < 1) return StrCat("heads must be an integer >= 1, got ", heads);
  const Status s =
      ValidateT5Call(q, k, q_offset, num_buckets, max_distance, bidirectional);
  if (!s.ok()) return s.message();
  const size_t Q = static_cast<size_t>(q), K = static_cast<size_t>(k);
  const std::string room = CheckCapacity("out", heads * Q * K, capacity);
  if (!room.empty()) return room;
  std::vector<int32_t> buckets(Q * K);
  T5Buckets(Q, K, static_cast<int64_t>(q_offset), num_buckets, max_distance,
            bidirectional, buckets.data());
  T5Bias(Ptr<float>(table), heads, buckets.data(), Q, K, Ptr<float>(out));
  return "";
}

// out: int32 [q, k] in a buffer of `capacity` ints.
std::string ShawIndicesJs(double q, double k, int clip, uintptr_t out,
                          double capacity) {
  const Status s =
      ValidateShaw(static_cast<int64_t>(q), static_cast<int64_t>(k), clip);
  if (!s.ok()) return s.message();
  const size_t Q = static_cast<size_t>(q), K = static_cast<size_t>(k);
  const std::string room = CheckCapacity("out", Q * K, capacity, "ints");
  if (!room.empty()) return room;
  ShawIndices(Q, K, clip, Ptr<int32_t>(out));
  return "";
}

// q: [Q, D], k: [K, D], table_k: [2 clip + 1, D]; out: float32 [Q, K] in a
// buffer of `capacity` floats.
std::string ShawLogitsJs(uintptr_t q, uintptr_t k, uintptr_t table_k, double Q,
                         double K, int D, int clip, double scale, uintptr_t out,
                         double capacity) {
  const Status s =
      ValidateShaw(static_cast<int64_t>(Q), static_cast<int64_t>(K), clip);
  if (!s.ok()) return s.message();
  if (D < 1) return StrCat("headDim must be an integer >= 1, got ", D);
  const size_t nq = static_cast<size_t>(Q), nk = static_cast<size_t>(K);
  const std::string room = CheckCapacity("out", nq * nk, capacity);
  if (!room.empty()) return room;
  ShawLogits(Ptr<float>(q), Ptr<float>(k), Ptr<float>(table_k), nq, nk, D, clip,
             static_cast<float>(scale), Ptr<float>(out));
  return "";
}

// probs: [Q, K], v: [K, D], table_v: [2 clip + 1, D]; out: float32 [Q, D] in
// a buffer of `capacity` floats.
std::string ShawValuesJs(uintptr_t probs, uintptr_t v, uintptr_t table_v,
                         double Q, double K, int D, int clip, uintptr_t out,
                         double capacity) {
  const Status s =
      ValidateShaw(static_cast<int64_t>(Q), static_cast<int64_t>(K), clip);
  if (!s.ok()) return s.message();
  if (D < 1) return StrCat("headDim must be an integer >= 1, got ", D);
  const size_t nq = static_cast<size_t>(Q), nk = static_cast<size_t>(K);
  const std::string room =
      CheckCapacity("out", nq * static_cast<size_t>(D), capacity);
  if (!room.empty()) return room;
  ShawValues(Ptr<float>(probs), Ptr<float>(v), Ptr<float>(table_v), nq, nk, D,
             clip, Ptr<float>(out));
  return "";
}

// table: float32 [maxLength, dim]; positions: int32 [T]; out: float32
// [T, dim] in a buffer of `capacity` floats.
std::string LearnedPositionsJs(uintptr_t table, double max_length, double dim,
                               uintptr_t positions, double T, uintptr_t out,
                               double capacity) {
  if (!(T >= 0 && dim >= 0 && T * dim < 2147483648.0)) {
    return StrCat("positions.length * dim must be below 2^31, got ", T, " * ",
                  dim);
  }
  const std::string room = CheckCapacity(
      "out", static_cast<size_t>(T) * static_cast<size_t>(dim), capacity);
  if (!room.empty()) return room;
  return MessageOf(
      LearnedPositions(Ptr<float>(table), static_cast<size_t>(max_length),
                       static_cast<size_t>(dim), Ptr<int32_t>(positions),
                       static_cast<size_t>(T), Ptr<float>(out)));
}

// positions: int32 [T]; out: float32 [T, rotaryDim/2] in a buffer of
// `capacity` floats.
std::string XposScalesJs(uintptr_t positions, double T, int rotary_dim,
                         double scale_base, double center, bool key,
                         uintptr_t out, double capacity) {
  const Status s = ValidateXpos(rotary_dim, scale_base);
  if (!s.ok()) return s.message();
  if (!(T >= 0 && T < 2147483648.0)) {
    return StrCat("positions must have fewer than 2^31 elements, got ", T);
  }
  const size_t n = static_cast<size_t>(T);
  const std::string room =
      CheckCapacity("out", n * static_cast<size_t>(rotary_dim / 2), capacity);
  if (!room.empty()) return room;
  return MessageOf(XposScales(Ptr<int32_t>(positions), n, rotary_dim,
                              scale_base, static_cast<int64_t>(center), key,
                              Ptr<float>(out)));
}

// The output buffers of an attention call (o validated): out [H, Tq, D] and
// weights [H, Tq, Tk] when o.weights is set.
std::string AttentionCapacity(const AttentionOptions& o, double out_capacity,
                              double weights_capacity) {
  std::string room = CheckCapacity("out", o.H * o.Tq * o.D, out_capacity);
  if (room.empty() && o.weights) {
    room = CheckCapacity("weights", o.H * o.Tq * o.Tk, weights_capacity);
  }
  return room;
}

// q: [heads, Tq, D], k, v: [kvHeads, Tk, D]; out: [heads, Tq, D] and the
// weights (if asked) in buffers of the capacities given (floats).
std::string AttentionJs(const AttentionOptions& o, uintptr_t q, uintptr_t k,
                        uintptr_t v, uintptr_t out, double out_capacity,
                        double weights_capacity) {
  const Status valid = ValidateAttention(o);
  if (!valid.ok()) return valid.message();
  const std::string room = AttentionCapacity(o, out_capacity, weights_capacity);
  if (!room.empty()) return room;
  return MessageOf(Attention(o, Ptr<float>(q), Ptr<float>(k), Ptr<float>(v),
                             Ptr<float>(out)));
}

// The KvCache handle the loader wraps. A bad configuration leaves error()
// non-empty and every method returning it.
class KvCacheJs {
 public:
  // rope: the cache's rotation (rope.enabled false: none); its positions
  // are the cache's own.
  KvCacheJs(int kv_heads, int head_dim, const AttentionRope& rope,
            bool consistent) {
    const Status s = KvCache::Validate(kv_heads < 0 ? 0 : kv_heads,
                                       head_dim < 0 ? 0 : head_dim, rope);
    if (!s.ok()) {
      error_ = s.message();
      return;
    }
    cache_ = std::make_unique<KvCache>(kv_heads, head_dim, rope, consistent);
  }
  std::string error() const { return error_; }
  // k, v: [kvHeads, Tn, D]; positions: int32 [Tn] or 0.
  std::string append(uintptr_t k, uintptr_t v, double Tn, uintptr_t positions) {
    if (!cache_) return error_;
    return MessageOf(
        cache_->Append(Ptr<float>(k), Ptr<float>(v), static_cast<size_t>(Tn),
                       positions ? Ptr<int32_t>(positions) : nullptr));
  }
  // The options' own rope is ignored: the cache rotates. out: [heads, Tq, D]
  // and the weights (if asked) in buffers of the capacities given.
  std::string attend(const AttentionOptions& a, uintptr_t q,
                     uintptr_t q_positions, uintptr_t out, double out_capacity,
                     double weights_capacity) {
    if (!cache_) return error_;
    AttentionOptions o = a;
    o.rope = AttentionRope();
    // The shape the cache attends with (its kv heads, head dim and length).
    AttentionOptions shape = o;
    shape.Hkv = cache_->kv_heads();
    shape.D = cache_->head_dim();
    shape.Tk = cache_->length();
    const Status valid = ValidateAttention(shape);
    if (!valid.ok()) return valid.message();
    const std::string room =
        AttentionCapacity(shape, out_capacity, weights_capacity);
    if (!room.empty()) return room;
    return MessageOf(cache_->Attend(
        o, Ptr<float>(q), q_positions ? Ptr<int32_t>(q_positions) : nullptr,
        Ptr<float>(out)));
  }

  std::string shift(int delta) {
    if (!cache_) return error_;
    return MessageOf(cache_->Shift(delta));
  }
  double length() const { return cache_ ? double(cache_->length()) : 0; }

 private:
  LiveCount<KvCacheJs> live_;
  std::string error_;
  std::unique_ptr<KvCache> cache_;
};

// Heap and handle counts for leak checks, as text (so that reading them
// allocates nothing beforehand): bytes in use by malloc, then the live
// KvCache objects.
std::string MemoryStatsJs() {
  return StrCat(HeapInUse(), " ", LiveCount<KvCacheJs>::live);
}

std::string TargetJs() { return DispatchedTargetName(); }

}  // namespace
}  // namespace posenc

EMSCRIPTEN_BINDINGS(posenc_core) {
  using namespace emscripten;
  using namespace posenc;
  POSENC_CORE_STRUCTS(POSENC_REGISTER_STRUCT)
  function("contract", &ContractJs);
  function("memoryStats", &MemoryStatsJs);
  function("target", &TargetJs);
  function("names", &NamesJs);
  // The defaults written once in C++ that the TS layer fills in when an
  // option is left out outside a value object.
  constant("xposScaleBase", kXposScaleBase);
  constant("t5NumBuckets", kT5NumBuckets);
  constant("t5MaxDistance", kT5MaxDistance);
  function("defaultRopeConfig", &DefaultRopeConfigJs);
  function("defaultRopeApply", &DefaultRopeApplyJs);
  function("requiredScalingFields", &RequiredScalingFieldsJs);
  function("defaultAttention", &DefaultAttentionJs);
  function("attention", &AttentionJs);
  class_<KvCacheJs>("KvCache")
      .constructor<int, int, const AttentionRope&, bool>()
      .function("error", &KvCacheJs::error)
      .function("append", &KvCacheJs::append)
      .function("attend", &KvCacheJs::attend)
      .function("shift", &KvCacheJs::shift)
      .function("length", &KvCacheJs::length);
  function("ropeFrequencies", &RopeFrequenciesJs);
  function("ropeApply", &RopeApplyJs);
  function("ropeCache", &RopeCacheJs);
  function("sinusoidal", &SinusoidalJs);
  function("alibiSlopes", &AlibiSlopesJs);
  function("alibiBias", &AlibiBiasJs);
  function("t5Buckets", &T5BucketsJs);
  function("t5Bias", &T5BiasJs);
  function("shawIndices", &ShawIndicesJs);
  function("shawLogits", &ShawLogitsJs);
  function("shawValues", &ShawValuesJs);
  function("learnedPositions", &LearnedPositionsJs);
  function("xposScales", &XposScalesJs);
}
