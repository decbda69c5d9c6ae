// float64 reference of ALiBi (docs/formulas.md#alibi): head slopes and the
// bias -m_h |i - j|. Written from the ALiBi paper's definition.
#ifndef POSENC_TESTS_CPP_REFERENCE_ALIBI_H_
#define POSENC_TESTS_CPP_REFERENCE_ALIBI_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace posenc {
namespace ref {

// slopes: [n], the authors' rule: for a power of two n, 2^(-8 (k + 1) / n);
// otherwise those of the closest lower power of two c, then every other
// slope of 2c.
std::vector<double> AlibiSlopes(size_t n);

// slopes: [n], the simple variant 2^-h.
std::vector<double> AlibiSimpleSlopes(size_t n);

// The bias term of a key at rel = j - qpos(i): -slope |rel| (for a causal
// row's visible keys, rel <= 0, this is slope * rel).
double AlibiTerm(double slope, int64_t rel);

// slopes: [H] -> [H, Q, K]: queries are the last Q of K tokens; with
// `causal`, keys after the query are -inf.
std::vector<double> AlibiBias(const std::vector<float>& slopes, size_t Q,
                              size_t K, bool causal);

}  // namespace ref
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_REFERENCE_ALIBI_H_
