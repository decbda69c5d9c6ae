#include "base/decimal.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace posenc {
namespace {

// A nonnegative big integer, little-endian 32-bit words. 100 words hold
// 3200 bits: the largest number below is a parsed significand of 801 digits
// shifted to meet 5^1127 (about 2700 bits).
class Big {
 public:
  explicit Big(uint64_t v = 0) {
    w_[0] = static_cast<uint32_t>(v);
    w_[1] = static_cast<uint32_t>(v >> 32);
    n_ = 2;
    Trim();
  }
  bool Zero() const { return n_ == 0; }
  // this = this * m + a.
  void MulAdd(uint32_t m, uint32_t a) {
    uint64_t carry = a;
    for (int i = 0; i < n_; ++i) {
      const uint64_t t = uint64_t{w_[i]} * m + carry;
      w_[i] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) w_[n_++] = static_cast<uint32_t>(carry);
  }
  void MulPow5(int k) {
    for (; k >= 13; k -= 13) MulAdd(1220703125, 0);  // 5^13
    uint32_t p = 1;
    for (; k > 0; --k) p *= 5;
    MulAdd(p, 0);
  }
  void Shl(int bits) {
    if (n_ == 0) return;
    const int q = bits / 32, r = bits % 32;
    if (r != 0) {
      w_[n_] = 0;
      for (int i = n_; i > 0; --i) {
        w_[i] = (w_[i] << r) | (w_[i - 1] >> (32 - r));
      }
      w_[0] <<= r;
      ++n_;
    }
    if (q != 0) {
      std::memmove(w_ + q, w_, sizeof(uint32_t) * n_);
      std::memset(w_, 0, sizeof(uint32_t) * q);
      n_ += q;
    }
    Trim();
  }
  void Shr1() {
    for (int i = 0; i < n_; ++i) {
      w_[i] = (w_[i] >> 1) | (i + 1 < n_ ? w_[i + 1] << 31 : 0);
    }
    Trim();
  }
  // this >= b.
  bool AtLeast(const Big& b) const {
    if (n_ != b.n_) return n_ > b.n_;
    for (int i = n_ - 1; i >= 0; --i) {
      if (w_[i] != b.w_[i]) return w_[i] > b.w_[i];
    }
    return true;
  }
  // this -= b (b <= this).
  void Sub(const Big& b) {
    int64_t borrow = 0;
    for (int i = 0; i < n_; ++i) {
      const int64_t t = int64_t{w_[i]} - (i < b.n_ ? b.w_[i] : 0) - borrow;
      w_[i] = static_cast<uint32_t>(t);
      borrow = t < 0;
    }
    Trim();
  }
  // this /= d; returns the remainder.
  uint32_t Div(uint32_t d) {
    uint64_t r = 0;
    for (int i = n_ - 1; i >= 0; --i) {
      r = (r << 32) | w_[i];
      w_[i] = static_cast<uint32_t>(r / d);
      r %= d;
    }
    Trim();
    return static_cast<uint32_t>(r);
  }
  int Bits() const { return n_ == 0 ? 0 : 32 * n_ - __builtin_clz(w_[n_ - 1]); }
  // The top 64 bits (this >> *drop) and whether the bits dropped are not
  // all zero.
  uint64_t Top64(int* drop, bool* sticky) const {
    const int d = Bits() > 64 ? Bits() - 64 : 0;
    uint64_t m = 0;
    for (int i = d + 63; i >= d; --i) m = (m << 1) | Bit(i);
    bool s = (w_[d / 32] & ((uint32_t{1} << (d % 32)) - 1)) != 0;
    for (int i = 0; i < d / 32; ++i) s = s || w_[i] != 0;
    *drop = d;
    *sticky = s;
    return m;
  }

