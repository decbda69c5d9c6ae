#include "ops/learned.h"

#include <cstring>

namespace posenc {

Status LearnedPositions(const float* table, size_t max_len, size_t D,
                        const int32_t* positions, size_t T, float* out) {
  for (size_t t = 0; t < T; ++t) {
    const int32_t p = positions[t];
    if (p < 0 || static_cast<size_t>(p) >= max_len) {
      return Status::Invalid(
          StrCat("positions[", t, "] = ", p,
                 " is outside the learned table [0, ", max_len,
                 "): a learned absolute encoding has no row for it "
                 "(it cannot extrapolate past its training length)"));
    }
  }
  for (size_t t = 0; t < T; ++t) {
    std::memcpy(out + t * D, table + static_cast<size_t>(positions[t]) * D,
                D * sizeof(float));
  }
  return Status::Ok();
}

}  // namespace posenc
