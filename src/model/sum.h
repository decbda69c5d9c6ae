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

// Two such sums in one pass: term(c, &a, &b) gives the c-th term of each.
template <class Terms>
inline void Sum8x2(size_t n, const Terms& terms, double* sum_a, double* sum_b) {
  double a[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  double b[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  size_t c = 0;
  for (; c + 8 <= n; c += 8) {
    for (size_t j = 0; j < 8; ++j) {
      double ta, tb;
      terms(c + j, &ta, &tb);
      a[j] += ta;
      b[j] += tb;
    }
  }
  for (size_t j = 0; c < n; ++c, ++j) {
    double ta, tb;
    terms(c, &ta, &tb);
    a[j] += ta;
    b[j] += tb;
  }
  *sum_a = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
  *sum_b = ((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]));
}

}  // namespace posenc

#endif  // POSENC_MODEL_SUM_H_
