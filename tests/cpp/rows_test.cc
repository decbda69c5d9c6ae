// The row kernels (src/model/rows.h): on every compiled target the SIMD
// kernels give the scalar references' bits, whatever lies past a row's end,
// and the references are right against float64 formulas.
#include "model/rows.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "model/layers.h"
#include "test_util.h"

namespace posenc {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::vector<float> Random(size_t n, float scale, uint64_t seed) {
  test::Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = scale * rng.Uniform();
  return v;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// What lies past a row's end: the kernels must not let it into the sums.
const float kJunk[] = {kNaN, kInf, -kInf, 1e30f, -3.0f};

// float64 softmax of x * scale + bias over n entries.
std::vector<double> Softmax64(const std::vector<float>& x, const float* bias,
                              size_t n, float scale) {
  std::vector<double> z(n);
  double mx = -HUGE_VAL;
  for (size_t j = 0; j < n; ++j) {
    z[j] = static_cast<double>(x[j]) * scale + (bias ? bias[j] : 0.0);
    mx = std::fmax(mx, z[j]);
  }
  double sum = 0.0;
  for (double& v : z) sum += (v = std::exp(v - mx));
  for (double& v : z) v /= sum;
  return z;
}

class RowTargets : public test::PerTarget {};

TEST_P(RowTargets, SoftmaxRowGivesTheReferenceBits) {
  for (size_t T : {1, 3, 4, 7, 8, 9, 16, 17, 33, 64}) {
    for (size_t n = 1; n <= T; ++n) {
      for (int biased = 0; biased < 2; ++biased) {
        SCOPED_TRACE(::testing::Message()
                     << hwy::TargetName(GetParam()) << " T=" << T << " n=" << n
                     << (biased ? " biased" : ""));
        std::vector<float> x = Random(T, 20.0f, 100 * T + n);
        std::vector<float> bias = Random(n, 4.0f, 7 * n);
        // A masked key and a key the exp underflows to 0.
        if (biased && n > 2) bias[n / 2] = -kInf;
        if (n > 3) x[1] = -1e4f;
        for (size_t j = n; j < T; ++j) x[j] = kJunk[j % 5];
        const float* b = biased ? bias.data() : nullptr;
        std::vector<float> simd = x, scalar = x;
        SoftmaxRow(simd.data(), b, n, T, 0.37f);
        SoftmaxRowScalar(scalar.data(), b, n, T, 0.37f);
        ASSERT_TRUE(SameBits(simd, scalar));
        const std::vector<double> want = Softmax64(x, b, n, 0.37f);
        double total = 0.0;
        for (size_t j = 0; j < n; ++j) {
          ASSERT_NEAR(scalar[j], want[j], 1e-6) << "j=" << j;
          total += scalar[j];
        }
        for (size_t j = n; j < T; ++j) ASSERT_EQ(scalar[j], 0.0f) << "j=" << j;
        ASSERT_NEAR(total, 1.0, 1e-5);
      }
    }
  }
}

TEST_P(RowTargets, SoftmaxRowBackwardGivesTheReferenceBits) {
  for (size_t T : {1, 3, 4, 7, 8, 9, 16, 17, 33, 64}) {
    for (size_t n = 1; n <= T; ++n) {
      SCOPED_TRACE(::testing::Message()
                   << hwy::TargetName(GetParam()) << " T=" << T << " n=" << n);
      std::vector<float> p = Random(T, 1.0f, 3 * T + n);
      SoftmaxRowScalar(p.data(), nullptr, n, T, 1.0f);
      std::vector<float> d = Random(T, 2.0f, 5 * T + n);
      for (size_t j = n; j < T; ++j) d[j] = kJunk[j % 5];
      std::vector<float> simd = d, scalar = d, plain = d;
      std::vector<float> ds_simd(n, kNaN), ds_scalar(n, kNaN);
      SoftmaxRowBackward(p.data(), simd.data(), n, T, 0.25f, ds_simd.data());
      SoftmaxRowBackwardScalar(p.data(), scalar.data(), n, T, 0.25f,
                               ds_scalar.data());
      ASSERT_TRUE(SameBits(simd, scalar));
      ASSERT_TRUE(SameBits(ds_simd, ds_scalar));
      // Without ds: the same d.
      SoftmaxRowBackward(p.data(), plain.data(), n, T, 0.25f, nullptr);
      ASSERT_TRUE(SameBits(plain, simd));
      // float64: ds_j = p_j (d_j - sum_k p_k d_k).
      double dot = 0.0;
      for (size_t k = 0; k < n; ++k) dot += static_cast<double>(p[k]) * d[k];
      for (size_t j = 0; j < n; ++j) {
        const double want = p[j] * (d[j] - dot);
        ASSERT_NEAR(ds_scalar[j], want, 1e-6) << "j=" << j;
        ASSERT_NEAR(scalar[j], 0.25 * want, 1e-6) << "j=" << j;
      }
      for (size_t j = n; j < T; ++j) ASSERT_EQ(scalar[j], 0.0f) << "j=" << j;
    }
  }
}

TEST_P(RowTargets, LayerNormGivesTheReferenceBits) {
  const size_t T = 5;
  for (size_t C = 1; C <= 41; C += (C < 24 ? 1 : 8)) {
    SCOPED_TRACE(::testing::Message()
                 << hwy::TargetName(GetParam()) << " C=" << C);
    // Rows far from zero mean, as a residual stream can be.
    std::vector<float> x = Random(T * C, 3.0f, C);
    for (size_t e = 0; e < x.size(); ++e) x[e] += 10.0f * (e / C);
    const std::vector<float> g = Random(C, 2.0f, C + 1);
    const std::vector<float> b = Random(C, 1.0f, C + 2);
    const std::vector<float> dy = Random(T * C, 1.0f, C + 3);
    std::vector<float> y(T * C), y_ref(T * C), mean(T), rstd(T), mean_ref(T),
        rstd_ref(T);
    LayerNormForward(x.data(), T, C, g.data(), b.data(), y.data(), mean.data(),
                     rstd.data());
    LayerNormForwardScalar(x.data(), T, C, g.data(), b.data(), y_ref.data(),
                           mean_ref.data(), rstd_ref.data());
    ASSERT_TRUE(SameBits(y, y_ref));
    ASSERT_TRUE(SameBits(mean, mean_ref));
    ASSERT_TRUE(SameBits(rstd, rstd_ref));
    // Backward accumulates: start from non-zero gradients.
    std::vector<float> dx = Random(T * C, 1.0f, C + 4), dg = Random(C, 1.0f, 9),
                       db = Random(C, 1.0f, 10);
    std::vector<float> dx_ref = dx, dg_ref = dg, db_ref = db;
    LayerNormBackward(x.data(), dy.data(), mean.data(), rstd.data(), T, C,
                      g.data(), dx.data(), dg.data(), db.data());
    LayerNormBackwardScalar(x.data(), dy.data(), mean.data(), rstd.data(), T, C,
                            g.data(), dx_ref.data(), dg_ref.data(),
                            db_ref.data());
    ASSERT_TRUE(SameBits(dx, dx_ref));
    ASSERT_TRUE(SameBits(dg, dg_ref));
    ASSERT_TRUE(SameBits(db, db_ref));
    // float64 forward.
    for (size_t t = 0; t < T; ++t) {
      double m = 0.0, v = 0.0;
      for (size_t c = 0; c < C; ++c) m += x[t * C + c];
      m /= static_cast<double>(C);
      for (size_t c = 0; c < C; ++c) {
        v += (x[t * C + c] - m) * (x[t * C + c] - m);
      }
      v /= static_cast<double>(C);
      for (size_t c = 0; c < C; ++c) {
        const double want =
            (x[t * C + c] - m) / std::sqrt(v + 1e-5) * g[c] + b[c];
        ASSERT_NEAR(y_ref[t * C + c], want, 2e-5 * (1.0 + std::fabs(want)))
            << "t=" << t << " c=" << c;
      }
    }
  }
}

// Terms that are powers of two far apart (2^-24, 2^-53): a float64 sum
// taken in another grouping rounds differently, and the difference survives
// the rounding to float, so these rows catch a kernel whose partial sums,
// lane order or tail differ from Sum8's. (Random values mostly do not: the
// float64 sums are rounded to float before anything is compared.)
float PowerOfTwo(test::Rng* rng) {
  static const int kExp[] = {0, 0, 23, 24, 25, 52, 53, 54};
  const uint64_t r = rng->Next();
  return std::ldexp((r & 1) ? 1.0f : -1.0f, -kExp[(r >> 1) % 8]);
}

TEST_P(RowTargets, SumOrderShowsInThePowerOfTwoRows) {
  // The hand-made row: p = 1, d = 1, 2^-24, 2^-53, 2^-53 in partials 0-3.
  // Sum8 adds the 2^-53 pair first and keeps it; a left-to-right sum loses
  // both, so this row tells the two orders apart (and the test can fail).
  {
    std::vector<float> p(8, 1.0f), d = {1.0f,
                                        std::ldexp(1.0f, -24),
                                        std::ldexp(1.0f, -53),
                                        std::ldexp(1.0f, -53),
                                        0,
                                        0,
                                        0,
                                        0};
    std::vector<float> ds(8), ds_ref(8), d1 = d, d2 = d;
    SoftmaxRowBackward(p.data(), d1.data(), 8, 8, 1.0f, ds.data());
    SoftmaxRowBackwardScalar(p.data(), d2.data(), 8, 8, 1.0f, ds_ref.data());
    ASSERT_TRUE(SameBits(ds, ds_ref));
    double left_to_right = 0.0;
    for (float v : d) left_to_right += v;
    const float other = 1.0f * (d[1] - static_cast<float>(left_to_right));
    EXPECT_NE(ds_ref[1], other) << "the row does not separate the orders";
  }
  test::Rng rng(17);
  for (int it = 0; it < 3000; ++it) {
    SCOPED_TRACE(::testing::Message()
                 << hwy::TargetName(GetParam()) << " row " << it);
    const size_t n = 1 + rng.Next() % 40, T = n + rng.Next() % 9;
    // Backward: p = 1 makes dot the plain sum of d.
    std::vector<float> p(T, 0.0f), d(T, kNaN), x(T, kNaN);
    for (size_t j = 0; j < n; ++j) {
      p[j] = 1.0f;
      d[j] = PowerOfTwo(&rng);
      // Softmax: exp(x) near the powers of two.
      x[j] = std::log(std::fabs(PowerOfTwo(&rng)));
    }
    std::vector<float> d1 = d, d2 = d;
    SoftmaxRowBackward(p.data(), d1.data(), n, T, 1.0f, nullptr);
    SoftmaxRowBackwardScalar(p.data(), d2.data(), n, T, 1.0f, nullptr);
    ASSERT_TRUE(SameBits(d1, d2)) << "backward";
    std::vector<float> x1 = x, x2 = x;
    SoftmaxRow(x1.data(), nullptr, n, T, 1.0f);
    SoftmaxRowScalar(x2.data(), nullptr, n, T, 1.0f);
    ASSERT_TRUE(SameBits(x1, x2)) << "forward";
    // LayerNorm over one row of C = n, forward and backward.
    const size_t C = n;
    std::vector<float> row(C), dy(C), g(C, 1.0f), b(C, 0.0f);
    for (size_t c = 0; c < C; ++c) {
      row[c] = PowerOfTwo(&rng);
      dy[c] = PowerOfTwo(&rng);
    }
    std::vector<float> y1(C), y2(C);
    float m1, m2, r1, r2;
    LayerNormForward(row.data(), 1, C, g.data(), b.data(), y1.data(), &m1, &r1);
    LayerNormForwardScalar(row.data(), 1, C, g.data(), b.data(), y2.data(), &m2,
                           &r2);
    ASSERT_TRUE(SameBits(y1, y2)) << "LayerNorm forward, C=" << C;
    ASSERT_EQ(0, std::memcmp(&r1, &r2, sizeof(float))) << "rstd, C=" << C;
    std::vector<float> dx1(C, 0.0f), dx2(C, 0.0f), dg1(C, 0.0f), dg2(C, 0.0f),
        db1(C, 0.0f), db2(C, 0.0f);
    LayerNormBackward(row.data(), dy.data(), &m1, &r1, 1, C, g.data(),
                      dx1.data(), dg1.data(), db1.data());
    LayerNormBackwardScalar(row.data(), dy.data(), &m1, &r1, 1, C, g.data(),
                            dx2.data(), dg2.data(), db2.data());
    ASSERT_TRUE(SameBits(dx1, dx2)) << "LayerNorm backward, C=" << C;
  }
}

// NaN and infinities inside a row: the kernels give NaN where the
// references do (the NaNs' bits may differ, rows.h), the same bits elsewhere.
TEST_P(RowTargets, NonFiniteValuesGiveNaNWhereTheReferenceDoes) {
  const float specials[] = {kNaN, kInf, -kInf, 0.0f, -0.0f};
  auto same = [](const std::vector<float>& a, const std::vector<float>& b) {
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::isnan(a[i]) != std::isnan(b[i])) return false;
      if (!std::isnan(a[i]) && std::memcmp(&a[i], &b[i], sizeof(float)) != 0) {
        return false;
      }
    }
    return true;
  };
  for (size_t T : {5, 8, 13, 24}) {
    for (size_t where = 0; where < T; ++where) {
      for (float v : specials) {
        SCOPED_TRACE(::testing::Message()
                     << hwy::TargetName(GetParam()) << " T=" << T << " x["
                     << where << "]=" << v);
        std::vector<float> x = Random(T, 3.0f, T + where);
        x[where] = v;
        std::vector<float> a = x, b = x;
        SoftmaxRow(a.data(), nullptr, T, T, 0.5f);
        SoftmaxRowScalar(b.data(), nullptr, T, T, 0.5f);
        ASSERT_TRUE(same(a, b)) << "forward";
        std::vector<float> p(T, 1.0f / static_cast<float>(T));
        a = x;
        b = x;
        SoftmaxRowBackward(p.data(), a.data(), T, T, 0.5f, nullptr);
        SoftmaxRowBackwardScalar(p.data(), b.data(), T, T, 0.5f, nullptr);
        ASSERT_TRUE(same(a, b)) << "backward";
        std::vector<float> g(T, 1.0f), bias(T, 0.0f), y1(T), y2(T);
        float m1, m2, r1, r2;
        LayerNormForward(x.data(), 1, T, g.data(), bias.data(), y1.data(), &m1,
                         &r1);
        LayerNormForwardScalar(x.data(), 1, T, g.data(), bias.data(), y2.data(),
                               &m2, &r2);
        ASSERT_TRUE(same(y1, y2)) << "LayerNorm";
      }
    }
  }
}

POSENC_INSTANTIATE_PER_TARGET(RowTargets);

}  // namespace
}  // namespace posenc
