// Safetensors reader/writer (see safetensors.h for the layout). The reader
// trusts nothing in the file: every length, count and offset is checked
// against the bytes actually present before it is used, JSON is parsed
// without exceptions, and the data buffer must be exactly tiled by the
// tensors, as the reference implementation requires.
#include "model/safetensors.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

// Floats and the header length are memcpy'd straight between the file and
// host memory, which is only correct on a little-endian host (x86, ARM, wasm).
#if defined(__BYTE_ORDER__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "safetensors I/O assumes a little-endian host");
#endif

namespace posenc {
namespace {

using Json = nlohmann::json;

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
  if (j.is_structured()) return j.type_name();
  std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 64) s = s.substr(0, 61) + "...";
  return s;
}

// A non-negative JSON integer (not a float such as 2.0) into *v.
bool GetUnsigned(const Json& j, uint64_t* v) {
  if (j.is_number_unsigned()) {
    *v = j.get<uint64_t>();
    return true;
  }
  if (j.is_number_integer() && j.get<int64_t>() >= 0) {  // "-0"
    *v = static_cast<uint64_t>(j.get<int64_t>());
    return true;
  }
  return false;
}

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
  if (!j.is_object()) {
    return Status::Invalid(
        StrCat(what, ": entry must be an object, got ", Brief(j)));
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (j.find(key) == j.end()) {
      return Status::Invalid(StrCat(what, ": entry lacks \"", key, "\""));
    }
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() != "dtype" && it.key() != "shape" &&
        it.key() != "data_offsets") {
      return Status::Invalid(StrCat(what, ": unexpected key \"", it.key(),
                                    "\" (allowed: dtype, shape, "
                                    "data_offsets)"));
    }
  }

  const Json& dtype = *j.find("dtype");
  if (!dtype.is_string() || dtype.get<std::string>() != "F32") {
    return Status::Invalid(StrCat(what, ": dtype ", Brief(dtype),
                                  " is not supported, only \"F32\" is"));
  }

  // Shape: non-negative integers <= 2^31; the product must not overflow.
  const Json& shape = *j.find("shape");
  if (!shape.is_array()) {
    return Status::Invalid(
        StrCat(what, ": shape must be an array, got ", Brief(shape)));
  }
  // The product of the non-zero dimensions must stay <= 2^61 even when a
  // zero dimension makes the count 0: row strides are products of the same
  // dimensions and must not overflow for a consumer either.
  uint64_t nonzero_product = 1;
  bool has_zero = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    uint64_t d = 0;
    if (!GetUnsigned(shape[i], &d) || d > kMaxDim) {
      return Status::Invalid(StrCat(what, ": shape[", i,
                                    "] must be an integer in [0, 2^31], got ",
                                    Brief(shape[i])));
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
  const Json& offsets = *j.find("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2 ||
      !GetUnsigned(offsets[0], &e->begin) ||
      !GetUnsigned(offsets[1], &e->end)) {
    return Status::Invalid(StrCat(
        what, ": data_offsets must be [begin, end] non-negative integers, got ",
        offsets.is_array() && offsets.size() == 2
            ? StrCat("[", Brief(offsets[0]), ", ", Brief(offsets[1]), "]")
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

  Json header = Json::object();
  if (!file.metadata.empty()) header[kMetadataKey] = file.metadata;
  uint64_t offset = 0;
  for (const StTensor* t : order) {
    const uint64_t bytes = uint64_t{t->data.size()} * 4;
    Json entry = Json::object();
    entry["dtype"] = "F32";
    entry["shape"] = t->shape;
    entry["data_offsets"] = Json::array({offset, offset + bytes});
    header[t->name] = std::move(entry);
    offset += bytes;
  }
  std::string json =
      header.dump(-1, ' ', false, Json::error_handler_t::replace);
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
  if (header_len == 0) return Status::Invalid("header length is 0");
  if (header_len > kMaxHeaderBytes) {
    return Status::Invalid(StrCat("header length ", header_len,
                                  " exceeds the limit of ", kMaxHeaderBytes,
                                  " bytes"));
  }
  if (header_len > n - 8) {
    return Status::Invalid(StrCat("header length ", header_len, " exceeds the ",
                                  n - 8, " bytes after the length field"));
  }
  const uint8_t* header_begin = bytes + 8;
  const uint8_t* data = header_begin + header_len;
  const uint64_t data_size = n - 8 - header_len;

  // Two byte checks nlohmann would let through: it skips a leading UTF-8 BOM
  // and stops at a NUL (C-string end), ignoring what follows. A JSON object
  // starts with '{' (as the reference requires: no BOM, no leading space),
  // and a raw NUL is never valid JSON.
  if (header_begin[0] != '{') {
    return Status::Invalid(StrCat("header must start with '{', got byte ",
                                  static_cast<int>(header_begin[0])));
  }
  if (const void* nul = std::memchr(header_begin, 0, header_len)) {
    return Status::Invalid(StrCat(
        "header has a NUL byte at offset ",
        static_cast<const uint8_t*>(nul) - header_begin, " (not valid JSON)"));
  }

  // JSON, without exceptions. The callback flags a key repeated within one
  // object (the parser would silently keep the last): keys[d] holds the keys
  // seen so far in the open object at depth d.
  std::vector<std::set<std::string>> keys;
  std::string repeated;
  const Json::parser_callback_t on_event =
      [&](int depth, Json::parse_event_t event, Json& parsed) {
        const size_t d = static_cast<size_t>(depth);
        if (event == Json::parse_event_t::object_start) {
          if (keys.size() < d + 2) keys.resize(d + 2);
          keys[d + 1].clear();
        } else if (event == Json::parse_event_t::key && d < keys.size() &&
                   parsed.is_string() &&
                   !keys[d].insert(parsed.get<std::string>()).second &&
                   repeated.empty()) {
          repeated = parsed.get<std::string>();
        }
        return true;
      };
  const Json header = Json::parse(header_begin, data, on_event,
                                  /*allow_exceptions=*/false);
  if (header.is_discarded()) {
    return Status::Invalid(
        StrCat("header (", header_len, " bytes) is not valid UTF-8 JSON"));
  }
  if (!repeated.empty()) {
    return Status::Invalid(StrCat("header repeats the key \"", repeated, "\""));
  }
  if (!header.is_object()) {  // defensive: the '{' check makes this unreachable
    return Status::Invalid(
        StrCat("header must be a JSON object, got ", Brief(header)));
  }

  // Entries; the JSON object iterates in key order, so tensors come sorted.
  StFile file;
  std::vector<Entry> entries;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == kMetadataKey) {
      if (!it->is_object()) {
        return Status::Invalid(StrCat(
            "__metadata__ must be an object of strings, got ", Brief(*it)));
      }
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string()) {
          return Status::Invalid(StrCat("__metadata__ value of \"", m.key(),
                                        "\" must be a string, got ",
                                        Brief(*m)));
        }
        file.metadata[m.key()] = m->get<std::string>();
      }
      continue;
    }
    entries.emplace_back();
    POSENC_RETURN_IF_ERROR(
        ParseEntry(it.key(), *it, data_size, &entries.back()));
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
