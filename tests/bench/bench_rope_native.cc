// Native side of the RoPE benchmark (tests/bench/bench_rope.mjs runs it):
// ApplyRope throughput per Highway target this CPU supports, one JSON object
// per line. GB/s counts the bytes read and written: 2 * H * T * d * 4.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/targets.h"
#include "hwy/targets.h"
#include "ops/rope.h"
#include "timing.h"

int main() {
  const size_t shapes[2][3] = {{8, 1024, 64}, {32, 4096, 128}};
  for (const auto& sh : shapes) {
    const size_t H = sh[0], T = sh[1], d = sh[2];
    std::vector<float> x(H * T * d), out(x.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 97) * 0.01f - 0.4f;
    std::vector<int32_t> pos(T);
    for (size_t t = 0; t < T; ++t) pos[t] = int32_t(t);
    std::vector<double> f(d / 2);
    for (size_t i = 0; i < d / 2; ++i) f[i] = std::pow(10000.0, -2.0 * i / d);
    std::vector<float> c(T * d / 2), s(T * d / 2);
    posenc::RopeCosSin(pos.data(), T, f.data(), d / 2, 1.0f, c.data(),
                       s.data());
    for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
      hwy::SetSupportedTargetsForTest(target);
      for (int layout = 0; layout < 2; ++layout) {
        const double sec = posenc::bench::BestSeconds([&] {
          posenc::ApplyRope(static_cast<posenc::RopeLayout>(layout), x.data(),
                            H, T, d, d, c.data(), s.data(), out.data());
        });
        std::printf(
            "{\"target\":\"%s\",\"H\":%zu,\"T\":%zu,\"d\":%zu,\"layout\":\"%"
            "s\","
            "\"gbps\":%.3f}\n",
            posenc::DispatchedTargetName(), H, T, d,
            layout == 0 ? "half" : "interleaved",
            2.0 * H * T * d * 4 / sec / 1e9);
      }
    }
    hwy::SetSupportedTargetsForTest(0);
    // The bandwidth ceiling: a plain copy of the same bytes.
    const double best = posenc::bench::BestSeconds(
        [&] { std::memcpy(out.data(), x.data(), x.size() * sizeof(float)); });
    for (const char* layout : {"half", "interleaved"}) {
      std::printf(
          "{\"target\":\"memcpy\",\"H\":%zu,\"T\":%zu,\"d\":%zu,\"layout\":\"%"
          "s\","
          "\"gbps\":%.3f}\n",
          H, T, d, layout, 2.0 * H * T * d * 4 / best / 1e9);
    }
  }
  return 0;
}
