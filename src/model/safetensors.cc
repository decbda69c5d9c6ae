// Safetensors reader/writer (see safetensors.h for the layout). The reader
// trusts nothing in the file: every length, count and offset is checked
// against the bytes actually present before it is used, JSON is parsed
// without exceptions, and the data buffer must be exactly tiled by the
// tensors, as the reference implementation requires.
#include "model/safetensors.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "model/json.h"

// Floats and the header length are memcpy'd straight between the file and
// host memory, which is only correct on a little-endian host (x86, ARM, wasm).
#if defined(__BYTE_ORDER__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors I/O assumes a little-endian host");
#endif

namespace posenc {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100000000;  // 100 MB, as the reference
constexpr uint64_t kMaxDim = uint64_t{1} << 31;  // per dimension
// Bound on a tensor's element count: 4 * count stays far from overflow.
constexpr uint64_t kMaxElements = uint64_t{1} << 61;
constexpr char kMetadataKey[] = "__metadata__";

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return s + "]";
}

// A short, non-throwing rendering of a JSON value for error messages.
// Containers are named, not dumped (dump recurses: deep nesting would
// overflow the stack).
std::string Brief(const Json& j) {
  if (j.IsObject() || j.IsArray()) return j.TypeName();
  std::string s = DumpJson(j);
  if (s.size() > 64) s = s.substr(0, 61) + "...";
  return s;
}

// A non-negative JSON integer (not a float such as 2.0) into *v.
bool GetUnsigned(const Json& j, uint64_t* v) { return j.GetUnsigned(v); }

// One validated header entry: the tensor without data, and where its bytes
// are in the data buffer.
struct Entry {
  StTensor tensor;
  uint64_t elements = 0;
  uint64_t begin = 0, end = 0;  // [begin, end) in the data buffer
};

// Validates the header entry `name` -> `j` against a data buffer of
// `data_size` bytes and fills *e (all but the data).
Status ParseEntry(const std::string& name, const Json& j, uint64_t data_size,
                  Entry* e) {
  const std::string what = StrCat("tensor \"", name, "\"");
  if (!j.IsObject()) {
    return Status::Invalid(
        StrCat(what, ": entry must be an object, got ", Brief(j)));
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (j.Find(key) == nullptr) {
      return Status::Invalid(StrCat(what, ": entry lacks \"", key, "\""));
    }
  }
  for (const JsonMember& m : j.object) {
    if (m.key != "dtype" && m.key != "shape" && m.key != "data_offsets") {
      return Status::Invalid(StrCat(what, ": unexpected key \"", m.key,
                                    "\" (allowed: dtype, shape, "
                                    "data_offsets)"));
    }
  }

  const Json& dtype = *j.Find("dtype");
  if (!dtype.IsString() || dtype.string != "F32") {
    return Status::Invalid(StrCat(what, ": dtype ", Brief(dtype),
                                  " is not supported, only \"F32\" is"));
  }

  // Shape: non-negative integers <= 2^31; the product must not overflow.
  const Json& shape = *j.Find("shape");
  if (!shape.IsArray()) {
    return Status::Invalid(
        StrCat(what, ": shape must be an array, got ", Brief(shape)));
  }
  // The product of the non-zero dimensions must stay <= 2^61 even when a
  // zero dimension makes the count 0: row strides are products of the same
  // dimensions and must not overflow for a consumer either.
  uint64_t nonzero_product = 1;
  bool has_zero = false;
  for (size_t i = 0; i < shape.array.size(); ++i) {
    uint64_t d = 0;
    if (!GetUnsigned(shape.array[i], &d) || d > kMaxDim) {
      return Status::Invalid(StrCat(what, ": shape[", i,
                                    "] must be an integer in [0, 2^31], got ",
                                    Brief(shape.array[i])));
    }
    e->tensor.shape.push_back(static_cast<int64_t>(d));
    if (d == 0) {
      has_zero = true;
    } else if (nonzero_product > kMaxElements / d) {
      return Status::Invalid(StrCat(what, ": element count overflows at shape[",
                                    i, "] = ", d, " (over 2^61 elements)"));
    } else {
      nonzero_product *= d;
    }
  }
  e->elements = has_zero ? 0 : nonzero_product;

  // data_offsets: [begin, end], begin <= end <= data size, 4 bytes/element.
  const Json& offsets = *j.Find("data_offsets");
  const std::vector<Json>& pair = offsets.array;
  if (!offsets.IsArray() || pair.size() != 2 ||
      !GetUnsigned(pair[0], &e->begin) || !GetUnsigned(pair[1], &e->end)) {
    return Status::Invalid(StrCat(
        what, ": data_offsets must be [begin, end] non-negative integers, got ",
        offsets.IsArray() && pair.size() == 2
            ? StrCat("[", Brief(pair[0]), ", ", Brief(pair[1]), "]")
            : Brief(offsets)));
  }
  if (e->begin > e->end) {
    return Status::Invalid(
        StrCat(what, ": data_offsets begin ", e->begin, " > end ", e->end));
  }
  if (e->end > data_size) {
    return Status::Invalid(StrCat(what, ": data_offsets end ", e->end,
                                  " is past the data size ", data_size));
  }
  if (e->end - e->begin != e->elements * 4) {
    return Status::Invalid(StrCat(
        what, ": data_offsets cover ", e->end - e->begin, " bytes but shape ",
        ShapeString(e->tensor.shape), " of F32 needs ", e->elements * 4));
  }
  e->tensor.name = name;
  return Status::Ok();
}

