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

#include "base/fields.h"
#include "base/status.h"

namespace posenc {

enum class RopeScalingType : int {
  kDefault = 0,   // base^(-2i/r), factor 1
  kLinear = 1,    // position interpolation (Chen et al. 2023): inv_freq / s
  kNtk = 2,       // static NTK-aware: base' = base * s^(r/(r-2))
  kDynamic = 3,   // dynamic NTK: base' depends on seq_len past M
  kYarn = 4,      // YaRN (Peng et al. 2023): ramp between interp. and extrap.
  kLongrope = 5,  // LongRoPE (Ding et al. 2024): per-pair rescale factors
  kLlama3 = 6,    // Llama 3.1 wavelength bands
  // Gemma 4's global layers: base^(-2i/r) / s for the first
  // floor(partial_rotary_factor * r / 2) pairs, 0 (no rotation) for the rest.
  kProportional = 7,
};
constexpr int kNumRopeScalingTypes = 8;

// Parses "default", "linear", "ntk", "dynamic", "yarn", "longrope", "llama3",
// "proportional".
Status ParseRopeScalingType(const std::string& name, RopeScalingType* type);
const char* RopeScalingTypeName(RopeScalingType type);

// Scaling parameters, named after the Hugging Face `rope_scaling` keys
// (JS: their camelCase). Zero means "not set" where a field is optional.
#define POSENC_ROPE_SCALING_FIELDS(X)                                     \
  X(RopeScalingType, type, type, EnumName, RopeScalingType::kDefault)     \
  X(double, factor, factor, Plain, 1.0) /* s */                           \
  /* L for yarn / longrope / llama3: the pre-extension context length */  \
  X(int, original_max_position_embeddings, originalMaxPositionEmbeddings, \
    Plain, 0)                                                             \
  /* M for dynamic NTK: the trained context length */                     \
  X(int, max_position_embeddings, maxPositionEmbeddings, Plain, 0)        \
  /* yarn */                                                              \
  X(double, beta_fast, betaFast, Plain, 32.0)                             \
  X(double, beta_slow, betaSlow, Plain, 1.0)                              \
  X(bool, truncate, truncate, Plain, true)                                \
  X(double, mscale, mscale, Plain, 0.0)               /* 0 = unset */     \
  X(double, mscale_all_dim, mscaleAllDim, Plain, 0.0) /* 0 = unset */     \
  /* yarn, longrope: explicit value when has_attention_factor */          \
  X(double, attention_factor, attentionFactor, OptionalNumber, 1.0)       \
  /* longrope: r/2 values each */                                         \
  X(std::vector<double>, short_factor, shortFactor, NumberList, {})       \
  X(std::vector<double>, long_factor, longFactor, NumberList, {})         \
  /* llama3 */                                                            \
  X(double, low_freq_factor, lowFreqFactor, Plain, 1.0)                   \
  X(double, high_freq_factor, highFreqFactor, Plain, 4.0)                 \
  /* proportional: the share of the r/2 pairs that rotate, in (0, 1] */   \
  X(double, partial_rotary_factor, partialRotaryFactor, Plain, 1.0)

struct RopeScaling {
  POSENC_ROPE_SCALING_FIELDS(POSENC_DECLARE_FIELD)
  bool has_attention_factor = false;
};

// M-RoPE (Qwen2-VL and later): with mrope_section set, pair i turns by one
// of three position rows (temporal, height, width; MropeAxis), so
// positions are [3, T]; empty = plain RoPE.
#define POSENC_ROPE_CONFIG_FIELDS(X)                                  \
  X(int, head_dim, headDim, Plain, 0)                                 \
  X(int, rotary_dim, rotaryDim, Plain, 0) /* 0 = head_dim */          \
  X(double, base, base, Plain, 10000.0)                               \
  X(RopeScaling, scaling, scaling, Plain, {})                         \
  /* pairs per row (t, h, w), summing to r/2 */                       \
  X(std::vector<double>, mrope_section, mropeSection, NumberList, {}) \
  /* deal pairs to the rows in turn (Qwen3-VL), not in chunks */      \
  X(bool, mrope_interleaved, mropeInterleaved, Plain, false)

struct RopeFrequencyConfig {
  POSENC_ROPE_CONFIG_FIELDS(POSENC_DECLARE_FIELD)
};

// Effective rotary dim (rotary_dim, or head_dim when 0).
inline int EffectiveRotaryDim(const RopeFrequencyConfig& c) {
  return c.rotary_dim == 0 ? c.head_dim : c.rotary_dim;
}

// Position rows a rotation reads: 3 with M-RoPE, else 1.
inline int RopePositionRows(const RopeFrequencyConfig& c) {
  return c.mrope_section.empty() ? 1 : 3;
}

// The position row (0 temporal, 1 height, 2 width) pair i of a validated
// M-RoPE config turns by. Chunked (Qwen2-VL): i < s0 -> 0, i < s0 + s1 ->
// 1, else 2. Interleaved (Qwen3-VL): i % 3 == 1 and i < 3 s1 -> 1,
// i % 3 == 2 and i < 3 s2 -> 2, else 0.
int MropeAxis(const RopeFrequencyConfig& c, int i);

// Validates head/rotary dims, base, every scaling parameter and the M-RoPE
// split.
Status ValidateRopeConfig(const RopeFrequencyConfig& config);

// The scaling fields a type needs from the caller, by their JS names and
// separated by spaces ("factor maxPositionEmbeddings"); the other fields
// keep their defaults. C++ cannot tell a field left out from one set to its
// default, so the JS layer reads this list and reports a missing field as a
// TypeError; ValidateRopeConfig checks the values.
const char* RequiredScalingFields(RopeScalingType type);

// Pairs a proportional scaling rotates: floor(partial_rotary_factor * r / 2),
// as Python's int(partial_rotary_factor * head_dim // 2).
int ProportionalAngles(const RopeFrequencyConfig& config);

// inv_freq: [r/2], computed in double (0 only for the pairs a proportional
// scaling leaves unrotated). seq_len is the longest position + 1
// the caller will use (only `dynamic` and `longrope` read it). Parameters
// that pass validation but overflow or underflow (a frequency that is not a
// normal double > 0, an attention factor that is not finite > 0, a dynamic
// base that overflows at this seq_len) are an error naming them.
Status RopeFrequencies(const RopeFrequencyConfig& config, int seq_len,
                       std::vector<double>* inv_freq, double* attention_factor);

}  // namespace posenc

#endif  // POSENC_OPS_ROPE_FREQUENCIES_H_
