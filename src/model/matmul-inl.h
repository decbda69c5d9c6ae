// Per-target MatMulAcc (Highway). See matmul.h for the summation order.
#if defined(POSENC_MODEL_MATMUL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POSENC_MODEL_MATMUL_INL_H_
#undef POSENC_MODEL_MATMUL_INL_H_
#else
#define POSENC_MODEL_MATMUL_INL_H_
#endif

#include <cstddef>
#include <cstdint>

#include "hwy/highway.h"
#include "model/matmul.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One block of C: kRows rows (r0 ..) by kVecs vectors of columns (from
// column n0 ..), accumulated in registers over all of K, one k at a time:
// each product is rounded and added to its accumulator, as in the scalar
// reference. The main block is 2 rows x 4 vectors: 8 accumulators, 4
// vectors of a row of B and a broadcast stay in registers (x86 has 16);
// in wasm under V8 it runs about 12% faster than 4 x 2 and 40% faster than
// 3 x 4 or 2 x 8, which spill.
template <bool kAcc, size_t kRows, size_t kVecs, class D>
HWY_INLINE void MatMulBlock(D d, const float* HWY_RESTRICT a, size_t a_row,
                            size_t a_col, size_t K, const float* HWY_RESTRICT b,
                            size_t ldb, float* HWY_RESTRICT c, size_t ldc) {
  using V = hn::Vec<D>;
  const size_t L = hn::Lanes(d);
  V acc[kRows][kVecs];
  for (size_t r = 0; r < kRows; ++r) {
    for (size_t v = 0; v < kVecs; ++v)
      acc[r][v] = kAcc ? hn::LoadU(d, c + r * ldc + v * L) : hn::Zero(d);
  }
  // Addresses stepped by the strides (not k times a stride: wasm has no
  // scaled addressing, and V8 keeps the multiplies in the loop). Integers,
  // not pointers: after the last k they lie past the arrays, unused.
  uintptr_t ak = reinterpret_cast<uintptr_t>(a);
  uintptr_t bk = reinterpret_cast<uintptr_t>(b);
  const size_t a_step = a_col * sizeof(float), b_step = ldb * sizeof(float);
  for (size_t k = 0; k < K; ++k, ak += a_step, bk += b_step) {
    const float* HWY_RESTRICT ar = reinterpret_cast<const float*>(ak);
    const float* HWY_RESTRICT br = reinterpret_cast<const float*>(bk);
    V w[kVecs];
    for (size_t v = 0; v < kVecs; ++v) w[v] = hn::LoadU(d, br + v * L);
    for (size_t r = 0; r < kRows; ++r) {
      const V x = hn::Set(d, ar[r * a_row]);
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
template <bool kAcc, size_t kRows>
HWY_INLINE void MatMulTail(const float* HWY_RESTRICT a, size_t a_row,
                           size_t a_col, size_t K, const float* HWY_RESTRICT b,
                           size_t ldb, size_t n0, size_t N,
                           float* HWY_RESTRICT c, size_t ldc) {
  for (size_t r = 0; r < kRows; ++r) {
    const float* ar = a + r * a_row;
    for (size_t n = n0; n < N; ++n) {
      float s = kAcc ? c[r * ldc + n] : 0.0f;
      for (size_t k = 0; k < K; ++k) s += ar[k * a_col] * b[k * ldb + n];
      c[r * ldc + n] = s;
    }
  }
}

// kRows rows of C, all columns: blocks of four vectors, then two, then one,
// then the scalar tail.
template <bool kAcc, size_t kRows>
HWY_INLINE void MatMulRows(const float* HWY_RESTRICT a, size_t a_row,
                           size_t a_col, size_t K, const float* HWY_RESTRICT b,
                           size_t ldb, size_t N, float* HWY_RESTRICT c,
                           size_t ldc) {
  const hn::ScalableTag<float> d;
  const size_t L = hn::Lanes(d);
  size_t n = 0;
  for (; n + 4 * L <= N; n += 4 * L) {
    MatMulBlock<kAcc, kRows, 4>(d, a, a_row, a_col, K, b + n, ldb, c + n, ldc);
  }
  if (n + 2 * L <= N) {
    MatMulBlock<kAcc, kRows, 2>(d, a, a_row, a_col, K, b + n, ldb, c + n, ldc);
    n += 2 * L;
  }
  if (n + L <= N) {
    MatMulBlock<kAcc, kRows, 1>(d, a, a_row, a_col, K, b + n, ldb, c + n, ldc);
    n += L;
  }
  if (n < N) MatMulTail<kAcc, kRows>(a, a_row, a_col, K, b, ldb, n, N, c, ldc);
}

// c: [R, N] (+)= A b (kAcc: accumulate); see matmul.h.
template <bool kAcc>
HWY_INLINE void MatMulImpl(const float* HWY_RESTRICT a, size_t a_row,
                           size_t a_col, size_t R, size_t K,
                           const float* HWY_RESTRICT b, size_t ldb, size_t N,
                           float* HWY_RESTRICT c, size_t ldc) {
  size_t r = 0;
  for (; r + 2 <= R; r += 2) {
    MatMulRows<kAcc, 2>(a + r * a_row, a_row, a_col, K, b, ldb, N, c + r * ldc,
                        ldc);
  }
  for (; r < R; ++r) {
    MatMulRows<kAcc, 1>(a + r * a_row, a_row, a_col, K, b, ldb, N, c + r * ldc,
                        ldc);
  }
}

HWY_NOINLINE void MatMulAccKernel(const float* HWY_RESTRICT a, size_t a_row,
                                  size_t a_col, size_t R, size_t K,
                                  const float* HWY_RESTRICT b, size_t ldb,
                                  size_t N, float* HWY_RESTRICT c, size_t ldc) {
#if HWY_TARGET == HWY_SCALAR
  // One lane: the reference's register-blocked loop is the faster form.
  MatMulAccScalar(a, a_row, a_col, R, K, b, ldb, N, c, ldc);
#else
  MatMulImpl<true>(a, a_row, a_col, R, K, b, ldb, N, c, ldc);
#endif
}

HWY_NOINLINE void MatMulKernel(const float* HWY_RESTRICT a, size_t a_row,
                               size_t a_col, size_t R, size_t K,
                               const float* HWY_RESTRICT b, size_t ldb,
                               size_t N, float* HWY_RESTRICT c, size_t ldc) {
#if HWY_TARGET == HWY_SCALAR
  for (size_t r = 0; r < R; ++r) {
    for (size_t n = 0; n < N; ++n) c[r * ldc + n] = 0.0f;
  }
  MatMulAccScalar(a, a_row, a_col, R, K, b, ldb, N, c, ldc);
#else
  MatMulImpl<false>(a, a_row, a_col, R, K, b, ldb, N, c, ldc);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_MODEL_MATMUL_INL_H_
