#include "model/adamw.h"

#include <cmath>

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
  const std::vector<float>& g = *grad;
  for (const ParamInfo& p : m->params) {
    const float decay = p.decay ? 1.0f - lr * c_.weight_decay : 1.0f;
    for (size_t i = p.offset; i < p.offset + p.size; ++i) {
      m_[i] = c_.beta1 * m_[i] + (1.0f - c_.beta1) * g[i];
      v_[i] = c_.beta2 * v_[i] + (1.0f - c_.beta2) * g[i] * g[i];
      const float denom = std::sqrt(v_[i]) * inv_sqrt_bc2 + c_.eps;
      m->w[i] = m->w[i] * decay - step_size * m_[i] / denom;
    }
  }
  return norm;
}

}  // namespace posenc
