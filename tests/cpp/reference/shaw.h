// float64 reference of Shaw et al. relative positions
// (docs/formulas.md#shaw-relative-positions): logits with a key table and
// outputs with a value table, queries the last Q of K tokens.
#ifndef POSENC_TESTS_CPP_REFERENCE_SHAW_H_
#define POSENC_TESTS_CPP_REFERENCE_SHAW_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace posenc {
namespace ref {

// Values and, per element, the sum of |terms| that formed them (for float32
// rounding tolerances).
struct Sums {
  std::vector<double> value;
  std::vector<double> abs_sum;
};

// scale * q_i . (k_j + aK[clip(j - qpos(i))]), qpos(i) = i + K - Q.
//   q: [Q, D]  k: [K, D]  aK: [2 clip + 1, D]  ->  [Q, K]
Sums ShawLogits(const std::vector<float>& q, const std::vector<float>& k,
                const std::vector<float>& aK, size_t Q, size_t K, size_t D,
                int32_t clip, double scale);

// sum_j p_ij (v_j + aV[clip(j - qpos(i))]).
//   p: [Q, K]  v: [K, D]  aV: [2 clip + 1, D]  ->  [Q, D]
Sums ShawValues(const std::vector<float>& p, const std::vector<float>& v,
                const std::vector<float>& aV, size_t Q, size_t K, size_t D,
                int32_t clip);

}  // namespace ref
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_REFERENCE_SHAW_H_
