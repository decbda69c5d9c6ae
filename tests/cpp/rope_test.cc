// RoPE kernels on every Highway target: the cos/sin table and the rotation
// against a float64 reference, and the properties RoPE must have.
#include "ops/rope.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/rope_apply.h"
#include "reference/rope.h"
#include "test_util.h"

namespace posenc {
namespace {

using test::AllClose;
using test::Rng;

class RopeKernel : public test::PerTarget {};

std::vector<float> DefaultFreqs(size_t r, double base = 10000.0) {
  std::vector<float> f(r / 2);
  for (size_t i = 0; i < r / 2; ++i) {
    f[i] = static_cast<float>(std::pow(base, -2.0 * i / r));
  }
  return f;
}

std::vector<float> Rotate(RopeLayout layout, const std::vector<float>& x,
                          size_t H, size_t T, size_t d, size_t r,
                          const std::vector<int32_t>& pos,
                          const std::vector<float>& f, float mag = 1.0f) {
  std::vector<double> fd(f.begin(), f.end());
  std::vector<float> c(T * r / 2), s(T * r / 2), out(x.size());
  RopeCosSin(pos.data(), T, fd.data(), r / 2, mag, c.data(), s.data());
  ApplyRope(layout, x.data(), H, T, d, r, c.data(), s.data(), out.data());
  return out;
}

TEST_P(RopeKernel, CosSinAccurateToOneMillionthAtLargePositions) {
  const size_t h = 64;
  const std::vector<float> f = DefaultFreqs(2 * h);
  std::vector<double> fd(f.begin(), f.end());
  const std::vector<int32_t> pos = {0,       1,     2,       17,
                                    4095,    65535, 100000,  999999,
                                    1000000, -1,    -123457, 2147483647};
  std::vector<float> c(pos.size() * h), s(pos.size() * h);
  RopeCosSin(pos.data(), pos.size(), fd.data(), h, 1.0f, c.data(), s.data());
  std::vector<double> rc(c.size()), rs(s.size());
  for (size_t t = 0; t < pos.size(); ++t) {
    for (size_t i = 0; i < h; ++i) {
      const long double a = static_cast<long double>(pos[t]) * f[i];
      rc[t * h + i] = static_cast<double>(std::cos(a));
      rs[t * h + i] = static_cast<double>(std::sin(a));
    }
  }
  // Up to 1e6 the contract is 1e-6 absolute; int32 max keeps 2e-6.
  const size_t upto_1e6 = 9 * h;
  EXPECT_TRUE(AllClose(c.data(), rc.data(), upto_1e6, 1e-6, 0));
  EXPECT_TRUE(AllClose(s.data(), rs.data(), upto_1e6, 1e-6, 0));
  EXPECT_TRUE(AllClose(c.data(), rc.data(), c.size(), 2e-6, 0));
  EXPECT_TRUE(AllClose(s.data(), rs.data(), s.size(), 2e-6, 0));
  // Position 0: exactly cos 1, sin 0.
  for (size_t i = 0; i < h; ++i) {
    EXPECT_EQ(c[i], 1.0f);
    EXPECT_EQ(s[i], 0.0f);
  }
}

TEST_P(RopeKernel, MatchesFloat64ReferenceOverShapeSweep) {
  Rng rng(1);
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    for (size_t d : {2, 4, 6, 8, 10, 16, 34, 64, 96, 128, 130}) {
      for (size_t r : {d, (d / 2) & ~size_t(1), size_t(2)}) {
        if (r == 0 || r % 2 || r > d) continue;
        for (size_t T : {1, 3, 17}) {
          const size_t H = 3;
          const std::vector<float> x = rng.Vector(H * T * d);
          std::vector<int32_t> pos(T);
          for (size_t t = 0; t < T; ++t) pos[t] = int32_t(t * 977 + 5);
          const std::vector<float> f = DefaultFreqs(r);
          const std::vector<float> got = Rotate(layout, x, H, T, d, r, pos, f);
          const std::vector<double> want = ref::RotatePairs(
              layout, x, H, T, d, std::vector<int64_t>(pos.begin(), pos.end()),
              f, {}, nullptr);
          ASSERT_TRUE(AllClose(got, want, 2e-6, 2e-6))
              << "layout " << int(layout) << " d " << d << " r " << r << " T "
              << T;
        }
      }
    }
  }
}

TEST_P(RopeKernel, AgreesWithScalarReferenceKernel) {
  Rng rng(2);
  const size_t H = 2, T = 33, d = 80, r = 64;
  const std::vector<float> x = rng.Vector(H * T * d);
  std::vector<int32_t> pos(T);
  for (size_t t = 0; t < T; ++t) pos[t] = int32_t(t * 31337);
  std::vector<double> f(r / 2);
  for (size_t i = 0; i < r / 2; ++i) f[i] = std::pow(10000.0, -2.0 * i / r);
  std::vector<float> c(T * r / 2), s(T * r / 2), c2(c.size()), s2(s.size());
  RopeCosSin(pos.data(), T, f.data(), r / 2, 1.5f, c.data(), s.data());
  RopeCosSinScalar(pos.data(), T, f.data(), r / 2, 1.5f, c2.data(), s2.data());
  for (size_t e = 0; e < c.size(); ++e) {
    ASSERT_NEAR(c[e], c2[e], 2e-6);
    ASSERT_NEAR(s[e], s2[e], 2e-6);
  }
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    std::vector<float> a(x.size()), b(x.size());
    ApplyRope(layout, x.data(), H, T, d, r, c.data(), s.data(), a.data());
    ApplyRopeScalar(layout, x.data(), H, T, d, r, c.data(), s.data(), b.data());
    for (size_t e = 0; e < a.size(); ++e) ASSERT_NEAR(a[e], b[e], 1e-6);
  }
}

