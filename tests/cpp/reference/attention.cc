#include "reference/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "reference/alibi.h"
#include "reference/rope.h"
#include "reference/t5.h"

namespace posenc {
namespace ref {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

int64_t QuerySlot(const AttentionOptions& o, size_t i) {
  const int64_t first =
      o.query_offset < 0 ? int64_t(o.Tk) - int64_t(o.Tq) : o.query_offset;
  return first + int64_t(i);
}

AttentionPositions Positions(const AttentionOptions& o) {
  const AttentionRope& rope = o.rope;
  const int64_t Tk = int64_t(o.Tk);
  const bool padded =
      rope.positions_from_mask && o.key_mask && rope.k_positions == nullptr;
  // Slots 0 .. n-1 cover every key and every query (validation keeps the
  // first query slot >= 0).
  int64_t n = Tk;
  for (size_t i = 0; i < o.Tq; ++i) n = std::max(n, QuerySlot(o, i) + 1);
  std::vector<int64_t> at(size_t(std::max<int64_t>(n, 0)));
  int64_t real_before = 0;  // real tokens in the slots walked so far
  for (int64_t s = 0; s < n; ++s) {
    const bool key = s < Tk;
    if (key && rope.k_positions) {
      at[s] = rope.k_positions[s];
    } else if (padded) {
      const bool real = !key || o.key_mask[s] != 0;
      at[s] = real ? real_before++ : 1;
    } else if (key) {
      at[s] = s;
    } else {
      at[s] = s == 0 ? 0 : at[s - 1] + 1;
    }
  }
  AttentionPositions pos;
  pos.k.assign(at.begin(), at.begin() + Tk);
  pos.q.resize(o.Tq);
  for (size_t i = 0; i < o.Tq; ++i) {
    const int64_t s = QuerySlot(o, i);
    pos.q[i] = rope.q_positions ? rope.q_positions[i] : s >= 0 ? at[s] : s;
  }
  return pos;
}

RotatedQK RotateQK(const AttentionOptions& o, const std::vector<float>& q,
                   const std::vector<float>& k, const AttentionPositions& pos) {
  RotatedQK r{std::vector<double>(q.begin(), q.end()),
              std::vector<double>(k.begin(), k.end())};
  if (!o.rope.enabled) return r;
  // One context for q and k: as one forward pass of the reference
  // implementations (keys given already rotated are not part of it).
  int64_t ctx = 0;
  for (int64_t p : pos.q) ctx = std::max(ctx, p + 1);
  if (o.rope.rotate_k) {
    for (int64_t p : pos.k) ctx = std::max(ctx, p + 1);
  }
  RopeSpec spec;
  spec.freq = o.rope.freq;
  spec.layout = o.rope.layout;
  spec.xpos = o.rope.xpos;
  spec.xpos_scale_base = o.rope.xpos_scale_base;
  r.q = Rope(spec, q, o.H, o.Tq, pos.q, ctx, nullptr);
  if (o.rope.rotate_k) {
    spec.xpos_key = true;
    r.k = Rope(spec, k, o.Hkv, o.Tk, pos.k, ctx, nullptr);
  }
  return r;
}

bool Visible(const AttentionOptions& o, size_t h, size_t i, size_t j) {
  const int64_t rel = int64_t(j) - QuerySlot(o, i);
  if (o.causal && rel > 0) return false;
  if (o.window > 0 && -rel >= o.window) return false;
  if (o.key_mask && o.key_mask[j] == 0) return false;
  if (o.bias && o.bias[(h * o.Tq + i) * o.Tk + j] == -kInf) return false;
  return true;
}

AttentionResult AttentionOnRotated(const AttentionOptions& o,
                                   const std::vector<double>& qr,
                                   const std::vector<double>& kr,
                                   const std::vector<float>& v,
                                   const std::vector<size_t>* rows,
                                   bool with_weights) {
  const size_t H = o.H, Hkv = o.Hkv, Tq = o.Tq, Tk = o.Tk, D = o.D;
  const double scale = o.scale != 0 ? o.scale : 1.0 / std::sqrt(double(D));
  AttentionResult res;
  res.out.assign(H * Tq * D, 0.0);
  if (with_weights) res.weights.assign(H * Tq * Tk, 0.0);
  res.visible_keys.assign(H * Tq, 0);
  res.logit_mag.assign(H * Tq, 0.0);
  res.value_max.assign(H * Tq, 0.0);
  res.value_abs_max.assign(H * Tq, 0.0);
  res.t5_edge.assign(H * Tq, 0);
  std::vector<size_t> all;
  if (!rows) {
    for (size_t i = 0; i < Tq; ++i) all.push_back(i);
    rows = &all;
  }
  // Shaw table row of a relative distance: clip(rel, -c, c) + c.
  const int64_t c = o.shaw_clip;
  auto shaw_row = [&](int64_t rel) {
    return size_t(std::clamp(rel, -c, c) + c);
  };
  // The value a key contributes to dim e: v_j (+ aV[clip(rel)]).
  auto value = [&](size_t g, size_t j, int64_t rel, size_t e, double* abs_sum) {
    double val = v[(g * Tk + j) * D + e];
    double mag = std::abs(val);
    if (o.shaw_v) {
      const double a = o.shaw_v[shaw_row(rel) * D + e];
      val += a;
      mag += std::abs(a);
    }
    if (abs_sum) *abs_sum = mag;
    return val;
  };
  std::vector<double> logit(Tk);
  std::vector<uint8_t> seen(Tk);
  for (size_t h = 0; h < H; ++h) {
    const size_t g = h / (H / Hkv);  // the kv head of query head h
    for (size_t i : *rows) {
      const size_t row = h * Tq + i;
      const double* qi = qr.data() + row * D;
      const int64_t slot = QuerySlot(o, i);
      double mx = -kInf;
      for (size_t j = 0; j < Tk; ++j) {
        seen[j] = Visible(o, h, i, j);
        if (!seen[j]) continue;
        ++res.visible_keys[row];
        const int64_t rel = int64_t(j) - slot;
        const double* kj = kr.data() + (g * Tk + j) * D;
        double s = 0, mag = 0;
        for (size_t e = 0; e < D; ++e) {
          s += qi[e] * kj[e];
          mag += std::abs(qi[e] * kj[e]);
        }
        if (o.shaw_k) {
          for (size_t e = 0; e < D; ++e) {
            const double a = o.shaw_k[shaw_row(rel) * D + e];
            s += qi[e] * a;
            mag += std::abs(qi[e] * a);
          }
        }
        s *= scale;
        mag *= scale;
        auto add = [&](double b) {
          s += b;
          mag += std::abs(b);
        };
        if (o.alibi_slopes) add(AlibiTerm(o.alibi_slopes[h], rel));
        if (o.t5_table) {
          const T5BucketRange b = T5Bucket(rel, o.t5_buckets, o.t5_max_distance,
                                           o.t5_bidirectional);
          if (b.edge()) res.t5_edge[row] = 1;
          add(o.t5_table[size_t(b.hi) * H + h]);
        }
        if (o.bias) add(o.bias[row * Tk + j]);
        logit[j] = s;
        mx = std::max(mx, s);
        res.logit_mag[row] = std::max(res.logit_mag[row], mag);
        for (size_t e = 0; e < D; ++e) {
          double abs_sum = 0;
          const double val = value(g, j, rel, e, &abs_sum);
          res.value_max[row] = std::max(res.value_max[row], std::abs(val));
          res.value_abs_max[row] = std::max(res.value_abs_max[row], abs_sum);
        }
      }
      // No visible key (or none with a logit above -inf): zeros.
      if (mx == -kInf) continue;
      double sum = 0;
      for (size_t j = 0; j < Tk; ++j) {
        if (seen[j]) sum += std::exp(logit[j] - mx);
      }
      for (size_t j = 0; j < Tk; ++j) {
        if (!seen[j]) continue;
        const double p = std::exp(logit[j] - mx) / sum;
        if (with_weights) res.weights[row * Tk + j] = p;
        const int64_t rel = int64_t(j) - slot;
        for (size_t e = 0; e < D; ++e) {
          res.out[row * D + e] += p * value(g, j, rel, e, nullptr);
        }
      }
    }
  }
  return res;
}

AttentionResult Attention(const AttentionOptions& o,
                          const std::vector<float>& q,
                          const std::vector<float>& k,
                          const std::vector<float>& v,
                          const std::vector<size_t>* rows, bool with_weights) {
  const RotatedQK r = RotateQK(o, q, k, Positions(o));
  return AttentionOnRotated(o, r.q, r.k, v, rows, with_weights);
}

}  // namespace ref
}  // namespace posenc
