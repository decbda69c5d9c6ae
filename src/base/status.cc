#include "base/status.h"

#include <cmath>
#include <cstdlib>

#include "base/decimal.h"

namespace posenc {

std::string JsNumber(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0.0) return "0";  // JS writes -0 as "0" too
  std::string out;
  if (v < 0) out += '-';
  // The fewest significant digits (1 to 17) that read back to v:
  // v = 0.digits * 10^n.
  std::string digits;
  int n;
  ShortestDigits(v, &digits, &n);
  // JS's rules (ECMA-262 Number::toString): n is the position of the
  // decimal point relative to the first digit, k the number of digits.
  const int k = static_cast<int>(digits.size());
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