TEST_P(RopeKernel, InPlaceEqualsOutOfPlace) {
  // gemma.cpp issue 608: an in-place rotation must not overwrite x0 before
  // x1 is computed.
  Rng rng(3);
  const size_t H = 2, T = 9, d = 36, r = 36;
  const std::vector<float> x = rng.Vector(H * T * d);
  std::vector<int32_t> pos(T);
  for (size_t t = 0; t < T; ++t) pos[t] = int32_t(t + 100);
  const std::vector<float> f = DefaultFreqs(r);
  std::vector<double> fd(f.begin(), f.end());
  std::vector<float> c(T * r / 2), s(T * r / 2);
  RopeCosSin(pos.data(), T, fd.data(), r / 2, 1.0f, c.data(), s.data());
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    std::vector<float> out(x.size()), inplace = x;
    ApplyRope(layout, x.data(), H, T, d, r, c.data(), s.data(), out.data());
    ApplyRope(layout, inplace.data(), H, T, d, r, c.data(), s.data(),
              inplace.data());
    EXPECT_EQ(out, inplace);
  }
}

// The strided scalar rotation over a token-major [T, H, d] buffer gives,
// element for element, ApplyRopeScalar's bits on the [H, T, d] transpose,
// leaves the partial tail alone, and works in place.
TEST(RopeScalarStrided, TokenMajorEqualsHeadMajor) {
  Rng rng(4);
  const size_t H = 3, T = 7, d = 12, r = 8;
  const std::vector<float> x = rng.Vector(T * H * d);  // [T, H, d]
  const std::vector<float> c = rng.Vector(T * r / 2), s = rng.Vector(T * r / 2);
  std::vector<float> xt(x.size());  // [H, T, d]
  for (size_t t = 0; t < T; ++t) {
    for (size_t h = 0; h < H; ++h) {
      for (size_t j = 0; j < d; ++j) {
        xt[(h * T + t) * d + j] = x[(t * H + h) * d + j];
      }
    }
  }
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    std::vector<float> want(x.size()), got(x.size()), inplace = x;
    ApplyRopeScalar(layout, xt.data(), H, T, d, r, c.data(), s.data(),
                    want.data());
    ApplyRopeScalarStrided(layout, x.data(), H, T, d, r, c.data(), s.data(),
                           got.data(), d, H * d);
    ApplyRopeScalarStrided(layout, inplace.data(), H, T, d, r, c.data(),
                           s.data(), inplace.data(), d, H * d);
    EXPECT_EQ(got, inplace);
    for (size_t t = 0; t < T; ++t) {
      for (size_t h = 0; h < H; ++h) {
        for (size_t j = 0; j < d; ++j) {
          ASSERT_EQ(got[(t * H + h) * d + j], want[(h * T + t) * d + j])
              << "t " << t << " head " << h << " j " << j;
          if (j >= r)
            ASSERT_EQ(got[(t * H + h) * d + j], x[(t * H + h) * d + j]);
        }
      }
    }
  }
}

