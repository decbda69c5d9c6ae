// The Embind surface of the two wasm modules: the only file that includes
// emscripten headers. It is compiled twice: POSENC_MODELS_MODULE 0 gives the
// core module (the encodings, attention and the KV cache), 1 the models
// module (tiny models, training, tasks) that the package loads the first time
// a model is used; both have the shared value objects, names and stats. It
// translates flat arguments into core calls and nothing more. Array arguments
// are byte addresses in wasm memory that the TypeScript loader
// (bindings/ts/core.ts) allocated and filled; every function returns "" on
// success or the core's error message, which the loader turns into a
// RangeError. The core validates everything again, so a call that bypasses the
// TypeScript checks still cannot read or write out of bounds.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#ifndef POSENC_MODELS_MODULE
#error "build with -DPOSENC_MODELS_MODULE=0 (core) or 1 (models)"
#endif

#if POSENC_MODELS_MODULE
#include "model/config.h"
#include "model/inference.h"
#include "model/model_io.h"
#include "model/position_bug.h"
#include "model/tasks.h"
#include "model/train.h"
#endif
#include "ops/alibi.h"
#include "ops/attention.h"
#include "ops/encoding.h"
#include "ops/kv_cache.h"
#include "ops/learned.h"
#include "ops/peak.h"
#include "ops/rope.h"
#include "ops/rope_apply.h"
#include "ops/rope_frequencies.h"
#include "ops/shaw.h"
#include "ops/sinusoidal.h"
#include "ops/t5.h"
#include "ops/targets.h"
#include "ops/xpos.h"

