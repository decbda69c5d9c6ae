// The dense building blocks of the tiny transformer, forward and backward,
// on row-major float matrices. Backward functions ACCUMULATE into their
// gradient outputs (+=), so the caller zeroes them once per step.
// Shapes: T rows (tokens), In / Out / C columns.
#ifndef POSENC_MODEL_LAYERS_H_
#define POSENC_MODEL_LAYERS_H_

#include <cstddef>
#include <cstdint>

namespace posenc {

// sum_i a[i] b[i]. The reduction is vectorised (-fopenmp-simd): its order
// is fixed by the build, so results are reproducible run to run.
inline float Dot(const float* a, const float* b, size_t n) {
  float s = 0.0f;
#pragma omp simd reduction(+ : s)
  for (size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// y[T, Out] = x[T, In] * w[In, Out] (+ b[Out] if b).
void LinearForward(const float* x, size_t T, size_t In, size_t Out,
                   const float* w, const float* b, float* y);
// dx[T, In] += dy w^T; dw[In, Out] += x^T dy; db[Out] += sum_t dy. Any
// gradient pointer may be null (not needed).
void LinearBackward(const float* x, const float* dy, size_t T, size_t In,
                    size_t Out, const float* w, float* dx, float* dw,
                    float* db);
// The same with w given transposed, wt[Out, In] (the trainer transposes
// each weight once per step instead of once per example): the same bits.
// With DxMode::kOverwrite, dx = dy w^T (dx need not be zeroed first; the
// same bits as zeroing it and accumulating).
enum class DxMode { kAccumulate, kOverwrite };
void LinearBackwardT(const float* x, const float* dy, size_t T, size_t In,
                     size_t Out, const float* wt, float* dx, float* dw,
                     float* db, DxMode dx_mode = DxMode::kAccumulate);

// wt[Out, In] = the transpose of w[In, Out].
void TransposeInto(const float* w, size_t In, size_t Out, float* wt);

// y[T, C] = (x - mean) * rstd * g + b per row; mean, rstd: [T] saved.
void LayerNormForward(const float* x, size_t T, size_t C, const float* g,
                      const float* b, float* y, float* mean, float* rstd);
void LayerNormBackward(const float* x, const float* dy, const float* mean,
                       const float* rstd, size_t T, size_t C, const float* g,
                       float* dx, float* dg, float* db);

// GELU, tanh form (GPT-2), vectorised (activations.h). x, y: [n]; th: [n]
// the tanh inside, kept for the backward pass (null: not kept).
void GeluForward(const float* x, size_t n, float* y, float* th = nullptr);
// dx[n] += dy GELU'(x); th: what GeluForward(x) kept.
void GeluBackward(const float* x, const float* th, const float* dy, size_t n,
                  float* dx);

// Softmax cross-entropy over rows of logits [R, V]: returns the summed loss
// (nats) of rows whose target >= 0 and writes dlogits = (p - onehot) * scale
// for them (0 for unscored rows). targets: [R]; *correct counts argmax hits.
double SoftmaxCrossEntropy(const float* logits, size_t R, size_t V,
                           const int32_t* targets, float scale, float* dlogits,
                           size_t* scored, size_t* correct);

}  // namespace posenc

#endif  // POSENC_MODEL_LAYERS_H_
