// A small JSON reader and writer for the model layer: the safetensors header
// and the rope_scaling metadata value. Strict RFC 8259 (no comments, no
// trailing commas, no leading BOM, nothing after the value), UTF-8 checked
// in every string, a depth limit instead of unbounded recursion, no
// exceptions. The writer's output is compact with object keys in byte
// order, the form safetensors writers produce, so the shipped model files
// are reproduced byte for byte. It replaces nlohmann-json, which was the
// largest single part of the wasm module after the kernels (npm run size).
#ifndef POSENC_MODEL_JSON_H_
#define POSENC_MODEL_JSON_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace posenc {

struct JsonMember;

// One JSON value. Numbers keep how they were written: an integer without
// fraction or exponent that fits uint64 (kUnsigned) or int64 (kNegative, and
// "-0") keeps its exact value; any other number is a double (kFloat). `real`
// holds the value as a double for every kind.
struct Json {
  enum class Type { kNull, kBoolean, kNumber, kString, kArray, kObject };
  enum class Number { kUnsigned, kNegative, kFloat };

  Type type = Type::kNull;
  bool boolean = false;
  Number number = Number::kUnsigned;
  uint64_t unsigned_value = 0;  // kUnsigned
  int64_t signed_value = 0;     // kNegative
  double real = 0.0;            // every number
  std::string string;
  std::vector<Json> array;
  std::vector<JsonMember> object;  // sorted by key (bytewise), keys unique

  static Json Bool(bool b);
  static Json Unsigned(uint64_t u);
  static Json Signed(int64_t i);
  static Json Double(double d);
  static Json String(std::string s);
  static Json Array(std::vector<Json> items);
  static Json Object();

  bool IsObject() const { return type == Type::kObject; }
  bool IsArray() const { return type == Type::kArray; }
  bool IsString() const { return type == Type::kString; }
  bool IsNumber() const { return type == Type::kNumber; }
  bool IsBoolean() const { return type == Type::kBoolean; }
  // A non-negative integer as written (not a float such as 2.0) into *v.
  bool GetUnsigned(uint64_t* v) const;
  // "null", "boolean", "number", "string", "array" or "object".
  const char* TypeName() const;
  // The member `key` of an object, or nullptr.
  const Json* Find(std::string_view key) const;
  // Sets the member `key` of an object (added in key order, or replaced).
  void Set(std::string key, Json value);
};

struct JsonMember {
  std::string key;
  Json value;
};

// Objects and arrays nested deeper than this are refused by the reader.
inline constexpr int kMaxJsonDepth = 256;

// Parses `text` into *out. False on anything that is not exactly one JSON
// value (surrounding whitespace allowed): bad syntax, invalid UTF-8, lone
// surrogate escapes, control characters in strings, numbers outside the
// double range, nesting deeper than kMaxJsonDepth. A key repeated within
// one object is not a syntax error: the last value is kept and, when
// `repeated_key` is not null, a repeated key is stored there (the first
// repetition in the first object to close with one; "" when every key is
// unique).
bool ParseJson(std::string_view text, Json* out,
               std::string* repeated_key = nullptr);

// The compact text of `j`: no spaces, object keys in byte order, strings
// with '"', '\\' and control characters escaped (\b \f \n \r \t, else
// \u00xx) and other characters as UTF-8 (invalid UTF-8 becomes U+FFFD),
// integers exactly, doubles as the shortest text that reads back to the
// same value (with ".0" when it would look like an integer; non-finite
// doubles as null). Containers nest at most kMaxJsonDepth deep here too
// (deeper ones are written as null).
std::string DumpJson(const Json& j);

}  // namespace posenc

#endif  // POSENC_MODEL_JSON_H_
