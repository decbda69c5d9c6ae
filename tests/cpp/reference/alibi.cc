#include "reference/alibi.h"

#include <cmath>
#include <limits>

namespace posenc {
namespace ref {

std::vector<double> AlibiSlopes(size_t n) {
  size_t c = 1;
  while (2 * c <= n) c *= 2;
  std::vector<double> s;
  for (size_t k = 0; k < c; ++k) {
    s.push_back(std::pow(2.0, -8.0 * double(k + 1) / double(c)));
  }
  if (c < n) {
    const std::vector<double> twice = AlibiSlopes(2 * c);
    for (size_t k = 0; s.size() < n; k += 2) s.push_back(twice[k]);
  }
  return s;
}

std::vector<double> AlibiSimpleSlopes(size_t n) {
  std::vector<double> s(n);
  for (size_t h = 0; h < n; ++h) s[h] = std::pow(0.5, double(h));
  return s;
}

double AlibiTerm(double slope, int64_t rel) {
  return -slope * double(rel < 0 ? -rel : rel);
}

std::vector<double> AlibiBias(const std::vector<float>& slopes, size_t Q,
                              size_t K, bool causal) {
  const size_t H = slopes.size();
  std::vector<double> out(H * Q * K);
  for (size_t h = 0; h < H; ++h) {
    for (size_t i = 0; i < Q; ++i) {
      const int64_t qpos = int64_t(i + K - Q);
      for (size_t j = 0; j < K; ++j) {
        const int64_t rel = int64_t(j) - qpos;
        out[(h * Q + i) * K + j] =
            causal && rel > 0 ? -std::numeric_limits<double>::infinity()
                              : AlibiTerm(slopes[h], rel);
      }
    }
  }
  return out;
}

}  // namespace ref
}  // namespace posenc
