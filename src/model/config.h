// The tiny transformer's configuration: sizes, the positional encoding and
// its parameters, and the mode (causal language model or bidirectional
// encoder with a pooled classifier). Validated as a whole before any model
// is built; stored as strings in the safetensors `__metadata__`.
#ifndef POSENC_MODEL_CONFIG_H_
#define POSENC_MODEL_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>

#include "ops/encoding.h"
#include "ops/rope_frequencies.h"
#include "ops/status.h"

namespace posenc {

struct ModelConfig {
  int vocab = 0;
  int d_model = 64;
  int heads = 4;
  int layers = 2;
  int d_ff = 256;
  Encoding encoding = Encoding::kRope;
  // true: causal LM, logits [T, vocab]; false: bidirectional encoder, mean
  // pooled, logits [num_classes].
  bool causal = true;
  int num_classes = 0;
  // Rows of the learned position table (learned only: longer inputs are an
  // error), and the training length recorded for the page.
  int max_len = 64;
  int train_len = 64;
  // RoPE and xPos: rotary dims (0 = head dim) and base; xPos decay base.
  int rotary_dim = 0;
  double rope_base = 10000.0;
  double xpos_scale_base = 512.0;
  // Sinusoidal absolute embedding base.
  double sinusoidal_base = 10000.0;
  // T5 relative bias (one table shared by all layers, like T5).
  int t5_buckets = 32;
  int t5_max_distance = 128;
  // Shaw relative keys and values: clip distance k (tables [2k+1, head]).
  int shaw_clip = 16;
  // RoPE and xPos: the context extension the model was (continued-)trained
  // with (default: none). Inference applies it unless the caller passes a
  // scaling, which then replaces it. Stored in the metadata as
  // "rope_scaling" (JSON, Hugging Face key names) when not default.
  RopeScaling rope_scaling;
  std::string task;  // metadata: what it was trained on

  int head_dim() const { return heads > 0 ? d_model / heads : 0; }
  // The RoPE frequency config with the model's own scaling, or with another
  // one (which replaces it).
  RopeFrequencyConfig Rope() const { return Rope(rope_scaling); }
  RopeFrequencyConfig Rope(const RopeScaling& scaling) const;
};

// Also checks that a non-default rope_scaling belongs to a RoPE / xPos model
// and that its frequencies compute at every length up to 2^20.
Status ValidateModelConfig(const ModelConfig& c);

// To and from the string map stored in `__metadata__` (keys like "vocab",
// "encoding": "rope"). Parsing validates every value.
std::map<std::string, std::string> ConfigToMetadata(const ModelConfig& c);
Status ConfigFromMetadata(const std::map<std::string, std::string>& m,
                          ModelConfig* out);

}  // namespace posenc

#endif  // POSENC_MODEL_CONFIG_H_
