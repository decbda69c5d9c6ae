#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/learned.h"
#include "ops/shaw.h"
#include "ops/xpos.h"
#include "reference/rope.h"
#include "reference/shaw.h"
#include "test_util.h"

namespace posenc {
namespace {

TEST(Shaw, IndicesClipRelativeDistance) {
  std::vector<int32_t> idx(3 * 5);
  ShawIndices(3, 5, 2, idx.data());
  // Queries are key positions 2, 3, 4. Row for query at 2: rel = -2..2.
  EXPECT_EQ(std::vector<int32_t>(idx.begin(), idx.begin() + 5),
            (std::vector<int32_t>{0, 1, 2, 3, 4}));
  // Query at 4: rel -4, -3 clip to -2.
  EXPECT_EQ(std::vector<int32_t>(idx.begin() + 10, idx.end()),
            (std::vector<int32_t>{0, 0, 0, 1, 2}));
}

TEST(Shaw, LogitsAndValuesMatchDefinition) {
  test::Rng rng(20);
  const size_t Q = 4, K = 6, D = 5;
  const int clip = 2;
  const std::vector<float> q = rng.Vector(Q * D), k = rng.Vector(K * D),
                           v = rng.Vector(K * D),
                           tk = rng.Vector((2 * clip + 1) * D),
                           tv = rng.Vector((2 * clip + 1) * D),
                           p = rng.Vector(Q * K);
  std::vector<float> logits(Q * K), out(Q * D);
  ShawLogits(q.data(), k.data(), tk.data(), Q, K, D, clip, 0.5f, logits.data());
  ShawValues(p.data(), v.data(), tv.data(), Q, K, D, clip, out.data());
  const std::vector<double> wl =
      ref::ShawLogits(q, k, tk, Q, K, D, clip, 0.5).value;
  const std::vector<double> wo = ref::ShawValues(p, v, tv, Q, K, D, clip).value;
  EXPECT_TRUE(test::AllClose(logits, wl, 1e-6, 1e-6));
  EXPECT_TRUE(test::AllClose(out, wo, 1e-6, 1e-6));
  EXPECT_NE(
      ValidateShaw(5, 4, 2).message().find("queryLength (5) must not exceed"),
      std::string::npos);
  EXPECT_FALSE(ValidateShaw(1, 4, -1).ok());
}

TEST(Learned, GathersRowsAndRejectsPositionsPastTheTable) {
  std::vector<float> table(4 * 3);
  for (size_t i = 0; i < table.size(); ++i) table[i] = float(i);
  const std::vector<int32_t> pos = {3, 0, 2};
  std::vector<float> out(3 * 3, -1.0f);
  ASSERT_TRUE(
      LearnedPositions(table.data(), 4, 3, pos.data(), 3, out.data()).ok());
  EXPECT_EQ(out, (std::vector<float>{9, 10, 11, 0, 1, 2, 6, 7, 8}));
  const std::vector<int32_t> bad = {1, 4};
  std::vector<float> untouched(2 * 3, -1.0f);
  const Status s =
      LearnedPositions(table.data(), 4, 3, bad.data(), 2, untouched.data());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(
      s.message().find("positions[1] = 4 is outside the learned table [0, 4)"),
      std::string::npos);
  EXPECT_EQ(untouched, std::vector<float>(6, -1.0f));  // nothing written
  const std::vector<int32_t> neg = {-1};
  EXPECT_FALSE(
      LearnedPositions(table.data(), 4, 3, neg.data(), 1, out.data()).ok());
}

TEST(Xpos, ScalesFollowZetaPowerAndKeysInvert) {
  const std::vector<int32_t> pos = {0, 512, 1024};
  const size_t r = 8;
  std::vector<float> q(3 * 4), k(3 * 4);
  ASSERT_TRUE(XposScales(pos.data(), 3, r, 512.0, 0, false, q.data()).ok());
  ASSERT_TRUE(XposScales(pos.data(), 3, r, 512.0, 0, true, k.data()).ok());
  for (size_t t = 0; t < 3; ++t) {
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_NEAR(q[t * 4 + i], ref::XposScale(i, r, pos[t], 0, 512.0, false),
                  1e-6);
      EXPECT_NEAR(q[t * 4 + i] * k[t * 4 + i], 1.0, 1e-6);
    }
  }
  EXPECT_FALSE(ValidateXpos(7, 512).ok());
  EXPECT_FALSE(ValidateXpos(8, NAN).ok());
}

// Up to XposMaxDistance from the centre every scale and its inverse is a
// normal float (checked at the limit on both sides, for two scale bases);
// one position beyond is an error naming the position, nothing written.
TEST(Xpos, ScalesStayNormalUpToTheLimitAndFailBeyond) {
  for (double base : {512.0, 64.0}) {
    const int64_t lim = XposMaxDistance(base);
    // The bound from the math: (lim / base) * ln(3.5) <= 87 < ln(1 / FLT_MIN).
    EXPECT_LE(double(lim) / base * std::log(3.5), 87.0);
    EXPECT_GT(double(lim + 1) / base * std::log(3.5), 87.0 - 1e-9);
    const int64_t center = 1000;
    const std::vector<int32_t> pos = {int32_t(center - lim), int32_t(center),
                                      int32_t(center + lim)};
    const size_t r = 64, h = r / 2;
    for (bool key : {false, true}) {
      std::vector<float> s(3 * h);
      ASSERT_TRUE(
          XposScales(pos.data(), 3, r, base, center, key, s.data()).ok());
      for (float v : s) EXPECT_TRUE(std::isnormal(v)) << v;
      std::vector<int32_t> far = {int32_t(center + lim + 1)};
      std::vector<float> untouched(h, -1.0f);
      const Status st =
          XposScales(far.data(), 1, r, base, center, key, untouched.data());
      ASSERT_FALSE(st.ok());
      EXPECT_NE(st.message().find(StrCat("position ", far[0])),
                std::string::npos)
          << st.message();
      EXPECT_EQ(untouched, std::vector<float>(h, -1.0f));
    }
  }
}

}  // namespace
}  // namespace posenc