 private:
  uint64_t Bit(int i) const {
    return i / 32 < n_ ? (w_[i / 32] >> (i % 32)) & 1 : 0;
  }
  void Trim() {
    while (n_ > 0 && w_[n_ - 1] == 0) --n_;
  }
  uint32_t w_[100];
  int n_;
};

// (m + (sticky ? a fraction of one : 0)) * 2^e2 rounded to a double (ties to
// even), m > 0.
double RoundToDouble(uint64_t m, int64_t e2, bool sticky) {
  const int lz = __builtin_clzll(m);
  m <<= lz;
  e2 -= lz;
  const int64_t top = e2 + 63;  // m * 2^e2 is in [2^top, 2^(top + 1))
  if (top > 1023) return HUGE_VAL;
  const int64_t shift = top < -1022 ? 11 + (-1022 - top) : 11;
  if (shift > 64) return 0.0;
  const uint64_t kept = shift == 64 ? 0 : m >> shift;
  const uint64_t rest = shift == 64 ? m : m & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  const bool up = rest > half || (rest == half && (sticky || (kept & 1)));
  // Exact: at most 53 bits at an exponent a double has (or infinity).
  return std::ldexp(static_cast<double>(kept + up),
                    static_cast<int>(e2 + shift));
}

constexpr int kMaxDigits = 800;

// digits[0, n) (no leading zero, n <= kMaxDigits + 1) * 10^e10, rounded.
// A double or a midpoint between two has at most 767 significant digits,
// so the digits beyond 800 only matter as "not all zero" (a last 1).
double DecimalToDouble(const char* digits, int n, int64_t e10) {
  if (n + e10 > 310) return HUGE_VAL;  // >= 1e309
  if (n + e10 < -326) return 0.0;      // < 1e-326, under half of 2^-1074
  Big b;
  for (int i = 0; i < n; ++i) b.MulAdd(10, digits[i] - '0');
  if (e10 >= 0) {
    b.MulPow5(static_cast<int>(e10));
    int drop;
    bool sticky;
    const uint64_t m = b.Top64(&drop, &sticky);
    return RoundToDouble(m, e10 + drop, sticky);
  }
  // b * 2^e10 / 5^-e10: 64 quotient bits by long division, then the rest.
  Big p(1);
  p.MulPow5(static_cast<int>(-e10));
  const int s = 63 + p.Bits() - b.Bits();  // b * 2^s / p in (2^62, 2^64)
  if (s >= 0) {
    b.Shl(s);
  } else {
    p.Shl(-s);
  }
  p.Shl(63);
  uint64_t q = 0;
  for (int i = 63; i >= 0; --i) {
    if (b.AtLeast(p)) {
      b.Sub(p);
      q |= uint64_t{1} << i;
    }
    p.Shr1();
  }
  return RoundToDouble(q, e10 - s, !b.Zero());
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  c = static_cast<char>(c | 32);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// An optional exponent at *p ("e-12", "p+3"): its value (clamped to
// +-100000), and *p past it; 0 and *p unchanged if no digit follows.
int64_t ReadExponent(const char** p, char letter) {
  const char* q = *p;
  if ((*q | 32) != letter) return 0;
  ++q;
  const bool negative = *q == '-';
  if (*q == '+' || *q == '-') ++q;
  if (!IsDigit(*q)) return 0;
  int64_t e = 0;
  for (; IsDigit(*q); ++q) e = e < 100000 ? e * 10 + (*q - '0') : e;
  *p = q;
  return negative ? -e : e;
}

}  // namespace

void ShortestDigits(double v, std::string* digits, int* point) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  int exponent = static_cast<int>((bits >> 52) & 0x7ff);
  uint64_t m = bits & ((uint64_t{1} << 52) - 1);
  if (exponent != 0) {
    m |= uint64_t{1} << 52;
  } else {
    exponent = 1;
  }
  // |v| = m * 2^e = n * 10^e10 with n an integer: all its digits.
  const int e = exponent - 1075;
  Big n(m);
  if (e >= 0) {
    n.Shl(e);
  } else {
    n.MulPow5(-e);
  }
  std::string all;
  while (!n.Zero()) {
    uint32_t chunk = n.Div(1000000000);
    for (int i = 0; i < 9; ++i, chunk /= 10)
      all += static_cast<char>('0' + chunk % 10);
  }
  while (all.back() == '0') all.pop_back();  // leading zeros (reversed)
  const int all_point = static_cast<int>(all.size()) + (e >= 0 ? 0 : e);
  all.assign(all.rbegin(), all.rend());
  while (all.back() == '0') all.pop_back();  // trailing zeros
  const double target = std::fabs(v);
  for (size_t p = 1;; ++p) {
    // The p digits printf writes: all's, rounded to nearest, ties to even.
    std::string r = all.substr(0, p);
    int r_point = all_point;
    if (all.size() > p) {
      const char next = all[p];
      const bool rest = all.size() > p + 1;  // all ends in a nonzero digit
      if (next > '5' || (next == '5' && (rest || (r[p - 1] - '0') % 2 == 1))) {
        int i = static_cast<int>(p) - 1;
        for (; i >= 0 && r[i] == '9'; --i) r[i] = '0';
        if (i >= 0) {
          ++r[i];
        } else {
          r.insert(0, 1, '1');
          r.pop_back();
          ++r_point;
        }
      }
    }
    const int k = static_cast<int>(r.size());
    if (p >= 17 || DecimalToDouble(r.data(), k, r_point - k) == target) {
      while (r.size() > 1 && r.back() == '0') r.pop_back();
      *digits = r;
      *point = r_point;
      return;
    }
  }
}

