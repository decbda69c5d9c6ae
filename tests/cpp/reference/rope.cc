#include "reference/rope.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace posenc {
namespace ref {
namespace {

// YaRN's m(s, k) = 1 + 0.1 k ln s (1 for s <= 1).
double YarnM(double s, double k) {
  return s <= 1.0 ? 1.0 : 0.1 * k * std::log(s) + 1.0;
}

// The pair dims of pair i: (i, i + h) in the half layout, (2i, 2i + 1)
// interleaved.
size_t FirstOfPair(RopeLayout layout, size_t i) {
  return layout == RopeLayout::kHalf ? i : 2 * i;
}
size_t SecondOfPair(RopeLayout layout, size_t i, size_t h) {
  return layout == RopeLayout::kHalf ? i + h : 2 * i + 1;
}

}  // namespace

int RotaryDim(const RopeFrequencyConfig& c) {
  return c.rotary_dim ? c.rotary_dim : c.head_dim;
}

double RopeAttentionFactor(const RopeScaling& s) {
  switch (s.type) {
    case RopeScalingType::kYarn:
      if (s.has_attention_factor) return s.attention_factor;
      if (s.mscale != 0.0 && s.mscale_all_dim != 0.0) {
        return YarnM(s.factor, s.mscale) / YarnM(s.factor, s.mscale_all_dim);
      }
      return YarnM(s.factor, 1.0);
    case RopeScalingType::kLongrope:
      if (s.has_attention_factor) return s.attention_factor;
      if (s.factor <= 1.0) return 1.0;
      return std::sqrt(
          1.0 + std::log(s.factor) /
                    std::log(double(s.original_max_position_embeddings)));
    default:
      return 1.0;
  }
}

RopeFreqs InvFreq(const RopeFrequencyConfig& c, int64_t ctx) {
  const int r = RotaryDim(c);
  const RopeScaling& s = c.scaling;
  // d / (d - 2) of NTK; r = 2 has no finite exponent (no division by 0).
  const double ex =
      r > 2 ? r / (r - 2.0) : std::numeric_limits<double>::infinity();
  double base = c.base;
  if (s.type == RopeScalingType::kNtk) base = c.base * std::pow(s.factor, ex);
  if (s.type == RopeScalingType::kDynamic) {
    const double M = s.max_position_embeddings;
    const double T = std::max(static_cast<double>(ctx), M);
    base = c.base * std::pow(s.factor * T / M - (s.factor - 1.0), ex);
  }
  RopeFreqs out;
  std::vector<double>& f = out.inv_freq;
  f.resize(r / 2);
  for (int i = 0; i < r / 2; ++i) f[i] = 1.0 / std::pow(base, 2.0 * i / r);
  switch (s.type) {
    case RopeScalingType::kLinear:
      for (double& x : f) x /= s.factor;
      break;
    case RopeScalingType::kYarn: {
      // Dims whose wavelength makes fewer than beta_slow turns over L are
      // interpolated (/ s), more than beta_fast kept, a linear ramp between.
      const double L = s.original_max_position_embeddings;
      auto corr = [&](double turns) {
        return r * std::log(L / (2.0 * kPi * turns)) / (2.0 * std::log(c.base));
      };
      double low = corr(s.beta_fast), high = corr(s.beta_slow);
      if (s.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
      }
      low = std::max(low, 0.0);
      high = std::min(high, r - 1.0);
      if (high == low) high += 0.001;
      for (int i = 0; i < r / 2; ++i) {
        const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
        f[i] = f[i] / s.factor * ramp + f[i] * (1.0 - ramp);
      }
      break;
    }
    case RopeScalingType::kLongrope: {
      const int64_t L = s.original_max_position_embeddings;
      const std::vector<double>& ext = ctx > L ? s.long_factor : s.short_factor;
      for (int i = 0; i < r / 2; ++i) {
        f[i] = 1.0 / (ext[i] * std::pow(base, 2.0 * i / r));
      }
      break;
    }
    case RopeScalingType::kLlama3: {
      const double L = s.original_max_position_embeddings;
      const double low_wl = L / s.low_freq_factor;
      const double high_wl = L / s.high_freq_factor;
      for (double& x : f) {
        const double wl = 2.0 * kPi / x;
        if (wl < high_wl) continue;
        if (wl > low_wl) {
          x /= s.factor;
        } else {
          const double smooth = (L / wl - s.low_freq_factor) /
                                (s.high_freq_factor - s.low_freq_factor);
          x = (1.0 - smooth) * x / s.factor + smooth * x;
        }
      }
      break;
    }
    case RopeScalingType::kProportional: {
      // Gemma 4: the exponent runs over all r dims, but only the first
      // int(p * r // 2) pairs turn (divided by s); the others stand still.
      const int turning = static_cast<int>(s.partial_rotary_factor * r / 2);
      for (int i = 0; i < r / 2; ++i)
        f[i] = i < turning ? f[i] / s.factor : 0.0;
      break;
    }
    default:
      break;
  }
  out.attention_factor = RopeAttentionFactor(s);
  return out;
}

double XposScale(size_t i, size_t r, int64_t pos, int64_t center,
                 double scale_base, bool key) {
  const double zeta = (2.0 * i + 0.4 * r) / (1.4 * r);
  return std::pow(zeta, (key ? -1.0 : 1.0) * double(pos - center) / scale_base);
}

std::vector<double> RotatePairs(RopeLayout layout, const std::vector<float>& x,
                                size_t H, size_t T, size_t d,
                                const std::vector<int64_t>& pos,
                                const std::vector<float>& inv_freq,
                                const std::vector<double>& scale,
                                std::vector<double>* mag) {
  const size_t h = inv_freq.size();
  std::vector<double> out(x.begin(), x.end());
  if (mag) {
    mag->resize(x.size());
    for (size_t e = 0; e < x.size(); ++e) (*mag)[e] = std::abs(x[e]);
  }
  for (size_t hd = 0; hd < H; ++hd) {
    for (size_t t = 0; t < T; ++t) {
      const size_t row = (hd * T + t) * d;
      for (size_t i = 0; i < h; ++i) {
        const double ang = double(pos[t]) * double(inv_freq[i]);
        const double m = scale.empty() ? 1.0 : scale[t * h + i];
        const size_t ia = row + FirstOfPair(layout, i);
        const size_t ib = row + SecondOfPair(layout, i, h);
        const double a = x[ia], b = x[ib];
        out[ia] = m * (a * std::cos(ang) - b * std::sin(ang));
        out[ib] = m * (b * std::cos(ang) + a * std::sin(ang));
        if (mag) (*mag)[ia] = (*mag)[ib] = m * (std::abs(a) + std::abs(b));
      }
    }
  }
  return out;
}

std::vector<double> Rope(const RopeSpec& spec, const std::vector<float>& x,
                         size_t H, size_t T, const std::vector<int64_t>& pos,
                         int64_t ctx, std::vector<double>* mag) {
  const size_t d = static_cast<size_t>(spec.freq.head_dim);
  const RopeFreqs f = InvFreq(spec.freq, ctx);
  const size_t h = f.inv_freq.size(), r = 2 * h;
  // The contract stores the frequencies in float32.
  const std::vector<float> f32(f.inv_freq.begin(), f.inv_freq.end());
  const double af = spec.pure ? 1.0 : f.attention_factor;
  std::vector<double> scale(T * h, af);
  if (spec.xpos) {
    for (size_t t = 0; t < T; ++t) {
      for (size_t i = 0; i < h; ++i) {
        scale[t * h + i] *= XposScale(i, r, pos[t], spec.xpos_center,
                                      spec.xpos_scale_base, spec.xpos_key);
      }
    }
  }
  return RotatePairs(spec.layout, x, H, T, d, pos, f32, scale, mag);
}

}  // namespace ref
}  // namespace posenc
