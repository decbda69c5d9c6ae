// The AdamW update of one parameter tensor, element by element (Highway,
// with its scalar reference). Every operation is rounded on its own (no
// fused multiply-add; adamw_update.cc is compiled with -ffp-contract=off),
// and sqrt and division are correctly rounded on every target, so the SIMD
// kernel gives the reference's bits with AVX-512, AVX2, SSE4, wasm SIMD or
// scalar code:
//
//   m = b1 m + (1 - b1) g
//   v = b2 v + ((1 - b2) g) g
//   w = w decay - (step_size m) / (sqrt(v) inv_sqrt_bc2 + eps)
#ifndef POSENC_MODEL_ADAMW_UPDATE_H_
#define POSENC_MODEL_ADAMW_UPDATE_H_

#include <cstddef>

namespace posenc {

struct AdamWUpdateArgs {
  float beta1 = 0.9f;
  float beta2 = 0.98f;
  float eps = 1e-8f;
  float decay = 1.0f;         // 1 - lr weight_decay (1: no decay)
  float step_size = 0.0f;     // lr / (1 - beta1^t)
  float inv_sqrt_bc2 = 1.0f;  // 1 / sqrt(1 - beta2^t)
};

// w, m, v: [n] updated in place; g: [n] the (clipped) gradient.
void AdamWUpdate(const AdamWUpdateArgs& a, const float* g, size_t n, float* w,
                 float* m, float* v);
// The scalar reference: the same operations, one element at a time.
void AdamWUpdateScalar(const AdamWUpdateArgs& a, const float* g, size_t n,
                       float* w, float* m, float* v);

}  // namespace posenc

#endif  // POSENC_MODEL_ADAMW_UPDATE_H_
