#include "ops/alibi.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "reference/alibi.h"
#include "test_util.h"

namespace posenc {
namespace {

class Alibi : public test::PerTarget {};

TEST(AlibiSlopes, PaperRuleForEveryHeadCount) {
  for (int n = 1; n <= 96; ++n) {
    std::vector<float> got(n);
    AlibiSlopeValues(n, AlibiSlopes::kPaper, got.data());
    const std::vector<double> want = ref::AlibiSlopes(size_t(n));
    ASSERT_TRUE(test::AllClose(got, want, 0, 1e-7)) << "n=" << n;
  }
  // Hand values: 8 heads -> 1/2 ... 1/256 (exponent h+1, not h).
  std::vector<float> s8(8);
  AlibiSlopeValues(8, AlibiSlopes::kPaper, s8.data());
  EXPECT_EQ(s8[0], 0.5f);
  EXPECT_EQ(s8[7], 1.0f / 256);
  // 12 heads: the 8 slopes above, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5.
  std::vector<float> s12(12);
  AlibiSlopeValues(12, AlibiSlopes::kPaper, s12.data());
  EXPECT_FLOAT_EQ(s12[8], std::pow(2.0f, -0.5f));
  EXPECT_FLOAT_EQ(s12[11], std::pow(2.0f, -3.5f));
}

TEST(AlibiSlopes, SimpleVariantIsOneOverTwoToTheH) {
  std::vector<float> s(4);
  AlibiSlopeValues(4, AlibiSlopes::kSimple, s.data());
  EXPECT_EQ(s, (std::vector<float>{1.0f, 0.5f, 0.25f, 0.125f}));
}

TEST_P(Alibi, BiasRowsMatchDefinition) {
  const float inf = std::numeric_limits<float>::infinity();
  for (size_t K : {1, 2, 3, 5, 8, 17, 64, 100}) {
    for (int64_t q : {int64_t(0), int64_t(K) / 2, int64_t(K) - 1}) {
      for (bool causal : {true, false}) {
        std::vector<float> got(K), scalar(K);
        AlibiBiasRow(0.0625f, q, K, causal, got.data());
        AlibiBiasRowScalar(0.0625f, q, K, causal, scalar.data());
        for (size_t j = 0; j < K; ++j) {
          const double dist = std::abs(double(q) - double(j));
          const double want =
              (causal && int64_t(j) > q) ? -inf : -0.0625 * dist;
          ASSERT_EQ(got[j], want) << "K " << K << " q " << q << " j " << j;
          ASSERT_EQ(scalar[j], want);
        }
      }
    }
  }
}

TEST_P(Alibi, SeedArticleExampleLastRow) {
  // 4 heads, 5 positions, slopes 1/2^h: head 0's last row is -4 -3 -2 -1 0.
  std::vector<float> slopes(4);
  AlibiSlopeValues(4, AlibiSlopes::kSimple, slopes.data());
  std::vector<float> bias(4 * 5 * 5);
  AlibiBias(slopes.data(), 4, 5, 5, true, bias.data());
  const float* last = bias.data() + 4 * 5;
  EXPECT_EQ(std::vector<float>(last, last + 5),
            (std::vector<float>{-4, -3, -2, -1, 0}));
  // Row 0 of head 1: 0 then -inf.
  EXPECT_EQ(bias[25], 0.0f);
  EXPECT_TRUE(std::isinf(bias[26]) && bias[26] < 0);
  // Q < K: queries are the last positions.
  std::vector<float> tail(1 * 2 * 5);
  AlibiBias(slopes.data(), 1, 2, 5, true, tail.data());
  EXPECT_EQ(std::vector<float>(tail.begin() + 5, tail.end()),
            (std::vector<float>{-4, -3, -2, -1, 0}));
}

TEST(AlibiValidation, Errors) {
  EXPECT_NE(ValidateAlibi(0, AlibiSlopes::kPaper)
                .message()
                .find("heads must be an integer in [1, 65536], got 0"),
            std::string::npos);
  EXPECT_FALSE(ValidateAlibi(4, static_cast<AlibiSlopes>(3)).ok());
  EXPECT_NE(ValidateAlibiBias(2, 6, 5).message().find(
                "queryLength (6) must not exceed keyLength (5)"),
            std::string::npos);
}

POSENC_INSTANTIATE_PER_TARGET(Alibi);

}  // namespace
}  // namespace posenc
