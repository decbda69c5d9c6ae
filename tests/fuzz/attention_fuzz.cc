// libFuzzer target for Attention and KvCache (Append in chunks + Attend)
// with fuzzer-chosen small shapes (heads, kv heads, Tq, Tk, D <= 32),
// flags (causal, window, key mask, query offset, ALiBi, T5, Shaw, additive
// bias with -inf entries, weights output, RoPE / xPos with layout, partial
// rotary, default / linear / ntk scaling and explicit or mask-derived
// positions) and values. The outcome is either an error with a message, or:
//   - with bounded finite inputs, the output (and the weights) match a
//     float64 reference written here from attention.h and docs/formulas.md
//     (#rope, #alibi, #t5-relative-bias, #shaw-relative-positions,
//     #attention-kernel), within tol = max|v| * (4 delta + 1e-5),
//     delta = 4 eps32 (D + 8) * (the row's largest sum of |logit terms|),
//     and contain no NaN;
//   - with any inputs (NaN, inf, huge), rows with no visible key are exactly
//     zero.
// Anything else traps. `good` inputs are valid by construction and must be
// accepted; `bad` ones draw parameters from wider ranges.
//   node tools/fuzz.mjs 60        (every target; build: tools/build.mjs fuzz)
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "fuzz_check.h"
#include "ops/attention.h"
#include "ops/kv_cache.h"

namespace {

using posenc::AttentionOptions;
using posenc::RopeScalingType;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps32 = 5.96e-8;

// xorshift64*: bulk values from a fuzzer-chosen seed.
struct Rng {
  uint64_t s;
  float Uniform(float amp) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    const uint64_t x = s * 0x2545F4914F6CDD1Dull;
    return amp * static_cast<float>((x >> 40) * (2.0 / (1u << 24)) - 1.0);
  }
};

// Everything one run needs; buffers stay alive while `o` points into them.
struct Case {
  AttentionOptions o;
  bool good = true;     // valid by construction: must be accepted
  bool bounded = true;  // finite inputs of bounded size: compare numerics
  bool use_cache = false;
  std::vector<size_t> chunks;  // KvCache appends (sum = Tk)
  std::vector<float> q, k, v, slopes, t5, shaw_k, shaw_v, bias, weights;
  std::vector<uint8_t> mask;
  std::vector<int32_t> q_positions, k_positions;
};

// Fills `x` from the rng, then lets the fuzzer overwrite a few entries:
// bounded values, or (unbounded mode) any float bit pattern.
void Fill(FuzzedDataProvider& p, Rng& rng, float amp, bool bounded,
          std::vector<float>* x, size_t n) {
  x->resize(n);
  for (float& e : *x) e = rng.Uniform(amp);
  if (n == 0) return;
  const int overrides = p.ConsumeIntegralInRange<int>(0, 3);
  for (int t = 0; t < overrides; ++t) {
    const size_t i = p.ConsumeIntegralInRange<size_t>(0, n - 1);
    if (bounded) {
      (*x)[i] = p.ConsumeFloatingPointInRange<float>(-amp, amp);
    } else {
      const uint32_t bits = p.ConsumeIntegral<uint32_t>();
      std::memcpy(&(*x)[i], &bits, 4);
    }
  }
}

