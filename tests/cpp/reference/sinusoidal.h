// float64 reference of the sinusoidal table (docs/formulas.md#sinusoidal).
#ifndef POSENC_TESTS_CPP_REFERENCE_SINUSOIDAL_H_
#define POSENC_TESTS_CPP_REFERENCE_SINUSOIDAL_H_

#include <cstddef>
#include <vector>

namespace posenc {
namespace ref {

// [L, D]: row p holds sin(p w_i) and cos(p w_i) for i < D / 2, with
//   interleaved (Vaswani et al.): w_i = base^(-2i / D), sin at 2i, cos at 2i+1;
//   concat (tensor2tensor):       w_i = exp(-i ln(base) / (D/2 - 1)), sines
//                                 in the first half, cosines in the second.
std::vector<double> SinusoidalTable(size_t L, size_t D, double base,
                                    bool concat);

}  // namespace ref
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_REFERENCE_SINUSOIDAL_H_
