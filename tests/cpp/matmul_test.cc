// MatMulAcc (src/model/matmul.h): the same bits as the scalar reference on
// every compiled target, and the right product (float64 reference).
#include "model/matmul.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "hwy/targets.h"
#include "model/layers.h"
#include "model/rng.h"
#include "test_util.h"

namespace posenc {
namespace {

std::vector<float> Random(size_t n, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = rng.Symmetric(1.0);
  return v;
}

struct Shape {
  size_t R, K, N;
};

// Rows and columns around every block edge (2 rows; 4, 2 and 1 vectors of
// up to 16 lanes; 8 scalar columns).
const Shape kShapes[] = {
    {1, 1, 1},    {3, 5, 7},    {4, 4, 4},     {5, 9, 12},    {4, 3, 33},
    {7, 64, 17},  {64, 64, 64}, {64, 64, 128}, {66, 130, 32}, {16, 7, 100},
    {2, 128, 64}, {9, 1, 48},   {3, 17, 117},  {5, 8, 31},    {2, 3, 60}};

// c = c0 + A b in float64, A given by strides.
std::vector<double> Reference(const std::vector<float>& a, size_t a_row,
                              size_t a_col, const Shape& s,
                              const std::vector<float>& b,
                              const std::vector<float>& c0) {
  std::vector<double> c(c0.begin(), c0.end());
  for (size_t r = 0; r < s.R; ++r) {
    for (size_t n = 0; n < s.N; ++n) {
      for (size_t k = 0; k < s.K; ++k) {
        c[r * s.N + n] +=
            static_cast<double>(a[r * a_row + k * a_col]) * b[k * s.N + n];
      }
    }
  }
  return c;
}

// The targets to check: natively every one this machine runs (dynamic
// dispatch), in wasm the one static target (Highway is header-only there).

// Run once per target (test::PerTarget switches the dispatcher).
class MatMulTargets : public test::PerTarget {};

TEST_P(MatMulTargets, GiveTheScalarReferenceBits) {
  const int64_t target = GetParam();
  for (const Shape& s : kShapes) {
    for (bool transposed : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << hwy::TargetName(target) << " R=" << s.R << " K=" << s.K
                   << " N=" << s.N << (transposed ? " A^T" : ""));
      // A [R, K] row-major, or A = X^T for X [K, R] (the weight gradient).
      const size_t a_row = transposed ? 1 : s.K;
      const size_t a_col = transposed ? s.R : 1;
      const std::vector<float> a = Random(s.R * s.K, 1 + s.R);
      const std::vector<float> b = Random(s.K * s.N, 2 + s.N);
      const std::vector<float> c0 = Random(s.R * s.N, 3 + s.K);
      std::vector<float> simd = c0, scalar = c0;
      MatMulAcc(a.data(), a_row, a_col, s.R, s.K, b.data(), s.N, s.N,
                simd.data(), s.N);
      MatMulAccScalar(a.data(), a_row, a_col, s.R, s.K, b.data(), s.N, s.N,
                      scalar.data(), s.N);
      ASSERT_EQ(0, std::memcmp(simd.data(), scalar.data(),
                               simd.size() * sizeof(float)));
      // MatMul: C = A b, C's old values unread (NaN here), the bits of
      // zeroing C and accumulating.
      std::vector<float> fresh(s.R * s.N, std::nanf("")),
          zeroed(s.R * s.N, 0.0f);
      MatMul(a.data(), a_row, a_col, s.R, s.K, b.data(), s.N, s.N, fresh.data(),
             s.N);
      MatMulAccScalar(a.data(), a_row, a_col, s.R, s.K, b.data(), s.N, s.N,
                      zeroed.data(), s.N);
      ASSERT_EQ(0, std::memcmp(fresh.data(), zeroed.data(),
                               fresh.size() * sizeof(float)));
      const std::vector<double> ref = Reference(a, a_row, a_col, s, b, c0);
      for (size_t i = 0; i < ref.size(); ++i) {
        ASSERT_NEAR(simd[i], ref[i], 1e-6 * (s.K + 1) * 4) << "element " << i;
      }
    }
  }
}

POSENC_INSTANTIATE_PER_TARGET(MatMulTargets);

// Column slices: B and C rows longer than N (one head of a [T, C] matrix).
TEST(MatMulTest, StridedSlicesGiveTheScalarReferenceBits) {
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(::testing::Message()
                 << "R=" << s.R << " K=" << s.K << " N=" << s.N);
    const size_t ldb = s.N + 3, ldc = s.N + 5;
    const std::vector<float> a = Random(s.R * s.K, 4 + s.R);
    const std::vector<float> b = Random(s.K * ldb, 5 + s.N);
    const std::vector<float> c0 = Random(s.R * ldc, 6 + s.K);
    std::vector<float> simd = c0, scalar = c0;
    MatMulAcc(a.data(), s.K, 1, s.R, s.K, b.data(), ldb, s.N, simd.data(), ldc);
    MatMulAccScalar(a.data(), s.K, 1, s.R, s.K, b.data(), ldb, s.N,
                    scalar.data(), ldc);
    ASSERT_EQ(0, std::memcmp(simd.data(), scalar.data(),
                             simd.size() * sizeof(float)));
    for (size_t r = 0; r < s.R; ++r) {
      for (size_t n = 0; n < ldc; ++n) {
        double want = c0[r * ldc + n];
        if (n < s.N) {
          for (size_t k = 0; k < s.K; ++k) {
            want += static_cast<double>(a[r * s.K + k]) * b[k * ldb + n];
          }
        }
        // Columns past N are untouched.
        ASSERT_NEAR(simd[r * ldc + n], want, 1e-6 * (s.K + 1) * 4);
      }
    }
  }
}

