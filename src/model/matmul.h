// The matrix product of the tiny transformer's dense layers, forward and
// both backward products (layers.h), as one accumulating kernel:
//
//   C[R, N] += A[R, K] B[K, N]
//
// A is read through strides, so one kernel also serves x^T dy (the weight
// gradient) without a transpose. B and C are row-major with row strides ldb
// and ldc (>= N), so they can be column slices (one head of [T, C]).
//
// Summation order (the same on every target and in the scalar reference,
// so training gives the same bits with AVX2, AVX-512, SSE4, wasm SIMD or
// scalar code): each output element adds its products in the order of k,
// c += a_0 b_0, then c += a_1 b_1, and so on; every product is rounded
// before it is added (no fused multiply-add; matmul.cc is compiled with
// -ffp-contract=off). The SIMD kernel vectorises over n and blocks rows,
// and the scalar one blocks columns, which changes nothing in that order.
#ifndef POSENC_MODEL_MATMUL_H_
#define POSENC_MODEL_MATMUL_H_

#include <cstddef>

namespace posenc {

// A element (r, k) at a[r * a_row + k * a_col]; B (k, n) at b[k * ldb + n];
// C (r, n) at c[r * ldc + n].
void MatMulAcc(const float* a, size_t a_row, size_t a_col, size_t R, size_t K,
               const float* b, size_t ldb, size_t N, float* c, size_t ldc);
// C[R, N] = A b: the same as zeroing C and calling MatMulAcc (the same
// bits: the sums start from 0), without reading C first.
void MatMul(const float* a, size_t a_row, size_t a_col, size_t R, size_t K,
            const float* b, size_t ldb, size_t N, float* c, size_t ldc);
// The scalar reference: the same sums in the same order, one element at a
// time.
void MatMulAccScalar(const float* a, size_t a_row, size_t a_col, size_t R,
                     size_t K, const float* b, size_t ldb, size_t N, float* c,
                     size_t ldc);

}  // namespace posenc

#endif  // POSENC_MODEL_MATMUL_H_
