// Benchmark hooks of the core module (bindings/ts/internal.ts benchHooks):
// kernels run on module-owned buffers, so that a JS timer measures the
// kernel and not the copies, and the SIMD ceiling probe
// (tests/bench/peak.h). Not part of the public API.
#include <emscripten/bind.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "ops/rope.h"
#include "ops/rope_frequencies.h"
#include "peak.h"

namespace posenc {
namespace {

struct BenchBuffers {
  std::vector<float> x, out, c, s;
};
BenchBuffers& Bench() {
  static BenchBuffers b;
  return b;
}

// ApplyRope on module-owned buffers [H, T, d], `iters` times.
void BenchRopeJs(int H, int T, int d, int layout, int iters) {
  std::vector<float>& x = Bench().x;
  std::vector<float>& out = Bench().out;
  std::vector<float>& c = Bench().c;
  std::vector<float>& s = Bench().s;
  const size_t n = size_t(H) * T * d;
  if (x.size() != n || c.size() != size_t(T) * d / 2) {
    x.assign(n, 0.25f);
    for (size_t i = 0; i < n; ++i) x[i] = float(i % 97) * 0.01f - 0.4f;
    out.assign(n, 0.0f);
    std::vector<int32_t> pos(T);
    for (int t = 0; t < T; ++t) pos[t] = t;
    // The default frequencies (base 10000, full rotary), as ropeFrequencies
    // computes them.
    RopeFrequencyConfig config;
    config.head_dim = d;
    config.rotary_dim = d;
    std::vector<double> f;
    double factor = 1.0;
    if (!RopeFrequencies(config, T, &f, &factor).ok()) f.assign(d / 2, 1.0);
    c.assign(size_t(T) * d / 2, 0.0f);
    s.assign(c.size(), 0.0f);
    RopeCosSin(pos.data(), T, f.data(), d / 2, 1.0f, c.data(), s.data());
  }
  for (int i = 0; i < iters; ++i) {
    ApplyRope(static_cast<RopeLayout>(layout), x.data(), H, T, d, d, c.data(),
              s.data(), out.data());
  }
}

// The bandwidth ceiling for the same bytes: copies x to out (buffers of
// the last BenchRopeJs call).
void BenchCopyJs(int iters) {
  BenchBuffers& b = Bench();
  for (int i = 0; i < iters; ++i) {
    std::memcpy(b.out.data(), b.x.data(), b.x.size() * sizeof(float));
  }
}

// The SIMD ceiling probe: returns flops done (iters * 8 chains * lanes * 2).
double BenchPeakJs(double iters) {
  const size_t n = static_cast<size_t>(iters);
  volatile float sink = PeakMulAdd(n);
  (void)sink;
  return static_cast<double>(n) * 8 * PeakLanes() * 2;
}

}  // namespace
}  // namespace posenc

EMSCRIPTEN_BINDINGS(posenc_bench) {
  emscripten::function("benchRope", &posenc::BenchRopeJs);
  emscripten::function("benchCopy", &posenc::BenchCopyJs);
  emscripten::function("benchPeak", &posenc::BenchPeakJs);
}
