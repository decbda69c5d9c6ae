// A float64 sum of n terms in a fixed order that does not depend on the
// target: eight partial sums (term c goes to sum c mod 8), each added in
// the order of c, then combined as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) +
// (s6 + s7)). The compiler may vectorise the eight chains (they are
// independent); it cannot reorder them, so every build gives the same bits,
// and eight chains run about eight times faster than one on a long row.
#ifndef POSENC_MODEL_SUM_H_
#define POSENC_MODEL_SUM_H_

#include <cstddef>

namespace posenc {

// sum over c < n of term(c) (a double).
template <class Term>
inline double Sum8(size_t n, const Term& term) {
  double s[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  size_t c = 0;
  for (; c + 8 <= n; c += 8) {
    for (size_t j = 0; j < 8; ++j) s[j] += term(c + j);
  }
  for (size_t j = 0; c < n; ++c, ++j) s[j] += term(c);
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

}  // namespace posenc

#endif  // POSENC_MODEL_SUM_H_