// The safetensors rule: sorted by offset, the tensors tile [0, data_size)
// exactly, with no overlap and no uncovered byte.
Status CheckCoverage(const std::vector<Entry>& entries, uint64_t data_size) {
  std::vector<const Entry*> order;
  for (const Entry& e : entries) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t cursor = 0;  // end of the bytes covered so far
  const Entry* prev = nullptr;
  for (const Entry* e : order) {
    if (e->begin < cursor) {
      return Status::Invalid(StrCat("tensors \"", prev->tensor.name, "\" [",
                                    prev->begin, ", ", prev->end, ") and \"",
                                    e->tensor.name, "\" [", e->begin, ", ",
                                    e->end, ") overlap in the data buffer"));
    }
    if (e->begin > cursor) {
      return Status::Invalid(StrCat("data bytes [", cursor, ", ", e->begin,
                                    ") are not covered by any tensor (hole "
                                    "before \"",
                                    e->tensor.name, "\")"));
    }
    cursor = e->end;
    prev = e;
  }
  if (cursor != data_size) {
    return Status::Invalid(StrCat("data bytes [", cursor, ", ", data_size,
                                  ") are not covered by any tensor (hole at "
                                  "the end of the data buffer)"));
  }
  return Status::Ok();
}

// Copies the floats (unaligned, hence memcpy) and rejects NaN and Inf by
// their bit pattern (exponent all ones), which -ffast-math cannot fold away.
// The casts to size_t are safe on wasm32 too: the range was checked to lie
// within the n-byte input.
Status LoadData(const uint8_t* data, Entry* e) {
  std::vector<float>& out = e->tensor.data;
  out.resize(static_cast<size_t>(e->elements));
  if (e->elements == 0) return Status::Ok();
  std::memcpy(out.data(), data + static_cast<size_t>(e->begin),
              static_cast<size_t>(e->elements) * 4);
  for (uint64_t i = 0; i < e->elements; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &out[i], 4);
    if ((bits & 0x7f800000u) == 0x7f800000u) {
      return Status::Invalid(StrCat("tensor \"", e->tensor.name, "\" has ",
                                    (bits & 0x007fffffu) ? "a NaN" : "an Inf",
                                    " at element ", i,
                                    " (model weights must be finite)"));
    }
  }
  return Status::Ok();
}

}  // namespace

