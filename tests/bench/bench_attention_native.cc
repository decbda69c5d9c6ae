// Native side of the attention benchmark (tests/bench/bench_attention.mjs):
// causal attention, 8 heads, head dim 64, per Highway target, one JSON object
// per line. GFLOP/s counts 2 * H * T^2 * D (the causal work).
#include <cstdio>
#include <vector>

#include "base/targets.h"
#include "hwy/targets.h"
#include "ops/attention.h"
#include "timing.h"

int main() {
  const size_t H = 8, D = 64;
  std::vector<size_t> lengths = {128, 512, 1024, 4096};
  for (size_t T : lengths) {
    std::vector<float> q(H * T * D), k(q.size()), v(q.size()), out(q.size());
    for (size_t i = 0; i < q.size(); ++i) {
      q[i] = float((i * 7919) % 1000) / 1000.0f - 0.5f;
      k[i] = float((i * 104729) % 1000) / 1000.0f - 0.5f;
      v[i] = float((i * 1299709) % 1000) / 1000.0f - 0.5f;
    }
    posenc::AttentionOptions o;
    o.H = o.Hkv = H;
    o.Tq = o.Tk = T;
    o.D = D;
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      const double best = posenc::bench::BestSeconds(
          [&] {
            posenc::Attention(o, q.data(), k.data(), v.data(), out.data());
          },
          5, 0.1);
      std::printf("{\"target\":\"%s\",\"T\":%zu,\"gflops\":%.3f}\n",
                  posenc::DispatchedTargetName(), T,
                  2.0 * H * T * T * D / best / 1e9);
      std::fflush(stdout);
    }
    hwy::SetSupportedTargetsForTest(0);
  }
  return 0;
}
