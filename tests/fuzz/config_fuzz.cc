// libFuzzer target for ConfigFromMetadata / ValidateModelConfig: the input
// is a key/value map as text, one "key=value" per line (the seed corpus
// holds ConfigToMetadata of real configs). Any map either gives an error
// naming something, or a config that validates, whose RoPE frequencies
// (RoPE and xPos models) compute, and that round-trips through
// ConfigToMetadata to the same metadata. Anything else traps.
//   node tools/fuzz.mjs 60        (every target; build: tools/build.mjs fuzz)
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "model/config.h"

namespace {

std::map<std::string, std::string> ParseLines(const uint8_t* data,
                                              size_t size) {
  std::map<std::string, std::string> m;
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    const size_t eq = line.find('=');
    if (eq != std::string::npos) m[line.substr(0, eq)] = line.substr(eq + 1);
    start = end + 1;
  }
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::map<std::string, std::string> m = ParseLines(data, size);
  posenc::ModelConfig c;
  const posenc::Status st = posenc::ConfigFromMetadata(m, &c);
  if (!st.ok()) {
    CHECK(!st.message().empty());
    return 0;
  }
  CHECK(posenc::ValidateModelConfig(c).ok());
  if (c.encoding == posenc::Encoding::kRope ||
      c.encoding == posenc::Encoding::kXpos) {
    std::vector<double> inv;
    double factor = 0.0;
    CHECK(posenc::RopeFrequencies(c.Rope(), c.train_len, &inv, &factor).ok());
  }
  const std::map<std::string, std::string> out = posenc::ConfigToMetadata(c);
  posenc::ModelConfig again;
  CHECK(posenc::ConfigFromMetadata(out, &again).ok());
  CHECK(posenc::ConfigToMetadata(again) == out);
  return 0;
}