// The dense layer's three products against float64 sums.
TEST(MatMulTest, LinearBackwardMatchesFloat64) {
  const size_t T = 7, In = 13, Out = 10;
  const std::vector<float> x = Random(T * In, 11), w = Random(In * Out, 12),
                           dy = Random(T * Out, 13);
  std::vector<float> dx(T * In, 0.5f), dw(In * Out, -0.25f), db(Out, 1.0f);
  LinearBackward(x.data(), dy.data(), T, In, Out, w.data(), dx.data(),
                 dw.data(), db.data());
  for (size_t t = 0; t < T; ++t) {
    for (size_t i = 0; i < In; ++i) {
      double s = 0.5;
      for (size_t o = 0; o < Out; ++o) {
        s += static_cast<double>(dy[t * Out + o]) * w[i * Out + o];
      }
      EXPECT_NEAR(dx[t * In + i], s, 1e-5);
    }
  }
  for (size_t i = 0; i < In; ++i) {
    for (size_t o = 0; o < Out; ++o) {
      double s = -0.25;
      for (size_t t = 0; t < T; ++t) {
        s += static_cast<double>(x[t * In + i]) * dy[t * Out + o];
      }
      EXPECT_NEAR(dw[i * Out + o], s, 1e-5);
    }
  }
  for (size_t o = 0; o < Out; ++o) {
    double s = 1.0;
    for (size_t t = 0; t < T; ++t) s += dy[t * Out + o];
    EXPECT_NEAR(db[o], s, 1e-5);
  }
  std::vector<float> y(T * Out);
  LinearForward(x.data(), T, In, Out, w.data(), db.data(), y.data());
  for (size_t t = 0; t < T; ++t) {
    for (size_t o = 0; o < Out; ++o) {
      double s = db[o];
      for (size_t i = 0; i < In; ++i) {
        s += static_cast<double>(x[t * In + i]) * w[i * Out + o];
      }
      EXPECT_NEAR(y[t * Out + o], s, 1e-5);
    }
  }
}

}  // namespace
}  // namespace posenc
