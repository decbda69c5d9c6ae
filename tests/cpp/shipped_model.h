// Loads one of the shipped tiny models (web/public/models/<name>.safetensors)
// for the model-layer tests; a missing or corrupt file fails the test.
#ifndef POSENC_TESTS_CPP_SHIPPED_MODEL_H_
#define POSENC_TESTS_CPP_SHIPPED_MODEL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>

#include "model/model_io.h"

namespace posenc {
namespace test {

inline Model Shipped(const std::string& name) {
  const std::string path = std::string(POSENC_SOURCE_DIR) +
                           "/web/public/models/" + name + ".safetensors";
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  Model m;
  const Status st = LoadModel(reinterpret_cast<const uint8_t*>(bytes.data()),
                              bytes.size(), &m);
  EXPECT_TRUE(st.ok()) << path << ": " << st.message();
  return m;
}

}  // namespace test
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_SHIPPED_MODEL_H_
