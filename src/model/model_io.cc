#include "model/model_io.h"

#include <utility>
#include <vector>

#include "model/safetensors.h"

namespace posenc {

std::string SaveModel(const Model& m) {
  StFile f;
  f.metadata = ConfigToMetadata(m.config);
  for (const ParamInfo& p : m.params) {
    StTensor t;
    t.name = p.name;
    t.shape = p.shape;
    t.data.assign(m.w.begin() + static_cast<std::ptrdiff_t>(p.offset),
                  m.w.begin() + static_cast<std::ptrdiff_t>(p.offset + p.size));
    f.tensors.push_back(std::move(t));
  }
  return WriteSafetensors(f);
}

Status LoadModel(const uint8_t* bytes, size_t n, Model* out) {
  StFile f;
  POSENC_RETURN_IF_ERROR(ParseSafetensors(bytes, n, &f));
  ModelConfig c;
  POSENC_RETURN_IF_ERROR(ConfigFromMetadata(f.metadata, &c));
  Model m;
  BuildParamLayout(c, &m);
  std::vector<std::pair<std::string, std::vector<int64_t>>> expected;
  for (const ParamInfo& p : m.params) expected.emplace_back(p.name, p.shape);
  POSENC_RETURN_IF_ERROR(CheckTensorSet(f, expected));
  for (const ParamInfo& p : m.params) {
    const StTensor* t = f.Find(p.name);
    // CheckTensorSet guarantees presence and shape, hence the size.
    std::copy(t->data.begin(), t->data.end(),
              m.w.begin() + static_cast<std::ptrdiff_t>(p.offset));
  }
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace posenc
