// The tiny transformer's row kernels: one attention row's softmax, forward
// and backward, and LayerNorm, forward and backward. Highway kernels beside
// scalar references that give the same bits on every target (a NaN result
// is only guaranteed to be a NaN: its sign and payload may differ). Buffers
// must not overlap unless a comment says so (the kernels take them
// restrict-qualified).
//
// Every float64 sum is Sum8's (sum.h): term c goes to partial sum c mod 8,
// each partial adds its terms in the order of c, and the eight are combined
// as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)). The kernels keep the
// eight partials in four 2-lane float64 vectors (128-bit vectors on every
// target, so the grouping does not depend on the vector width); a term that
// would come from past the end of a row is added as +0, which leaves every
// partial as it is (a partial that starts at +0 never becomes -0). Float
// products are rounded on their own (rows.cc is compiled with
// -ffp-contract=off).
#ifndef POSENC_MODEL_ROWS_H_
#define POSENC_MODEL_ROWS_H_

#include <cstddef>

namespace posenc {

// One attention row, logits to probabilities, in place. x: [T]; on entry
// x[0, n) holds the unscaled logits q . k (1 <= n <= T); bias: [n] or null.
//   x[j] = x[j] scale + bias[j]          j < n
//   x[j] = exp(x[j] - max) / sum         j < n   (Exp of activations.h;
//                                         the sum in float64, Sum8's order)
//   x[j] = 0                             n <= j < T
// x[n, min(8 ceil(n / 8), T)) is read (any values, NaN too) before it is
// overwritten: the kernels work on whole groups of 8.
void SoftmaxRow(float* x, const float* bias, size_t n, size_t T, float scale);
void SoftmaxRowScalar(float* x, const float* bias, size_t n, size_t T,
                      float scale);

// The gradient of SoftmaxRow's exp / sum step through one row. p: [T] the
// probabilities (p[n, T) = 0); d: [T], on entry dL/dp for j < n (any values
// past n, as above), on exit
//   ds[j] = p[j] (d[j] - dot),  dot = sum_{k < n} p[k] d[k] (float64, Sum8)
//   d[j]  = ds[j] scale  (j < n),  0 (n <= j < T)
// and ds[0, n) (if not null) the unscaled ds (a bias's gradient).
void SoftmaxRowBackward(const float* p, float* d, size_t n, size_t T,
                        float scale, float* ds);
void SoftmaxRowBackwardScalar(const float* p, float* d, size_t n, size_t T,
                              float scale, float* ds);

// LayerNorm over the rows of x [T, C]:
//   mean = sum(x) / C, var = sum((x - mean)^2) / C    (float64, Sum8; the
//          variance's terms use the float64 mean)
//   rstd = 1 / sqrt(var + 1e-5);  y = ((x - mean) rstd) g + b
// (y uses mean and rstd rounded to float, each operation rounded on its
// own).
// g, b: [C]; y: [T, C]; mean, rstd: [T] saved for the backward pass.
void LayerNormForwardScalar(const float* x, size_t T, size_t C, const float* g,
                            const float* b, float* y, float* mean, float* rstd);
// With xhat = (x - mean) rstd and e = dy g (floats):
//   dg += dy xhat, db += dy (per column, row by row);
//   md = sum(e) / C, mdx = sum(e xhat) / C   (float64, Sum8; each rounded
//        to float before use)
//   dx += rstd ((e - md) - xhat mdx)
// dy, dx: [T, C]; dg, db: [C].
void LayerNormBackwardScalar(const float* x, const float* dy, const float* mean,
                             const float* rstd, size_t T, size_t C,
                             const float* g, float* dx, float* dg, float* db);
// (LayerNormForward and LayerNormBackward, the dispatching versions, are
// declared in layers.h.)

}  // namespace posenc

#endif  // POSENC_MODEL_ROWS_H_
