#include "ops/t5.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "reference/t5.h"
#include "test_util.h"

namespace posenc {
namespace {

TEST(T5, BucketsMatchReferenceOverWideRange) {
  for (bool bidir : {true, false}) {
    for (auto [B, maxd] : std::vector<std::pair<int, int>>{
             {32, 128}, {4, 3}, {2, 9}, {64, 256}, {8, 10}, {32, 1000}}) {
      if (bidir && B < 4) continue;
      ASSERT_TRUE(ValidateT5Buckets(B, maxd, bidir).ok()) << B << " " << maxd;
      for (long rel = -3000; rel <= 3000; ++rel) {
        const int got = T5Bucket(rel, B, maxd, bidir);
        const auto [lo, hi] = ref::T5Bucket(rel, B, maxd, bidir);
        ASSERT_TRUE(got >= lo && got <= hi)
            << "rel " << rel << " B " << B << " maxd " << maxd << " bidir "
            << bidir << ": got " << got << ", want " << lo << ".." << hi;
      }
      // Far away: the last bucket of each side, no overflow.
      EXPECT_EQ(T5Bucket(-2000000000L, B, maxd, bidir),
                (bidir ? B / 2 : B) - 1);
    }
  }
}

// The [Q, K] grid (computed once per relative distance) is T5Bucket of
// each element, for every shape and offset, including empty ones.
TEST(T5, GridEqualsThePerElementBucket) {
  for (bool bidir : {true, false}) {
    for (auto [Q, K, off] :
         std::vector<std::tuple<size_t, size_t, int64_t>>{{1, 1, 0},
                                                          {7, 3, 0},
                                                          {3, 40, 5},
                                                          {33, 33, 0},
                                                          {5, 300, 1000},
                                                          {0, 4, 0},
                                                          {4, 0, 2},
                                                          {17, 9, 123456}}) {
      std::vector<int32_t> grid(Q * K, -1);
      T5Buckets(Q, K, off, 32, 128, bidir, grid.data());
      for (size_t i = 0; i < Q; ++i) {
        for (size_t j = 0; j < K; ++j) {
          ASSERT_EQ(grid[i * K + j], T5Bucket(static_cast<int64_t>(j) - off -
                                                  static_cast<int64_t>(i),
                                              32, 128, bidir))
              << "Q " << Q << " K " << K << " offset " << off << " i " << i
              << " j " << j;
        }
      }
    }
  }
}

TEST(T5, KnownBucketsOfTheDefaultConfig) {
  // Bidirectional, 32 buckets, max distance 128 (T5 encoder).
  EXPECT_EQ(T5Bucket(0, 32, 128, true), 0);  // distance 0: no log(0)
  EXPECT_EQ(T5Bucket(-1, 32, 128, true), 1);
  EXPECT_EQ(T5Bucket(1, 32, 128, true), 17);
  EXPECT_EQ(T5Bucket(-7, 32, 128, true), 7);
  EXPECT_EQ(T5Bucket(-8, 32, 128, true), 8);    // first log bucket
  EXPECT_EQ(T5Bucket(-16, 32, 128, true), 10);  // 8 + 8 ln2 / ln16 = 10
  EXPECT_EQ(T5Bucket(-20, 32, 128, true), 10);  // 8 + 2.64
  EXPECT_EQ(T5Bucket(-127, 32, 128, true), 15);
  EXPECT_EQ(T5Bucket(500, 32, 128, true), 31);
  // Causal (decoder): future keys share bucket 0.
  EXPECT_EQ(T5Bucket(5, 32, 128, false), 0);
  EXPECT_EQ(T5Bucket(-5, 32, 128, false), 5);
  EXPECT_EQ(T5Bucket(-16, 32, 128, false), 16);
  EXPECT_EQ(T5Bucket(-1000, 32, 128, false), 31);
}

TEST(T5, BiasGathersTableByBucket) {
  const size_t Q = 3, K = 4, H = 2;
  std::vector<int32_t> b(Q * K);
  T5Buckets(Q, K, 0, 32, 128, true, b.data());
  std::vector<float> table(32 * H);
  for (size_t i = 0; i < table.size(); ++i) table[i] = float(i) * 0.5f;
  std::vector<float> bias(H * Q * K);
  T5Bias(table.data(), H, b.data(), Q, K, bias.data());
  for (size_t h = 0; h < H; ++h) {
    for (size_t i = 0; i < Q; ++i) {
      for (size_t j = 0; j < K; ++j) {
        const int bk = T5Bucket(long(j) - long(i), 32, 128, true);
        EXPECT_EQ(bias[(h * Q + i) * K + j], table[bk * H + h]);
      }
    }
  }
}

TEST(T5, ValidationRejectsConfigsThatWouldTakeLogOfZero) {
  EXPECT_NE(ValidateT5Buckets(2, 128, true)
                .message()
                .find("numBuckets must be an integer in [4, 65536], got 2 "
                      "(when bidirectional is true)"),
            std::string::npos);
  EXPECT_NE(
      ValidateT5Buckets(32, 8, true)
          .message()
          .find("maxDistance must be an integer in [9, 1073741824], got 8"),
      std::string::npos);
  EXPECT_TRUE(ValidateT5Buckets(2, 2, false).ok());
  EXPECT_FALSE(ValidateT5Shape(-1, 3, 0).ok());
}

}  // namespace
}  // namespace posenc
