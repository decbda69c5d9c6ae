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
// column n0 ..), accumulated in registers over all of K. The four products
// of a group are rounded, summed left to right, and the group sum is added
// to the accumulator, as in the scalar reference.
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
  size_t k = 0;
  for (; k + 4 <= K; k += 4) {
    // The block's rows of B once, then each row's four A values once.
    const float* b0 = b + k * ldb;
    V w[4][kVecs];
    for (size_t v = 0; v < kVecs; ++v) {
      for (size_t i = 0; i < 4; ++i)
        w[i][v] = hn::LoadU(d, b0 + i * ldb + v * L);
    }
    for (size_t r = 0; r < kRows; ++r) {
      const float* ar = a + r * a_row + k * a_col;
      const V x0 = hn::Set(d, ar[0]);
      const V x1 = hn::Set(d, ar[a_col]);
      const V x2 = hn::Set(d, ar[2 * a_col]);
      const V x3 = hn::Set(d, ar[3 * a_col]);
      for (size_t v = 0; v < kVecs; ++v) {
        const V p0 = hn::Mul(x0, w[0][v]);
        const V p1 = hn::Mul(x1, w[1][v]);
        const V p2 = hn::Mul(x2, w[2][v]);
        const V p3 = hn::Mul(x3, w[3][v]);
        acc[r][v] =
            hn::Add(acc[r][v], hn::Add(hn::Add(hn::Add(p0, p1), p2), p3));
      }
    }
  }
  for (; k < K; ++k) {
    for (size_t v = 0; v < kVecs; ++v) {
      const V w = hn::LoadU(d, b + k * ldb + v * L);
      for (size_t r = 0; r < kRows; ++r) {
        acc[r][v] = hn::Add(acc[r][v],
                            hn::Mul(hn::Set(d, a[r * a_row + k * a_col]), w));
      }
    }
  }
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < kVecs; ++v)
      hn::StoreU(acc[r][v], d, c + r * ldc + v * L);
  }
}

// The columns of rows r0 .. r0 + kRows - 1 past the last whole vector, one
// element at a time (the scalar reference's loop).
template <size_t kRows>
HWY_INLINE void MatMulTail(const float* HWY_RESTRICT a, size_t a_row,
                           size_t a_col, size_t K, const float* HWY_RESTRICT b,
                           size_t ldb, size_t n0, size_t N,
                           float* HWY_RESTRICT c, size_t ldc) {
  for (size_t r = 0; r < kRows; ++r) {
    const float* ar = a + r * a_row;
    for (size_t n = n0; n < N; ++n) {
      float s = c[r * ldc + n];
      size_t k = 0;
      for (; k + 4 <= K; k += 4) {
        s += ar[k * a_col] * b[k * ldb + n] +
             ar[(k + 1) * a_col] * b[(k + 1) * ldb + n] +
             ar[(k + 2) * a_col] * b[(k + 2) * ldb + n] +
             ar[(k + 3) * a_col] * b[(k + 3) * ldb + n];
      }
      for (; k < K; ++k) s += ar[k * a_col] * b[k * ldb + n];
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
  // One lane: the reference's row-streaming loop is the faster form.
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