void Build(FuzzedDataProvider& p, Case* c) {
  AttentionOptions& o = c->o;
  const bool good = c->good = p.ConsumeIntegralInRange<int>(0, 7) != 0;
  c->bounded = p.ConsumeIntegralInRange<int>(0, 3) != 0;
  Rng rng{p.ConsumeIntegral<uint64_t>() | 1};
  const float amp =
      c->bounded ? p.PickValueInArray({0.5f, 1.0f, 2.0f, 4.0f}) : 1e30f;
  if (good) {
    o.Hkv = p.ConsumeIntegralInRange<size_t>(1, 3);
    o.H = o.Hkv * p.ConsumeIntegralInRange<size_t>(1, 3);
    o.D = p.ConsumeBool() ? p.PickValueInArray({4, 8, 16, 32})
                          : p.ConsumeIntegralInRange<size_t>(1, 32);
    o.Tk = p.ConsumeIntegralInRange<size_t>(0, 40);
    o.query_offset =
        p.ConsumeBool() ? -1 : p.ConsumeIntegralInRange<int>(0, 48);
    o.Tq = p.ConsumeIntegralInRange<size_t>(0, o.query_offset < 0 ? o.Tk : 24);
    o.window = p.ConsumeBool() ? 0 : p.ConsumeIntegralInRange<int>(1, 40);
    o.scale =
        p.ConsumeBool() ? 0.0f : p.ConsumeFloatingPointInRange(0.0f, 2.0f);
  } else {
    o.H = p.ConsumeIntegralInRange<size_t>(0, 6);
    o.Hkv = p.ConsumeIntegralInRange<size_t>(0, 4);
    o.D = p.ConsumeIntegralInRange<size_t>(0, 33);
    o.Tk = p.ConsumeIntegralInRange<size_t>(0, 40);
    o.Tq = p.ConsumeIntegralInRange<size_t>(0, 24);
    o.query_offset = p.ConsumeIntegralInRange<int>(-3, 50);
    o.window = p.ConsumeIntegralInRange<int>(-2, 40);
    o.scale = p.PickValueInArray({0.0f, -1.0f, 0.5f,
                                  std::numeric_limits<float>::quiet_NaN(),
                                  std::numeric_limits<float>::infinity()});
  }
  if (o.H > 0 && o.Hkv > 0 && o.H % o.Hkv != 0) o.Hkv = good ? o.H : o.Hkv;
  o.causal = p.ConsumeBool();
  const size_t H = o.H, Hkv = o.Hkv, Tq = o.Tq, Tk = o.Tk, D = o.D;

  if (p.ConsumeBool()) {
    c->mask.resize(Tk);
    for (uint8_t& m : c->mask) m = p.ConsumeIntegralInRange<uint8_t>(0, 3) != 0;
    o.key_mask = c->mask.data();
  }
  if (p.ConsumeBool()) {  // ALiBi slopes, any sign
    Fill(p, rng, c->bounded ? 1.0f : amp, c->bounded, &c->slopes, H);
    o.alibi_slopes = c->slopes.data();
  }
  if (p.ConsumeBool()) {  // T5
    o.t5_bidirectional = p.ConsumeBool();
    o.t5_buckets = p.ConsumeIntegralInRange<int32_t>(good ? 4 : 0, 40);
    const int32_t per_sign =
        o.t5_bidirectional ? o.t5_buckets / 2 : o.t5_buckets;
    o.t5_max_distance = good ? per_sign / 2 + p.ConsumeIntegralInRange(1, 100)
                             : p.ConsumeIntegralInRange(0, 64);
    Fill(p, rng, amp, c->bounded, &c->t5,
         static_cast<size_t>(o.t5_buckets > 0 ? o.t5_buckets : 0) * H);
    o.t5_table = c->t5.data();
  }
  if (p.ConsumeBool()) {  // Shaw
    o.shaw_clip = p.ConsumeIntegralInRange<int32_t>(good ? 0 : -2, 8);
    const size_t rows = o.shaw_clip >= 0 ? 2 * o.shaw_clip + 1 : 0;
    Fill(p, rng, amp, c->bounded, &c->shaw_k, rows * D);
    o.shaw_k = c->shaw_k.data();
    if (p.ConsumeBool()) {
      Fill(p, rng, amp, c->bounded, &c->shaw_v, rows * D);
      o.shaw_v = c->shaw_v.data();
    }
  }
  if (p.ConsumeBool()) {  // additive bias, some entries -inf (a mask)
    Fill(p, rng, amp, c->bounded, &c->bias, H * Tq * Tk);
    const int holes = p.ConsumeIntegralInRange<int>(0, 8);
    for (int t = 0; t < holes && !c->bias.empty(); ++t) {
      c->bias[p.ConsumeIntegralInRange<size_t>(0, c->bias.size() - 1)] =
          -std::numeric_limits<float>::infinity();
    }
    o.bias = c->bias.data();
  }
  if (p.ConsumeBool()) {
    c->weights.assign(H * Tq * Tk, -1.0f);
    o.weights = c->weights.data();
  }
  if (p.ConsumeBool() && (!good || D >= 2)) {  // RoPE / xPos
    posenc::AttentionRope& r = o.rope;
    r.enabled = true;
    r.freq.head_dim = static_cast<int>(D);
    r.freq.rotary_dim =
        good ? (p.ConsumeBool() ? 2 * p.ConsumeIntegralInRange<int>(1, D / 2)
                                : (D % 2 ? static_cast<int>(D - 1) : 0))
             : p.ConsumeIntegralInRange<int>(-2, 34);
    r.freq.base = good ? std::exp(p.ConsumeFloatingPointInRange(0.7, 14.0))
                       : p.PickValueInArray({0.5, 1.0, 100.0, kInf, -2.0});
    r.freq.scaling.type = static_cast<RopeScalingType>(
        p.ConsumeIntegralInRange<int>(0, good ? 2 : 3));
    r.freq.scaling.factor = p.ConsumeFloatingPointInRange(1.0, 16.0);
    if (good && r.freq.scaling.type == RopeScalingType::kNtk &&
        posenc::EffectiveRotaryDim(r.freq) < 4) {
      r.freq.scaling.type = RopeScalingType::kLinear;
    }
    r.layout = p.ConsumeBool() ? posenc::RopeLayout::kHalf
                               : posenc::RopeLayout::kInterleaved;
    r.xpos = p.ConsumeIntegralInRange<int>(0, 3) == 0;
    r.xpos_scale_base = good ? p.ConsumeFloatingPointInRange(16.0, 1024.0)
                             : p.PickValueInArray({0.0, -1.0, 64.0});
    const int which = p.ConsumeIntegralInRange<int>(0, 3);
    if (which == 1) {
      c->k_positions.resize(Tk);
      for (int32_t& x : c->k_positions) x = p.ConsumeIntegralInRange(-4, 200);
      r.k_positions = c->k_positions.data();
    } else if (which == 2) {
      r.positions_from_mask = true;
    }
    if (p.ConsumeBool()) {
      c->q_positions.resize(Tq);
      for (int32_t& x : c->q_positions) x = p.ConsumeIntegralInRange(-4, 200);
      r.q_positions = c->q_positions.data();
    }
  }
  // The cache derives key positions from appends (explicit or running).
  c->use_cache = p.ConsumeBool() && !o.rope.positions_from_mask;
  if (c->use_cache) {
    for (size_t left = Tk; left > 0;) {
      const size_t n = p.ConsumeIntegralInRange<size_t>(1, left);
      c->chunks.push_back(n);
      left -= n;
    }
  }
  Fill(p, rng, amp, c->bounded, &c->q, H * Tq * D);
  Fill(p, rng, amp, c->bounded, &c->k, Hkv * Tk * D);
  Fill(p, rng, amp, c->bounded, &c->v, Hkv * Tk * D);
}

