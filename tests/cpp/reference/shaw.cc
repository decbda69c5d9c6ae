#include "reference/shaw.h"

#include <algorithm>
#include <cmath>

namespace posenc {
namespace ref {
namespace {

// Table row of key j for query i: clip(j - (i + K - Q), -c, c) + c.
size_t Row(size_t i, size_t j, size_t Q, size_t K, int32_t c) {
  const int64_t rel = int64_t(j) - int64_t(i + K - Q);
  return size_t(std::clamp<int64_t>(rel, -c, c) + c);
}

}  // namespace

Sums ShawLogits(const std::vector<float>& q, const std::vector<float>& k,
                const std::vector<float>& aK, size_t Q, size_t K, size_t D,
                int32_t clip, double scale) {
  Sums r{std::vector<double>(Q * K), std::vector<double>(Q * K)};
  for (size_t i = 0; i < Q; ++i) {
    for (size_t j = 0; j < K; ++j) {
      const size_t b = Row(i, j, Q, K, clip);
      double s = 0, mag = 0;
      for (size_t e = 0; e < D; ++e) {
        const double t =
            double(q[i * D + e]) * (double(k[j * D + e]) + aK[b * D + e]);
        s += t;
        mag += std::abs(t);
      }
      r.value[i * K + j] = s * scale;
      r.abs_sum[i * K + j] = mag * std::abs(scale);
    }
  }
  return r;
}

Sums ShawValues(const std::vector<float>& p, const std::vector<float>& v,
                const std::vector<float>& aV, size_t Q, size_t K, size_t D,
                int32_t clip) {
  Sums r{std::vector<double>(Q * D, 0.0), std::vector<double>(Q * D, 0.0)};
  for (size_t i = 0; i < Q; ++i) {
    for (size_t j = 0; j < K; ++j) {
      const size_t b = Row(i, j, Q, K, clip);
      for (size_t e = 0; e < D; ++e) {
        const double t =
            double(p[i * K + j]) * (double(v[j * D + e]) + aV[b * D + e]);
        r.value[i * D + e] += t;
        r.abs_sum[i * D + e] += std::abs(t);
      }
    }
  }
  return r;
}

}  // namespace ref
}  // namespace posenc
