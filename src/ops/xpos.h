// xPos (Sun et al. 2022): RoPE whose pair i is also scaled by
// zeta_i^((p - center) / scale_base) on queries and by its inverse on keys,
// zeta_i = (2i + 0.4 r) / (1.4 r). The product q.k then carries
// zeta^((m - n) / scale_base): a decay with distance that depends only on
// m - n, for any `center`, so full and cached passes agree as long as both use
// the same center (torchscale centres at -(T + offset) / 2; posenc takes it
// explicitly, default 0).
// Shapes: T tokens, r rotary dim, h = r/2.
#ifndef POSENC_OPS_XPOS_H_
#define POSENC_OPS_XPOS_H_

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace posenc {

// The default scale_base (torchscale's xPos): every default of the bindings,
// the attention options and the model config is this one.
inline constexpr double kXposScaleBase = 512.0;

Status ValidateXpos(int64_t r, double scale_base);

// The largest |p - center| for which every scale and its inverse is a normal
// float32: |p - center| / scale_base * ln(1 / zeta_0) <= 87, zeta_0 = 2/7
// the smallest zeta (35,556 positions at scale_base 512). Beyond it the key
// scales overflow to inf and the query scales underflow to 0, and attention
// would return zeros or NaN without a word.
int64_t XposMaxDistance(double scale_base);

// out: [T, h], in double then rounded; `key` selects the inverse scale.
// Invalid (nothing written) if a position is farther than XposMaxDistance
// from `center`.
Status XposScales(const int32_t* positions, size_t T, size_t r,
                  double scale_base, int64_t center, bool key, float* out);

}  // namespace posenc

#endif  // POSENC_OPS_XPOS_H_
