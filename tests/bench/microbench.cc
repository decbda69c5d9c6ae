// Google Benchmark micro-benchmarks of the hot kernels at the best target:
//   build/native/posenc_microbench
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "ops/alibi.h"
#include "ops/rope.h"
#include "ops/sinusoidal.h"

namespace {

void BM_RopeCosSin(benchmark::State& state) {
  const size_t T = state.range(0), h = 32;
  std::vector<int32_t> pos(T);
  for (size_t t = 0; t < T; ++t) pos[t] = int32_t(t);
  std::vector<double> f(h);
  for (size_t i = 0; i < h; ++i) f[i] = std::pow(10000.0, -double(i) / h);
  std::vector<float> c(T * h), s(T * h);
  for (auto _ : state) {
    posenc::RopeCosSin(pos.data(), T, f.data(), h, 1.0f, c.data(), s.data());
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(state.iterations() * T * h);
}
BENCHMARK(BM_RopeCosSin)->Arg(1024)->Arg(4096);

void BM_ApplyRope(benchmark::State& state) {
  const size_t H = 8, T = 1024, d = 64;
  const auto layout = static_cast<posenc::RopeLayout>(state.range(0));
  std::vector<float> x(H * T * d, 0.5f), out(x.size()), c(T * d / 2, 0.6f),
      s(T * d / 2, 0.8f);
  for (auto _ : state) {
    posenc::ApplyRope(layout, x.data(), H, T, d, d, c.data(), s.data(),
                      out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * 2 * x.size() * sizeof(float));
}
BENCHMARK(BM_ApplyRope)->Arg(0)->Arg(1);

void BM_AlibiBias(benchmark::State& state) {
  const size_t H = 8, T = state.range(0);
  std::vector<float> slopes(H), out(H * T * T);
  posenc::AlibiSlopeValues(H, posenc::AlibiSlopes::kPaper, slopes.data());
  for (auto _ : state) {
    posenc::AlibiBias(slopes.data(), H, T, T, true, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * out.size() * sizeof(float));
}
BENCHMARK(BM_AlibiBias)->Arg(512);

void BM_Sinusoidal(benchmark::State& state) {
  const size_t L = 2048, D = 512;
  std::vector<float> out(L * D);
  for (auto _ : state) {
    posenc::SinusoidalTable(L, D, 10000.0,
                            posenc::SinusoidalLayout::kInterleaved, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * L * D);
}
BENCHMARK(BM_Sinusoidal);

}  // namespace

BENCHMARK_MAIN();
