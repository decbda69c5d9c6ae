#include "reference/sinusoidal.h"

#include <cmath>

namespace posenc {
namespace ref {

std::vector<double> SinusoidalTable(size_t L, size_t D, double base,
                                    bool concat) {
  const size_t h = D / 2;
  std::vector<double> out(L * D);
  for (size_t p = 0; p < L; ++p) {
    for (size_t i = 0; i < h; ++i) {
      const double w = concat
                           ? std::exp(-double(i) * std::log(base) / (h - 1.0))
                           : std::pow(base, -2.0 * double(i) / double(D));
      out[p * D + (concat ? i : 2 * i)] = std::sin(double(p) * w);
      out[p * D + (concat ? h + i : 2 * i + 1)] = std::cos(double(p) * w);
    }
  }
  return out;
}

}  // namespace ref
}  // namespace posenc
