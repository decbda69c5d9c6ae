// Which Highway target the dispatcher picks for the ops in this library.
// Natively that is the best target the CPU supports (or the one a test
// forced); in wasm it is the single static target (WASM or SCALAR).
#ifndef POSENC_BASE_TARGETS_H_
#define POSENC_BASE_TARGETS_H_

#include <cstdint>

namespace posenc {

int64_t DispatchedTarget();
const char* DispatchedTargetName();

}  // namespace posenc

#endif  // POSENC_BASE_TARGETS_H_
