// Best-of-batches wall time for the native benchmark CLIs.
#ifndef POSENC_TESTS_BENCH_TIMING_H_
#define POSENC_TESTS_BENCH_TIMING_H_

#include <chrono>

namespace posenc {
namespace bench {

// Seconds per call of fn: 3 warm-up calls, then the best of `reps` batches
// of at least `min_seconds` each.
template <class Fn>
double BestSeconds(Fn fn, int reps = 7, double min_seconds = 0.05) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < 3; ++i) fn();
  double best = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    const auto t0 = Clock::now();
    size_t iters = 0;
    double elapsed = 0;
    do {
      fn();
      ++iters;
      elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (elapsed < min_seconds);
    if (elapsed / iters < best) best = elapsed / iters;
  }
  return best;
}

}  // namespace bench
}  // namespace posenc

#endif  // POSENC_TESTS_BENCH_TIMING_H_
