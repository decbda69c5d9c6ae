// Helpers of the model-layer tests: one of the shipped tiny models
// (web/models/<name>.safetensors; a missing or corrupt file fails the
// test), its logits for a token sequence, and an error-message check.
#ifndef POSENC_TESTS_CPP_SHIPPED_MODEL_H_
#define POSENC_TESTS_CPP_SHIPPED_MODEL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "model/inference.h"
#include "model/model_io.h"

namespace posenc {
namespace test {

inline Model Shipped(const std::string& name) {
  const std::string path =
      std::string(POSENC_SOURCE_DIR) + "/web/models/" + name + ".safetensors";
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  Model m;
  const Status st = LoadModel(reinterpret_cast<const uint8_t*>(bytes.data()),
                              bytes.size(), &m);
  EXPECT_TRUE(st.ok()) << path << ": " << st.message();
  return m;
}

// logits: [tokens.size(), vocab] for a decoder, [classes] for a classifier.
inline std::vector<float> Logits(const Model& m,
                                 const std::vector<int32_t>& tokens,
                                 const InferenceOptions& opt) {
  InferenceResult r;
  const Status st = Infer(m, tokens.data(), tokens.size(), opt, &r);
  EXPECT_TRUE(st.ok()) << st.message();
  return r.logits;
}

// `st` is an error whose message contains `part`.
inline void ExpectError(const Status& st, const std::string& part) {
  ASSERT_FALSE(st.ok()) << "expected an error containing: " << part;
  EXPECT_NE(st.message().find(part), std::string::npos) << st.message();
}

}  // namespace test
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_SHIPPED_MODEL_H_
