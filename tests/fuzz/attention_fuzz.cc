// libFuzzer target for Attention and KvCache (Append in chunks + Attend)
// with fuzzer-chosen small shapes (heads, kv heads, Tq, Tk, D <= 32),
// flags (causal, window, key mask, query offset, ALiBi, T5, Shaw, additive
// bias with -inf entries, weights output, RoPE / xPos with layout, partial
// rotary, default / linear / ntk scaling and explicit or mask-derived
// positions) and values. The outcome is either an error with a message, or:
//   - with bounded finite inputs, the output (and the weights) match the
//     float64 reference of tests/cpp/reference/attention.h (written from
//     attention.h and docs/formulas.md; it derives the RoPE positions from
//     the options itself), within tol = max|v| * (4 delta + 1e-5),
//     delta = 4 eps32 (D + 8) * (the row's largest sum of |logit terms|),
//     and contain no NaN (rows whose T5 bucket sits on a float32 rounding
//     edge are skipped);
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
#include "reference/attention.h"

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

// ---- comparison with the float64 reference ------------------------------

// The reference (tests/cpp/reference/attention.h) derives every position
// from the options on its own (explicit, from the mask, the slots, past the
// keys), never from the code under test; with the cache the keys sit at the
// positions they were appended at, which is the same rule (explicit, or the
// running count = the slot).
void CheckAgainstReference(const Case& c, const std::vector<float>& out) {
  const AttentionOptions& o = c.o;
  const size_t H = o.H, Tq = o.Tq, Tk = o.Tk, D = o.D;
  const posenc::ref::AttentionResult want =
      posenc::ref::Attention(o, c.q, c.k, c.v);
  for (size_t h = 0; h < H; ++h) {
    for (size_t i = 0; i < Tq; ++i) {
      const size_t row = h * Tq + i;
      const float* got = out.data() + row * D;
      if (want.visible_keys[row] == 0) {
        // Fully masked: exactly zero, whatever the inputs.
        for (size_t e = 0; e < D; ++e) CHECK(got[e] == 0.0f);
        if (o.weights) {
          for (size_t j = 0; j < Tk; ++j)
            CHECK(o.weights[row * Tk + j] == 0.0f);
        }
        continue;
      }
      // Numbers only for bounded inputs, and not where a T5 bucket sits on a
      // float32 rounding edge (either neighbouring bucket is right there).
      if (!c.bounded || want.t5_edge[row]) continue;
      const double delta = 4.0 * kEps32 * (D + 8) * want.logit_mag[row];
      if (o.weights) {
        for (size_t j = 0; j < Tk; ++j) {
          const float w = o.weights[row * Tk + j];
          CHECK(posenc::ref::Visible(o, h, i, j)
                    ? std::abs(w - want.weights[row * Tk + j]) <=
                          4.0 * delta + 1e-6
                    : w == 0.0f);
        }
      }
      const double tol = want.value_abs_max[row] * (4.0 * delta + 1e-5) + 1e-30;
      for (size_t e = 0; e < D; ++e) {
        CHECK(!std::isnan(got[e]) &&
              std::abs(got[e] - want.out[row * D + e]) <= tol);
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
