#include "ops/alibi.h"

#include <cmath>
#include <limits>
#include <vector>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/alibi.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "ops/alibi-inl.h"

#if HWY_ONCE
namespace posenc {

HWY_EXPORT(AlibiBiasRowKernel);

namespace {
// Power-of-two rule: m_h = 2^(-8(h+1)/n), h = 0..n-1.
void PowerOfTwoSlopes(size_t n, std::vector<double>* out) {
  for (size_t h = 0; h < n; ++h) {
    out->push_back(std::exp2(-8.0 * static_cast<double>(h + 1) / n));
  }
}
}  // namespace

const char* AlibiSlopesName(AlibiSlopes variant) {
  static const char* const kNames[kNumAlibiSlopes] = {"paper", "simple"};
  const int i = static_cast<int>(variant);
  return i >= 0 && i < kNumAlibiSlopes ? kNames[i] : "invalid";
}

Status ValidateAlibi(int64_t H, AlibiSlopes variant) {
  if (H < 1 || H > 65536) {
    return Status::Invalid(
        StrCat("heads must be an integer in [1, 65536], got ", H));
  }
  if (variant != AlibiSlopes::kPaper && variant != AlibiSlopes::kSimple) {
    return Status::Invalid(StrCat("variant is not a valid enum value: ",
                                  static_cast<int>(variant)));
  }
  return Status::Ok();
}

void AlibiSlopeValues(size_t H, AlibiSlopes variant, float* slopes) {
  std::vector<double> m;
  if (variant == AlibiSlopes::kSimple) {
    for (size_t h = 0; h < H; ++h) m.push_back(std::exp2(-double(h)));
  } else {
    size_t c = 1;
    while (c * 2 <= H) c *= 2;  // c = 2^floor(log2 H)
    PowerOfTwoSlopes(c, &m);
    if (c < H) {
      std::vector<double> extra;
      PowerOfTwoSlopes(2 * c, &extra);
      for (size_t k = 0; m.size() < H; k += 2) m.push_back(extra[k]);
    }
  }
  for (size_t h = 0; h < H; ++h) slopes[h] = static_cast<float>(m[h]);
}

void AlibiBiasRow(float slope, int64_t qpos, size_t K, bool causal,
                  float* out) {
  HWY_DYNAMIC_DISPATCH(AlibiBiasRowKernel)(slope, qpos, K, causal, out);
}

void AlibiBiasRowScalar(float slope, int64_t qpos, size_t K, bool causal,
                        float* out) {
  for (size_t j = 0; j < K; ++j) {
    const int64_t rel = static_cast<int64_t>(j) - qpos;
    if (causal && rel > 0) {
      out[j] = -std::numeric_limits<float>::infinity();
    } else {
      out[j] = -slope * static_cast<float>(rel < 0 ? -rel : rel);
    }
  }
}

Status ValidateAlibiBias(int64_t H, int64_t Q, int64_t K) {
  POSENC_RETURN_IF_ERROR(ValidateAlibi(H, AlibiSlopes::kPaper));
  if (Q < 0)
    return Status::Invalid(StrCat("queryLength must be >= 0, got ", Q));
  if (K < 0) return Status::Invalid(StrCat("keyLength must be >= 0, got ", K));
  if (Q > K) {
    return Status::Invalid(StrCat("queryLength (", Q,
                                  ") must not exceed keyLength (", K,
                                  "): queries are the last positions"));
  }
  if (K > (int64_t{1} << 24)) {
    return Status::Invalid(StrCat("keyLength must be <= 2^24, got ", K));
  }
  return Status::Ok();
}

void AlibiBias(const float* slopes, size_t H, size_t Q, size_t K, bool causal,
               float* out) {
  for (size_t h = 0; h < H; ++h) {
    for (size_t i = 0; i < Q; ++i) {
      AlibiBiasRow(slopes[h], static_cast<int64_t>(i + K - Q), K, causal,
                   out + (h * Q + i) * K);
    }
  }
}

}  // namespace posenc
#endif  // HWY_ONCE
