// Differential cases of Attention(): every encoding and mask combination
// against reference/attention.h.
#include "ops/attention.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "differential/harness.h"
#include "reference/alibi.h"
#include "reference/attention.h"
#include "reference/t5.h"

namespace posenc {
namespace diff {

::testing::AssertionResult AttentionCase(Draw& dr, std::ostream& desc) {
  AttentionOptions o;
  o.Hkv = static_cast<size_t>(dr.Int(1, 4));
  o.H = o.Hkv * static_cast<size_t>(dr.Int(1, 4));
  const int dmode = static_cast<int>(dr.Int(0, 9));
  o.D = dmode == 0 ? 64 : dmode == 1 ? 128 : static_cast<size_t>(dr.Int(1, 72));
  o.Tk = dr.Length(160);
  o.Tq = dr.OneIn(2) ? o.Tk : std::min(o.Tk, dr.Length(o.Tk));
  // Keep the float64 reference affordable.
  while (o.H * o.Tq * o.Tk * o.D > 3000000 && o.Tk > 1) {
    o.Tk = (o.Tk + 1) / 2;
    o.Tq = std::min(o.Tq, o.Tk);
  }
  o.causal = !dr.OneIn(3);
  if (dr.OneIn(4)) o.query_offset = dr.Int(0, int64_t(o.Tk) + 3);
  if (dr.OneIn(4)) o.window = dr.Int(1, 12);
  if (dr.OneIn(3)) o.scale = float(dr.Real(0.05, 2.0));
  desc << "attention H=" << o.H << " Hkv=" << o.Hkv << " Tq=" << o.Tq
       << " Tk=" << o.Tk << " D=" << o.D << " causal=" << o.causal
       << " qoff=" << o.query_offset << " window=" << o.window
       << " scale=" << o.scale;
  std::vector<uint8_t> mask(o.Tk, 1);
  const int mmode = static_cast<int>(dr.Int(0, 5));
  if (mmode >= 3) {
    for (size_t j = 0; j < o.Tk; ++j) {
      mask[j] = mmode == 3   ? (j >= o.Tk / 3)  // left padding
                : mmode == 4 ? !dr.OneIn(3)     // random holes
                             : 0;               // everything masked
    }
    o.key_mask = mask.data();
    desc << " mask=" << (mmode == 3 ? "left" : mmode == 4 ? "random" : "all");
  }
  // Encodings: any combination.
  std::vector<float> slopes, t5, shaw_k, shaw_v, bias;
  if (dr.OneIn(3)) {
    const std::vector<double> paper = ref::AlibiSlopes(o.H);
    for (size_t h = 0; h < o.H; ++h) {
      slopes.push_back(dr.OneIn(4) ? float(dr.Real(0, 1)) : float(paper[h]));
    }
    o.alibi_slopes = slopes.data();
    desc << " alibi";
  }
  if (dr.OneIn(4)) {
    o.t5_bidirectional = dr.OneIn(2);
    o.t5_buckets = static_cast<int32_t>(dr.Int(o.t5_bidirectional ? 4 : 2, 40));
    const int32_t per = o.t5_bidirectional ? o.t5_buckets / 2 : o.t5_buckets;
    // Re-draw max_distance until no bucket of this case sits on a float32
    // rounding edge (the reference cannot say which side is right there).
    const int64_t qoff = ref::QuerySlot(o, 0);
    for (int attempt = 0; attempt < 20; ++attempt) {
      o.t5_max_distance = static_cast<int32_t>(dr.Int(per / 2 + 1, 200));
      bool edge = false;
      for (int64_t rel = -(qoff + int64_t(o.Tq)); rel <= int64_t(o.Tk); ++rel) {
        edge |= ref::T5Bucket(rel, o.t5_buckets, o.t5_max_distance,
                              o.t5_bidirectional)
                    .edge();
      }
      if (!edge) {
        t5 = dr.Vector(size_t(o.t5_buckets) * o.H, 2.0f);
        o.t5_table = t5.data();
        break;
      }
    }
    if (o.t5_table) {
      desc << " t5(B " << o.t5_buckets << ", maxd " << o.t5_max_distance
           << ", bidir " << o.t5_bidirectional << ")";
    }
  }
  if (dr.OneIn(5)) {
    o.shaw_clip = static_cast<int32_t>(dr.Int(0, 6));
    shaw_k = dr.Vector((2 * o.shaw_clip + 1) * o.D);
    o.shaw_k = shaw_k.data();
    if (dr.OneIn(2)) {
      shaw_v = dr.Vector((2 * o.shaw_clip + 1) * o.D);
      o.shaw_v = shaw_v.data();
    }
    desc << " shaw(clip " << o.shaw_clip << ", v " << !!o.shaw_v << ")";
  }
  if (dr.OneIn(5)) {
    bias = dr.Vector(o.H * o.Tq * o.Tk, 3.0f);
    o.bias = bias.data();
    desc << " bias";
  }
  // RoPE / xPos (head dim must allow an even rotary dim).
  std::vector<int32_t> qpos32, kpos32;
  if (o.D >= 2 && dr.OneIn(2)) {
    o.rope.enabled = true;
    o.rope.layout = dr.OneIn(2) ? RopeLayout::kHalf : RopeLayout::kInterleaved;
    desc << " rope(" << LayoutName(o.rope.layout);
    o.rope.freq = RandomFreq(dr, o.D, false, desc);
    o.rope.xpos = dr.OneIn(6);
    if (o.rope.xpos) {
      o.rope.xpos_scale_base = static_cast<double>(dr.Int(64, 1024));
      desc << " xpos " << o.rope.xpos_scale_base;
    }
    const int pmode = static_cast<int>(dr.Int(0, 3));
    if (pmode == 1 && o.key_mask) {
      o.rope.positions_from_mask = true;
      desc << " positions_from_mask";
    } else if (pmode >= 2) {
      // Explicit positions; xPos keeps |p| / scale_base small (its scales
      // grow as zeta^(p / scale_base)).
      const int64_t hi =
          o.rope.xpos ? int64_t(4 * o.rope.xpos_scale_base) : int64_t(1) << 30;
      for (int64_t p : RandomPositions(dr, o.Tk, 0, hi)) {
        kpos32.push_back(int32_t(p));
      }
      for (int64_t p : RandomPositions(dr, o.Tq, 0, hi)) {
        qpos32.push_back(int32_t(p));
      }
      o.rope.k_positions = kpos32.data();
      o.rope.q_positions = qpos32.data();
      desc << " explicit positions (k0 " << (o.Tk ? kpos32[0] : 0) << ", q0 "
           << (o.Tq ? qpos32[0] : 0) << ")";
    }
    o.rope.rotate_k = !dr.OneIn(8);
    desc << " rotate_k=" << o.rope.rotate_k << ")";
  }
  std::vector<float> q = dr.Vector(o.H * o.Tq * o.D);
  const std::vector<float> k = dr.Vector(o.Hkv * o.Tk * o.D);
  const std::vector<float> v = dr.Vector(o.Hkv * o.Tk * o.D, 2.0f);
  // Large logits (~1e4): q scaled up; the max-subtraction must keep exp
  // finite and the output a convex combination of v.
  const bool large = dr.OneIn(15);
  if (large) {
    double mx = 1e-30;
    for (size_t h = 0; h < o.H; ++h) {
      const size_t g = h / (o.H / o.Hkv);
      for (size_t i = 0; i < o.Tq; ++i) {
        for (size_t j = 0; j < o.Tk; ++j) {
          double s = 0;
          for (size_t e = 0; e < o.D; ++e) {
            s += q[(h * o.Tq + i) * o.D + e] * k[(g * o.Tk + j) * o.D + e];
          }
          mx = std::max(mx, std::abs(s));
        }
      }
    }
    const double scale = o.scale != 0 ? o.scale : 1.0 / std::sqrt(double(o.D));
    const float up = float(1e4 / (mx * scale));
    for (float& x : q) x *= up;
    desc << " large logits (q x " << up << ")";
  }
  const bool want_weights = dr.OneIn(3);
  std::vector<float> weights(want_weights ? o.H * o.Tq * o.Tk : 0, -7.0f);
  if (want_weights) o.weights = weights.data();
  desc << " weights=" << want_weights;
  std::vector<float> out(o.H * o.Tq * o.D, -7.0f);
  Announce(desc);
  DIFF_EXPECT(StatusOk(Attention(o, q.data(), k.data(), v.data(), out.data())));

  const ref::AttentionResult want = ref::Attention(o, q, k, v);
  const AttentionTolerance tol = AttentionTolerances(o, want);
  DIFF_EXPECT(Close("out", out, want.out, tol.out));
  if (want_weights) {
    DIFF_EXPECT(Close("weights", weights, want.weights, tol.weights));
  }
  return ::testing::AssertionSuccess();
}

TEST_P(DifferentialTest, Attention) { Run("attention"); }

}  // namespace diff
}  // namespace posenc
