#include "model/adamw.h"

#include <cmath>

#include "model/adamw_update.h"

namespace posenc {

float ScheduledLr(const AdamWConfig& c, int step) {
  if (step < c.warmup_steps) {
    return c.lr * static_cast<float>(step + 1) /
           static_cast<float>(c.warmup_steps);
  }
  const int span = c.total_steps - c.warmup_steps;
  double frac =
      span > 0 ? static_cast<double>(step - c.warmup_steps) / span : 1.0;
  frac = frac > 1.0 ? 1.0 : frac;
  const double cosine = 0.5 * (1.0 + std::cos(3.141592653589793 * frac));
  return static_cast<float>(c.lr *
                            (c.min_lr_ratio + (1.0 - c.min_lr_ratio) * cosine));
}

double ClipGradNorm(std::vector<float>* grad, float max_norm) {
  double sq = 0.0;
  for (float g : *grad) sq += static_cast<double>(g) * g;
  const double norm = std::sqrt(sq);
  if (max_norm > 0.0f && norm > max_norm) {
    const float s = static_cast<float>(max_norm / norm);
    for (float& g : *grad) g *= s;
  }
  return norm;
}

double AdamW::Step(Model* m, std::vector<float>* grad) {
  const double norm = ClipGradNorm(grad, c_.clip_norm);
  const float lr = ScheduledLr(c_, step_);
  ++step_;
  const double bc1 = 1.0 - std::pow(static_cast<double>(c_.beta1), step_);
  const double bc2 = 1.0 - std::pow(static_cast<double>(c_.beta2), step_);
  const float step_size = static_cast<float>(lr / bc1);
  const float inv_sqrt_bc2 = static_cast<float>(1.0 / std::sqrt(bc2));
  AdamWUpdateArgs a;
  a.beta1 = c_.beta1;
  a.beta2 = c_.beta2;
  a.eps = c_.eps;
  a.step_size = step_size;
  a.inv_sqrt_bc2 = inv_sqrt_bc2;
  for (const ParamInfo& p : m->params) {
    a.decay = p.decay ? 1.0f - lr * c_.weight_decay : 1.0f;
    AdamWUpdate(a, grad->data() + p.offset, p.size, m->w.data() + p.offset,
                m_.data() + p.offset, v_.data() + p.offset);
  }
  return norm;
}

}  // namespace posenc
