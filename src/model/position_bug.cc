#include "model/position_bug.h"

#include <algorithm>
#include <vector>

namespace posenc {
namespace {

const char* const kBugNames[kNumPositionBugs] = {
    "none",
    "restart-positions",
    "rotate-v",
    "only-q",
    "layout-mismatch",
    "left-padding-in-positions",
    "wrong-base",
    "partial-rotary-freq-over-head-dim",
    "yarn-magnitude-twice",
    "rope-on-embeddings",
    "qk-position-mismatch",
    "rotate-half-mismatch",
    "short-cos-sin-cache",
    "wrong-scaling",
};

std::string BugList() {
  std::string s;
  for (int i = 0; i < kNumPositionBugs; ++i) {
    s += StrCat(i ? ", '" : "'", kBugNames[i], "'");
  }
  return s;
}

bool IsRotary(Encoding e) {
  return e == Encoding::kRope || e == Encoding::kXpos;
}

bool HasPositions(Encoding e) {
  return IsRotary(e) || e == Encoding::kSinusoidal || e == Encoding::kLearned;
}

}  // namespace

Status ParsePositionBug(const std::string& name, PositionBug* out) {
  for (int i = 0; i < kNumPositionBugs; ++i) {
    if (name == kBugNames[i]) {
      *out = static_cast<PositionBug>(i);
      return Status::Ok();
    }
  }
  return Status::Invalid(
      StrCat("bug must be one of ", BugList(), "; got '", name, "'"));
}

const char* PositionBugName(PositionBug bug) {
  const int i = static_cast<int>(bug);
  return i >= 0 && i < kNumPositionBugs ? kBugNames[i] : "invalid";
}

size_t RestartChunk(const ModelConfig& c) {
  return std::max<size_t>(1, static_cast<size_t>(c.train_len) / 4);
}

size_t ShortCacheRows(const ModelConfig& c) {
  return std::max<size_t>(1, static_cast<size_t>(c.train_len) / 2);
}

Status RotateHalfMismatch(const RopeApplyOptions& o, const float* x,
                          size_t x_len, float* out) {
  POSENC_RETURN_IF_ERROR(ValidateRopeApply(o, x_len));
  std::vector<float> cos, sin;  // [T, h]
  POSENC_RETURN_IF_ERROR(RopeTable(o, &cos, &sin));
  const size_t T = static_cast<size_t>(o.seq_len),
               d = static_cast<size_t>(o.freq.head_dim),
               h = static_cast<size_t>(EffectiveRotaryDim(o.freq)) / 2;
  for (size_t row = 0; row < static_cast<size_t>(o.heads) * T; ++row) {
    const float* c = cos.data() + (row % T) * h;
    const float* s = sin.data() + (row % T) * h;
    const float* xr = x + row * d;
    float* y = out + row * d;
    for (size_t j = 0; j < h; ++j) {
      // rotate_half(x)[j] = -x[j + h], rotate_half(x)[j + h] = x[j]; the
      // repeat_interleaved table gives element e the angle of pair e / 2.
      const size_t a = j / 2, b = (j + h) / 2;
      y[j] = xr[j] * c[a] - xr[j + h] * s[a];
      y[j + h] = xr[j + h] * c[b] + xr[j] * s[b];
    }
    for (size_t e = 2 * h; e < d; ++e) y[e] = xr[e];
  }
  return Status::Ok();
}

Status CheckPositionBug(const ModelConfig& c, const RopeScaling& scaling,
                        PositionBug bug) {
  const int i = static_cast<int>(bug);
  if (i < 0 || i >= kNumPositionBugs) {
    return Status::Invalid(StrCat("bug is not a valid PositionBug value: ", i,
                                  " (expected 0 to ", kNumPositionBugs - 1,
                                  ": ", BugList(), ")"));
  }
  const char* name = kBugNames[i];
  const char* enc = EncodingName(c.encoding);
  switch (bug) {
    case PositionBug::kNone:
      return Status::Ok();
    case PositionBug::kRestartPositions:
      if (!c.causal) {
        return Status::Invalid(
            StrCat("bug '", name,
                   "' emulates a KV-cache run and needs a causal model; this "
                   "one is an encoder"));
      }
      [[fallthrough]];
    case PositionBug::kLeftPaddingInPositions:
      if (!HasPositions(c.encoding)) {
        return Status::Invalid(
            StrCat("bug '", name,
                   "' needs a model with positions (RoPE, xPos, sinusoidal or "
                   "learned), this model uses ",
                   enc));
      }
      return Status::Ok();
    default:
      break;
  }
  if (!IsRotary(c.encoding)) {
    return Status::Invalid(StrCat("bug '", name,
                                  "' needs a RoPE or xPos model, this model "
                                  "uses ",
                                  enc));
  }
  if (bug == PositionBug::kPartialRotaryFreqOverHeadDim &&
      (c.rotary_dim == 0 || c.rotary_dim >= c.head_dim())) {
    return Status::Invalid(
        StrCat("bug '", name,
               "' needs partial rotary (rotaryDim < headDim); this model "
               "rotates all ",
               c.head_dim(), " dims of each head"));
  }
  if (bug == PositionBug::kWrongScaling &&
      scaling.type != RopeScalingType::kDefault) {
    return Status::Invalid(StrCat(
        "bug '", name,
        "' runs the model with another model's scaling (linear x",
        kBugWrongScalingFactor, ") and cannot be combined with the scaling '",
        RopeScalingTypeName(scaling.type), "' passed as well"));
  }
  if (bug == PositionBug::kYarnMagnitudeTwice &&
      scaling.type != RopeScalingType::kYarn) {
    return Status::Invalid(StrCat("bug '", name,
                                  "' needs a yarn scaling; the scaling is '",
                                  RopeScalingTypeName(scaling.type), "'"));
  }
  return Status::Ok();
}

}  // namespace posenc
