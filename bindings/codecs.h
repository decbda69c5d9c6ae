// How values cross the Embind boundary, shared by the wasm modules (core
// module, models module, bench hooks): addresses, the codecs of the field
// lists (src/base/fields.h), the contract tests/ts/contract.test.ts reads,
// output capacities, and the live-handle counts. Array arguments are byte
// addresses in wasm memory that the TypeScript loader (bindings/ts/heap.ts)
// allocated and filled; every output buffer comes with its capacity, checked
// here before anything is written, so a call that bypasses the TypeScript
// checks still cannot read or write out of bounds.
#ifndef POSENC_BINDINGS_CODECS_H_
#define POSENC_BINDINGS_CODECS_H_

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/fields.h"
#include "base/status.h"
#include "ops/encoding.h"
#include "ops/rope.h"
#include "ops/rope_frequencies.h"

namespace posenc {

template <typename T>
T* Ptr(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

// "" when an output buffer of `capacity` elements (a JS number: NaN or
// negative hold nothing) holds `need` of them, else the error naming the
// buffer: "<buffer> must hold <need> <unit>, got a buffer of <capacity>".
std::string CheckCapacity(const char* buffer, size_t need, double capacity,
                          const char* unit = "floats");

// "" for Ok, else the status's message (what every binding returns).
inline std::string MessageOf(const Status& s) {
  return s.ok() ? "" : s.message();
}

// ---- Field lists: how each codec crosses the boundary.

// Codec<Tag, S, T>::Get / Set convert the member `m` of a struct `s` to and
// from its JS value; Js() names the JS type (for the contract).
template <typename Tag, typename S, typename T>
struct Codec;

// 64-bit integers cross as doubles (Embind has no int64 without BigInt);
// a value that is not an exact integer becomes the type's minimum, which
// the validators reject.
template <typename T>
using PlainWire =
    std::conditional_t<std::is_integral_v<T> && sizeof(T) == 8, double, T>;

// v as an integer of type T, or T's minimum unless it is one exactly.
template <typename T>
T ExactInteger(double v) {
  const bool exact = std::fabs(v) <= 9007199254740992.0 && v == std::floor(v) &&
                     v >= static_cast<double>(std::numeric_limits<T>::min()) &&
                     v <= static_cast<double>(std::numeric_limits<T>::max());
  return exact ? static_cast<T>(v) : std::numeric_limits<T>::min();
}

template <typename S, typename T>
struct Codec<Plain, S, T> {
  static PlainWire<T> Get(const S& s, T S::*m) {
    return static_cast<PlainWire<T>>(s.*m);
  }
  static void Set(S& s, T S::*m, PlainWire<T> v) {
    if constexpr (std::is_same_v<PlainWire<T>, T>) {
      s.*m = std::move(v);
    } else {
      s.*m = ExactInteger<T>(v);
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

// The enums' names: ParseName / NameOf overloads per enum (codecs.cc).
Status ParseName(const std::string& name, RopeScalingType* out);
const char* NameOf(RopeScalingType v);
Status ParseName(const std::string& name, RopeLayout* out);
const char* NameOf(RopeLayout v);
Status ParseName(const std::string& name, Encoding* out);
const char* NameOf(Encoding v);

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

// The one optional number with a has_ flag: RopeScaling::attention_factor
// (NaN = absent).
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

// A std::optional number: undefined (or null) = absent. An integer field
// given a non-integer gets the type's minimum, which the validators reject.
template <typename S, typename T>
struct Codec<Optional, S, std::optional<T>> {
  static emscripten::val Get(const S& s, std::optional<T> S::*m) {
    const std::optional<T>& v = s.*m;
    return v ? emscripten::val(static_cast<double>(*v))
             : emscripten::val::undefined();
  }
  static void Set(S& s, std::optional<T> S::*m, emscripten::val v) {
    if (v.isUndefined() || v.isNull()) {
      s.*m = std::nullopt;
    } else if constexpr (std::is_integral_v<T>) {
      s.*m = ExactInteger<T>(v.as<double>());
    } else {
      s.*m = static_cast<T>(v.as<double>());
    }
  }
  static constexpr const char* Js() {
    return std::is_integral_v<T> ? "optional-int32" : "optional-number";
  }
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

// In a function of `name`: returns the contract of struct S (its list
// LIST) when name is "S".
#define POSENC_DESCRIBE_STRUCT(S, LIST)                                     \
  if (name == #S) {                                                         \
    using Struct = S;                                                       \
    static constexpr const char* kFields[] = {LIST(POSENC_DESCRIBE_FIELD)}; \
    return FieldLines(kFields, sizeof(kFields) / sizeof(*kFields));         \
  }

// Registers struct S (its list LIST) as an Embind value object.
#define POSENC_REGISTER_STRUCT(S, LIST)          \
  {                                              \
    using Struct = S;                            \
    emscripten::value_object<Struct> object(#S); \
    LIST(POSENC_REGISTER_FIELD)                  \
  }

// "name type\n" for each pair of `fields` ([2 n] strings).
std::string FieldLines(const char* const* fields, size_t n);

// The n names of an enum, one per line, in enum order.
template <typename E>
std::string NameLines(const char* (*name)(E), int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += StrCat(name(static_cast<E>(i)), "\n");
  return s;
}

// Bytes in use by malloc (for memoryStats).
size_t HeapInUse();

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

}  // namespace posenc

#endif  // POSENC_BINDINGS_CODECS_H_
