// The non-template parts of the codecs (codecs.h): enum names, contract
// lines, capacity messages, heap use.
#include "codecs.h"

#include <malloc.h>

namespace posenc {

std::string CheckCapacity(const char* buffer, size_t need, double capacity,
                          const char* unit) {
  if (capacity >= static_cast<double>(need)) return "";
  return StrCat(buffer, " must hold ", need, " ", unit, ", got a buffer of ",
                std::isnan(capacity) ? 0.0 : capacity);
}

Status ParseName(const std::string& name, RopeScalingType* out) {
  return ParseRopeScalingType(name, out);
}
const char* NameOf(RopeScalingType v) { return RopeScalingTypeName(v); }

Status ParseName(const std::string& name, RopeLayout* out) {
  for (int i = 0; i < kNumRopeLayouts; ++i) {
    if (name == RopeLayoutName(static_cast<RopeLayout>(i))) {
      *out = static_cast<RopeLayout>(i);
      return Status::Ok();
    }
  }
  return Status::Invalid(StrCat("unknown layout '", name, "'"));
}
const char* NameOf(RopeLayout v) { return RopeLayoutName(v); }

Status ParseName(const std::string& name, Encoding* out) {
  return ParseEncoding(name, out);
}
const char* NameOf(Encoding v) { return EncodingName(v); }

std::string FieldLines(const char* const* fields, size_t n) {
  std::string out;
  for (size_t i = 0; i + 1 < n; i += 2) {
    out += fields[i];
    out += ' ';
    out += fields[i + 1];
    out += '\n';
  }
  return out;
}

size_t HeapInUse() {
  const struct mallinfo mi = mallinfo();
  return static_cast<size_t>(mi.uordblks);
}

}  // namespace posenc