// ---- float64 reference --------------------------------------------------

// T5 bucket of rel = key - query, float32 log term as Hugging Face computes.
int64_t RefT5Bucket(int64_t rel, int64_t buckets, int64_t max_distance,
                    bool bidirectional) {
  int64_t base = 0, nb = buckets, n;
  if (bidirectional) {
    nb = buckets / 2;
    if (rel > 0) base = nb;
    n = rel < 0 ? -rel : rel;
  } else {
    n = rel < 0 ? -rel : 0;
  }
  const int64_t exact = nb / 2;
  if (n < exact) return base + n;
  const float ratio = static_cast<float>(n) / static_cast<float>(exact);
  const float denom = static_cast<float>(
      std::log(static_cast<double>(max_distance) / static_cast<double>(exact)));
  const float t =
      std::log(ratio) / denom * static_cast<float>(nb - exact);  // >= 0
  const int64_t large = exact + static_cast<int64_t>(t);
  return base + (large < nb - 1 ? large : nb - 1);
}

// Positions of queries and keys (attention.h: explicit, from the mask as
// cumsum - 1 with pads at 1, or the slot index; queries past the keys
// continue from the last key's position, or from the real-token count).
void RefPositions(const Case& c, int64_t qoff, std::vector<int64_t>* qpos,
                  std::vector<int64_t>* kpos) {
  const AttentionOptions& o = c.o;
  const bool from_mask =
      o.rope.positions_from_mask && o.key_mask && !o.rope.k_positions;
  int64_t real = 0;
  kpos->assign(o.Tk, 0);
  for (size_t j = 0; j < o.Tk; ++j) {
    if (o.rope.k_positions) {
      (*kpos)[j] = o.rope.k_positions[j];
    } else if (from_mask) {
      (*kpos)[j] = o.key_mask[j] ? real++ : 1;
    } else {
      (*kpos)[j] = static_cast<int64_t>(j);
    }
  }
  const int64_t Tk = static_cast<int64_t>(o.Tk);
  qpos->assign(o.Tq, 0);
  for (size_t i = 0; i < o.Tq; ++i) {
    const int64_t slot = qoff + static_cast<int64_t>(i);
    if (o.rope.q_positions) {
      (*qpos)[i] = o.rope.q_positions[i];
    } else if (slot < Tk) {
      (*qpos)[i] = (*kpos)[slot];
    } else if (from_mask) {
      (*qpos)[i] = real + (slot - Tk);
    } else {
      (*qpos)[i] = Tk > 0 ? (*kpos)[Tk - 1] + (slot - Tk + 1) : slot;
    }
  }
}

