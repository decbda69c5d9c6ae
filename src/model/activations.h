// The tiny transformer's exponentials: the exp of the attention softmax
// (rows.h) and the GELU (tanh form), vectorised with Highway beside their
// scalar references.
//
// exp is posenc's own, not libm's: every operation is a float add, subtract
// or multiply, rounded on its own (activations.cc is compiled with
// -ffp-contract=off), plus exact bit operations and one correctly rounded
// division in the GELU, so the SIMD kernels give the scalar references' bits
// with AVX-512, AVX2, SSE4, wasm SIMD or scalar code, and training stays
// reproducible across targets (matmul.h). The exp:
//
//   n = round(x log2 e)          (adding and subtracting 1.5 2^23)
//   r = (x - n ln2_hi) - n ln2_lo
//   exp(x) = 2^n (1 + r + r^2/2! + ... + r^6/6!)   (Horner form)
//
// Relative error below 2e-7 for x in [-87, 88]; x below -87 gives 0 (the
// true value is under 1.7e-38), x above 88 gives +inf, NaN stays NaN.
#ifndef POSENC_MODEL_ACTIVATIONS_H_
#define POSENC_MODEL_ACTIVATIONS_H_

#include <cstddef>

namespace posenc {

// One exp, the scalar reference of the kernels below.
float Exp(float x);

// GELU, tanh form (GPT-2), with tanh(z) = 1 - 2 / (Exp(2 z) + 1):
//   th = tanh(sqrt(2/pi) (u + 0.044715 u^3)),  y = 0.5 u (1 + th)
// GeluForward(x, n, y, th) and GeluBackward(x, th, dy, n, dx) are declared
// in layers.h (the backward pass reuses the forward's th instead of a second
// exp); these are their scalar references. x, y, th, dy, dx: [n].
void GeluForwardScalar(const float* x, size_t n, float* y, float* th);
// dx[n] += dy * GELU'(x).
void GeluBackwardScalar(const float* x, const float* th, const float* dy,
                        size_t n, float* dx);

}  // namespace posenc

#endif  // POSENC_MODEL_ACTIVATIONS_H_
