// Exp and GELU (src/model/activations.h): the SIMD kernels give the scalar
// references' bits on every compiled target, and the values are right
// against float64 libm.
#include "model/activations.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "hwy/targets.h"
#include "model/layers.h"
#include "model/rng.h"
#include "test_util.h"

namespace posenc {
namespace {

// Inputs over the whole range, the clamp edges and the specials.
std::vector<float> Inputs(size_t n, double scale, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.Symmetric(scale));
  const float edges[] = {0.0f,
                         -0.0f,
                         -87.0f,
                         -87.01f,
                         88.0f,
                         88.01f,
                         -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN(),
                         1e-30f,
                         -1e-30f};
  for (size_t i = 0; i < n && i < sizeof(edges) / sizeof(edges[0]); ++i) {
    v[i * 7 % n] = edges[i];
  }
  return v;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(ExpTest, MatchesLibmInFloat64) {
  // Every 997th float in [-87, 88] and a fine sweep of the reduced range.
  double worst = 0.0;
  float worst_x = 0.0f;
  for (int i = 0; i <= 1750000; ++i) {
    const float x = -87.0f + static_cast<float>(i) * 1e-4f;
    const double want = std::exp(static_cast<double>(x));
    const double rel = std::fabs(Exp(x) - want) / want;
    if (rel > worst) {
      worst = rel;
      worst_x = x;
    }
  }
  EXPECT_LT(worst, 2.5e-7) << "at x = " << worst_x;
  EXPECT_EQ(Exp(0.0f), 1.0f);
  EXPECT_EQ(Exp(-87.5f), 0.0f);
  EXPECT_EQ(Exp(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(Exp(88.5f), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(Exp(std::numeric_limits<float>::quiet_NaN())));
}

TEST(GeluTest, MatchesTheTanhFormInFloat64) {
  const std::vector<float> x = Inputs(4001, 12.0, 7);
  std::vector<float> y(x.size()), th(x.size()), dx(x.size(), 0.0f),
      dy(x.size(), 1.0f), y2(x.size());
  GeluForward(x.data(), x.size(), y.data(), th.data());
  GeluBackward(x.data(), th.data(), dy.data(), x.size(), dx.data());
  // Keeping th changes nothing in y.
  GeluForward(x.data(), x.size(), y2.data());
  EXPECT_TRUE(SameBits(y, y2));
  const double a = std::sqrt(2.0 / M_PI), b = 0.044715;
  for (size_t i = 0; i < x.size(); ++i) {
    const double u = x[i];
    if (!std::isfinite(u)) continue;
    const double th = std::tanh(a * (u + b * u * u * u));
    const double want = 0.5 * u * (1.0 + th);
    const double dwant = 0.5 * (1.0 + th) + 0.5 * u * (1.0 - th * th) * a *
                                                (1.0 + 3.0 * b * u * u);
    ASSERT_NEAR(y[i], want, 2e-6 * (1.0 + std::fabs(want))) << "x = " << u;
    ASSERT_NEAR(dx[i], dwant, 2e-6 * (1.0 + std::fabs(dwant))) << "x = " << u;
  }
}

// Run once per target (test::PerTarget switches the dispatcher).
class ActivationTargets : public test::PerTarget {};

TEST_P(ActivationTargets, GiveTheScalarReferenceBits) {
  SCOPED_TRACE(hwy::TargetName(GetParam()));
  for (size_t n : {1, 3, 4, 7, 8, 15, 16, 17, 33, 64, 1000}) {
    SCOPED_TRACE(::testing::Message() << "n=" << n);
    const std::vector<float> g = Inputs(n, 12.0, 13 + n);
    const std::vector<float> dy = Inputs(n, 1.0, 17 + n);
    std::vector<float> simd(n), scalar(n);
    std::vector<float> th_simd(n), th_scalar(n);
    GeluForward(g.data(), n, simd.data(), th_simd.data());
    GeluForwardScalar(g.data(), n, scalar.data(), th_scalar.data());
    EXPECT_TRUE(SameBits(simd, scalar)) << "GeluForward";
    EXPECT_TRUE(SameBits(th_simd, th_scalar)) << "GeluForward's tanh";
    simd.assign(n, 0.25f);
    scalar.assign(n, 0.25f);
    GeluBackward(g.data(), th_scalar.data(), dy.data(), n, simd.data());
    GeluBackwardScalar(g.data(), th_scalar.data(), dy.data(), n, scalar.data());
    EXPECT_TRUE(SameBits(simd, scalar)) << "GeluBackward";
  }
}

POSENC_INSTANTIATE_PER_TARGET(ActivationTargets);

}  // namespace
}  // namespace posenc
