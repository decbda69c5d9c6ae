#include "model/matmul.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "model/matmul.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "model/matmul-inl.h"

#if HWY_ONCE
namespace posenc {

HWY_EXPORT(MatMulAccKernel);

void MatMulAcc(const float* a, size_t a_row, size_t a_col, size_t R, size_t K,
               const float* b, size_t ldb, size_t N, float* c, size_t ldc) {
  HWY_DYNAMIC_DISPATCH(MatMulAccKernel)
  (a, a_row, a_col, R, K, b, ldb, N, c, ldc);
}

void MatMulAccScalar(const float* a, size_t a_row, size_t a_col, size_t R,
                     size_t K, const float* b, size_t ldb, size_t N, float* c,
                     size_t ldc) {
  // Row by row, streaming the rows of b (the cache-friendly order); each
  // element of c still sees its sums in the order of matmul.h.
  for (size_t r = 0; r < R; ++r) {
    const float* ar = a + r * a_row;
    float* cr = c + r * ldc;
    size_t k = 0;
    for (; k + 4 <= K; k += 4) {
      const float a0 = ar[k * a_col], a1 = ar[(k + 1) * a_col],
                  a2 = ar[(k + 2) * a_col], a3 = ar[(k + 3) * a_col];
      const float* b0 = b + k * ldb;
      const float* b1 = b0 + ldb;
      const float* b2 = b1 + ldb;
      const float* b3 = b2 + ldb;
      // ((a0 b0 + a1 b1) + a2 b2) + a3 b3, then added to c.
      for (size_t n = 0; n < N; ++n) {
        cr[n] += a0 * b0[n] + a1 * b1[n] + a2 * b2[n] + a3 * b3[n];
      }
    }
    for (; k < K; ++k) {
      const float ak = ar[k * a_col];
      const float* bk = b + k * ldb;
      for (size_t n = 0; n < N; ++n) cr[n] += ak * bk[n];
    }
  }
}

}  // namespace posenc
#endif  // HWY_ONCE
