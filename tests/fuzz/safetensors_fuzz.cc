// libFuzzer target for ParseSafetensors: any input must return a Status
// without crashing, overreading or tripping UBSan, and whatever parses must
// survive a write/parse round trip bit-exactly with the same tensor set.
//   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined \
//     -Isrc src/model/safetensors.cc tests/fuzz/safetensors_fuzz.cc -o fuzz
//   ./fuzz -max_total_time=60 tests/fuzz/corpus/safetensors
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "model/safetensors.h"

namespace {

bool SameFile(const posenc::StFile& a, const posenc::StFile& b) {
  if (a.metadata != b.metadata || a.tensors.size() != b.tensors.size()) {
    return false;
  }
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const posenc::StTensor& x = a.tensors[i];
    const posenc::StTensor& y = b.tensors[i];
    if (x.name != y.name || x.shape != y.shape ||
        x.data.size() != y.data.size() ||
        (!x.data.empty() &&
         std::memcmp(x.data.data(), y.data.data(), x.data.size() * 4) != 0)) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  posenc::StFile file;
  const posenc::Status st = posenc::ParseSafetensors(data, size, &file);
  if (!st.ok()) {
    if (st.message().empty()) __builtin_trap();  // errors must say something
    return 0;
  }
  // Parsed: tensors sorted and unique, data sized by the shape.
  std::vector<std::pair<std::string, std::vector<int64_t>>> expected;
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const posenc::StTensor& t = file.tensors[i];
    if (i > 0 && !(file.tensors[i - 1].name < t.name)) __builtin_trap();
    uint64_t count = 1;
    for (int64_t d : t.shape) count *= static_cast<uint64_t>(d);
    if (count != t.data.size()) __builtin_trap();
    expected.emplace_back(t.name, t.shape);
  }
  if (!posenc::CheckTensorSet(file, expected).ok()) __builtin_trap();

  // Round trip: write, parse again, compare bit-exactly.
  const std::string bytes = posenc::WriteSafetensors(file);
  posenc::StFile again;
  if (!posenc::ParseSafetensors(reinterpret_cast<const uint8_t*>(bytes.data()),
                                bytes.size(), &again)
           .ok() ||
      !SameFile(file, again)) {
    __builtin_trap();
  }
  return 0;
}
