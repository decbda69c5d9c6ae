// Status: the error type of the posenc core. Every entry point that takes
// sizes or parameters from a caller validates them and returns a Status
// naming the parameter and the offending values, instead of aborting.
#ifndef POSENC_BASE_STATUS_H_
#define POSENC_BASE_STATUS_H_

#include <string>
#include <type_traits>
#include <utility>

namespace posenc {

class Status {
 public:
  Status() = default;  // OK
  static Status Ok() { return Status(); }
  static Status Invalid(std::string message) {
    Status s;
    s.ok_ = false;
    s.message_ = std::move(message);
    return s;
  }
  bool ok() const { return ok_; }
  const std::string& message() const { return message_; }

 private:
  bool ok_ = true;
  std::string message_;
};

// Builds a message from streamable parts: StrCat("headDim must be even, got ",
// 7).
// A double as JavaScript's Number#toString writes it: the shortest digits
// that read back to the same value, "NaN", "Infinity", "-Infinity", and the
// exponent form only below 1e-6 or from 1e21 on (1e-7, 1e+21). Messages
// reach JS users, who passed these numbers in JS.
std::string JsNumber(double v);

namespace status_internal {
inline void Append(std::string* s, const std::string& v) { *s += v; }
inline void Append(std::string* s, const char* v) { *s += v; }
inline void Append(std::string* s, char v) { *s += v; }
inline void Append(std::string* s, bool v) { *s += v ? "true" : "false"; }
inline void Append(std::string* s, double v) { *s += JsNumber(v); }
inline void Append(std::string* s, float v) { *s += JsNumber(v); }
template <typename Int,
          typename = std::enable_if_t<std::is_integral<Int>::value>>
void Append(std::string* s, Int v) {
  *s += std::to_string(v);
}
}  // namespace status_internal

// Concatenates strings, integers and numbers (written as JS writes them),
// without iostreams (which would pull their code into the wasm module).
template <typename... Parts>
std::string StrCat(const Parts&... parts) {
  std::string s;
  (status_internal::Append(&s, parts), ...);
  return s;
}

// Checks of one number, with the messages the JS API documents:
// "<name> must be a finite number, got NaN", "<name> must be > 1, got 0.5",
// "<name> must be >= 0, got -1".
Status CheckFinite(const std::string& name, double v);
Status CheckFiniteAbove(const std::string& name, double v, double bound);
Status CheckFiniteAtLeast(const std::string& name, double v, double bound);

inline std::string JoinNames(const char* const* names, int n,
                             const char* last = ", ") {
  std::string s;
  for (int i = 0; i < n; ++i) {
    if (i > 0) s += i + 1 == n ? last : ", ";
    s += names[i];
  }
  return s;
}

#define POSENC_RETURN_IF_ERROR(expr) \
  do {                               \
    ::posenc::Status _st = (expr);   \
    if (!_st.ok()) return _st;       \
  } while (0)

}  // namespace posenc

#endif  // POSENC_BASE_STATUS_H_
