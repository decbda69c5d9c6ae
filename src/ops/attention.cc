// Validation, positions, RoPE pre-rotation and dispatch of the attention
// kernel (attention-inl.h).
#include "ops/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/t5.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/attention.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "ops/attention-inl.h"

#if HWY_ONCE
namespace posenc {

HWY_EXPORT(AttentionKernelImpl);

namespace {
constexpr int64_t kMaxElements = int64_t{1} << 31;
constexpr int64_t kMaxLength = int64_t{1} << 24;

bool ProductFits(std::initializer_list<int64_t> dims) {
  int64_t n = 1;
  for (int64_t x : dims) {
    if (x != 0 && n > kMaxElements / x) return false;
    n *= x;
  }
  return n < kMaxElements;
}
}  // namespace

Status ValidateAttention(const AttentionOptions& o) {
  const int64_t H = o.H, Hkv = o.Hkv, Tq = o.Tq, Tk = o.Tk, D = o.D;
  if (H < 1) return Status::Invalid(StrCat("heads must be >= 1, got ", H));
  if (Hkv < 1 || H % Hkv != 0) {
    return Status::Invalid(
        StrCat("kvHeads (", Hkv, ") must divide heads (", H, ")"));
  }
  if (D < 1) return Status::Invalid(StrCat("headDim must be >= 1, got ", D));
  if (Tk > kMaxLength || Tq > kMaxLength) {
    return Status::Invalid(
        StrCat("queryLength and keyLength must be <= 2^24, "
               "got ",
               Tq, " and ", Tk));
  }
  if (!ProductFits({H, Tq, D}) || !ProductFits({Hkv, Tk, D})) {
    return Status::Invalid("q, k or v would exceed 2^31 elements");
  }
  if (o.weights && !ProductFits({H, Tq, Tk})) {
    return Status::Invalid(StrCat("weights [heads, queryLength, keyLength] = [",
                                  H, ", ", Tq, ", ", Tk,
                                  "] would exceed 2^31 elements"));
  }
  if (o.bias && !ProductFits({H, Tq, Tk})) {
    return Status::Invalid(
        "bias [heads, queryLength, keyLength] would exceed "
        "2^31 elements");
  }
  if (o.k_head_stride != 0 && o.k_head_stride < static_cast<size_t>(Tk * D)) {
    return Status::Invalid(
        StrCat("kv head stride ", o.k_head_stride,
               " is smaller than keyLength * headDim = ", Tk * D));
  }
  if (o.query_offset < -1 || o.query_offset > kMaxLength) {
    return Status::Invalid(
        StrCat("queryOffset must be an integer in [0, 16777216], got ",
               o.query_offset, " (-1: the queries are the last keys)"));
  }
  if (o.query_offset < 0 && Tq > Tk) {
    return Status::Invalid(StrCat("queryLength (", Tq,
                                  ") must not exceed keyLength (", Tk,
                                  ") unless queryOffset is given"));
  }
  if (o.window < 0 || o.window > kMaxLength) {
    return Status::Invalid(
        StrCat("window must be an integer in [1, 16777216], got ", o.window,
               " (0: no window)"));
  }
  POSENC_RETURN_IF_ERROR(CheckFinite("scale", o.scale));
  if (o.scale < 0.0f) {
    return Status::Invalid(
        StrCat("scale must be > 0, got ", o.scale, " (0: 1/sqrt(headDim))"));
  }
  if (o.alibi_slopes) {
    for (size_t h = 0; h < o.H; ++h) {
      POSENC_RETURN_IF_ERROR(
          CheckFinite(StrCat("alibi.slopes[", h, "]"), o.alibi_slopes[h]));
    }
  }
  if (o.t5_table) {
    POSENC_RETURN_IF_ERROR(ValidateT5Buckets(o.t5_buckets, o.t5_max_distance,
                                             o.t5_bidirectional, "t5."));
  }
  if (o.shaw_v && !o.shaw_k) {
    return Status::Invalid("shaw: a value table needs a key table");
  }
  if (o.shaw_k && (o.shaw_clip < 0 || o.shaw_clip > (1 << 20))) {
    return Status::Invalid(StrCat(
        "shaw.clip must be an integer in [0, 1048576], got ", o.shaw_clip));
  }
  if (o.rope.enabled) {
    if (o.rope.freq.head_dim != static_cast<int>(D)) {
      return Status::Invalid(StrCat("rope headDim (", o.rope.freq.head_dim,
                                    ") must equal headDim (", D, ")"));
    }
    POSENC_RETURN_IF_ERROR(ValidateRopeLayout(o.rope.layout));
    POSENC_RETURN_IF_ERROR(ValidateRopeConfig(o.rope.freq));
    POSENC_RETURN_IF_ERROR(ValidateContextLength(o.rope.context_length));
    if (o.rope.rotate_k && o.k_head_stride != 0 &&
        o.k_head_stride != static_cast<size_t>(Tk * D)) {
      return Status::Invalid(
          "rope: keys with a custom head stride (a cache) "
          "must be rotated when appended");
    }
    if (o.rope.xpos) {
      POSENC_RETURN_IF_ERROR(
          CheckFiniteAbove("rope.xpos.scaleBase", o.rope.xpos_scale_base, 0.0));
      if (RopePositionRows(o.rope.freq) != 1) {
        return Status::Invalid(
            "rope.xpos does not go with M-RoPE (mropeSection): no model uses "
            "both");
      }
    }
  }
  return Status::Ok();
}

void AttentionPositions(const AttentionOptions& o, std::vector<int32_t>* qpos,
                        std::vector<int32_t>* kpos) {
  const int64_t qoff =
      o.query_offset < 0 ? static_cast<int64_t>(o.Tk) - o.Tq : o.query_offset;
  // One row, or M-RoPE's three (each filled by the same rules).
  const size_t rows = static_cast<size_t>(RopePositionRows(o.rope.freq));
  const size_t Tk = o.Tk;
  const size_t Tq = o.Tq;
  kpos->resize(rows * Tk);
  qpos->resize(rows * Tq);
  const bool from_mask =
      !o.rope.k_positions && o.rope.positions_from_mask && o.key_mask;
  for (size_t a = 0; a < rows; ++a) {
    int32_t real = 0;
    int32_t* kr = kpos->data() + a * Tk;
    for (size_t j = 0; j < Tk; ++j) {
      if (o.rope.k_positions) {
        kr[j] = o.rope.k_positions[a * Tk + j];
      } else if (from_mask) {
        // cumsum(mask) - 1 for real tokens; pad slots get 1 (masked anyway).
        kr[j] = o.key_mask[j] ? real++ : 1;
      } else {
        kr[j] = static_cast<int32_t>(j);
      }
    }
    int32_t* qr = qpos->data() + a * Tq;
    for (size_t i = 0; i < Tq; ++i) {
      const int64_t slot = static_cast<int64_t>(i) + qoff;
      if (o.rope.q_positions) {
        qr[i] = o.rope.q_positions[a * Tq + i];
      } else if (slot >= 0 && slot < static_cast<int64_t>(Tk)) {
        qr[i] = kr[slot];
      } else if (from_mask) {
        // Queries past the keys are real tokens: the count goes on (a pad
        // in the last key slot must not set it back to 1).
        qr[i] = static_cast<int32_t>(real + slot - static_cast<int64_t>(Tk));
      } else {
        const int32_t last = Tk ? kr[Tk - 1] : -1;
        qr[i] = static_cast<int32_t>(
            Tk ? last + (slot - static_cast<int64_t>(Tk) + 1) : slot);
      }
    }
  }
}

RopeApplyOptions RotationOf(const AttentionRope& rope, size_t heads, size_t n,
                            const int32_t* positions, bool key,
                            std::initializer_list<PositionRun> seen,
                            int64_t at_least) {
  RopeApplyOptions r;
  r.freq = rope.freq;
  r.layout = rope.layout;
  r.heads = static_cast<int64_t>(heads);
  r.seq_len = static_cast<int64_t>(n);
  r.positions = positions;
  r.xpos = rope.xpos;
  r.xpos_scale_base = rope.xpos_scale_base;
  r.xpos_key = key;
  if (rope.context_length >= 0) {
    r.context_length = rope.context_length;
  } else {
    int64_t max_pos = -1;
    for (const PositionRun& run : seen) {
      for (size_t e = 0; e < run.n; ++e) {
        max_pos = std::max<int64_t>(max_pos, run.data[e]);
      }
    }
    r.context_length = std::max<int64_t>(at_least, max_pos + 1);
  }
  return r;
}

void AttentionKernel(const AttentionOptions& o, const float* q, const float* k,
                     const float* v, float* out) {
  HWY_DYNAMIC_DISPATCH(AttentionKernelImpl)(o, q, k, v, out);
}

Status Attention(const AttentionOptions& o, const float* q, const float* k,
                 const float* v, float* out) {
  POSENC_RETURN_IF_ERROR(ValidateAttention(o));
  if (!o.rope.enabled) {
    AttentionKernel(o, q, k, v, out);
    return Status::Ok();
  }
  std::vector<int32_t> qpos, kpos;
  AttentionPositions(o, &qpos, &kpos);
  // One context length for q and k (the longest position the call rotates),
  // so `dynamic` / `longrope` give both the same frequencies.
  const PositionRun q_run{qpos.data(), qpos.size()};
  const PositionRun k_run{kpos.data(), o.rope.rotate_k ? kpos.size() : 0};
  std::vector<float> q_rot(o.H * o.Tq * o.D);
  if (o.Tq) {
    const RopeApplyOptions r =
        RotationOf(o.rope, o.H, o.Tq, qpos.data(), false, {q_run, k_run});
    POSENC_RETURN_IF_ERROR(RopeApplyChecked(r, q, q_rot.size(), q_rot.data()));
  }
  const float* k_use = k;
  std::vector<float> k_rot;
  if (o.rope.rotate_k && o.Tk) {
    k_rot.resize(o.Hkv * o.Tk * o.D);
    const RopeApplyOptions r =
        RotationOf(o.rope, o.Hkv, o.Tk, kpos.data(), true, {q_run, k_run});
    POSENC_RETURN_IF_ERROR(RopeApplyChecked(r, k, k_rot.size(), k_rot.data()));
    k_use = k_rot.data();
  }
  AttentionKernel(o, q_rot.data(), k_use, v, out);
  return Status::Ok();
}

}  // namespace posenc
#endif  // HWY_ONCE
