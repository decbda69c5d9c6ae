#include "reference/t5.h"

#include <algorithm>
#include <cmath>

namespace posenc {
namespace ref {

T5BucketRange T5Bucket(int64_t rel, int32_t B, int32_t maxd,
                       bool bidirectional) {
  int32_t base = 0, nb = B;
  int64_t n;  // distance this side counts
  if (bidirectional) {
    nb /= 2;
    if (rel > 0) base = nb;
    n = rel < 0 ? -rel : rel;
  } else {
    n = rel < 0 ? -rel : 0;
  }
  const int32_t exact = nb / 2;
  if (n < exact) return {base + int32_t(n), base + int32_t(n)};
  const double v = std::log(double(n) / exact) /
                   std::log(double(maxd) / exact) * (nb - exact);
  auto pick = [&](double x) {
    return base + int32_t(std::min<double>(nb - 1, exact + std::floor(x)));
  };
  return {pick(std::max(0.0, v - 1e-6)), pick(v + 1e-6)};
}

}  // namespace ref
}  // namespace posenc
