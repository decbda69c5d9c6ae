#include "ops/kv_cache.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace posenc {

namespace {
// True when `config` gives other inverse frequencies at context length b
// than at a (dynamic NTK past its threshold, LongRoPE across its switch).
bool FrequenciesDiffer(const RopeFrequencyConfig& config, int64_t a,
                       int64_t b) {
  std::vector<double> fa, fb;
  double unused;
  const auto clamp = [](int64_t c) {
    return static_cast<int>(
        std::min<int64_t>(c, std::numeric_limits<int>::max()));
  };
  if (!RopeFrequencies(config, clamp(a), &fa, &unused).ok() ||
      !RopeFrequencies(config, clamp(b), &fb, &unused).ok()) {
    return true;
  }
  return fa != fb;
}
}  // namespace

Status KvCache::Validate(size_t Hkv, size_t D, const AttentionRope& rope) {
  if (Hkv < 1 || Hkv > 65536) {
    return Status::Invalid(StrCat("kvHeads must be in [1, 65536], got ", Hkv));
  }
  if (D < 1 || D > 65536) {
    return Status::Invalid(StrCat("headDim must be in [1, 65536], got ", D));
  }
  if (rope.enabled) {
    if (rope.freq.head_dim != static_cast<int>(D)) {
      return Status::Invalid(StrCat("rope headDim (", rope.freq.head_dim,
                                    ") must equal headDim (", D, ")"));
    }
    POSENC_RETURN_IF_ERROR(ValidateRopeLayout(rope.layout));
    POSENC_RETURN_IF_ERROR(ValidateRopeConfig(rope.freq));
    POSENC_RETURN_IF_ERROR(ValidateContextLength(rope.context_length));
    if (RopePositionRows(rope.freq) != 1) {
      return Status::Invalid(
          "rope.mrope: the KV cache takes one position row per token; "
          "rotate M-RoPE keys with applyRope and attend with attention");
    }
  }
  return Status::Ok();
}

KvCache::KvCache(size_t Hkv, size_t D, const AttentionRope& rope,
                 bool consistent)
    : Hkv_(Hkv), D_(D), rope_(rope) {
  rope_.q_positions = rope_.k_positions = nullptr;
  rope_.rotate_k = false;
  const RopeScalingType type = rope_.freq.scaling.type;
  rerotate_ =
      consistent && rope_.enabled && rope_.context_length < 0 &&
      (type == RopeScalingType::kDynamic || type == RopeScalingType::kLongrope);
}

Status KvCache::RotateFromRaw(size_t t0, int64_t context) {
  const size_t n = length_ - t0;
  if (n == 0) return Status::Ok();
  // rerotate_: no fixed context length, so `context` is the one in force.
  const RopeApplyOptions r =
      RotationOf(rope_, 1, n, positions_.data() + t0, true, {}, context);
  for (size_t g = 0; g < Hkv_; ++g) {
    const size_t at = (g * capacity_ + t0) * D_;
    POSENC_RETURN_IF_ERROR(
        RopeApplyChecked(r, raw_k_.data() + at, n * D_, k_.data() + at));
  }
  return Status::Ok();
}

void KvCache::Reserve(size_t tokens) {
  if (tokens <= capacity_) return;
  size_t cap = std::max<size_t>(16, capacity_);
  while (cap < tokens) cap *= 2;
  std::vector<float> k(Hkv_ * cap * D_), v(Hkv_ * cap * D_);
  // Nothing to copy into the first buffers (and memcpy from the empty
  // vectors' null data() is undefined even for 0 bytes).
  for (size_t g = 0; g < Hkv_ && length_ > 0; ++g) {
    std::memcpy(k.data() + g * cap * D_, k_.data() + g * capacity_ * D_,
                length_ * D_ * sizeof(float));
    std::memcpy(v.data() + g * cap * D_, v_.data() + g * capacity_ * D_,
                length_ * D_ * sizeof(float));
  }
  if (rerotate_) {
    std::vector<float> raw(Hkv_ * cap * D_);
    for (size_t g = 0; g < Hkv_ && length_ > 0; ++g) {
      std::memcpy(raw.data() + g * cap * D_, raw_k_.data() + g * capacity_ * D_,
                  length_ * D_ * sizeof(float));
    }
    raw_k_.swap(raw);
  }
  k_.swap(k);
  v_.swap(v);
  capacity_ = cap;
}

