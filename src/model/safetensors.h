// Safetensors I/O for the model layer: a validating reader and a writer of
// float32 tensors, so weights cross between posenc, Python and the browser as
// one well-checked file format.
//
// Format (https://github.com/huggingface/safetensors, little-endian):
//   bytes [0, 8)        N, the header length, uint64
//   bytes [8, 8 + N)    JSON object, UTF-8, padded with trailing spaces:
//                         {"__metadata__": {"key": "value", ...},
//                          "name": {"dtype": "F32", "shape": [d0, d1, ...],
//                                   "data_offsets": [begin, end]}, ...}
//   bytes [8 + N, end)  the data buffer; each tensor is row-major at
//                       [begin, end) relative to the buffer start, and the
//                       tensors cover the buffer exactly (no holes, no
//                       overlaps). Offsets need not be aligned.
// Only dtype F32 is supported; the reader rejects non-finite weights.
#ifndef POSENC_MODEL_SAFETENSORS_H_
#define POSENC_MODEL_SAFETENSORS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace posenc {

struct StTensor {
  std::string name;
  std::vector<int64_t> shape;  // (d0, d1, ...); {} is a scalar (1 element)
  std::vector<float> data;     // (d0 * d1 * ...), row-major
};

struct StFile {
  std::map<std::string, std::string> metadata;  // "__metadata__"
  std::vector<StTensor> tensors;                // sorted by name, unique
  // The tensor called `name`, or nullptr.
  const StTensor* Find(const std::string& name) const;
};

// Serialises `file` to safetensors bytes: header length, compact JSON header
// (tensors sorted by name, dtype "F32", shape, data_offsets; "__metadata__"
// only when non-empty) padded with spaces to a multiple of 8, then the float
// data of the tensors in name order, contiguous. Preconditions (not checked;
// a file that breaks them is written but ParseSafetensors rejects it): names
// unique and not "__metadata__", shapes non-negative, data.size() equal to
// the product of the shape. Invalid UTF-8 in names or metadata is written as
// U+FFFD.
std::string WriteSafetensors(const StFile& file);

// Parses and validates bytes[0, n) (no alignment needed). On success fills
// *out (tensors sorted by name); on error returns Status::Invalid naming the
// problem and the values, and leaves *out untouched. Rejects: a short file or
// bad header length (0, past the end, > 100 MB), a header that is not a UTF-8
// JSON object or repeats a key, a bad "__metadata__", entries that are not
// {dtype, shape, data_offsets} exactly, dtypes other than F32, bad shapes or
// offsets, a data size that disagrees with the shape, overlapping tensors,
// bytes of the data buffer no tensor covers, and NaN/Inf values.
Status ParseSafetensors(const uint8_t* bytes, size_t n, StFile* out);

// Checks that `file` holds exactly the `expected` tensors (name, shape), in
// any order: reports the first missing name (in `expected` order), shape
// mismatch (both shapes) or unexpected extra tensor.
Status CheckTensorSet(
    const StFile& file,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& expected);

}  // namespace posenc

#endif  // POSENC_MODEL_SAFETENSORS_H_
