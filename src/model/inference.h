// Inference for the tiny transformer through the posenc attention kernel:
// any length (O(T * D) attention memory unless maps are requested), RoPE /
// xPos scaling chosen at inference time, attention maps for the page, and
// incremental decoding with a KV cache per layer (causal models). Both can
// run with a deliberate position bug (position_bug.h) for the page's bug
// zoo.
#ifndef POSENC_MODEL_INFERENCE_H_
#define POSENC_MODEL_INFERENCE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/status.h"
#include "model/position_bug.h"
#include "model/transformer.h"
#include "ops/kv_cache.h"

namespace posenc {

// The scaling options below: nullopt runs the model with its own scaling
// (ModelConfig::rope_scaling, none unless it was trained with one); a value
// replaces it (RoPE / xPos models; ignored by the others).
struct InferenceOptions {
  std::optional<RopeScaling> scaling;
  bool attention_maps = false;           // fill InferenceResult::maps
  PositionBug bug = PositionBug::kNone;  // validated by CheckPositionBug
  // Left padding done right: the input is preceded by left_pad <pad> tokens
  // (id 0) that the key mask hides, and positions come from the mask
  // (cumsum(mask) - 1: the first real token is at 0), so the logits equal
  // the unpadded run's. Logits and maps cover the real tokens only. At most
  // 2^16. kLeftPaddingInPositions pads kBugLeftPad tokens when this is 0.
  size_t left_pad = 0;
  // Sliding-window attention in every layer: query i sees the keys
  // i - window + 1 .. i only (the attention kernel's `window`; with left
  // padding the pads count as slots). 0: none. At most kMaxWindow; not with
  // kRestartPositions (the chunked cached run has no window).
  size_t window = 0;
};

// The largest InferenceOptions::window (the attention kernel's limit).
inline constexpr size_t kMaxWindow = size_t{1} << 24;

struct InferenceResult {
  std::vector<float> logits;             // [T, V] causal, [K] encoder
  std::vector<std::vector<float>> maps;  // [layers][H, T, T] if requested
};

// tokens: [T] ids in [0, vocab).
Status Infer(const Model& m, const int32_t* tokens, size_t T,
             const InferenceOptions& opt, InferenceResult* out);

// The scaling a call runs with: `scaling`, else the model's own.
RopeScaling CallScaling(const Model& m,
                        const std::optional<RopeScaling>& scaling);

// Incremental decoding of a causal model: Feed appends tokens at positions
// length() .. and returns their logits [n, V]. Equal to Infer on the whole
// prefix (tested), except `dynamic` RoPE past its threshold, where cached
// keys keep their old frequencies (as in Hugging Face), and under a bug:
// kRestartPositions restarts every Feed at position 0;
// kLeftPaddingInPositions prepends kBugLeftPad masked pads to the first
// Feed, counted by the positions.
class Decoder {
 public:
  static Status Create(const Model& m,
                       const std::optional<RopeScaling>& scaling,
                       PositionBug bug, std::unique_ptr<Decoder>* out);
  Status Feed(const int32_t* tokens, size_t n, std::vector<float>* logits);
  size_t length() const { return length_; }  // real tokens fed

 private:
  Decoder(const Model& m, PositionBug bug) : m_(m), bug_(bug) {}
  Status Attend(size_t l, size_t n, size_t slots, const int32_t* positions,
                const float* q, const float* k, const float* v, float* o);
  const Model& m_;
  const PositionBug bug_;
  AttentionRope rope_;  // the model's rotation (with the bug's changes)
  std::vector<KvCache> caches_;
  size_t pad_ = 0;             // masked pads before the first token
  std::vector<uint8_t> mask_;  // [pad_ + length_] key mask when pad_ > 0
  size_t length_ = 0;
};

struct GenerateOptions {
  std::optional<RopeScaling> scaling;    // as in InferenceOptions
  PositionBug bug = PositionBug::kNone;  // validated by CheckPositionBug
  size_t max_new_tokens = 0;             // at most 2^20
  double temperature = 0.0;              // 0: greedy; else in (0, 100]
  uint64_t seed = 1;                     // sampling (SplitMix64)
  // true: a Decoder (KV cache) fed the prompt, then one token per step.
  // false: every step runs Infer on prompt + tokens so far and takes the
  // last position's logits. Without a cache kRestartPositions has nothing
  // to restart (positions are 0 .. T-1: the correct model); every other bug
  // applies as in Infer.
  bool cache = true;
};

// Generates opt.max_new_tokens ids after prompt [n] (a causal model) into
// out [max_new_tokens]: greedy, or sampled from softmax(logits /
// temperature). Without a bug, cached and uncached runs pick the same
// tokens (tested), except `dynamic` RoPE past its threshold (see Decoder).
Status Generate(const Model& m, const int32_t* prompt, size_t n,
                const GenerateOptions& opt, std::vector<int32_t>* out);

}  // namespace posenc

#endif  // POSENC_MODEL_INFERENCE_H_
