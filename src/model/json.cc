// JSON reader and writer (see json.h). The reader is a recursive descent
// over the bytes with one position; every string is checked as UTF-8 while
// it is copied. Numbers are scanned by the grammar first, then converted:
// integers by hand (exact, with overflow detection), the rest by
// ParseDouble (base/decimal.h, correctly rounded like strtod) on the scanned
// token.
#include "model/json.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "base/decimal.h"

namespace posenc {

Json Json::Bool(bool b) {
  Json j;
  j.type = Type::kBoolean;
  j.boolean = b;
  return j;
}

Json Json::Unsigned(uint64_t u) {
  Json j;
  j.type = Type::kNumber;
  j.number = Number::kUnsigned;
  j.unsigned_value = u;
  j.real = static_cast<double>(u);
  return j;
}

Json Json::Signed(int64_t i) {
  if (i >= 0) return Unsigned(static_cast<uint64_t>(i));
  Json j;
  j.type = Type::kNumber;
  j.number = Number::kNegative;
  j.signed_value = i;
  j.real = static_cast<double>(i);
  return j;
}

Json Json::Double(double d) {
  Json j;
  j.type = Type::kNumber;
  j.number = Number::kFloat;
  j.real = d;
  return j;
}

Json Json::String(std::string s) {
  Json j;
  j.type = Type::kString;
  j.string = std::move(s);
  return j;
}

Json Json::Array(std::vector<Json> items) {
  Json j;
  j.type = Type::kArray;
  j.array = std::move(items);
  return j;
}

Json Json::Object() {
  Json j;
  j.type = Type::kObject;
  return j;
}

bool Json::GetUnsigned(uint64_t* v) const {
  if (type != Type::kNumber) return false;
  if (number == Number::kUnsigned) {
    *v = unsigned_value;
    return true;
  }
  if (number == Number::kNegative && signed_value == 0) {  // "-0"
    *v = 0;
    return true;
  }
  return false;
}

const char* Json::TypeName() const {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kBoolean:
      return "boolean";
    case Type::kNumber:
      return "number";
    case Type::kString:
      return "string";
    case Type::kArray:
      return "array";
    case Type::kObject:
      return "object";
  }
  return "null";
}

namespace {

bool KeyLess(const JsonMember& m, std::string_view key) { return m.key < key; }

}  // namespace

const Json* Json::Find(std::string_view key) const {
  const auto it = std::lower_bound(object.begin(), object.end(), key, KeyLess);
  return it != object.end() && it->key == key ? &it->value : nullptr;
}

void Json::Set(std::string key, Json value) {
  const auto it = std::lower_bound(object.begin(), object.end(),
                                   std::string_view(key), KeyLess);
  if (it != object.end() && it->key == key) {
    it->value = std::move(value);
  } else {
    object.insert(it, JsonMember{std::move(key), std::move(value)});
  }
}

namespace {

// The length of the valid UTF-8 sequence at s[0..n) (RFC 3629: no overlong
// forms, no surrogates, at most U+10FFFF), or 0 if it is not one.
size_t Utf8Length(const unsigned char* s, size_t n) {
  const unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xbf;  // the allowed range of the 2nd byte
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;  // overlong
    if (c == 0xed) hi = 0x9f;  // surrogates
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;  // overlong
    if (c == 0xf4) hi = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; ++i) {
    if ((s[i] & 0xc0) != 0x80) return 0;
  }
  return len;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
}

class Parser {
 public:
  Parser(std::string_view text, std::string* repeated)
      : s_(reinterpret_cast<const unsigned char*>(text.data())),
        n_(text.size()),
        repeated_(repeated) {}

  bool ParseDocument(Json* out) {
    SkipSpace();
    if (!ParseValue(out, 0)) return false;
    SkipSpace();
    return pos_ == n_;
  }

