// Status: the error type of the posenc core. Every entry point that takes
// sizes or parameters from a caller validates them and returns a Status
// naming the parameter and the offending values, instead of aborting.
#ifndef POSENC_OPS_STATUS_H_
#define POSENC_OPS_STATUS_H_

#include <sstream>
#include <string>
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
template <typename... Parts>
std::string StrCat(const Parts&... parts) {
  std::ostringstream os;
  os.precision(17);
  (os << ... << parts);
  return os.str();
}

// The choices an error message lists, from a name table: "a, b, c", or
// "a, b or c" with last = " or ".
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

#endif  // POSENC_OPS_STATUS_H_