double Dot(const float* a, const float* b, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += double(a[i]) * b[i];
  return s;
}

TEST_P(RopeKernel, PreservesNormsAndPassesPartialTailThrough) {
  Rng rng(4);
  const size_t d = 64;
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    for (size_t r : {size_t(64), size_t(24)}) {
      const std::vector<float> x = rng.Vector(d);
      for (int32_t p : {0, 1, 1000, 123456}) {
        const std::vector<float> y =
            Rotate(layout, x, 1, 1, d, r, {p}, DefaultFreqs(r));
        EXPECT_NEAR(Dot(y.data(), y.data(), r), Dot(x.data(), x.data(), r),
                    1e-5);
        for (size_t j = r; j < d; ++j) EXPECT_EQ(y[j], x[j]);  // bitwise
      }
    }
  }
}

TEST_P(RopeKernel, ScoreDependsOnlyOnRelativePosition) {
  // <R_m q, R_n k> = <q, R_{n-m} k>.
  Rng rng(5);
  const size_t d = 128;
  const std::vector<float> q = rng.Vector(d), k = rng.Vector(d);
  const std::vector<float> f = DefaultFreqs(d);
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    for (auto mn : std::vector<std::pair<int, int>>{
             {0, 0}, {3, 10}, {10, 3}, {500, 4000}, {100000, 100007}}) {
      const auto [m, n] = mn;
      const std::vector<float> qm = Rotate(layout, q, 1, 1, d, d, {m}, f);
      const std::vector<float> kn = Rotate(layout, k, 1, 1, d, d, {n}, f);
      const std::vector<float> kr = Rotate(layout, k, 1, 1, d, d, {n - m}, f);
      EXPECT_NEAR(Dot(qm.data(), kn.data(), d), Dot(q.data(), kr.data(), d),
                  2e-4)
          << m << "," << n;
    }
  }
}

TEST_P(RopeKernel, LayoutsAgreeOncePairsArePermuted) {
  // Half pairs (i, i + h) become interleaved pairs (2i, 2i + 1) under the
  // permutation P[2i] = i, P[2i+1] = i + h: rotating then permuting equals
  // permuting then rotating in the other layout, so q.k scores are identical.
  Rng rng(6);
  const size_t d = 64, r = 48, h = r / 2;
  const std::vector<float> x = rng.Vector(d);
  std::vector<size_t> P(d);
  for (size_t i = 0; i < h; ++i) {
    P[2 * i] = i;
    P[2 * i + 1] = i + h;
  }
  for (size_t j = r; j < d; ++j) P[j] = j;
  std::vector<float> xp(d);
  for (size_t j = 0; j < d; ++j) xp[j] = x[P[j]];
  const std::vector<float> f = DefaultFreqs(r);
  const std::vector<float> a =
      Rotate(RopeLayout::kHalf, x, 1, 1, d, r, {77}, f);
  const std::vector<float> b =
      Rotate(RopeLayout::kInterleaved, xp, 1, 1, d, r, {77}, f);
  for (size_t j = 0; j < d; ++j) EXPECT_NEAR(b[j], a[P[j]], 1e-6) << j;
}

POSENC_INSTANTIATE_PER_TARGET(RopeKernel);

}  // namespace
}  // namespace posenc