// Rotates x[0, D) in place at position pos (RoPE, then the xPos scale:
// zeta_i^(+-pos / scale_base)); inverse frequencies stored as float32.
void RefRotate(const posenc::AttentionRope& rope, size_t D, int64_t pos,
               bool key, double* x) {
  const posenc::RopeFrequencyConfig& f = rope.freq;
  const int r = f.rotary_dim == 0 ? static_cast<int>(D) : f.rotary_dim;
  const double s = f.scaling.factor;
  double base = f.base;
  if (f.scaling.type == RopeScalingType::kNtk) {
    base *= std::pow(s, r / (r - 2.0));
  }
  for (int i = 0; i < r / 2; ++i) {
    double inv = std::pow(base, -2.0 * i / r);
    if (f.scaling.type == RopeScalingType::kLinear) inv /= s;
    const double theta = static_cast<double>(pos) * static_cast<float>(inv);
    const size_t a = rope.layout == posenc::RopeLayout::kHalf ? i : 2 * i;
    const size_t b =
        rope.layout == posenc::RopeLayout::kHalf ? i + r / 2 : a + 1;
    double mag = 1.0;
    if (rope.xpos) {
      const double zeta = (2.0 * i + 0.4 * r) / (1.4 * r);
      mag = std::pow(zeta, (key ? -1.0 : 1.0) * pos / rope.xpos_scale_base);
    }
    const double xa = x[a], xb = x[b];
    x[a] = mag * (xa * std::cos(theta) - xb * std::sin(theta));
    x[b] = mag * (xb * std::cos(theta) + xa * std::sin(theta));
  }
}

