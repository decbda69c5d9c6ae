#include "ops/status.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace posenc {

std::string JsNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0.0) return "0";  // JS writes -0 as "0" too
  // The fewest significant digits (1 to 17) that read back to v, in the
  // form d.ddde[+-]x.
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string out;
  const char* p = buf;
  if (*p == '-') {
    out += '-';
    ++p;
  }
  std::string digits;
  for (; *p != 'e'; ++p) {
    if (*p != '.') digits += *p;
  }
  const int exponent = std::atoi(p + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  // JS's rules (ECMA-262 Number::toString): n is the position of the
  // decimal point relative to the first digit, k the number of digits.
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;
  if (k <= n && n <= 21) {
    out += digits;
    out.append(n - k, '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, n);
    out += '.';
    out += digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(-n, '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += n - 1 >= 0 ? '+' : '-';
    out += std::to_string(std::abs(n - 1));
  }
  return out;
}

Status CheckFinite(const std::string& name, double v) {
  if (std::isfinite(v)) return Status::Ok();
  return Status::Invalid(StrCat(name, " must be a finite number, got ", v));
}

Status CheckFiniteAbove(const std::string& name, double v, double bound) {
  POSENC_RETURN_IF_ERROR(CheckFinite(name, v));
  if (v > bound) return Status::Ok();
  return Status::Invalid(StrCat(name, " must be > ", bound, ", got ", v));
}

Status CheckFiniteAtLeast(const std::string& name, double v, double bound) {
  POSENC_RETURN_IF_ERROR(CheckFinite(name, v));
  if (v >= bound) return Status::Ok();
  return Status::Invalid(StrCat(name, " must be >= ", bound, ", got ", v));
}

}  // namespace posenc
