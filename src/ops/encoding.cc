#include "ops/encoding.h"

namespace posenc {
namespace {
const char* const kNames[kNumEncodings] = {
    "nope", "sinusoidal", "learned", "rope", "alibi", "t5", "shaw", "xpos"};
const char* const kSites[kNumEncodings] = {
    "none", "embedding", "embedding", "qk", "logits", "logits", "logits", "qk"};
}  // namespace

Status ParseEncoding(const std::string& name, Encoding* out) {
  for (int i = 0; i < kNumEncodings; ++i) {
    if (name == kNames[i]) {
      *out = static_cast<Encoding>(i);
      return Status::Ok();
    }
  }
  return Status::Invalid(StrCat("encoding must be one of ",
                                JoinNames(kNames, kNumEncodings), "; got '",
                                name, "'"));
}

const char* EncodingName(Encoding e) {
  const int i = static_cast<int>(e);
  return i >= 0 && i < kNumEncodings ? kNames[i] : "invalid";
}

const char* EncodingSite(Encoding e) {
  const int i = static_cast<int>(e);
  return i >= 0 && i < kNumEncodings ? kSites[i] : "invalid";
}

}  // namespace posenc