double ParseDouble(const char* s, const char** end) {
  const char* p = s;
  while (*p == ' ' || (*p >= '\t' && *p <= '\r')) ++p;
  const bool negative = *p == '-';
  if (*p == '+' || *p == '-') ++p;
  double v = 0.0;
  if (p[0] == '0' && (p[1] | 32) == 'x' &&
      (HexValue(p[2]) >= 0 || (p[2] == '.' && HexValue(p[3]) >= 0))) {
    // Up to 16 significant hex digits; the rest only as "not all zero".
    p += 2;
    uint64_t m = 0;
    int64_t e2 = 0;
    bool sticky = false;
    bool fraction = false;
    for (;; ++p) {
      if (*p == '.' && !fraction) {
        fraction = true;
        continue;
      }
      const int h = HexValue(*p);
      if (h < 0) break;
      if (m == 0 && h == 0) {
        e2 -= fraction ? 4 : 0;
      } else if ((m >> 60) == 0) {
        m = m * 16 + h;
        e2 -= fraction ? 4 : 0;
      } else {
        sticky = sticky || h != 0;
        e2 += fraction ? 0 : 4;
      }
    }
    e2 += ReadExponent(&p, 'p');
    if (m != 0) v = RoundToDouble(m, e2, sticky);
  } else {
    char digits[kMaxDigits + 1];
    int n = 0;
    int64_t e10 = 0;
    bool sticky = false, fraction = false, any = false;
    for (;; ++p) {
      if (*p == '.' && !fraction) {
        fraction = true;
        continue;
      }
      if (!IsDigit(*p)) break;
      any = true;
      if (n == 0 && *p == '0') {
        e10 -= fraction ? 1 : 0;
      } else if (n < kMaxDigits) {
        digits[n++] = *p;
        e10 -= fraction ? 1 : 0;
      } else {
        sticky = sticky || *p != '0';
        e10 += fraction ? 0 : 1;
      }
    }
    if (!any) {
      *end = s;
      return 0.0;
    }
    if (sticky) {
      digits[n++] = '1';
      --e10;
    }
    e10 += ReadExponent(&p, 'e');
    if (n != 0) v = DecimalToDouble(digits, n, e10);
  }
  *end = p;
  return negative ? -v : v;
}

}  // namespace posenc
