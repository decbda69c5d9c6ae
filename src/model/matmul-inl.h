// Per-target MatMulAcc (Highway). See matmul.h for the summation order.
#if defined(POSENC_MODEL_MATMUL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POSENC_MODEL_MATMUL_INL_H_
#undef POSENC_MODEL_MATMUL_INL_H_
#else
#define POSENC_MODEL_MATMUL_INL_H_
#endif

#include <cstddef>

#include "hwy/highway.h"
#include "model/matmul.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One block of C: kRows rows (r0 ..) by kVecs vectors of columns (from
// column n0 ..), accumulated in registers over all of K, one k at a time:
// each product is rounded and added to its accumulator, as in the scalar
// reference. (4 x 2 keeps the 8 accumulators, 2 rows of B and a broadcast
// in registers; wasm's 16 vector registers leave no room for more.)
template <size_t kRows, size_t kVecs, class D>
HWY_INLINE void MatMulBlock(D d, const float* HWY_RESTRICT a, size_t a_row,
                            size_t a_col, size_t K, const float* HWY_RESTRICT b,
                            size_t ldb, float* HWY_RESTRICT c, size_t ldc) {
  using V = hn::Vec<D>;
  const size_t L = hn::Lanes(d);
  V acc[kRows][kVecs];
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < kVecs; ++v)
      acc[r][v] = hn::LoadU(d, c + r * ldc + v * L);
  }
  for (size_t k = 0; k < K; ++k) {
    V w[kVecs];
    for (size_t v = 0; v < kVecs; ++v) w[v] = hn::LoadU(d, b + k * ldb + v * L);
    for (size_t r = 0; r < kRows; ++r) {
      const V x = hn::Set(d, a[r * a_row + k * a_col]);
      for (size_t v = 0; v < kVecs; ++v)
        acc[r][v] = hn::Add(acc[r][v], hn::Mul(x, w[v]));
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < kVecs; ++v)
      hn::StoreU(acc[r][v], d, c + r * ldc + v * L);
  }
}

// The columns of rows r0 .. r0 + kRows - 1 past the last whole vector, one
// element at a time.
template <size_t kRows>
HWY_INLINE void MatMulTail(const float* HWY_RESTRICT a, size_t a_row,
                           size_t a_col, size_t K, const float* HWY_RESTRICT b,
                           size_t ldb, size_t n0, size_t N,
                           float* HWY_RESTRICT c, size_t ldc) {
  for (size_t r = 0; r < kRows; ++r) {
    const float* ar = a + r * a_row;
    for (size_t n = n0; n < N; ++n) {
      float s = c[r * ldc + n];
      for (size_t k = 0; k < K; ++k) s += ar[k * a_col] * b[k * ldb + n];
      c[r * ldc + n] = s;
    }
  }
}

// kRows rows of C, all columns: blocks of two vectors, then one, then the
// scalar tail.
template <size_t kRows>
HWY_INLINE void MatMulRows(const float* HWY_RESTRICT a, size_t a_row,
                           size_t a_col, size_t K, const float* HWY_RESTRICT b,
                           size_t ldb, size_t N, float* HWY_RESTRICT c,
                           size_t ldc) {
  const hn::ScalableTag<float> d;
  const size_t L = hn::Lanes(d);
  size_t n = 0;
  for (; n + 2 * L <= N; n += 2 * L) {
    MatMulBlock<kRows, 2>(d, a, a_row, a_col, K, b + n, ldb, c + n, ldc);
  }
  for (; n + L <= N; n += L) {
    MatMulBlock<kRows, 1>(d, a, a_row, a_col, K, b + n, ldb, c + n, ldc);
  }
  if (n < N) MatMulTail<kRows>(a, a_row, a_col, K, b, ldb, n, N, c, ldc);
}

// c: [R, N] += A b; see matmul.h.
HWY_NOINLINE void MatMulAccKernel(const float* HWY_RESTRICT a, size_t a_row,
                                  size_t a_col, size_t R, size_t K,
                                  const float* HWY_RESTRICT b, size_t ldb,
                                  size_t N, float* HWY_RESTRICT c, size_t ldc) {
#if HWY_TARGET == HWY_SCALAR
  // One lane: the reference's register-blocked loop is the faster form.
  MatMulAccScalar(a, a_row, a_col, R, K, b, ldb, N, c, ldc);
#else
  size_t r = 0;
  for (; r + 4 <= R; r += 4) {
    MatMulRows<4>(a + r * a_row, a_row, a_col, K, b, ldb, N, c + r * ldc, ldc);
  }
  for (; r < R; ++r) {
    MatMulRows<1>(a + r * a_row, a_row, a_col, K, b, ldb, N, c + r * ldc, ldc);
  }
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_MODEL_MATMUL_INL_H_
