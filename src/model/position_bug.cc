#include "model/position_bug.h"

#include <algorithm>

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
  if (bug == PositionBug::kYarnMagnitudeTwice &&
      scaling.type != RopeScalingType::kYarn) {
    return Status::Invalid(StrCat("bug '", name,
                                  "' needs a yarn scaling; the scaling is '",
                                  RopeScalingTypeName(scaling.type), "'"));
  }
  return Status::Ok();
}

}  // namespace posenc
