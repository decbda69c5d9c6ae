// Exact conversions between doubles and decimal text, without printf or
// strtod: in wasm those bring musl's long double (128-bit soft-float)
// formatting and parsing, about 20 KB per module. Both work on exact big
// integers, so the results are the correctly rounded ones the C library
// gives (tests/cpp/decimal_test.cc compares them with snprintf and strtod).
#ifndef POSENC_BASE_DECIMAL_H_
#define POSENC_BASE_DECIMAL_H_

#include <string>

namespace posenc {

// The digits of finite, nonzero |v| that the C library's "%.*e" writes for
// the fewest significant digits p (1 to 17) that read back to v: the
// correctly rounded p digits (ties to even), trailing zeros dropped. |v| =
// 0.<digits> * 10^point.
void ShortestDigits(double v, std::string* digits, int* point);

// strtod for decimal ("1.5e-3", ".5", "5.") and hexadecimal ("0x1.8p3")
// text after optional white space and sign, correctly rounded (ties to
// even), out of range -> +-inf or +-0. Unlike strtod it does not read
// "inf" or "nan" (its callers reject non-finite values anyway): for those,
// as for text that is no number, it returns 0 with *end = s.
double ParseDouble(const char* s, const char** end);

}  // namespace posenc

#endif  // POSENC_BASE_DECIMAL_H_