namespace posenc {
namespace {

template <typename T>
T* Ptr(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

// ---- Field lists (src/ops/fields.h): how each codec crosses the boundary.

// Codec<Tag, S, T>::Get / Set convert the member `m` of a struct `s` to and
// from its JS value; Js() names the JS type (for ContractJs).
template <typename Tag, typename S, typename T>
struct Codec;

// 64-bit integers cross as doubles (Embind has no int64 without BigInt);
// a value that is not an exact integer becomes the type's minimum, which
// the validators reject.
template <typename T>
using PlainWire =
    std::conditional_t<std::is_integral_v<T> && sizeof(T) == 8, double, T>;

template <typename S, typename T>
struct Codec<Plain, S, T> {
  static PlainWire<T> Get(const S& s, T S::*m) {
    return static_cast<PlainWire<T>>(s.*m);
  }
  static void Set(S& s, T S::*m, PlainWire<T> v) {
    if constexpr (std::is_same_v<PlainWire<T>, T>) {
      s.*m = std::move(v);
    } else {
      const bool exact =
          std::fabs(v) <= 9007199254740992.0 && v == std::floor(v) &&
          v >= static_cast<double>(std::numeric_limits<T>::min());
      s.*m = exact ? static_cast<T>(v) : std::numeric_limits<T>::min();
    }
  }
  // Integers are numbers in JS; "int32" / "int64" tell the TS layer which
  // integer checks a field needs (Embind would truncate 7.5 to 7).
  static constexpr const char* Js() {
    if constexpr (std::is_same_v<T, bool>) return "boolean";
    if constexpr (std::is_integral_v<T>)
      return sizeof(T) == 8 ? "int64" : "int32";
    if constexpr (std::is_arithmetic_v<T>) return "number";
    if constexpr (std::is_same_v<T, std::string>) return "string";
    return "object";
  }
};

// The enums' names: ParseName / NameOf overloads per enum.
Status ParseName(const std::string& name, RopeScalingType* out) {
  return ParseRopeScalingType(name, out);
}
const char* NameOf(RopeScalingType v) { return RopeScalingTypeName(v); }
Status ParseName(const std::string& name, RopeLayout* out) {
  for (int i = 0; i < kNumRopeLayouts; ++i) {
    if (name == RopeLayoutName(static_cast<RopeLayout>(i))) {
      *out = static_cast<RopeLayout>(i);
      return Status::Ok();
    }
  }
  return Status::Invalid(StrCat("unknown layout '", name, "'"));
}
const char* NameOf(RopeLayout v) { return RopeLayoutName(v); }
Status ParseName(const std::string& name, Encoding* out) {
  return ParseEncoding(name, out);
}
const char* NameOf(Encoding v) { return EncodingName(v); }

template <typename S, typename E>
struct Codec<EnumName, S, E> {
  static std::string Get(const S& s, E S::*m) { return NameOf(s.*m); }
  // An unknown name becomes an out-of-range value, which the validators
  // reject naming the field (the TS layer has checked the name already).
  static void Set(S& s, E S::*m, std::string name) {
    if (!ParseName(name, &(s.*m)).ok()) s.*m = static_cast<E>(-1);
  }
  static constexpr const char* Js() { return "string"; }
};

template <typename S>
struct Codec<NumberList, S, std::vector<double>> {
  static emscripten::val Get(const S& s, std::vector<double> S::*m) {
    emscripten::val a = emscripten::val::array();
    for (double v : s.*m) a.call<void>("push", v);
    return a;
  }
  // An array (or typed array) of numbers; undefined / null = empty.
  static void Set(S& s, std::vector<double> S::*m, emscripten::val v) {
    std::vector<double>& out = s.*m;
    out.clear();
    if (v.isUndefined() || v.isNull()) return;
    const size_t n = v["length"].as<size_t>();
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) out.push_back(v[i].as<double>());
  }
  static constexpr const char* Js() { return "number[]"; }
};

template <typename S, typename P>
struct Codec<Address, S, P> {
  static uintptr_t Get(const S& s, P S::*m) {
    return reinterpret_cast<uintptr_t>(s.*m);
  }
  static void Set(S& s, P S::*m, uintptr_t address) {
    s.*m = reinterpret_cast<P>(address);
  }
  static constexpr const char* Js() { return "number"; }
};

// The one optional number: RopeScaling::attention_factor (NaN = absent).
template <>
struct Codec<OptionalNumber, RopeScaling, double> {
  static double Get(const RopeScaling& s, double RopeScaling::*m) {
    return s.has_attention_factor ? s.*m
                                  : std::numeric_limits<double>::quiet_NaN();
  }
  static void Set(RopeScaling& s, double RopeScaling::*m, double v) {
    s.has_attention_factor = !std::isnan(v);
    s.*m = s.has_attention_factor ? v : 1.0;
  }
  static constexpr const char* Js() { return "optional-number"; }
};

// Registers one field of a list with Embind's value_object `object`.
#define POSENC_REGISTER_FIELD(type, member, js_name, codec, ...)               \
  object.field(                                                                \
      #js_name,                                                                \
      +[](const Struct& s) {                                                   \
        return Codec<codec, Struct, type>::Get(s, &Struct::member);            \
      },                                                                       \
      +[](Struct& s, decltype(Codec<codec, Struct, type>::Get(                 \
                         std::declval<const Struct&>(), &Struct::member)) v) { \
        Codec<codec, Struct, type>::Set(s, &Struct::member, std::move(v));     \
      });

// One line of a list's contract: "jsName jsType".
#define POSENC_DESCRIBE_FIELD(type, member, js_name, codec, ...) \
#js_name, Codec < codec, Struct, type> ::Js(),

// Every struct declared from a field list that crosses this module's
// boundary: X(struct, its list).
#if POSENC_MODELS_MODULE
#define POSENC_FIELD_STRUCTS(X)                     \
  X(RopeScaling, POSENC_ROPE_SCALING_FIELDS)        \
  X(RopeFrequencyConfig, POSENC_ROPE_CONFIG_FIELDS) \
  X(ModelConfig, POSENC_MODEL_CONFIG_FIELDS)        \
  X(TrainRequest, POSENC_TRAIN_REQUEST_FIELDS)
#else
#define POSENC_FIELD_STRUCTS(X)                     \
  X(RopeScaling, POSENC_ROPE_SCALING_FIELDS)        \
  X(RopeFrequencyConfig, POSENC_ROPE_CONFIG_FIELDS) \
  X(AttentionRope, POSENC_ATTENTION_ROPE_FIELDS)    \
  X(AttentionOptions, POSENC_ATTENTION_FIELDS)
#endif

// A table {jsName, jsType, ...} per struct, written out by one loop.
#define POSENC_DESCRIBE_STRUCT(S, LIST)                                     \
  if (name == #S) {                                                         \
    using Struct = S;                                                       \
    static constexpr const char* kFields[] = {LIST(POSENC_DESCRIBE_FIELD)}; \
    return FieldLines(kFields, sizeof(kFields) / sizeof(*kFields));         \
  }

// "name type\n" for each pair of `fields` ([2 n] strings).
std::string FieldLines(const char* const* fields, size_t n) {
  std::string out;
  for (size_t i = 0; i + 1 < n; i += 2) {
    out += fields[i];
    out += ' ';
    out += fields[i + 1];
    out += '\n';
  }
  return out;
}

// The contract of the structs that cross the boundary, as
// tests/ts/contract.test.ts reads it: "jsName jsType" per field, in order
// ("" for a name that is not one of them).
std::string ContractJs(const std::string& name) {
  POSENC_FIELD_STRUCTS(POSENC_DESCRIBE_STRUCT)
  return "";
}

#define POSENC_REGISTER_STRUCT(S, LIST)          \
  {                                              \
    using Struct = S;                            \
    emscripten::value_object<Struct> object(#S); \
    LIST(POSENC_REGISTER_FIELD)                  \
  }

// Registers the structs declared from field lists as Embind value objects.
void RegisterFieldLists() { POSENC_FIELD_STRUCTS(POSENC_REGISTER_STRUCT) }

// Counts the live objects of T that JS holds handles to (constructed or
// copied, not yet destroyed): memoryStats() reports them, and the soak test
// checks that no Embind handle leaks.
template <class T>
struct LiveCount {
  static inline int64_t live = 0;
  LiveCount() { ++live; }
  LiveCount(const LiveCount&) { ++live; }
  LiveCount& operator=(const LiveCount&) = default;
  ~LiveCount() { --live; }
};

#if !POSENC_MODELS_MODULE
// ---- Core module: the encodings, attention and the KV cache.

// RequiredScalingFields of a scaling type given by name ("" for an unknown
// name: the TS layer has checked it).
std::string RequiredScalingFieldsJs(const std::string& type) {
  RopeScalingType t;
  return ParseRopeScalingType(type, &t).ok() ? RequiredScalingFields(t) : "";
}

// The defaults of a RoPE configuration, as JS sees them: the TS layer starts
// every configuration from these.
RopeFrequencyConfig DefaultRopeConfigJs() { return RopeFrequencyConfig(); }
AttentionOptions DefaultAttentionJs() { return AttentionOptions(); }

// inv_freq: float32 [r/2] at out_freq; attention factor: float64 at
// out_factor.
std::string RopeFrequenciesJs(const RopeFrequencyConfig& c, int seq_len,
                              uintptr_t out_freq, uintptr_t out_factor) {
  std::vector<double> inv;
  double factor = 1.0;
  const Status s = RopeFrequencies(c, seq_len, &inv, &factor);
  if (!s.ok()) return s.message();
  float* out = Ptr<float>(out_freq);
  for (size_t i = 0; i < inv.size(); ++i) out[i] = static_cast<float>(inv[i]);
  *Ptr<double>(out_factor) = factor;
  return "";
}

// A context length from JS into *out: false unless an integer that fits
// int64 exactly (2^53); its range is checked by the core.
bool ContextLength(double v, int64_t* out) {
  if (!(std::fabs(v) <= 9007199254740992.0) || v != std::floor(v)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

// x, out: float32 [heads, seqLen, headDim]; positions: int32 [seqLen] or 0;
// context_length: the context length dynamic / longrope see (-1: derived
// from the positions).
std::string RopeApplyJs(const RopeFrequencyConfig& spec, int layout,
                        uintptr_t x, double x_len, uintptr_t out, double heads,
                        double seq_len, uintptr_t positions, double offset,
                        bool pure_rotation, bool xpos, double xpos_scale_base,
                        double xpos_center, bool xpos_key,
                        double context_length) {
  RopeApplyOptions o;
  o.freq = spec;
  if (!ContextLength(context_length, &o.context_length)) {
    return StrCat("contextLength must be an integer, got ", context_length);
  }
  if (layout < 0 || layout >= kNumRopeLayouts) {
    return StrCat("layout is not a valid enum value: ", layout);
  }
  o.layout = static_cast<RopeLayout>(layout);
  o.heads = static_cast<int64_t>(heads);
  o.seq_len = static_cast<int64_t>(seq_len);
  o.positions = positions ? Ptr<int32_t>(positions) : nullptr;
  o.offset = static_cast<int64_t>(offset);
  o.pure_rotation = pure_rotation;
  o.xpos = xpos;
  o.xpos_scale_base = xpos_scale_base;
  o.xpos_center = static_cast<int64_t>(xpos_center);
  o.xpos_key = xpos_key;
  const Status s = RopeApplyChecked(
      o, Ptr<float>(x), static_cast<size_t>(x_len), Ptr<float>(out));
  return s.ok() ? "" : s.message();
}

// cos, sin: float32 [seqLen, r/2] for positions (int32 [seqLen]) or offset +
// t; context_length as in RopeApplyJs.
std::string RopeCacheJs(const RopeFrequencyConfig& spec, double seq_len,
                        uintptr_t positions, double offset,
                        double context_length, uintptr_t cos, uintptr_t sin) {
  RopeApplyOptions o;
  o.freq = spec;
  if (!ContextLength(context_length, &o.context_length)) {
    return StrCat("contextLength must be an integer, got ", context_length);
  }
  o.heads = 1;
  o.seq_len = static_cast<int64_t>(seq_len);
  o.positions = positions ? Ptr<int32_t>(positions) : nullptr;
  o.offset = static_cast<int64_t>(offset);
  const Status s = RopeTableChecked(o, Ptr<float>(cos), Ptr<float>(sin));
  return s.ok() ? "" : s.message();
}

// out: float32 [length, dim].
std::string SinusoidalJs(double length, double dim, double base, int layout,
                         uintptr_t out) {
  const auto l = static_cast<SinusoidalLayout>(layout);
  const Status s = ValidateSinusoidal(static_cast<int64_t>(length),
                                      static_cast<int64_t>(dim), base, l);
  if (!s.ok()) return s.message();
  SinusoidalTable(static_cast<size_t>(length), static_cast<size_t>(dim), base,
                  l, Ptr<float>(out));
  return "";
}

// out: float32 [heads].
std::string AlibiSlopesJs(int heads, int variant, uintptr_t out) {
  const Status s = ValidateAlibi(heads, static_cast<AlibiSlopes>(variant));
  if (!s.ok()) return s.message();
  AlibiSlopeValues(heads, static_cast<AlibiSlopes>(variant), Ptr<float>(out));
  return "";
}

// out: float32 [heads, q, k].
std::string AlibiBiasJs(int heads, int variant, double q, double k, bool causal,
                        uintptr_t out) {
  Status s = ValidateAlibi(heads, static_cast<AlibiSlopes>(variant));
  if (s.ok()) {
    s = ValidateAlibiBias(heads, static_cast<int64_t>(q),
                          static_cast<int64_t>(k));
  }
  if (!s.ok()) return s.message();
  std::vector<float> slopes(heads);
  AlibiSlopeValues(heads, static_cast<AlibiSlopes>(variant), slopes.data());
  AlibiBias(slopes.data(), heads, static_cast<size_t>(q),
            static_cast<size_t>(k), causal, Ptr<float>(out));
  return "";
}

// out: int32 [q, k].
std::string T5BucketsJs(double q, double k, double q_offset, int num_buckets,
                        int max_distance, bool bidirectional, uintptr_t out) {
  Status s = ValidateT5Buckets(num_buckets, max_distance, bidirectional);
  if (s.ok()) {
    s = ValidateT5Shape(static_cast<int64_t>(q), static_cast<int64_t>(k),
                        static_cast<int64_t>(q_offset));
  }
  if (!s.ok()) return s.message();
  T5Buckets(static_cast<size_t>(q), static_cast<size_t>(k),
            static_cast<int64_t>(q_offset), num_buckets, max_distance,
            bidirectional, Ptr<int32_t>(out));
  return "";
}

// table: float32 [numBuckets, heads]; out: float32 [heads, q, k].
std::string T5BiasJs(uintptr_t table, int heads, double q, double k,
                     double q_offset, int num_buckets, int max_distance,
                     bool bidirectional, uintptr_t out) {
  if (heads < 1) return StrCat("heads must be an integer >= 1, got ", heads);
  Status s = ValidateT5Buckets(num_buckets, max_distance, bidirectional);
  if (s.ok()) {
    s = ValidateT5Shape(static_cast<int64_t>(q), static_cast<int64_t>(k),
                        static_cast<int64_t>(q_offset));
  }
  if (!s.ok()) return s.message();
  const size_t Q = static_cast<size_t>(q), K = static_cast<size_t>(k);
  std::vector<int32_t> buckets(Q * K);
  T5Buckets(Q, K, static_cast<int64_t>(q_offset), num_buckets, max_distance,
            bidirectional, buckets.data());
  T5Bias(Ptr<float>(table), heads, buckets.data(), Q, K, Ptr<float>(out));
  return "";
}

// out: int32 [q, k].
std::string ShawIndicesJs(double q, double k, int clip, uintptr_t out) {
  const Status s =
      ValidateShaw(static_cast<int64_t>(q), static_cast<int64_t>(k), clip);
  if (!s.ok()) return s.message();
  ShawIndices(static_cast<size_t>(q), static_cast<size_t>(k), clip,
              Ptr<int32_t>(out));
  return "";
}

// q: [Q, D], k: [K, D], table_k: [2 clip + 1, D]; out: float32 [Q, K].
std::string ShawLogitsJs(uintptr_t q, uintptr_t k, uintptr_t table_k, double Q,
                         double K, int D, int clip, double scale,
                         uintptr_t out) {
  const Status s =
      ValidateShaw(static_cast<int64_t>(Q), static_cast<int64_t>(K), clip);
  if (!s.ok()) return s.message();
  if (D < 1) return StrCat("headDim must be an integer >= 1, got ", D);
  ShawLogits(Ptr<float>(q), Ptr<float>(k), Ptr<float>(table_k),
             static_cast<size_t>(Q), static_cast<size_t>(K), D, clip,
             static_cast<float>(scale), Ptr<float>(out));
  return "";
}

// probs: [Q, K], v: [K, D], table_v: [2 clip + 1, D]; out: float32 [Q, D].
std::string ShawValuesJs(uintptr_t probs, uintptr_t v, uintptr_t table_v,
                         double Q, double K, int D, int clip, uintptr_t out) {
  const Status s =
      ValidateShaw(static_cast<int64_t>(Q), static_cast<int64_t>(K), clip);
  if (!s.ok()) return s.message();
  if (D < 1) return StrCat("headDim must be an integer >= 1, got ", D);
  ShawValues(Ptr<float>(probs), Ptr<float>(v), Ptr<float>(table_v),
             static_cast<size_t>(Q), static_cast<size_t>(K), D, clip,
             Ptr<float>(out));
  return "";
}

// table: float32 [maxLength, dim]; positions: int32 [T]; out: float32 [T, dim].
std::string LearnedPositionsJs(uintptr_t table, double max_length, double dim,
                               uintptr_t positions, double T, uintptr_t out) {
  const Status s =
      LearnedPositions(Ptr<float>(table), static_cast<size_t>(max_length),
                       static_cast<size_t>(dim), Ptr<int32_t>(positions),
                       static_cast<size_t>(T), Ptr<float>(out));
  return s.ok() ? "" : s.message();
}

// positions: int32 [T]; out: float32 [T, rotaryDim/2].
std::string XposScalesJs(uintptr_t positions, double T, int rotary_dim,
                         double scale_base, double center, bool key,
                         uintptr_t out) {
  const Status s = ValidateXpos(rotary_dim, scale_base);
  if (!s.ok()) return s.message();
  const Status scaled = XposScales(
      Ptr<int32_t>(positions), static_cast<size_t>(T), rotary_dim, scale_base,
      static_cast<int64_t>(center), key, Ptr<float>(out));
  return scaled.ok() ? "" : scaled.message();
}

// q: [heads, Tq, D], k, v: [kvHeads, Tk, D], out: [heads, Tq, D].
std::string AttentionJs(const AttentionOptions& o, uintptr_t q, uintptr_t k,
                        uintptr_t v, uintptr_t out) {
  const Status s = Attention(o, Ptr<float>(q), Ptr<float>(k), Ptr<float>(v),
                             Ptr<float>(out));
  return s.ok() ? "" : s.message();
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
    const Status s =
        cache_->Append(Ptr<float>(k), Ptr<float>(v), static_cast<size_t>(Tn),
                       positions ? Ptr<int32_t>(positions) : nullptr);
    return s.ok() ? "" : s.message();
  }
  // The options' own rope is ignored: the cache rotates.
  std::string attend(const AttentionOptions& a, uintptr_t q,
                     uintptr_t q_positions, uintptr_t out) {
    if (!cache_) return error_;
    AttentionOptions o = a;
    o.rope = AttentionRope();
    const Status s = cache_->Attend(
        o, Ptr<float>(q), q_positions ? Ptr<int32_t>(q_positions) : nullptr,
        Ptr<float>(out));
    return s.ok() ? "" : s.message();
  }

  std::string shift(int delta) {
    if (!cache_) return error_;
    const Status s = cache_->Shift(delta);
    return s.ok() ? "" : s.message();
  }
  double length() const { return cache_ ? double(cache_->length()) : 0; }

 private:
  LiveCount<KvCacheJs> live_;
  std::string error_;
  std::unique_ptr<KvCache> cache_;
};

#else  // POSENC_MODELS_MODULE
// ---- Models module: tiny models, training and the tasks.

// Inference options from the loader's scaling (when present) and bug name.
Status ToInference(uintptr_t scaling_present,
                   const RopeFrequencyConfig& scaling, const std::string& bug,
                   InferenceOptions* o) {
  if (scaling_present) o->scaling = scaling.scaling;
  return ParsePositionBug(bug, &o->bug);
}

// A loaded (or trained) tiny model the loader wraps. A failed load leaves
// error() non-empty and every method returning it.
class TinyModelJs {
 public:
  // bytes: [n] safetensors file in wasm memory.
  TinyModelJs(uintptr_t bytes, double n) {
    if (!(n >= 0 && n <= 2147483647.0)) {
      error_ = StrCat("bytes length out of range: ", n);
      return;
    }
    const Status s =
        LoadModel(Ptr<uint8_t>(bytes), static_cast<size_t>(n), &model_);
    if (!s.ok()) {
      error_ = s.message();
      return;
    }
    Finish();
  }
  explicit TinyModelJs(Model m) : model_(std::move(m)) { Finish(); }

  std::string error() const { return error_; }
  const Model& model() const { return model_; }
  ModelConfig config() const { return model_.config; }
  // The task's words, one per line (ids are line numbers); the classes'
  // names likewise.
  std::string vocab() const { return vocab_; }
  std::string classes() const { return classes_; }

  // tokens: int32 [T]; logits: float [T, V] or [K]; maps (if nonzero):
  // float [layers, H, T, T]; bug: a PositionBug name.
  std::string forward(uintptr_t tokens, double T, uintptr_t logits,
                      uintptr_t maps, uintptr_t scaling_spec_present,
                      const RopeFrequencyConfig& scaling,
                      const std::string& bug) {
    if (!error_.empty()) return error_;
    InferenceOptions opt;
    Status s = ToInference(scaling_spec_present, scaling, bug, &opt);
    if (!s.ok()) return s.message();
    opt.attention_maps = maps != 0;
    InferenceResult r;
    s = Infer(model_, Ptr<int32_t>(tokens), static_cast<size_t>(T), opt, &r);
    if (!s.ok()) return s.message();
    std::memcpy(Ptr<float>(logits), r.logits.data(),
                r.logits.size() * sizeof(float));
    if (maps) {
      float* dst = Ptr<float>(maps);
      for (const std::vector<float>& m : r.maps) {
        std::memcpy(dst, m.data(), m.size() * sizeof(float));
        dst += m.size();
      }
    }
    return "";
  }

  // Decodes greedily (temperature 0) or by sampling from `seed` after the
  // prompt [n], through the KV cache (cache) or full passes (!cache), with
  // the scaling and bug given; writes max_new ids to out.
  std::string generate(uintptr_t prompt, double n, double max_new,
                       double temperature, double seed,
                       uintptr_t scaling_spec_present,
                       const RopeFrequencyConfig& scaling,
                       const std::string& bug, bool cache, uintptr_t out) {
    if (!error_.empty()) return error_;
    if (!(max_new >= 0.0 && max_new <= 1048576.0)) {
      return StrCat("maxNewTokens must be in [0, 2^20], got ", max_new);
    }
    InferenceOptions inf;
    Status s = ToInference(scaling_spec_present, scaling, bug, &inf);
    if (!s.ok()) return s.message();
    GenerateOptions opt;
    opt.scaling = inf.scaling;
    opt.bug = inf.bug;
    opt.max_new_tokens = static_cast<size_t>(max_new);
    opt.temperature = temperature;
    opt.seed = static_cast<uint64_t>(seed);
    opt.cache = cache;
    std::vector<int32_t> ids;
    s = Generate(model_, Ptr<int32_t>(prompt), static_cast<size_t>(n), opt,
                 &ids);
    if (!s.ok()) return s.message();
    std::memcpy(Ptr<int32_t>(out), ids.data(), ids.size() * sizeof(int32_t));
    return "";
  }

  // Evaluates `count` task examples of `length` tokens (seeded) with the
  // given RoPE scaling, bug and sliding window (0: none). out: float64
  // [3 + length]: loss, accuracy, scored, then the per-position loss (NaN
  // where nothing is scored).
  std::string evaluate(double length, double count, double seed,
                       uintptr_t scaling_spec_present,
                       const RopeFrequencyConfig& scaling,
                       const std::string& bug, double window, uintptr_t out) {
    if (!error_.empty()) return error_;
    TaskKind task;
    Status s = ParseTask(model_.config.task, &task);
    if (!s.ok()) {
      return StrCat("this model's task \"", model_.config.task,
                    "\" has no generator to evaluate on");
    }
    InferenceOptions opt;
    s = ToInference(scaling_spec_present, scaling, bug, &opt);
    if (!s.ok()) return s.message();
    opt.window = static_cast<size_t>(window);
    EvalResult r;
    s = Evaluate(model_, task, static_cast<size_t>(length),
                 static_cast<size_t>(count), static_cast<uint64_t>(seed), opt,
                 &r);
    if (!s.ok()) return s.message();
    double* o = Ptr<double>(out);
    o[0] = r.loss;
    o[1] = r.accuracy;
    o[2] = static_cast<double>(r.scored);
    for (size_t t = 0; t < static_cast<size_t>(length); ++t) {
      o[3 + t] = t < r.position_loss.size()
                     ? r.position_loss[t]
                     : std::numeric_limits<double>::quiet_NaN();
    }
    return "";
  }

  // save: the safetensors bytes (saveSize() first, then saveInto(ptr)).
  double saveSize() {
    saved_ = SaveModel(model_);
    return static_cast<double>(saved_.size());
  }
  void saveInto(uintptr_t dst) {
    std::memcpy(Ptr<uint8_t>(dst), saved_.data(), saved_.size());
    saved_.clear();
    saved_.shrink_to_fit();
  }

 private:
  LiveCount<TinyModelJs> live_;
  void Finish() {
    TaskKind task;
    if (ParseTask(model_.config.task, &task).ok()) {
      const Vocab v = TaskVocab(task);
      for (size_t i = 0; i < v.size(); ++i) {
        vocab_ += v.Word(static_cast<int32_t>(i)) + "\n";
      }
      for (size_t k = 0; k < NumClasses(task); ++k) {
        classes_ += ClassName(task, static_cast<int32_t>(k)) + "\n";
      }
    }
  }
  std::string error_;
  Model model_;
  std::string vocab_, classes_, saved_;
};

// Training settings as the loader sends them (validated again here).

class TrainerJs {
 public:
  // Fresh training.
  explicit TrainerJs(const TrainRequest& spec) {
    TrainConfig tc;
    if (Configure(spec, &tc)) Create(tc);
  }
  // Continued training of `init` (a copy), with the scaling when present
  // (else init's own). Sizes and encoding come from init.
  TrainerJs(const TrainRequest& spec, const TinyModelJs& init,
            uintptr_t scaling_present, const RopeFrequencyConfig& scaling) {
    TrainConfig tc;
    if (!init.error().empty()) {
      error_ = init.error();
      return;
    }
    if (!Configure(spec, &tc)) return;
    tc.init = &init.model();
    if (scaling_present) tc.scaling = scaling.scaling;
    Create(tc);
  }
  std::string error() const { return error_; }
  // Runs up to n steps; out: float64 [4 * n] (step, loss, grad norm, lr).
  std::string step(double n, uintptr_t out) {
    if (!trainer_) return error_;
    double* o = Ptr<double>(out);
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      TrainProgress p;
      const Status s = trainer_->Step(&p);
      if (!s.ok()) return s.message();
      o[4 * i] = p.step;
      o[4 * i + 1] = p.loss;
      o[4 * i + 2] = p.grad_norm;
      o[4 * i + 3] = p.lr;
    }
    return "";
  }
  TinyModelJs model() const {
    return trainer_ ? TinyModelJs(trainer_->model()) : TinyModelJs(Model());
  }

 private:
  // The request's settings into tc; false (error_ set) if a name is unknown.
  bool Configure(const TrainRequest& request, TrainConfig* tc) {
    const Status s = ToTrainConfig(request, tc);
    if (!s.ok()) error_ = s.message();
    return s.ok();
  }
  void Create(const TrainConfig& tc) {
    const Status s = Trainer::Create(tc, &trainer_);
    if (!s.ok()) error_ = s.message();
  }
  LiveCount<TrainerJs> live_;
  std::string error_;
  std::unique_ptr<Trainer> trainer_;
};

#endif  // POSENC_MODELS_MODULE

std::string TargetJs() { return DispatchedTargetName(); }

// The n names of an enum, one per line, in enum order.
template <typename E>
std::string NameLines(const char* (*name)(E), int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += StrCat(name(static_cast<E>(i)), "\n");
  return s;
}

// The name table the parser of `list` reads (or that the enum index the
// loader sends refers to), one name per line; "" for an unknown list.
// bindings/ts/names.ts must hold the same names in the same order
// (tests/ts/names.test.ts).
std::string NamesJs(const std::string& list) {
  if (list == "encoding") return NameLines(EncodingName, kNumEncodings);
#if POSENC_MODELS_MODULE
  if (list == "task") return NameLines(TaskName, kNumTasks);
  if (list == "positionBug") {
    return NameLines(PositionBugName, kNumPositionBugs);
  }
#else
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
#endif
  return "";
}

#if !POSENC_MODELS_MODULE
// Benchmark support: ApplyRope on module-owned buffers, `iters` times, so
// the JS timer measures the kernel and not the copies.
struct BenchBuffers {
  std::vector<float> x, out, c, s;
};
BenchBuffers& Bench() {
  static BenchBuffers b;
  return b;
}

void BenchRopeJs(int H, int T, int d, int layout, int iters) {
  std::vector<float>& x = Bench().x;
  std::vector<float>& out = Bench().out;
  std::vector<float>& c = Bench().c;
  std::vector<float>& s = Bench().s;
  const size_t n = size_t(H) * T * d;
  if (x.size() != n || c.size() != size_t(T) * d / 2) {
    x.assign(n, 0.25f);
    for (size_t i = 0; i < n; ++i) x[i] = float(i % 97) * 0.01f - 0.4f;
    out.assign(n, 0.0f);
    std::vector<int32_t> pos(T);
    for (int t = 0; t < T; ++t) pos[t] = t;
    // The default frequencies (base 10000, full rotary), as ropeFrequencies
    // computes them.
    RopeFrequencyConfig config;
    config.head_dim = d;
    config.rotary_dim = d;
    std::vector<double> f;
    double factor = 1.0;
    if (!RopeFrequencies(config, T, &f, &factor).ok()) f.assign(d / 2, 1.0);
    c.assign(size_t(T) * d / 2, 0.0f);
    s.assign(c.size(), 0.0f);
    RopeCosSin(pos.data(), T, f.data(), d / 2, 1.0f, c.data(), s.data());
  }
  for (int i = 0; i < iters; ++i) {
    ApplyRope(static_cast<RopeLayout>(layout), x.data(), H, T, d, d, c.data(),
              s.data(), out.data());
  }
}

// The bandwidth ceiling for the same bytes: copies x to out (buffers of
// the last BenchRopeJs call).
void BenchCopyJs(int iters) {
  BenchBuffers& b = Bench();
  for (int i = 0; i < iters; ++i) {
    std::memcpy(b.out.data(), b.x.data(), b.x.size() * sizeof(float));
  }
}

// The SIMD ceiling probe: returns flops done (iters * 8 chains * lanes * 2).
double BenchPeakJs(double iters) {
  const size_t n = static_cast<size_t>(iters);
  volatile float sink = PeakMulAdd(n);
  (void)sink;
  return static_cast<double>(n) * 8 * PeakLanes() * 2;
}

// Heap and handle counts for leak checks, as text (so that reading them
// allocates nothing beforehand): bytes in use by malloc, then the live
// KvCache objects.
std::string MemoryStatsJs() {
  const struct mallinfo mi = mallinfo();
  return StrCat(mi.uordblks, " ", LiveCount<KvCacheJs>::live);
}

#else  // POSENC_MODELS_MODULE

// Heap and handle counts for leak checks, as text (so that reading them
// allocates nothing beforehand): bytes in use by malloc, then the live
// TinyModel and Trainer objects.
std::string MemoryStatsJs() {
  const struct mallinfo mi = mallinfo();
  return StrCat(mi.uordblks, " ", LiveCount<TinyModelJs>::live, " ",
                LiveCount<TrainerJs>::live);
}

// The task's reference levels (GetTaskReference) into out: float64 [9] =
// chance accuracy, chance loss, best accuracy, best loss, entropy rate,
// bigram entropy, unigram entropy, order-free accuracy, order-free loss
// (NaN where a level does not apply).
std::string TaskReferenceJs(const std::string& task, uintptr_t out) {
  TaskKind t;
  const Status s = ParseTask(task, &t);
  if (!s.ok()) return s.message();
  const TaskReference r = GetTaskReference(t);
  const double values[] = {
      r.chance_accuracy, r.chance_loss,         r.best_accuracy,
      r.best_loss,       r.entropy_rate,        r.bigram_entropy,
      r.unigram_entropy, r.order_free_accuracy, r.order_free_loss};
  std::memcpy(Ptr<double>(out), values, sizeof(values));
  return "";
}

// One example of a task, for the page: tokens and targets ([n] each, n <=
// cap; word-order examples have their own length) and n in count[0].
std::string SampleTaskJs(const std::string& task, double length, double seed,
                         double cap, uintptr_t tokens, uintptr_t targets,
                         uintptr_t count) {
  TaskKind t;
  Status s = ParseTask(task, &t);
  if (s.ok()) s = ValidateTaskLength(t, static_cast<size_t>(length));
  if (!s.ok()) return s.message();
  const std::vector<Example> batch = SampleBatch(
      t, static_cast<size_t>(length), 1, static_cast<uint64_t>(seed));
  const Example& ex = batch.at(0);
  if (static_cast<double>(ex.tokens.size()) > cap) {
    return StrCat("sampleTask: an example of ", ex.tokens.size(),
                  " tokens does not fit its buffer of ", cap);
  }
  std::memcpy(Ptr<int32_t>(tokens), ex.tokens.data(),
              ex.tokens.size() * sizeof(int32_t));
  std::memcpy(Ptr<int32_t>(targets), ex.targets.data(),
              ex.targets.size() * sizeof(int32_t));
  Ptr<int32_t>(count)[0] = static_cast<int32_t>(ex.tokens.size());
  return "";
}

#endif  // POSENC_MODELS_MODULE

}  // namespace
}  // namespace posenc

EMSCRIPTEN_BINDINGS(posenc) {
  using namespace emscripten;
  posenc::RegisterFieldLists();
  function("contract", &posenc::ContractJs);
  function("memoryStats", &posenc::MemoryStatsJs);
  function("target", &posenc::TargetJs);
  function("names", &posenc::NamesJs);
#if POSENC_MODELS_MODULE
  function(
      "defaultTrainRequest", +[] { return posenc::TrainRequest(); });
  class_<posenc::TinyModelJs>("TinyModel")
      .constructor<uintptr_t, double>()
      .function("error", &posenc::TinyModelJs::error)
      .function("config", &posenc::TinyModelJs::config)
      .function("vocab", &posenc::TinyModelJs::vocab)
      .function("classes", &posenc::TinyModelJs::classes)
      .function("forward", &posenc::TinyModelJs::forward)
      .function("generate", &posenc::TinyModelJs::generate)
      .function("evaluate", &posenc::TinyModelJs::evaluate)
      .function("saveSize", &posenc::TinyModelJs::saveSize)
      .function("saveInto", &posenc::TinyModelJs::saveInto);
  class_<posenc::TrainerJs>("Trainer")
      .constructor<const posenc::TrainRequest&>()
      .constructor<const posenc::TrainRequest&, const posenc::TinyModelJs&,
                   uintptr_t, const posenc::RopeFrequencyConfig&>()
      .function("error", &posenc::TrainerJs::error)
      .function("step", &posenc::TrainerJs::step)
      .function("model", &posenc::TrainerJs::model);
  function("sampleTask", &posenc::SampleTaskJs);
  function("taskReference", &posenc::TaskReferenceJs);
#else
  function("defaultRopeConfig", &posenc::DefaultRopeConfigJs);
  function("requiredScalingFields", &posenc::RequiredScalingFieldsJs);
  function("defaultAttention", &posenc::DefaultAttentionJs);
  function("attention", &posenc::AttentionJs);
  class_<posenc::KvCacheJs>("KvCache")
      .constructor<int, int, const posenc::AttentionRope&, bool>()
      .function("error", &posenc::KvCacheJs::error)
      .function("append", &posenc::KvCacheJs::append)
      .function("attend", &posenc::KvCacheJs::attend)
      .function("shift", &posenc::KvCacheJs::shift)
      .function("length", &posenc::KvCacheJs::length);
  function("ropeFrequencies", &posenc::RopeFrequenciesJs);
  function("ropeApply", &posenc::RopeApplyJs);
  function("ropeCache", &posenc::RopeCacheJs);
  function("sinusoidal", &posenc::SinusoidalJs);
  function("alibiSlopes", &posenc::AlibiSlopesJs);
  function("alibiBias", &posenc::AlibiBiasJs);
  function("t5Buckets", &posenc::T5BucketsJs);
  function("t5Bias", &posenc::T5BiasJs);
  function("shawIndices", &posenc::ShawIndicesJs);
  function("shawLogits", &posenc::ShawLogitsJs);
  function("shawValues", &posenc::ShawValuesJs);
  function("learnedPositions", &posenc::LearnedPositionsJs);
  function("xposScales", &posenc::XposScalesJs);
  function("benchRope", &posenc::BenchRopeJs);
  function("benchCopy", &posenc::BenchCopyJs);
  function("benchPeak", &posenc::BenchPeakJs);
#endif
}
