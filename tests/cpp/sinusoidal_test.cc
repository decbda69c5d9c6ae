#include "ops/sinusoidal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference/sinusoidal.h"
#include "test_util.h"

namespace posenc {
namespace {

class Sinusoidal : public test::PerTarget {};

TEST_P(Sinusoidal, MatchesFloat64ReferenceBothLayouts) {
  for (SinusoidalLayout layout :
       {SinusoidalLayout::kInterleaved, SinusoidalLayout::kConcat}) {
    for (size_t D : {4, 6, 16, 30, 64, 512}) {
      for (size_t L : {1, 7, 100, 2049}) {
        std::vector<float> got(L * D), scalar(L * D);
        SinusoidalTable(L, D, 10000.0, layout, got.data());
        SinusoidalTableScalar(L, D, 10000.0, layout, scalar.data());
        const std::vector<double> want = ref::SinusoidalTable(
            L, D, 10000.0, layout == SinusoidalLayout::kConcat);
        ASSERT_TRUE(test::AllClose(got, want, 1e-6, 0))
            << "layout " << int(layout) << " D " << D << " L " << L;
        ASSERT_TRUE(test::AllClose(scalar, want, 1e-6, 0));
      }
    }
  }
}

TEST_P(Sinusoidal, PositionZeroAndOtherBases) {
  std::vector<float> t(3 * 8);
  SinusoidalTable(3, 8, 10000.0, SinusoidalLayout::kInterleaved, t.data());
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t[2 * i], 0.0f);
    EXPECT_EQ(t[2 * i + 1], 1.0f);
  }
  // Row 1, pair 0: sin(1), cos(1).
  EXPECT_NEAR(t[8], std::sin(1.0), 1e-7);
  EXPECT_NEAR(t[9], std::cos(1.0), 1e-7);
  std::vector<float> u(50 * 10);
  SinusoidalTable(50, 10, 100.0, SinusoidalLayout::kConcat, u.data());
  EXPECT_TRUE(
      test::AllClose(u, ref::SinusoidalTable(50, 10, 100.0, true), 1e-6, 0));
}

TEST(SinusoidalValidation, Errors) {
  EXPECT_NE(ValidateSinusoidal(4, 7, 1e4, SinusoidalLayout::kInterleaved)
                .message()
                .find("dim must be even and >= 2, got 7"),
            std::string::npos);
  EXPECT_NE(ValidateSinusoidal(4, 2, 1e4, SinusoidalLayout::kConcat)
                .message()
                .find("dim must be >= 4 for the 'concat' layout"),
            std::string::npos);
  EXPECT_FALSE(ValidateSinusoidal(-1, 8, 1e4, SinusoidalLayout::kConcat).ok());
  EXPECT_FALSE(
      ValidateSinusoidal(4, 8, INFINITY, SinusoidalLayout::kConcat).ok());
  EXPECT_TRUE(
      ValidateSinusoidal(0, 2, 1e4, SinusoidalLayout::kInterleaved).ok());
}

POSENC_INSTANTIATE_PER_TARGET(Sinusoidal);

}  // namespace
}  // namespace posenc
