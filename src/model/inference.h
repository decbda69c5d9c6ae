// Inference for the tiny transformer through the posenc attention kernel:
// any length (O(T * D) attention memory unless maps are requested), RoPE /
// xPos scaling chosen at inference time, attention maps for the page, and
// incremental decoding with a KV cache per layer (causal models).
#ifndef POSENC_MODEL_INFERENCE_H_
#define POSENC_MODEL_INFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/transformer.h"
#include "ops/kv_cache.h"
#include "ops/status.h"

namespace posenc {

struct InferenceOptions {
  RopeScaling scaling;          // applied to RoPE / xPos models
  bool attention_maps = false;  // fill InferenceResult::maps
};

struct InferenceResult {
  std::vector<float> logits;             // [T, V] causal, [K] encoder
  std::vector<std::vector<float>> maps;  // [layers][H, T, T] if requested
};

// tokens: [T] ids in [0, vocab).
Status Infer(const Model& m, const int32_t* tokens, size_t T,
             const InferenceOptions& opt, InferenceResult* out);

// Incremental decoding of a causal model: Feed appends tokens at positions
// length() .. and returns their logits [n, V]. Equal to Infer on the whole
// prefix (tested), except `dynamic` RoPE past its threshold, where cached
// keys keep their old frequencies (as in Hugging Face).
class Decoder {
 public:
  static Status Create(const Model& m, const RopeScaling& scaling,
                       std::unique_ptr<Decoder>* out);
  Status Feed(const int32_t* tokens, size_t n, std::vector<float>* logits);
  size_t length() const { return length_; }

 private:
  explicit Decoder(const Model& m) : m_(m) {}
  const Model& m_;
  AttentionRope rope_;
  std::vector<KvCache> caches_;
  size_t length_ = 0;
};

}  // namespace posenc

#endif  // POSENC_MODEL_INFERENCE_H_