 private:
  void SkipSpace() {
    while (pos_ < n_ && (s_[pos_] == ' ' || s_[pos_] == '\t' ||
                         s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Literal(const char* word) {
    const size_t len = std::strlen(word);
    if (n_ - pos_ < len || std::memcmp(s_ + pos_, word, len) != 0) {
      return false;
    }
    pos_ += len;
    return true;
  }

  bool ParseValue(Json* out, int depth) {
    if (pos_ >= n_) return false;
    switch (s_[pos_]) {
      case '{':
        return ParseObject(out, depth + 1);
      case '[':
        return ParseArray(out, depth + 1);
      case '"':
        out->type = Json::Type::kString;
        return ParseString(&out->string);
      case 't':
        *out = Json::Bool(true);
        return Literal("true");
      case 'f':
        *out = Json::Bool(false);
        return Literal("false");
      case 'n':
        *out = Json();
        return Literal("null");
      default:
        return ParseNumber(out);
    }
  }

  bool ParseObject(Json* out, int depth) {
    if (depth > kMaxJsonDepth) return false;
    ++pos_;  // '{'
    *out = Json::Object();
    SkipSpace();
    if (pos_ < n_ && s_[pos_] == '}') {
      ++pos_;
      return true;
    }
    for (;;) {
      SkipSpace();
      if (pos_ >= n_ || s_[pos_] != '"') return false;
      JsonMember m;
      if (!ParseString(&m.key)) return false;
      SkipSpace();
      if (pos_ >= n_ || s_[pos_] != ':') return false;
      ++pos_;
      SkipSpace();
      if (!ParseValue(&m.value, depth)) return false;
      out->object.push_back(std::move(m));
      SkipSpace();
      if (pos_ >= n_) return false;
      if (s_[pos_] == '}') {
        ++pos_;
        break;
      }
      if (s_[pos_] != ',') return false;
      ++pos_;
    }
    SortMembers(&out->object);
    return true;
  }

  // Sorts the members by key (n log n, whatever their number) and keeps the
  // last of each repeated key, noting the first repeated key in input order.
  void SortMembers(std::vector<JsonMember>* members) {
    std::vector<size_t> order(members->size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return (*members)[a].key < (*members)[b].key;
    });
    std::vector<JsonMember> sorted;
    sorted.reserve(members->size());
    size_t first_repeat = SIZE_MAX;  // input index of the earliest repetition
    for (size_t i = 0; i < order.size(); ++i) {
      JsonMember& m = (*members)[order[i]];
      if (!sorted.empty() && sorted.back().key == m.key) {
        if (order[i] < first_repeat) first_repeat = order[i];
        sorted.back().value = std::move(m.value);
      } else {
        sorted.push_back(std::move(m));
      }
    }
    if (first_repeat != SIZE_MAX && repeated_ != nullptr &&
        repeated_->empty()) {
      *repeated_ = (*members)[first_repeat].key;
    }
    *members = std::move(sorted);
  }

  bool ParseArray(Json* out, int depth) {
    if (depth > kMaxJsonDepth) return false;
    ++pos_;  // '['
    *out = Json::Array({});
    SkipSpace();
    if (pos_ < n_ && s_[pos_] == ']') {
      ++pos_;
      return true;
    }
    for (;;) {
      SkipSpace();
      out->array.emplace_back();
      if (!ParseValue(&out->array.back(), depth)) return false;
      SkipSpace();
      if (pos_ >= n_) return false;
      if (s_[pos_] == ']') {
        ++pos_;
        return true;
      }
      if (s_[pos_] != ',') return false;
      ++pos_;
    }
  }

  // Four hex digits at pos_ into *v.
  bool Hex4(uint32_t* v) {
    if (n_ - pos_ < 4) return false;
    uint32_t x = 0;
    for (int i = 0; i < 4; ++i) {
      const unsigned char c = s_[pos_ + i];
      uint32_t d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return false;
      }
      x = x * 16 + d;
    }
    pos_ += 4;
    *v = x;
    return true;
  }

  bool ParseString(std::string* out) {
    ++pos_;  // '"'
    out->clear();
    while (pos_ < n_) {
      const unsigned char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) return false;
      if (c != '\\') {
        const size_t len = Utf8Length(s_ + pos_, n_ - pos_);
        if (len == 0) return false;
        out->append(reinterpret_cast<const char*>(s_ + pos_), len);
        pos_ += len;
        continue;
      }
      if (++pos_ >= n_) return false;
      const unsigned char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(static_cast<char>(e));
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xdc00 && cp <= 0xdfff) return false;  // lone low half
          if (cp >= 0xd800 && cp <= 0xdbff) {
            uint32_t low;
            if (n_ - pos_ < 2 || s_[pos_] != '\\' || s_[pos_ + 1] != 'u') {
              return false;
            }
            pos_ += 2;
            if (!Hex4(&low) || low < 0xdc00 || low > 0xdfff) return false;
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          }
          AppendUtf8(cp, out);
          break;
        }
        default:
          return false;
      }
    }
    return false;  // unterminated
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  bool ParseNumber(Json* out) {
    const size_t begin = pos_;
    const bool negative = s_[pos_] == '-';
    if (negative) ++pos_;
    auto digit = [&]() {
      return pos_ < n_ && s_[pos_] >= '0' && s_[pos_] <= '9';
    };
    if (!digit()) return false;
    // The integer part, accumulated exactly while it fits.
    uint64_t magnitude = 0;
    bool overflow = false;
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (digit()) {
        const uint64_t d = s_[pos_++] - '0';
        if (magnitude > (UINT64_MAX - d) / 10) overflow = true;
        magnitude = magnitude * 10 + d;
      }
    }
    bool integer = true;
    if (pos_ < n_ && s_[pos_] == '.') {
      integer = false;
      ++pos_;
      if (!digit()) return false;
      while (digit()) ++pos_;
    }
    if (pos_ < n_ && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integer = false;
      ++pos_;
      if (pos_ < n_ && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digit()) return false;
      while (digit()) ++pos_;
    }
    if (integer && !overflow) {
      if (!negative) {
        *out = Json::Unsigned(magnitude);
        return true;
      }
      if (magnitude <= uint64_t{1} << 63) {
        Json j;
        j.type = Json::Type::kNumber;
        j.number = Json::Number::kNegative;
        j.signed_value = magnitude == uint64_t{1} << 63
                             ? INT64_MIN
                             : -static_cast<int64_t>(magnitude);
        j.real = -static_cast<double>(magnitude);
        *out = j;
        return true;
      }
    }
    const std::string token(reinterpret_cast<const char*>(s_ + begin),
                            pos_ - begin);
    const char* end;
    const double d = ParseDouble(token.c_str(), &end);
    if (!std::isfinite(d)) return false;  // outside the double range
    *out = Json::Double(d);
    return true;
  }

  const unsigned char* s_;
  size_t n_;
  size_t pos_ = 0;
  std::string* repeated_;
};