void CheckAgainstReference(const Case& c, const std::vector<float>& out) {
  const AttentionOptions& o = c.o;
  const size_t H = o.H, Tq = o.Tq, Tk = o.Tk, D = o.D;
  const size_t group = H / o.Hkv;
  const int64_t qoff = o.query_offset < 0
                           ? static_cast<int64_t>(Tk) - static_cast<int64_t>(Tq)
                           : o.query_offset;
  const double scale =
      o.scale != 0.0f ? o.scale : 1.0 / std::sqrt(static_cast<double>(D));
  std::vector<int64_t> qpos, kpos;
  RefPositions(c, qoff, &qpos, &kpos);
  const int64_t clip = o.shaw_clip;
  std::vector<double> qi(D), kj(D), logit(Tk), want(D);
  std::vector<uint8_t> visible(Tk);
  for (size_t h = 0; h < H; ++h) {
    const size_t g = h / group;
    for (size_t i = 0; i < Tq; ++i) {
      const float* got = out.data() + (h * Tq + i) * D;
      for (size_t e = 0; e < D; ++e) qi[e] = c.q[(h * Tq + i) * D + e];
      if (o.rope.enabled) RefRotate(o.rope, D, qpos[i], false, qi.data());
      const int64_t slot = qoff + static_cast<int64_t>(i);
      double row_max = -kInf, terms = 0.0, vmax = 0.0;
      bool any = false;
      for (size_t j = 0; j < Tk; ++j) {
        const int64_t rel = static_cast<int64_t>(j) - slot;
        visible[j] = !(o.causal && rel > 0) &&
                     !(o.window > 0 && -rel >= o.window) &&
                     !(o.key_mask && !o.key_mask[j]);
        for (size_t e = 0; e < D; ++e) kj[e] = c.k[(g * Tk + j) * D + e];
        if (o.rope.enabled) RefRotate(o.rope, D, kpos[j], true, kj.data());
        double dot = 0.0, mag = 0.0;
        for (size_t e = 0; e < D; ++e) {
          dot += qi[e] * kj[e];
          mag += std::abs(qi[e] * kj[e]);
        }
        double s = scale * dot;
        mag *= scale;
        const int64_t b =
            rel < -clip ? 0 : (rel > clip ? 2 * clip : rel + clip);
        if (o.shaw_k) {
          double sk = 0.0;
          for (size_t e = 0; e < D; ++e) {
            sk += qi[e] * o.shaw_k[b * D + e];
            mag += scale * std::abs(qi[e] * o.shaw_k[b * D + e]);
          }
          s += scale * sk;
        }
        if (o.alibi_slopes) {
          const double a = o.alibi_slopes[h] *
                           static_cast<double>(o.causal ? rel : -std::abs(rel));
          s += a;
          mag += std::abs(a);
        }
        if (o.t5_table) {
          const double t =
              o.t5_table[RefT5Bucket(rel, o.t5_buckets, o.t5_max_distance,
                                     o.t5_bidirectional) *
                             H +
                         h];
          s += t;
          mag += std::abs(t);
        }
        if (o.bias) {
          const double bb = o.bias[(h * Tq + i) * Tk + j];
          if (bb == -kInf) visible[j] = 0;
          if (visible[j]) {
            s += bb;
            mag += std::abs(bb);
          }
        }
        logit[j] = s;
        if (!visible[j]) continue;
        any = true;
        row_max = s > row_max ? s : row_max;
        terms = mag > terms ? mag : terms;
        double vm = 0.0;
        for (size_t e = 0; e < D; ++e) {
          double x = std::abs(c.v[(g * Tk + j) * D + e]);
          if (o.shaw_v) x += std::abs(o.shaw_v[b * D + e]);
          vm = x > vm ? x : vm;
        }
        vmax = vm > vmax ? vm : vmax;
      }
      if (!any) {  // fully masked: exactly zero, whatever the inputs
        for (size_t e = 0; e < D; ++e) CHECK(got[e] == 0.0f);
        if (o.weights) {
          for (size_t j = 0; j < Tk; ++j) {
            CHECK(o.weights[(h * Tq + i) * Tk + j] == 0.0f);
          }
        }
        continue;
      }
      if (!c.bounded) continue;
      double sum = 0.0;
      for (size_t j = 0; j < Tk; ++j) {
        if (visible[j]) sum += std::exp(logit[j] - row_max);
      }
      for (size_t e = 0; e < D; ++e) want[e] = 0.0;
      const double delta = 4.0 * kEps32 * (D + 8) * terms;
      for (size_t j = 0; j < Tk; ++j) {
        const double pj = visible[j] ? std::exp(logit[j] - row_max) / sum : 0.0;
        if (o.weights) {
          const float w = o.weights[(h * Tq + i) * Tk + j];
          CHECK(visible[j] ? std::abs(w - pj) <= 4.0 * delta + 1e-6
                           : w == 0.0f);
        }
        if (!visible[j]) continue;
        const int64_t rel = static_cast<int64_t>(j) - slot;
        const int64_t b =
            rel < -clip ? 0 : (rel > clip ? 2 * clip : rel + clip);
        for (size_t e = 0; e < D; ++e) {
          double x = c.v[(g * Tk + j) * D + e];
          if (o.shaw_v) x += o.shaw_v[b * D + e];
          want[e] += pj * x;
        }
      }
      const double tol = vmax * (4.0 * delta + 1e-5) + 1e-30;
      for (size_t e = 0; e < D; ++e) {
        CHECK(!std::isnan(got[e]) && std::abs(got[e] - want[e]) <= tol);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider p(data, size);
  Case c;
  Build(p, &c);
  const AttentionOptions& o = c.o;
  std::vector<float> out(o.H * o.Tq * o.D, -7.0f);
  posenc::Status st;
  if (c.use_cache) {
    st = posenc::KvCache::Validate(o.Hkv, o.D, o.rope);
    if (st.ok()) {
      posenc::KvCache cache(o.Hkv, o.D, o.rope);
      size_t t0 = 0;
      for (size_t n : c.chunks) {
        // Chunk [Hkv, n, D] of k and v; explicit positions if any.
        std::vector<float> kc(o.Hkv * n * o.D), vc(kc.size());
        for (size_t g = 0; g < o.Hkv; ++g) {
          std::memcpy(kc.data() + g * n * o.D,
                      c.k.data() + (g * o.Tk + t0) * o.D,
                      n * o.D * sizeof(float));
          std::memcpy(vc.data() + g * n * o.D,
                      c.v.data() + (g * o.Tk + t0) * o.D,
                      n * o.D * sizeof(float));
        }
        const int32_t* pos =
            o.rope.k_positions ? o.rope.k_positions + t0 : nullptr;
        st = cache.Append(kc.data(), vc.data(), n, pos);
        if (!st.ok()) break;
        t0 += n;
      }
      if (st.ok())
        st = cache.Attend(o, c.q.data(), o.rope.q_positions, out.data());
    }
  } else {
    st = posenc::Attention(o, c.q.data(), c.k.data(), c.v.data(), out.data());
  }
  if (!st.ok()) {
    CHECK(!st.message().empty() && !(c.good && c.bounded));
    return 0;
  }
  CheckAgainstReference(c, out);
  return 0;
}
