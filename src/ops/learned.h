// Learned absolute positions: rows of a [max_len, D] table. A position outside
// [0, max_len) is an error naming it, never a clamp or an out-of-bounds read.
#ifndef POSENC_OPS_LEARNED_H_
#define POSENC_OPS_LEARNED_H_

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace posenc {

// out: [T, D] = table[positions[t]]; table: [max_len, D].
Status LearnedPositions(const float* table, size_t max_len, size_t D,
                        const int32_t* positions, size_t T, float* out);

}  // namespace posenc

#endif  // POSENC_OPS_LEARNED_H_
