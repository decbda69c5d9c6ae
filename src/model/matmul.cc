#include "model/matmul.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "model/matmul.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "model/matmul-inl.h"

#if HWY_ONCE
namespace posenc {

HWY_EXPORT(MatMulAccKernel);
HWY_EXPORT(MatMulKernel);

void MatMul(const float* a, size_t a_row, size_t a_col, size_t R, size_t K,
            const float* b, size_t ldb, size_t N, float* c, size_t ldc) {
  HWY_DYNAMIC_DISPATCH(MatMulKernel)(a, a_row, a_col, R, K, b, ldb, N, c, ldc);
}

void MatMulAcc(const float* a, size_t a_row, size_t a_col, size_t R, size_t K,
               const float* b, size_t ldb, size_t N, float* c, size_t ldc) {
  HWY_DYNAMIC_DISPATCH(MatMulAccKernel)
  (a, a_row, a_col, R, K, b, ldb, N, c, ldc);
}

void MatMulAccScalar(const float* a, size_t a_row, size_t a_col, size_t R,
                     size_t K, const float* b, size_t ldb, size_t N, float* c,
                     size_t ldc) {
  // Eight columns of one row at a time, kept in registers over all of K;
  // each element of c still adds its products in the order of k.
  constexpr size_t kCols = 8;
  for (size_t r = 0; r < R; ++r) {
    const float* ar = a + r * a_row;
    float* cr = c + r * ldc;
    size_t n = 0;
    for (; n + kCols <= N; n += kCols) {
      float s[kCols];
      for (size_t j = 0; j < kCols; ++j) s[j] = cr[n + j];
      // Pointers stepped by the strides, never past the last k (see
      // matmul-inl.h).
      const float* ak = ar;
      const float* bk = b + n;
      for (size_t k = 0; k < K;) {
        for (size_t j = 0; j < kCols; ++j) s[j] += *ak * bk[j];
        if (++k == K) break;
        ak += a_col;
        bk += ldb;
      }
      for (size_t j = 0; j < kCols; ++j) cr[n + j] = s[j];
    }
    for (; n < N; ++n) {
      float s = cr[n];
      for (size_t k = 0; k < K; ++k) s += ar[k * a_col] * b[k * ldb + n];
      cr[n] = s;
    }
  }
}

}  // namespace posenc
#endif  // HWY_ONCE
