// The SIMD arithmetic ceiling of the running binary: independent vector
// mul+add chains with no memory traffic. Used by the benchmarks to report
// what fraction of the machine a kernel reaches.
#ifndef POSENC_BENCH_PEAK_H_
#define POSENC_BENCH_PEAK_H_

#include <cstddef>

namespace posenc {

// Runs `iters` steps of 8 independent MulAdd chains on full vectors; returns
// a value depending on all of them (so nothing is optimised away).
// Flops = iters * 8 * PeakLanes() * 2.
float PeakMulAdd(size_t iters);
size_t PeakLanes();

}  // namespace posenc

#endif  // POSENC_BENCH_PEAK_H_
