// Tiny models as safetensors files: every parameter as an F32 tensor under
// its layout name, the ModelConfig in `__metadata__`. Loading validates the
// container (model/safetensors.h), the config values, and that the tensors
// are exactly the ones the config implies, with their shapes.
#ifndef POSENC_MODEL_MODEL_IO_H_
#define POSENC_MODEL_MODEL_IO_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"
#include "model/transformer.h"

namespace posenc {

// The model's bytes (deterministic: same weights -> same bytes).
std::string SaveModel(const Model& m);

// bytes[0, n) -> *out, or a clear error (nothing is half-loaded).
Status LoadModel(const uint8_t* bytes, size_t n, Model* out);

}  // namespace posenc

#endif  // POSENC_MODEL_MODEL_IO_H_
