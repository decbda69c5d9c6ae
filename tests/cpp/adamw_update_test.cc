// AdamWUpdate (src/model/adamw_update.h): the same bits as the scalar
// reference on every compiled target, and the AdamW step itself against a
// float64 evaluation of its formula.
#include "model/adamw_update.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hwy/targets.h"
#include "model/rng.h"
#include "test_util.h"

namespace posenc {
namespace {

std::vector<float> Random(size_t n, uint64_t seed, double amp) {
  SplitMix64 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = rng.Symmetric(amp);
  return v;
}

AdamWUpdateArgs Args(float decay) {
  AdamWUpdateArgs a;
  a.beta1 = 0.9f;
  a.beta2 = 0.98f;
  a.eps = 1e-8f;
  a.decay = decay;
  a.step_size = 3e-3f / (1.0f - 0.9f * 0.9f * 0.9f);  // step 3
  a.inv_sqrt_bc2 = 1.0f / std::sqrt(1.0f - 0.98f * 0.98f * 0.98f);
  return a;
}

// Run once per target (test::PerTarget switches the dispatcher).
class AdamWUpdateTest : public test::PerTarget {};

TEST_P(AdamWUpdateTest, GivesTheScalarReferenceBits) {
  const int64_t target = GetParam();
  // Lengths around every vector width (tails of 1 .. 15 elements).
  for (size_t n : {1u, 3u, 4u, 7u, 8u, 15u, 16u, 17u, 33u, 100u, 4096u}) {
    for (float decay : {1.0f, 1.0f - 3e-3f * 0.01f}) {
      SCOPED_TRACE(::testing::Message() << hwy::TargetName(target) << " n=" << n
                                        << " decay=" << decay);
      const std::vector<float> g = Random(n, 1 + n, 1.0);
      const std::vector<float> w0 = Random(n, 2 + n, 0.5);
      const std::vector<float> m0 = Random(n, 3 + n, 0.1);
      std::vector<float> v0 = Random(n, 4 + n, 0.01);
      for (float& x : v0) x = std::fabs(x);  // a second moment is >= 0
      std::vector<float> w = w0, m = m0, v = v0;
      std::vector<float> ws = w0, ms = m0, vs = v0;
      AdamWUpdate(Args(decay), g.data(), n, w.data(), m.data(), v.data());
      AdamWUpdateScalar(Args(decay), g.data(), n, ws.data(), ms.data(),
                        vs.data());
      ASSERT_EQ(0, std::memcmp(w.data(), ws.data(), n * sizeof(float)));
      ASSERT_EQ(0, std::memcmp(m.data(), ms.data(), n * sizeof(float)));
      ASSERT_EQ(0, std::memcmp(v.data(), vs.data(), n * sizeof(float)));
      // The formula in float64; float32 rounding is relative to the size
      // of the terms (a sum may cancel).
      const AdamWUpdateArgs a = Args(decay);
      for (size_t i = 0; i < n; ++i) {
        const double m1 = a.beta1 * double(m0[i]), m2 = (1.0 - a.beta1) * g[i];
        const double v1 = a.beta2 * double(v0[i]),
                     v2 = (1.0 - a.beta2) * double(g[i]) * g[i];
        const double w1 = double(w0[i]) * a.decay,
                     w2 = a.step_size * (m1 + m2) /
                          (std::sqrt(v1 + v2) * a.inv_sqrt_bc2 + a.eps);
        ASSERT_NEAR(m[i], m1 + m2, 1e-6 * (std::fabs(m1) + std::fabs(m2))) << i;
        ASSERT_NEAR(v[i], v1 + v2, 1e-6 * (v1 + v2)) << i;
        ASSERT_NEAR(w[i], w1 - w2, 1e-5 * (std::fabs(w1) + std::fabs(w2))) << i;
      }
    }
  }
}

POSENC_INSTANTIATE_PER_TARGET(AdamWUpdateTest);

}  // namespace
}  // namespace posenc