void DumpString(const std::string& s, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = p[i];
    if (c >= 0x80) {
      const size_t len = Utf8Length(p + i, n - i);
      if (len == 0) {
        out->append("\xef\xbf\xbd");  // U+FFFD for the invalid byte
        ++i;
      } else {
        out->append(reinterpret_cast<const char*>(p + i), len);
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\b':
        out->append("\\b");
        break;
      case '\f':
        out->append("\\f");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

void DumpDouble(double d, std::string* out) {
  if (!std::isfinite(d)) {
    out->append("null");
    return;
  }
  if (d == 0.0) {
    out->append(std::signbit(d) ? "-0.0" : "0.0");
    return;
  }
  if (d < 0) out->push_back('-');
  std::string digits;
  int n;  // d = 0.digits * 10^n
  ShortestDigits(d, &digits, &n);
  const int k = static_cast<int>(digits.size());
  if (k <= n && n <= 15) {
    // An integer: digits, zeros, ".0".
    out->append(digits).append(n - k, '0').append(".0");
  } else if (0 < n && n <= 15) {
    out->append(digits, 0, n).push_back('.');
    out->append(digits, n, std::string::npos);
  } else if (-4 < n && n <= 0) {
    out->append("0.").append(-n, '0').append(digits);
  } else {
    // d.ddd e[+-]xx, at least two exponent digits.
    out->push_back(digits[0]);
    if (k > 1) out->append(".").append(digits, 1, std::string::npos);
    const int e = std::abs(n - 1);
    out->append(n - 1 < 0 ? "e-" : "e+");
    if (e < 10) out->push_back('0');
    out->append(std::to_string(e));
  }
}

void Dump(const Json& j, int depth, std::string* out) {
  switch (j.type) {
    case Json::Type::kNull:
      out->append("null");
      return;
    case Json::Type::kBoolean:
      out->append(j.boolean ? "true" : "false");
      return;
    case Json::Type::kNumber:
      if (j.number == Json::Number::kUnsigned) {
        out->append(std::to_string(j.unsigned_value));
      } else if (j.number == Json::Number::kNegative) {
        out->append(std::to_string(j.signed_value));
      } else {
        DumpDouble(j.real, out);
      }
      return;
    case Json::Type::kString:
      DumpString(j.string, out);
      return;
    case Json::Type::kArray:
      if (depth >= kMaxJsonDepth) {
        out->append("null");
        return;
      }
      out->push_back('[');
      for (size_t i = 0; i < j.array.size(); ++i) {
        if (i) out->push_back(',');
        Dump(j.array[i], depth + 1, out);
      }
      out->push_back(']');
      return;
    case Json::Type::kObject:
      if (depth >= kMaxJsonDepth) {
        out->append("null");
        return;
      }
      out->push_back('{');
      for (size_t i = 0; i < j.object.size(); ++i) {
        if (i) out->push_back(',');
        DumpString(j.object[i].key, out);
        out->push_back(':');
        Dump(j.object[i].value, depth + 1, out);
      }
      out->push_back('}');
      return;
  }
}

}  // namespace

bool ParseJson(std::string_view text, Json* out, std::string* repeated_key) {
  if (repeated_key != nullptr) repeated_key->clear();
  Json value;
  Parser parser(text, repeated_key);
  if (!parser.ParseDocument(&value)) return false;
  *out = std::move(value);
  return true;
}

std::string DumpJson(const Json& j) {
  std::string out;
  Dump(j, 0, &out);
  return out;
}

}  // namespace posenc