Status KvCache::Append(const float* k, const float* v, size_t Tn,
                       const int32_t* positions) {
  if (length_ + Tn > (size_t{1} << 24)) {
    return Status::Invalid(StrCat("the cache would hold ", length_ + Tn,
                                  " tokens, more than 2^24"));
  }
  if (static_cast<double>(Hkv_) * (length_ + Tn) * D_ >= double(1u << 31)) {
    return Status::Invalid("the cache would exceed 2^31 elements");
  }
  std::vector<int32_t> pos(Tn);
  for (size_t t = 0; t < Tn; ++t) {
    if (positions) {
      pos[t] = positions[t];
    } else {
      const int64_t p = static_cast<int64_t>(length_ + t);
      pos[t] = static_cast<int32_t>(p);
    }
  }
  if (rerotate_) {
    // Store the raw keys, then rotate: the new ones only, or every key when
    // the longer context changes the frequencies.
    Reserve(length_ + Tn);
    for (size_t g = 0; g < Hkv_ && Tn > 0; ++g) {
      std::memcpy(raw_k_.data() + (g * capacity_ + length_) * D_,
                  k + g * Tn * D_, Tn * D_ * sizeof(float));
      std::memcpy(v_.data() + (g * capacity_ + length_) * D_, v + g * Tn * D_,
                  Tn * D_ * sizeof(float));
    }
    const size_t old_length = length_;
    const int64_t old_context = context_;
    int64_t context = context_;
    for (int32_t p : pos) context = std::max<int64_t>(context, int64_t{p} + 1);
    positions_.insert(positions_.end(), pos.begin(), pos.end());
    length_ += Tn;
    const bool changed = context != old_context && old_length > 0 &&
                         FrequenciesDiffer(rope_.freq, old_context, context);
    const Status s = RotateFromRaw(changed ? 0 : old_length, context);
    if (!s.ok()) {  // leave the cache as it was
      positions_.resize(old_length);
      length_ = old_length;
      return s;
    }
    context_ = context;
    return Status::Ok();
  }
  std::vector<float> k_rot;
  const float* k_use = k;
  if (rope_.enabled && Tn > 0) {
    const RopeApplyOptions r =
        RotationOf(rope_, Hkv_, Tn, pos.data(), true, {{pos.data(), Tn}});
    k_rot.resize(Hkv_ * Tn * D_);
    POSENC_RETURN_IF_ERROR(RopeApplyChecked(r, k, k_rot.size(), k_rot.data()));
    k_use = k_rot.data();
  }
  Reserve(length_ + Tn);
  for (size_t g = 0; g < Hkv_ && Tn > 0; ++g) {
    std::memcpy(k_.data() + (g * capacity_ + length_) * D_, k_use + g * Tn * D_,
                Tn * D_ * sizeof(float));
    std::memcpy(v_.data() + (g * capacity_ + length_) * D_, v + g * Tn * D_,
                Tn * D_ * sizeof(float));
  }
  positions_.insert(positions_.end(), pos.begin(), pos.end());
  length_ += Tn;
  return Status::Ok();
}

Status KvCache::Attend(const AttentionOptions& base, const float* q,
                       const int32_t* q_positions, float* out) const {
  AttentionOptions o = base;
  o.Hkv = Hkv_;
  o.D = D_;
  o.Tk = length_;
  o.k_head_stride = capacity_ * D_;
  o.rope = AttentionRope();  // queries are rotated here
  if (o.Tk == 0) o.k_head_stride = 0;
  POSENC_RETURN_IF_ERROR(ValidateAttention(o));
  std::vector<float> q_rot;
  const float* q_use = q;
  if (rope_.enabled && o.Tq > 0) {
    const int64_t qoff =
        o.query_offset < 0 ? static_cast<int64_t>(o.Tk) - o.Tq : o.query_offset;
    std::vector<int32_t> pos(o.Tq);
    for (size_t i = 0; i < o.Tq; ++i) {
      const int64_t slot = qoff + static_cast<int64_t>(i);
      if (q_positions) {
        pos[i] = q_positions[i];
      } else if (slot >= 0 && slot < static_cast<int64_t>(length_)) {
        pos[i] = positions_[slot];
      } else {
        pos[i] = static_cast<int32_t>((length_ ? positions_.back() : -1) +
                                      slot - static_cast<int64_t>(length_) + 1);
      }
    }
    // With rerotate_, queries see the context the keys are rotated for (or
    // a longer one when they sit past every key).
    const RopeApplyOptions r =
        RotationOf(rope_, o.H, o.Tq, pos.data(), false, {{pos.data(), o.Tq}},
                   rerotate_ ? context_ : 0);
    q_rot.resize(o.H * o.Tq * D_);
    POSENC_RETURN_IF_ERROR(RopeApplyChecked(r, q, q_rot.size(), q_rot.data()));
    q_use = q_rot.data();
  }
  AttentionKernel(o, q_use, k_.data(), v_.data(), out);
  return Status::Ok();
}

Status KvCache::Shift(int32_t delta) {
  if (!rope_.enabled) return Status::Ok();  // nothing positional is stored
  for (int32_t p : positions_) {
    const int64_t np = static_cast<int64_t>(p) + delta;
    if (np < std::numeric_limits<int32_t>::min() ||
        np > std::numeric_limits<int32_t>::max()) {
      return Status::Invalid(
          StrCat("shift by ", delta, " moves position ", p, " outside int32"));
    }
  }
  const RopeScalingType type = rope_.freq.scaling.type;
  if (type == RopeScalingType::kDynamic || type == RopeScalingType::kLongrope) {
    return Status::Invalid(
        StrCat("shift needs fixed frequencies; '", RopeScalingTypeName(type),
               "' frequencies depend on the context length"));
  }
  if (rope_.xpos) {
    return Status::Invalid(
        "shift is a pure rotation; xPos keys also carry a position-dependent "
        "scale, so an xPos cache cannot be shifted");
  }
  std::vector<int32_t> delta_pos(length_, delta);
  RopeApplyOptions r = RotationOf(rope_, 1, length_, delta_pos.data(), false,
                                  {{delta_pos.data(), length_}});
  r.pure_rotation = true;
  for (size_t g = 0; g < Hkv_; ++g) {
    float* kg = k_.data() + g * capacity_ * D_;
    POSENC_RETURN_IF_ERROR(RopeApplyChecked(r, kg, length_ * D_, kg));
  }
  for (int32_t& p : positions_) p += delta;
  return Status::Ok();
}

}  // namespace posenc
