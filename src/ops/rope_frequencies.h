// RoPE inverse frequencies and context-extension scaling (the Hugging Face
// `rope_type` family). Pure double-precision math on r/2 values; no SIMD.
//
// Notation: d = head dim, r = rotary dim (r <= d, even), i = pair index in
// [0, r/2), base = rope_theta. inv_freq[i] = base^(-2i/r) before scaling.
// Each scaling returns (inv_freq, attention_factor); the attention factor
// multiplies cos and sin, i.e. the q.k logit by its square.
#ifndef POSENC_OPS_ROPE_FREQUENCIES_H_
#define POSENC_OPS_ROPE_FREQUENCIES_H_

#include <string>
#include <vector>

#include "ops/status.h"

namespace posenc {

enum class RopeScalingType : int {
  kDefault = 0,   // base^(-2i/r), factor 1
  kLinear = 1,    // position interpolation (Chen et al. 2023): inv_freq / s
  kNtk = 2,       // static NTK-aware: base' = base * s^(r/(r-2))
  kDynamic = 3,   // dynamic NTK: base' depends on seq_len past M
  kYarn = 4,      // YaRN (Peng et al. 2023): ramp between interp. and extrap.
  kLongrope = 5,  // LongRoPE (Ding et al. 2024): per-pair rescale factors
  kLlama3 = 6,    // Llama 3.1 wavelength bands
};
constexpr int kNumRopeScalingTypes = 7;

// Parses "default", "linear", "ntk", "dynamic", "yarn", "longrope", "llama3".
Status ParseRopeScalingType(const std::string& name, RopeScalingType* type);
const char* RopeScalingTypeName(RopeScalingType type);

// Scaling parameters, named after the Hugging Face `rope_scaling` keys.
// Zero / NaN means "not set" where the field is optional.
struct RopeScaling {
  RopeScalingType type = RopeScalingType::kDefault;
  double factor = 1.0;  // s
  // L for yarn / longrope / llama3: the pre-extension context length.
  int original_max_position_embeddings = 0;
  // M for dynamic NTK: the trained context length.
  int max_position_embeddings = 0;
  // yarn
  double beta_fast = 32.0;
  double beta_slow = 1.0;
  bool truncate = true;
  double mscale = 0.0;          // 0 = unset
  double mscale_all_dim = 0.0;  // 0 = unset
  bool has_attention_factor = false;
  double attention_factor = 1.0;  // explicit value (yarn, longrope)
  // longrope: r/2 values each.
  std::vector<double> short_factor;
  std::vector<double> long_factor;
  // llama3
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
};

struct RopeFrequencyConfig {
  int head_dim = 0;
  int rotary_dim = 0;  // 0 = head_dim
  double base = 10000.0;
  RopeScaling scaling;
};

// Effective rotary dim (rotary_dim, or head_dim when 0).
inline int EffectiveRotaryDim(const RopeFrequencyConfig& c) {
  return c.rotary_dim == 0 ? c.head_dim : c.rotary_dim;
}

// Validates head/rotary dims, base and every scaling parameter.
Status ValidateRopeConfig(const RopeFrequencyConfig& config);

// inv_freq: [r/2], computed in double. seq_len is the longest position + 1
// the caller will use (only `dynamic` and `longrope` read it). Parameters
// that pass validation but overflow or underflow (a frequency that is not a
// normal double > 0, an attention factor that is not finite > 0, a dynamic
// base that overflows at this seq_len) are an error naming them.
Status RopeFrequencies(const RopeFrequencyConfig& config, int seq_len,
                       std::vector<double>* inv_freq, double* attention_factor);

}  // namespace posenc

#endif  // POSENC_OPS_ROPE_FREQUENCIES_H_
