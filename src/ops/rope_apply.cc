#include "ops/rope_apply.h"

#include <algorithm>
#include <limits>

#include "ops/xpos.h"

namespace posenc {

namespace {
constexpr int64_t kMaxElements = int64_t{1} << 31;
}

Status ValidateRopeLayout(RopeLayout layout, const char* name) {
  const int i = static_cast<int>(layout);
  if (i < 0 || i >= kNumRopeLayouts) {
    return Status::Invalid(StrCat(name, " is not a valid enum value: ", i));
  }
  return Status::Ok();
}

Status ValidateContextLength(int64_t context_length, const char* name) {
  if (context_length >= -1) return Status::Ok();
  return Status::Invalid(
      StrCat(name, " must be >= 0 (or -1: derived), got ", context_length));
}

Status ValidateRopeShape(const RopeApplyOptions& o) {
  POSENC_RETURN_IF_ERROR(ValidateRopeConfig(o.freq));
  POSENC_RETURN_IF_ERROR(ValidateRopeLayout(o.layout, "layout"));
  if (o.heads < 1) {
    return Status::Invalid(
        StrCat("heads must be an integer >= 1, got ", o.heads));
  }
  if (o.seq_len < 0) {
    return Status::Invalid(
        StrCat("seqLen must be an integer >= 0, got ", o.seq_len));
  }
  const int64_t d = o.freq.head_dim;
  if (o.heads > kMaxElements / d || o.seq_len > kMaxElements / (o.heads * d)) {
    return Status::Invalid(StrCat("heads * seqLen * headDim = ", o.heads, " * ",
                                  o.seq_len, " * ", d,
                                  " exceeds 2^31 elements"));
  }
  if (o.positions == nullptr) {
    const int64_t lo = std::numeric_limits<int32_t>::min();
    const int64_t hi = std::numeric_limits<int32_t>::max();
    if (o.offset < lo || o.offset + o.seq_len - 1 > hi) {
      return Status::Invalid(
          StrCat("offset + seqLen - 1 must fit in int32, got "
                 "offset = ",
                 o.offset, ", seqLen = ", o.seq_len));
    }
  }
  if (o.xpos) {
    if (RopePositionRows(o.freq) != 1) {
      return Status::Invalid(
          "xpos does not go with M-RoPE (mropeSection): no model uses both");
    }
    POSENC_RETURN_IF_ERROR(
        ValidateXpos(EffectiveRotaryDim(o.freq), o.xpos_scale_base));
  }
  POSENC_RETURN_IF_ERROR(
      ValidateContextLength(o.context_length, "contextLength"));
  return Status::Ok();
}

Status ValidateRopeApply(const RopeApplyOptions& o, size_t x_len) {
  POSENC_RETURN_IF_ERROR(ValidateRopeShape(o));
  const int64_t d = o.freq.head_dim;
  const int64_t want = o.heads * o.seq_len * d;
  if (static_cast<int64_t>(x_len) != want) {
    return Status::Invalid(
        StrCat("x must have heads * seqLen * headDim = ", o.heads, " * ",
               o.seq_len, " * ", d, " = ", want, " floats, got ", x_len));
  }
  return Status::Ok();
}

int64_t RopeContextLength(const RopeApplyOptions& o) {
  if (o.context_length >= 0) return o.context_length;
  int64_t max_pos = -1;
  const int64_t n =
      o.positions ? o.seq_len * RopePositionRows(o.freq) : o.seq_len;
  for (int64_t e = 0; e < n; ++e) {
    const int64_t p = o.positions ? o.positions[e] : o.offset + e;
    if (p > max_pos) max_pos = p;
  }
  return max_pos + 1;
}

Status RopeTable(const RopeApplyOptions& o, std::vector<float>* cos,
                 std::vector<float>* sin) {
  const int64_t ctx = RopeContextLength(o);
  std::vector<double> inv;
  double factor = 1.0;
  POSENC_RETURN_IF_ERROR(
      RopeFrequencies(o.freq,
                      static_cast<int>(ctx > std::numeric_limits<int32_t>::max()
                                           ? std::numeric_limits<int32_t>::max()
                                           : ctx),
                      &inv, &factor));
  if (o.pure_rotation) factor = 1.0;
  // The frequency contract is float32 (what the reference implementations
  // store); the angle is then formed in double.
  for (double& f : inv) f = static_cast<float>(f);
  const size_t T = static_cast<size_t>(o.seq_len);
  const size_t h = inv.size();
  std::vector<int32_t> pos(T);
  for (size_t t = 0; t < T; ++t) {
    pos[t] = o.positions ? o.positions[t] : static_cast<int32_t>(o.offset + t);
  }
  cos->assign(T * h, 0.0f);
  sin->assign(T * h, 0.0f);
  RopeCosSin(pos.data(), T, inv.data(), h, static_cast<float>(factor),
             cos->data(), sin->data());
  if (RopePositionRows(o.freq) == 3 && o.positions != nullptr) {
    // M-RoPE: the height and width rows' tables, then each pair's column
    // from its row's table (row 0's is already in place).
    std::vector<float> c(T * h), s(T * h);
    for (int axis = 1; axis < 3; ++axis) {
      for (size_t t = 0; t < T; ++t) pos[t] = o.positions[axis * T + t];
      RopeCosSin(pos.data(), T, inv.data(), h, static_cast<float>(factor),
                 c.data(), s.data());
      for (size_t i = 0; i < h; ++i) {
        if (MropeAxis(o.freq, static_cast<int>(i)) != axis) continue;
        for (size_t t = 0; t < T; ++t) {
          (*cos)[t * h + i] = c[t * h + i];
          (*sin)[t * h + i] = s[t * h + i];
        }
      }
    }
  }
  if (o.xpos) {
    std::vector<float> scale(T * h);
    POSENC_RETURN_IF_ERROR(XposScales(pos.data(), T, 2 * h, o.xpos_scale_base,
                                      o.xpos_center, o.xpos_key, scale.data()));
    for (size_t e = 0; e < T * h; ++e) {
      (*cos)[e] *= scale[e];
      (*sin)[e] *= scale[e];
    }
  }
  return Status::Ok();
}

Status RopeTableChecked(const RopeApplyOptions& o, float* cos, float* sin,
                        size_t capacity) {
  POSENC_RETURN_IF_ERROR(ValidateRopeShape(o));
  const int64_t need = o.seq_len * (EffectiveRotaryDim(o.freq) / 2);
  if (static_cast<uint64_t>(need) > capacity) {
    return Status::Invalid(StrCat(
        "cos and sin must each hold seqLen * rotaryDim / 2 = ", o.seq_len,
        " * ", EffectiveRotaryDim(o.freq) / 2, " = ", need,
        " floats, got buffers of ", capacity));
  }
  std::vector<float> c, s;
  POSENC_RETURN_IF_ERROR(RopeTable(o, &c, &s));
  std::copy(c.begin(), c.end(), cos);
  std::copy(s.begin(), s.end(), sin);
  return Status::Ok();
}

Status RopeApplyChecked(const RopeApplyOptions& o, const float* x, size_t x_len,
                        float* out) {
  POSENC_RETURN_IF_ERROR(ValidateRopeApply(o, x_len));
  std::vector<float> cos, sin;
  POSENC_RETURN_IF_ERROR(RopeTable(o, &cos, &sin));
  ApplyRope(o.layout, x, static_cast<size_t>(o.heads),
            static_cast<size_t>(o.seq_len),
            static_cast<size_t>(o.freq.head_dim),
            static_cast<size_t>(EffectiveRotaryDim(o.freq)), cos.data(),
            sin.data(), out);
  return Status::Ok();
}

}  // namespace posenc
