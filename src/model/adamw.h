// AdamW (Loshchilov & Hutter) with decoupled weight decay on matrices only,
// global-norm gradient clipping, and the warmup + cosine learning-rate
// schedule the training runs use. State: [w.size()] first and second moments.
#ifndef POSENC_MODEL_ADAMW_H_
#define POSENC_MODEL_ADAMW_H_

#include <cstddef>
#include <vector>

#include "model/transformer.h"

namespace posenc {

struct AdamWConfig {
  float lr = 3e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.98f;
  float eps = 1e-8f;
  float weight_decay = 0.01f;
  float clip_norm = 1.0f;  // 0 = no clipping
  int warmup_steps = 100;
  int total_steps = 1000;  // cosine decay to min_lr_ratio * lr at this step
  float min_lr_ratio = 0.1f;
};

// Learning rate at step (0-based).
float ScheduledLr(const AdamWConfig& c, int step);

// Scales grad so its L2 norm is at most max_norm (if max_norm > 0); returns
// the norm before clipping.
double ClipGradNorm(std::vector<float>* grad, float max_norm);

class AdamW {
 public:
  AdamW(const AdamWConfig& c, size_t n) : c_(c), m_(n, 0.0f), v_(n, 0.0f) {}
  // One update of m.w from grad (already averaged over the batch); clips
  // grad in place. Returns the gradient norm before clipping.
  double Step(Model* m, std::vector<float>* grad);
  int step() const { return step_; }

 private:
  AdamWConfig c_;
  std::vector<float> m_, v_;
  int step_ = 0;
};

}  // namespace posenc

#endif  // POSENC_MODEL_ADAMW_H_
