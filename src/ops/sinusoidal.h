// Sinusoidal absolute position table (Vaswani et al. 2017), added to token
// embeddings. Shapes: L = length, D = model dim (even).
//   kInterleaved (paper, default): PE[p, 2i] = sin(p w_i), PE[p, 2i+1] =
//     cos(p w_i), w_i = base^(-2i/D).
//   kConcat (tensor2tensor / fairseq): PE[p, i] = sin(p w_i),
//     PE[p, D/2 + i] = cos(p w_i), w_i = exp(-i ln(base) / (D/2 - 1)).
#ifndef POSENC_OPS_SINUSOIDAL_H_
#define POSENC_OPS_SINUSOIDAL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"

namespace posenc {

enum class SinusoidalLayout : int { kInterleaved = 0, kConcat = 1 };
constexpr int kNumSinusoidalLayouts = 2;
// "interleaved", "concat" ("invalid" out of range).
const char* SinusoidalLayoutName(SinusoidalLayout layout);

// Checks L >= 0, D even (>= 4 for kConcat), base finite > 1.
Status ValidateSinusoidal(int64_t L, int64_t D, double base,
                          SinusoidalLayout layout);

// w: [D/2] in double.
std::vector<double> SinusoidalFrequencies(size_t D, double base,
                                          SinusoidalLayout layout);

// out: [L, D]. Uses the SIMD cos/sin kernel of rope.h.
void SinusoidalTable(size_t L, size_t D, double base, SinusoidalLayout layout,
                     float* out);
// Scalar reference (std::sin / std::cos of the reduced double angle).
void SinusoidalTableScalar(size_t L, size_t D, double base,
                           SinusoidalLayout layout, float* out);

}  // namespace posenc

#endif  // POSENC_OPS_SINUSOIDAL_H_