const StTensor* StFile::Find(const std::string& name) const {
  for (const StTensor& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string WriteSafetensors(const StFile& file) {
  // Data goes in name order, the order of the header's keys.
  std::vector<const StTensor*> order;
  for (const StTensor& t : file.tensors) order.push_back(&t);
  std::stable_sort(
      order.begin(), order.end(),
      [](const StTensor* a, const StTensor* b) { return a->name < b->name; });

  Json header = Json::Object();
  if (!file.metadata.empty()) {
    Json metadata = Json::Object();
    for (const auto& [key, value] : file.metadata) {
      metadata.Set(key, Json::String(value));
    }
    header.Set(kMetadataKey, std::move(metadata));
  }
  uint64_t offset = 0;
  for (const StTensor* t : order) {
    const uint64_t bytes = uint64_t{t->data.size()} * 4;
    Json entry = Json::Object();
    entry.Set("dtype", Json::String("F32"));
    std::vector<Json> shape;
    for (const int64_t d : t->shape) shape.push_back(Json::Signed(d));
    entry.Set("shape", Json::Array(std::move(shape)));
    entry.Set("data_offsets", Json::Array({Json::Unsigned(offset),
                                           Json::Unsigned(offset + bytes)}));
    header.Set(t->name, std::move(entry));
    offset += bytes;
  }
  std::string json = DumpJson(header);
  json.resize((json.size() + 7) / 8 * 8, ' ');

  std::string out(8, '\0');
  const uint64_t header_len = json.size();
  std::memcpy(&out[0], &header_len, 8);  // little-endian host
  out += json;
  out.reserve(out.size() + offset);
  for (const StTensor* t : order) {
    out.append(reinterpret_cast<const char*>(t->data.data()),
               t->data.size() * 4);
  }
  return out;
}

Status ParseSafetensors(const uint8_t* bytes, size_t n, StFile* out) {
  if (out == nullptr) return Status::Invalid("ParseSafetensors: out is null");
  if (n < 8) {
    return Status::Invalid(StrCat("safetensors file is ", n,
                                  " bytes, too short for the 8-byte header "
                                  "length"));
  }
  if (bytes == nullptr) {
    return Status::Invalid("ParseSafetensors: bytes is null");
  }

  // Header length: non-zero, within the file, at most 100 MB.
  uint64_t header_len;
  std::memcpy(&header_len, bytes, 8);  // little-endian host
  if (header_len == 0) {
    return Status::Invalid(
        "not a safetensors file: its header length (the first 8 bytes) is 0");
  }
  if (header_len > kMaxHeaderBytes) {
    return Status::Invalid(StrCat(
        "not a safetensors file: its header length (the first 8 bytes) is ",
        header_len, ", over the limit of ", kMaxHeaderBytes, " bytes"));
  }
  if (header_len > n - 8) {
    return Status::Invalid(StrCat("header length ", header_len, " exceeds the ",
                                  n - 8, " bytes after the length field"));
  }
  const uint8_t* header_begin = bytes + 8;
  const uint8_t* data = header_begin + header_len;
  const uint64_t data_size = n - 8 - header_len;

  // Two byte checks with messages of their own (the JSON reader refuses
  // both too): a JSON object starts with '{' (as the reference requires: no
  // BOM, no leading space), and a raw NUL is never valid JSON.
  if (header_begin[0] != '{') {
    return Status::Invalid(StrCat("header must start with '{', got byte ",
                                  static_cast<int>(header_begin[0])));
  }
  if (const void* nul = std::memchr(header_begin, 0, header_len)) {
    return Status::Invalid(StrCat(
        "header has a NUL byte at offset ",
        static_cast<const uint8_t*>(nul) - header_begin, " (not valid JSON)"));
  }

  // A key repeated within one object is refused (a parser would silently
  // keep one of the values).
  Json header;
  std::string repeated;
  if (!ParseJson(std::string_view(reinterpret_cast<const char*>(header_begin),
                                  static_cast<size_t>(header_len)),
                 &header, &repeated)) {
    return Status::Invalid(
        StrCat("header (", header_len, " bytes) is not valid UTF-8 JSON"));
  }
  if (!repeated.empty()) {
    return Status::Invalid(StrCat("header repeats the key \"", repeated, "\""));
  }
  if (!header.IsObject()) {  // defensive: the '{' check makes this unreachable
    return Status::Invalid(
        StrCat("header must be a JSON object, got ", Brief(header)));
  }

  // Entries; the JSON object iterates in key order, so tensors come sorted.
  StFile file;
  std::vector<Entry> entries;
  for (const JsonMember& it : header.object) {
    if (it.key == kMetadataKey) {
      if (!it.value.IsObject()) {
        return Status::Invalid(
            StrCat("__metadata__ must be an object of strings, got ",
                   Brief(it.value)));
      }
      for (const JsonMember& m : it.value.object) {
        if (!m.value.IsString()) {
          return Status::Invalid(StrCat("__metadata__ value of \"", m.key,
                                        "\" must be a string, got ",
                                        Brief(m.value)));
        }
        file.metadata[m.key] = m.value.string;
      }
      continue;
    }
    entries.emplace_back();
    POSENC_RETURN_IF_ERROR(
        ParseEntry(it.key, it.value, data_size, &entries.back()));
  }
  POSENC_RETURN_IF_ERROR(CheckCoverage(entries, data_size));

  for (Entry& e : entries) {
    POSENC_RETURN_IF_ERROR(LoadData(data, &e));
    file.tensors.push_back(std::move(e.tensor));
  }
  *out = std::move(file);
  return Status::Ok();
}

Status CheckTensorSet(
    const StFile& file,
    const std::vector<std::pair<std::string, std::vector<int64_t>>>& expected) {
  std::set<std::string> wanted;
  for (const auto& [name, shape] : expected) {
    if (!wanted.insert(name).second) {
      return Status::Invalid(
          StrCat("expected tensor list names \"", name, "\" twice"));
    }
    const StTensor* t = file.Find(name);
    if (t == nullptr) {
      return Status::Invalid(StrCat("tensor \"", name,
                                    "\" is missing (file has ",
                                    file.tensors.size(), " tensors)"));
    }
    if (t->shape != shape) {
      return Status::Invalid(StrCat("tensor \"", name, "\" has shape ",
                                    ShapeString(t->shape), ", expected ",
                                    ShapeString(shape)));
    }
  }
  for (const StTensor& t : file.tensors) {
    if (wanted.count(t.name) == 0) {
      return Status::Invalid(StrCat("unexpected tensor \"", t.name,
                                    "\" with shape ", ShapeString(t.shape)));
    }
  }
  return Status::Ok();
}

}  // namespace posenc
