// The tiny transformer's configuration: sizes, the positional encoding and
// its parameters, and the mode (causal language model or bidirectional
// encoder with a pooled classifier). Validated as a whole before any model
// is built; stored as strings in the safetensors `__metadata__`.
#ifndef POSENC_MODEL_CONFIG_H_
#define POSENC_MODEL_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>

#include "base/status.h"
#include "ops/encoding.h"
#include "ops/rope_frequencies.h"
#include "ops/t5.h"
#include "ops/xpos.h"

namespace posenc {

// The fields, as a list (base/fields.h): the page reads a model's config
// through it. JS names as in TinyModelConfig.
#define POSENC_MODEL_CONFIG_FIELDS(X)                                        \
  X(std::string, task, task, Plain, {}) /* what it was trained on */         \
  X(Encoding, encoding, encoding, EnumName, Encoding::kRope)                 \
  /* true: causal LM, logits [T, vocab]; false: bidirectional encoder,  */   \
  /* mean pooled, logits [num_classes] */                                    \
  X(bool, causal, causal, Plain, true)                                       \
  X(int, vocab, vocab, Plain, 0)                                             \
  X(int, d_model, dModel, Plain, 64)                                         \
  X(int, heads, heads, Plain, 4)                                             \
  X(int, layers, layers, Plain, 2)                                           \
  X(int, d_ff, dFf, Plain, 256)                                              \
  X(int, num_classes, numClasses, Plain, 0)                                  \
  /* Rows of the learned position table (learned only: longer inputs  */     \
  /* are an error), and the training length recorded for the page */         \
  X(int, max_len, maxLen, Plain, 64)                                         \
  X(int, train_len, trainLen, Plain, 64)                                     \
  /* RoPE and xPos: rotary dims (0 = head dim) and base; xPos decay base */  \
  X(int, rotary_dim, rotaryDim, Plain, 0)                                    \
  X(double, rope_base, ropeBase, Plain, 10000.0)                             \
  X(double, xpos_scale_base, xposScaleBase, Plain, kXposScaleBase)           \
  /* Sinusoidal absolute embedding base */                                   \
  X(double, sinusoidal_base, sinusoidalBase, Plain, 10000.0)                 \
  /* T5 relative bias (one table shared by all layers, like T5) */           \
  X(int, t5_buckets, t5Buckets, Plain, kT5NumBuckets)                        \
  X(int, t5_max_distance, t5MaxDistance, Plain, kT5MaxDistance)              \
  /* Shaw relative keys and values: clip distance k (tables [2k+1, head]) */ \
  X(int, shaw_clip, shawClip, Plain, 16)                                     \
  /* RoPE and xPos: the context extension the model was (continued-) */      \
  /* trained with (default: none). Inference applies it unless the     */    \
  /* caller passes a scaling, which then replaces it. Stored in the    */    \
  /* metadata as "rope_scaling" (JSON, Hugging Face key names).        */    \
  X(RopeScaling, rope_scaling, ropeScaling, Plain, {})

struct ModelConfig {
  POSENC_MODEL_CONFIG_FIELDS(POSENC_DECLARE_FIELD)

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
