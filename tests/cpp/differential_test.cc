// Differential tests: thousands of seeded random cases (shapes, encodings,
// masks, values) per run, each compared with a float64 reference written here
// from docs/formulas.md (never by calling the code under test). Runs per
// Highway target natively and in both wasm builds, so
// every flavour is checked against the same references on the same cases.
//
// Seed: kDefaultSeed, or POSENC_DIFF_SEED. Every case has a global index and
// its own generator derived from (seed, index), so one case replays alone:
//   POSENC_DIFF_SEED=<seed> POSENC_DIFF_CASE=<index> posenc_tests \
//     --gtest_filter='*Differential*'
// POSENC_DIFF_VERBOSE=1 prints each case index before it runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ops/alibi.h"
#include "ops/attention.h"
#include "ops/kv_cache.h"
#include "ops/rope_apply.h"
#include "ops/shaw.h"
#include "ops/sinusoidal.h"
#include "ops/t5.h"
#include "ops/targets.h"
#include "ops/xpos.h"
#include "test_util.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
// getenv() in Emscripten sees a synthetic environment, not the shell's: read
// process.env (the tests run under Node) into buf; returns -1 when unset.
// (== rather than ===: clang-format would split the latter.)
EM_JS(int, PosencNodeGetEnv, (const char* name, char* buf, int len), {
  if (typeof process == 'undefined' || !process.env) return -1;
  var v = process.env[UTF8ToString(name)];
  if (v == null) return -1;
  stringToUTF8(v, buf, len);
  return 0;
});
#endif

namespace posenc {
namespace {

// ---------------------------------------------------------------------------
// Tolerances. Each is the float32 error budget of the kernel, stated so that a
// wrong formula (an O(1) error) cannot hide in it.

// RoPE: the contract keeps the angle error below 1e-6 rad for any int32
// position and cos/sin are float32 SIMD (a few ulp), so a rotated pair is off
// by at most ~1.3e-6 * (|a| + |b|) * magnitude; 2e-6 leaves rounding room.
constexpr double kRopeAbs = 2e-6;
// Relative rounding of the products (magnitude, xPos scale, a cos - b sin).
constexpr double kRopeRel = 1e-6;
// Attention logits: float32 dot products of rotated q and k (FMA order
// differs per target), the float32 scale folded into q and float32 biases:
// at most ~4e-6 of the row's logit magnitude M = scale * sum |q_e k_e| +
// |biases|. Softmax turns a logit error delta into at most 2 delta relative
// error per probability and 2 delta * max|v| on the output.
constexpr double kLogitRel = 4e-6;
// The softmax sum and p * v accumulation in float32 (polynomial exp, 1.9e-7)
// over <= a few hundred keys, relative to max|v| (outputs can cancel).
constexpr double kOutAbs = 2e-5;
constexpr double kOutRel = 1e-4;
// Probabilities: absolute floor for tiny weights, relative otherwise.
constexpr double kWeightAbs = 2e-6;
constexpr double kWeightRel = 1e-4;
// Sinusoidal table: a double angle reduced, then float32 SIMD cos/sin.
constexpr double kSinusoidalAbs = 2e-6;
// Float32 sums of n terms (Shaw logits and values): the classic bound
// n * 2^-24 of the sum of magnitudes, plus one rounding.
constexpr double kUlp = 1.0 / (1 << 24);

// ---------------------------------------------------------------------------
// Seed and case selection.

constexpr uint64_t kDefaultSeed = 20240611;

bool GetEnv(const char* name, std::string* value) {
#if defined(__EMSCRIPTEN__)
  char buf[64];
  if (PosencNodeGetEnv(name, buf, sizeof(buf)) != 0) return false;
  *value = buf;
  return true;
#else
  const char* v = std::getenv(name);
  if (v == nullptr) return false;
  *value = v;
  return true;
#endif
}

uint64_t Seed() {
  std::string s;
  if (!GetEnv("POSENC_DIFF_SEED", &s) || s.empty()) return kDefaultSeed;
  return std::strtoull(s.c_str(), nullptr, 10);
}

// -1: all cases; else the one global case index to run.
int64_t OnlyCase() {
  std::string s;
  if (!GetEnv("POSENC_DIFF_CASE", &s) || s.empty()) return -1;
  return std::strtoll(s.c_str(), nullptr, 10);
}

// splitmix64: decorrelates (seed, index) into one generator per case.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Deterministic draws (integer arithmetic only, so native and wasm generate
// bit-identical cases).
class Draw {
 public:
  Draw(uint64_t seed, int64_t index)
      : rng_(Mix(seed ^ Mix(static_cast<uint64_t>(index)))) {}
  // Uniform integer in [lo, hi].
  int64_t Int(int64_t lo, int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<int64_t>(rng_.Next() %
                                     static_cast<uint64_t>(hi - lo + 1));
  }
  bool OneIn(int n) { return Int(0, n - 1) == 0; }
  // Uniform in [lo, hi).
  double Real(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(rng_.Next() >> 11) *
                    (1.0 / 9007199254740992.0);
  }
  std::vector<float> Vector(size_t n, float magnitude = 1.0f) {
    std::vector<float> v = rng_.Vector(n);
    for (float& x : v) x *= magnitude;
    return v;
  }
  // Sequence lengths: T = 1 often, short, around lane multiples, longer.
  size_t Length(size_t max) {
    if (max <= 2) return static_cast<size_t>(Int(1, std::max<int64_t>(1, max)));
    switch (Int(0, 9)) {
      case 0:
      case 1:
        return 1;
      case 2:
      case 3:
      case 4:
        return static_cast<size_t>(Int(2, std::min<int64_t>(20, max)));
      case 5: {  // a lane multiple +- 1
        const int64_t m = 8 * Int(1, 8) + Int(-1, 1);
        return static_cast<size_t>(std::min<int64_t>(m, max));
      }
      default:
        return static_cast<size_t>(Int(1, max));
    }
  }

 private:
  test::Rng rng_;
};

// ---------------------------------------------------------------------------
// float64 references, from docs/formulas.md.

// docs/formulas.md#rope-scaling: inverse frequencies and attention factor
// for context `ctx` (longest position + 1).
std::vector<double> RefInvFreq(const RopeFrequencyConfig& c, int64_t ctx,
                               double* factor) {
  const int r = c.rotary_dim ? c.rotary_dim : c.head_dim;
  const RopeScaling& s = c.scaling;
  // d / (d - 2) of NTK; r = 2 has no finite exponent (no UB dividing by 0).
  const double ex =
      r > 2 ? r / (r - 2.0) : std::numeric_limits<double>::infinity();
  double base = c.base;
  if (s.type == RopeScalingType::kNtk) base = c.base * std::pow(s.factor, ex);
  if (s.type == RopeScalingType::kDynamic) {
    const double M = s.max_position_embeddings;
    const double T = std::max(static_cast<double>(ctx), M);
    base = c.base * std::pow(s.factor * T / M - (s.factor - 1.0), ex);
  }
  std::vector<double> f(r / 2);
  for (int i = 0; i < r / 2; ++i) f[i] = 1.0 / std::pow(base, 2.0 * i / r);
  *factor = 1.0;
  auto m = [](double sc, double k) {
    return sc <= 1.0 ? 1.0 : 0.1 * k * std::log(sc) + 1.0;
  };
  switch (s.type) {
    case RopeScalingType::kLinear:
      for (double& x : f) x /= s.factor;
      break;
    case RopeScalingType::kYarn: {
      const double L = s.original_max_position_embeddings;
      auto corr = [&](double k) {
        return r * std::log(L / (2.0 * test::kPi * k)) /
               (2.0 * std::log(c.base));
      };
      double low = corr(s.beta_fast), high = corr(s.beta_slow);
      if (s.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
      }
      low = std::max(low, 0.0);
      high = std::min(high, r - 1.0);
      if (high == low) high += 0.001;
      for (int i = 0; i < r / 2; ++i) {
        const double ramp = std::clamp((i - low) / (high - low), 0.0, 1.0);
        f[i] = f[i] / s.factor * ramp + f[i] * (1.0 - ramp);
      }
      if (s.has_attention_factor) {
        *factor = s.attention_factor;
      } else if (s.mscale != 0.0 && s.mscale_all_dim != 0.0) {
        *factor = m(s.factor, s.mscale) / m(s.factor, s.mscale_all_dim);
      } else {
        *factor = m(s.factor, 1.0);
      }
      break;
    }
    case RopeScalingType::kLongrope: {
      const int64_t L = s.original_max_position_embeddings;
      const std::vector<double>& ext = ctx > L ? s.long_factor : s.short_factor;
      for (int i = 0; i < r / 2; ++i) {
        f[i] = 1.0 / (ext[i] * std::pow(base, 2.0 * i / r));
      }
      *factor = s.has_attention_factor ? s.attention_factor
                : s.factor <= 1.0
                    ? 1.0
                    : std::sqrt(1.0 + std::log(s.factor) / std::log(double(L)));
      break;
    }
    case RopeScalingType::kLlama3: {
      const double L = s.original_max_position_embeddings;
      const double low_wl = L / s.low_freq_factor;
      const double high_wl = L / s.high_freq_factor;
      for (double& x : f) {
        const double wl = 2.0 * test::kPi / x;
        if (wl < high_wl) continue;
        if (wl > low_wl) {
          x /= s.factor;
        } else {
          const double smooth = (L / wl - s.low_freq_factor) /
                                (s.high_freq_factor - s.low_freq_factor);
          x = (1.0 - smooth) * x / s.factor + smooth * x;
        }
      }
      break;
    }
    default:
      break;
  }
  return f;
}

struct RefRopeSpec {
  RopeFrequencyConfig freq;
  RopeLayout layout = RopeLayout::kHalf;
  bool pure = false;  // no attention factor (a re-rotation)
  bool xpos = false;
  double xpos_scale_base = 512.0;
  int64_t xpos_center = 0;
  bool xpos_key = false;
};

// docs/formulas.md#rope (+ #xpos): x: [H, T, d] rotated at pos with the
// frequencies of context ctx (float32 frequencies, as the contract stores
// them). mag_out: [H, T, d] the factor (|a| + |b|) * magnitude of each
// element's pair, for the tolerance (|x| for pass-through elements).
std::vector<double> RefRope(const RefRopeSpec& o, const std::vector<float>& x,
                            size_t H, size_t T, const std::vector<int64_t>& pos,
                            int64_t ctx, std::vector<double>* mag_out) {
  const size_t d = static_cast<size_t>(o.freq.head_dim);
  const size_t r = o.freq.rotary_dim ? o.freq.rotary_dim : d, h = r / 2;
  double af = 1.0;
  const std::vector<double> f = RefInvFreq(o.freq, ctx, &af);
  if (o.pure) af = 1.0;
  std::vector<double> out(x.begin(), x.end());
  if (mag_out) {
    mag_out->resize(x.size());
    for (size_t e = 0; e < x.size(); ++e) (*mag_out)[e] = std::abs(x[e]);
  }
  for (size_t hd = 0; hd < H; ++hd) {
    for (size_t t = 0; t < T; ++t) {
      const size_t row = (hd * T + t) * d;
      for (size_t i = 0; i < h; ++i) {
        const double ang =
            static_cast<double>(pos[t]) * static_cast<double>(float(f[i]));
        double mag = af;
        if (o.xpos) {
          const double zeta = (2.0 * i + 0.4 * r) / (1.4 * r);
          mag *= std::pow(zeta, (o.xpos_key ? -1.0 : 1.0) *
                                    double(pos[t] - o.xpos_center) /
                                    o.xpos_scale_base);
        }
        const size_t ia = o.layout == RopeLayout::kHalf ? i : 2 * i;
        const size_t ib = o.layout == RopeLayout::kHalf ? i + h : 2 * i + 1;
        const double a = x[row + ia], b = x[row + ib];
        out[row + ia] = mag * (a * std::cos(ang) - b * std::sin(ang));
        out[row + ib] = mag * (b * std::cos(ang) + a * std::sin(ang));
        if (mag_out) {
          (*mag_out)[row + ia] = (*mag_out)[row + ib] =
              mag * (std::abs(a) + std::abs(b));
        }
      }
    }
  }
  return out;
}

// ALiBi slopes (docs/formulas.md#alibi), the authors' recursive rule.
std::vector<double> RefSlopes(size_t n) {
  size_t c = 1;
  while (2 * c <= n) c *= 2;
  std::vector<double> s;
  for (size_t k = 0; k < c; ++k) s.push_back(std::pow(2.0, -8.0 * (k + 1) / c));
  if (c < n) {
    const std::vector<double> e = RefSlopes(2 * c);
    for (size_t k = 0; s.size() < n; k += 2) s.push_back(e[k]);
  }
  return s;
}

// T5 bucket (docs/formulas.md#t5-relative-bias) in float64. The reference
// implementation rounds the log term in float32; where the float64 value is
// within 1e-6 of an integer either bucket is right, so both candidates are
// returned.
std::pair<int32_t, int32_t> RefT5Bucket(int64_t rel, int32_t B, int32_t maxd,
                                        bool bidir) {
  int32_t base = 0, nb = B;
  int64_t n;
  if (bidir) {
    nb /= 2;
    if (rel > 0) base = nb;
    n = rel < 0 ? -rel : rel;
  } else {
    n = rel < 0 ? -rel : 0;
  }
  const int32_t me = nb / 2;
  if (n < me) return {base + int32_t(n), base + int32_t(n)};
  const double v =
      std::log(double(n) / me) / std::log(double(maxd) / me) * (nb - me);
  auto pick = [&](double x) {
    return base + int32_t(std::min<double>(nb - 1, me + std::floor(x)));
  };
  return {pick(std::max(0.0, v - 1e-6)), pick(v + 1e-6)};
}

// Attention (docs/formulas.md#attention-kernel) in float64 over
// already-rotated q (kq: [H, Tq, D]) and k (kr: [Hkv, Tk, D]); every logit
// materialised. tol_out / tol_w get the per-element tolerance derived from
// the row's logit magnitude.
struct RefAttentionResult {
  std::vector<double> out, weights, tol_out, tol_w;
};

RefAttentionResult RefAttention(const AttentionOptions& o,
                                const std::vector<double>& qr,
                                const std::vector<double>& kr,
                                const std::vector<float>& v) {
  const size_t H = o.H, Hkv = o.Hkv, Tq = o.Tq, Tk = o.Tk, D = o.D;
  const int64_t qoff =
      o.query_offset < 0 ? int64_t(Tk) - int64_t(Tq) : o.query_offset;
  const double scale = o.scale != 0 ? o.scale : 1.0 / std::sqrt(double(D));
  RefAttentionResult res;
  res.out.assign(H * Tq * D, 0.0);
  res.weights.assign(H * Tq * Tk, 0.0);
  res.tol_out.assign(H * Tq * D, 0.0);
  res.tol_w.assign(H * Tq * Tk, kWeightAbs);
  const int64_t c = o.shaw_clip;
  auto clip = [&](int64_t rel) { return std::clamp(rel, -c, c) + c; };
  for (size_t h = 0; h < H; ++h) {
    const size_t g = h / (H / Hkv);
    for (size_t i = 0; i < Tq; ++i) {
      const int64_t qp = int64_t(i) + qoff;
      const double* qi = qr.data() + (h * Tq + i) * D;
      std::vector<double> logit(Tk, -INFINITY);
      double mx = -INFINITY, magnitude = 0.0, vmax = 0.0;
      for (size_t j = 0; j < Tk; ++j) {
        const int64_t rel = int64_t(j) - qp;
        const bool visible = (!o.causal || rel <= 0) &&
                             (o.window == 0 || -rel < o.window) &&
                             (!o.key_mask || o.key_mask[j]);
        if (!visible) continue;
        const double* kj = kr.data() + (g * Tk + j) * D;
        double s = 0, mag = 0;
        for (size_t e = 0; e < D; ++e) {
          s += qi[e] * kj[e];
          mag += std::abs(qi[e] * kj[e]);
        }
        if (o.shaw_k) {
          for (size_t e = 0; e < D; ++e) {
            const double a = o.shaw_k[clip(rel) * D + e];
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
        if (o.alibi_slopes) {
          add(o.alibi_slopes[h] * double(o.causal ? rel : -std::llabs(rel)));
        }
        if (o.t5_table) {
          add(o.t5_table[size_t(RefT5Bucket(rel, o.t5_buckets,
                                            o.t5_max_distance,
                                            o.t5_bidirectional)
                                    .second) *
                             H +
                         h]);
        }
        if (o.bias) add(o.bias[(h * Tq + i) * Tk + j]);
        logit[j] = s;
        mx = std::max(mx, s);
        magnitude = std::max(magnitude, mag);
        for (size_t e = 0; e < D; ++e) {
          double val = v[(g * Tk + j) * D + e];
          if (o.shaw_v) val += o.shaw_v[clip(rel) * D + e];
          vmax = std::max(vmax, std::abs(val));
        }
      }
      if (mx == -INFINITY) continue;  // no visible key: zeros
      const double delta = kLogitRel * magnitude;
      double sum = 0;
      for (size_t j = 0; j < Tk; ++j) {
        if (logit[j] > -INFINITY) sum += std::exp(logit[j] - mx);
      }
      for (size_t j = 0; j < Tk; ++j) {
        if (logit[j] == -INFINITY) continue;
        const double p = std::exp(logit[j] - mx) / sum;
        res.weights[(h * Tq + i) * Tk + j] = p;
        res.tol_w[(h * Tq + i) * Tk + j] += (kWeightRel + 2 * delta) * p;
        for (size_t e = 0; e < D; ++e) {
          double val = v[(g * Tk + j) * D + e];
          if (o.shaw_v) val += o.shaw_v[clip(int64_t(j) - qp) * D + e];
          res.out[(h * Tq + i) * D + e] += p * val;
        }
      }
      for (size_t e = 0; e < D; ++e) {
        const size_t at = (h * Tq + i) * D + e;
        res.tol_out[at] =
            (kOutAbs + 2 * delta) * vmax + kOutRel * std::abs(res.out[at]);
      }
    }
  }
  return res;
}

// ---------------------------------------------------------------------------
// Comparison.

// |got - want| <= tol (per element); NaN fails; names the first bad index.
::testing::AssertionResult Close(const char* what, const float* got,
                                 const std::vector<double>& want,
                                 const std::function<double(size_t)>& tol) {
  double worst = 0;
  for (size_t e = 0; e < want.size(); ++e) {
    const double err = std::abs(double(got[e]) - want[e]);
    if (!(err <= tol(e)) && !(got[e] == want[e])) {  // == covers +-inf
      return ::testing::AssertionFailure()
             << what << "[" << e << "]: got " << got[e] << ", want " << want[e]
             << " (err " << err << ", tol " << tol(e) << ")";
    }
    if (std::isfinite(err)) worst = std::max(worst, err / (tol(e) + 1e-300));
  }
  return ::testing::AssertionSuccess() << what << " worst err/tol " << worst;
}

::testing::AssertionResult Close(const char* what, const std::vector<float>& g,
                                 const std::vector<double>& want,
                                 const std::vector<double>& tol) {
  if (g.size() != want.size()) {
    return ::testing::AssertionFailure()
           << what << " size " << g.size() << " vs " << want.size();
  }
  return Close(what, g.data(), want, [&](size_t e) { return tol[e]; });
}

#define DIFF_EXPECT(cond) \
  do {                    \
    auto _r = (cond);     \
    if (!_r) return _r;   \
  } while (0)

::testing::AssertionResult StatusOk(const Status& s) {
  if (s.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "error: " << s.message();
}

// ---------------------------------------------------------------------------
// Random configurations.

const char* LayoutName(RopeLayout l) {
  return l == RopeLayout::kHalf ? "half" : "interleaved";
}

// A valid RoPE frequency config for head dim d (rotary dim even, <= d).
// `fixed`: only scalings whose frequencies do not depend on the context.
RopeFrequencyConfig RandomFreq(Draw& dr, size_t d, bool fixed,
                               std::ostream& desc) {
  RopeFrequencyConfig c;
  c.head_dim = static_cast<int>(d);
  const int even = static_cast<int>(d) & ~1;
  if (d % 2 == 1 || dr.OneIn(4)) {
    c.rotary_dim = 2 * static_cast<int>(dr.Int(1, even / 2));  // partial
  }
  const int r = EffectiveRotaryDim(c);
  const double bases[] = {10000.0, 500000.0, 100.0, 1e6};
  c.base = bases[dr.Int(0, 3)];
  RopeScaling& s = c.scaling;
  int type = static_cast<int>(dr.Int(0, 6));
  if (fixed && (type == 3 || type == 5)) type = 0;
  if (r < 4 && (type == 2 || type == 3)) type = 1;
  s.type = static_cast<RopeScalingType>(type);
  s.factor = 1.0 + 0.25 * dr.Int(0, 60);
  switch (s.type) {
    case RopeScalingType::kDynamic:
      s.max_position_embeddings = static_cast<int>(dr.Int(1, 64));
      break;
    case RopeScalingType::kYarn:
      s.original_max_position_embeddings = static_cast<int>(dr.Int(4, 4096));
      s.beta_fast = static_cast<double>(dr.Int(8, 64));
      s.beta_slow = 0.5 * dr.Int(1, 4);
      s.truncate = !dr.OneIn(3);
      if (dr.OneIn(3)) {
        s.mscale = 0.5 * dr.Int(1, 4);
        s.mscale_all_dim = 0.5 * dr.Int(1, 4);
      }
      if (dr.OneIn(5)) {
        s.has_attention_factor = true;
        s.attention_factor = 0.5 + 0.125 * dr.Int(0, 8);
      }
      break;
    case RopeScalingType::kLongrope:
      s.original_max_position_embeddings = static_cast<int>(dr.Int(2, 64));
      for (int i = 0; i < r / 2; ++i) {
        s.short_factor.push_back(1.0 + 0.125 * dr.Int(0, 8));
        s.long_factor.push_back(1.0 + 0.5 * dr.Int(0, 32));
      }
      if (dr.OneIn(4)) {
        s.has_attention_factor = true;
        s.attention_factor = 1.0 + 0.125 * dr.Int(0, 8);
      }
      break;
    case RopeScalingType::kLlama3:
      s.original_max_position_embeddings = static_cast<int>(dr.Int(16, 8192));
      s.low_freq_factor = 0.5 * dr.Int(1, 4);
      s.high_freq_factor = s.low_freq_factor + 0.5 * dr.Int(1, 8);
      break;
    default:
      break;
  }
  desc << " r=" << r << " base=" << c.base
       << " scaling=" << RopeScalingTypeName(s.type) << "(factor " << s.factor
       << ", L " << s.original_max_position_embeddings << ", M "
       << s.max_position_embeddings << ")";
  return c;
}

// Positions of T tokens: offsets small or large, explicit increasing with
// gaps, random (including negative), near int32 max.
std::vector<int64_t> RandomPositions(Draw& dr, size_t T, int64_t lo_allowed,
                                     int64_t hi_allowed) {
  std::vector<int64_t> p(T);
  const int mode = static_cast<int>(dr.Int(0, 4));
  int64_t start = mode == 0   ? dr.Int(0, 64)
                  : mode == 1 ? dr.Int(0, 1000000)
                              : dr.Int(lo_allowed, hi_allowed);
  for (size_t t = 0; t < T; ++t) {
    if (mode == 3) {
      p[t] = dr.Int(lo_allowed, hi_allowed);
    } else {
      p[t] = start;
      start += mode == 4 ? dr.Int(0, 5) : 1;
    }
    p[t] = std::clamp(p[t], lo_allowed, hi_allowed);
  }
  return p;
}

// ---------------------------------------------------------------------------
// Case kinds. Each draws its parameters, writes them to desc, runs the code
// under test and compares.

using CaseFn = ::testing::AssertionResult (*)(Draw&, std::ostream&);

// Set by POSENC_DIFF_VERBOSE: cases print their parameters before calling
// the code under test, so a crash names its case.
bool g_trace = false;
void Announce(const std::ostream& desc) {
  if (!g_trace) return;
  std::printf("  %s\n",
              static_cast<const std::ostringstream&>(desc).str().c_str());
  std::fflush(stdout);
}

// Attention: every encoding and mask combination through Attention().
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
    const std::vector<double> ref = RefSlopes(o.H);
    for (size_t h = 0; h < o.H; ++h) {
      slopes.push_back(dr.OneIn(4) ? float(dr.Real(0, 1)) : float(ref[h]));
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
    const int64_t qoff =
        o.query_offset < 0 ? int64_t(o.Tk) - int64_t(o.Tq) : o.query_offset;
    for (int attempt = 0; attempt < 20; ++attempt) {
      o.t5_max_distance = static_cast<int32_t>(dr.Int(per / 2 + 1, 200));
      bool edge = false;
      for (int64_t rel = -(qoff + int64_t(o.Tq)); rel <= int64_t(o.Tk); ++rel) {
        const auto b = RefT5Bucket(rel, o.t5_buckets, o.t5_max_distance,
                                   o.t5_bidirectional);
        edge |= b.first != b.second;
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
  RefRopeSpec spec;
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
    spec.freq = o.rope.freq;
    spec.layout = o.rope.layout;
    spec.xpos = o.rope.xpos;
    spec.xpos_scale_base = o.rope.xpos_scale_base;
  }
  std::vector<float> q = dr.Vector(o.H * o.Tq * o.D);
  const std::vector<float> k = dr.Vector(o.Hkv * o.Tk * o.D);
  const std::vector<float> v = dr.Vector(o.Hkv * o.Tk * o.D, 2.0f);
  // Positions from the definition (attention.h): keys j (or cumsum(mask) - 1,
  // pads 1), queries the position of their key slot; past the end they
  // continue from the last key (from the real-token count with positions
  // from the mask: a trailing pad's 1 must not set the count back).
  const int64_t qoff =
      o.query_offset < 0 ? int64_t(o.Tk) - int64_t(o.Tq) : o.query_offset;
  std::vector<int64_t> kpos(o.Tk), qpos(o.Tq);
  int64_t real = 0;
  for (size_t j = 0; j < o.Tk; ++j) {
    kpos[j] = o.rope.k_positions           ? o.rope.k_positions[j]
              : o.rope.positions_from_mask ? (mask[j] ? real++ : 1)
                                           : int64_t(j);
  }
  for (size_t i = 0; i < o.Tq; ++i) {
    const int64_t slot = int64_t(i) + qoff;
    const bool from_mask =
        !o.rope.k_positions && o.rope.positions_from_mask && o.key_mask;
    qpos[i] = o.rope.q_positions     ? o.rope.q_positions[i]
              : slot < int64_t(o.Tk) ? kpos[slot]
              : from_mask
                  ? real + slot - int64_t(o.Tk)
                  : (o.Tk ? kpos[o.Tk - 1] : -1) + slot - int64_t(o.Tk) + 1;
  }
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

  // One context for q and k: the longest position the call rotates (as one
  // forward pass of the reference implementations; keys given already
  // rotated are not part of it).
  int64_t ctx = 0;
  if (o.rope.rotate_k) {
    for (int64_t p : kpos) ctx = std::max(ctx, p + 1);
  }
  for (int64_t p : qpos) ctx = std::max(ctx, p + 1);
  std::vector<double> qr(q.begin(), q.end()), kr(k.begin(), k.end());
  if (o.rope.enabled) {
    qr = RefRope(spec, q, o.H, o.Tq, qpos, ctx, nullptr);
    spec.xpos_key = true;
    if (o.rope.rotate_k) kr = RefRope(spec, k, o.Hkv, o.Tk, kpos, ctx, nullptr);
  }
  const RefAttentionResult want = RefAttention(o, qr, kr, v);
  DIFF_EXPECT(Close("out", out, want.out, want.tol_out));
  if (want_weights) {
    DIFF_EXPECT(Close("weights", weights, want.weights, want.tol_w));
  }
  return ::testing::AssertionSuccess();
}

// RoPE apply: RopeApplyChecked for any layout, partial rotary, scaling,
// positions, re-rotation, xPos, in place.
::testing::AssertionResult RopeCaseImpl(Draw& dr, std::ostream& desc,
                                        bool force_xpos) {
  RopeApplyOptions o;
  const size_t H = static_cast<size_t>(dr.Int(1, 6));
  const size_t T = dr.Length(100);
  const int dmode = static_cast<int>(dr.Int(0, 7));
  const size_t d = dmode == 0   ? 64
                   : dmode == 1 ? 128
                                : static_cast<size_t>(dr.Int(2, 96));
  o.heads = int64_t(H);
  o.seq_len = int64_t(T);
  o.layout = dr.OneIn(2) ? RopeLayout::kHalf : RopeLayout::kInterleaved;
  desc << (force_xpos ? "xpos" : "rope") << " H=" << H << " T=" << T
       << " d=" << d << " layout=" << LayoutName(o.layout);
  o.freq = RandomFreq(dr, d, false, desc);
  o.pure_rotation = dr.OneIn(6);
  o.xpos = force_xpos || dr.OneIn(8);
  int64_t lo = std::numeric_limits<int32_t>::min();
  int64_t hi = std::numeric_limits<int32_t>::max();
  if (o.xpos) {
    o.xpos_scale_base = static_cast<double>(dr.Int(16, 1024));
    o.xpos_center = dr.Int(-500, 500);
    o.xpos_key = dr.OneIn(2);
    lo = o.xpos_center - int64_t(4 * o.xpos_scale_base);
    hi = o.xpos_center + int64_t(4 * o.xpos_scale_base);
    desc << " xpos(base " << o.xpos_scale_base << ", center " << o.xpos_center
         << ", key " << o.xpos_key << ")";
  }
  std::vector<int64_t> pos = RandomPositions(dr, T, lo, hi - int64_t(T));
  std::vector<int32_t> pos32(pos.begin(), pos.end());
  bool consecutive = !pos.empty();
  for (size_t t = 1; t < T; ++t) consecutive &= pos[t] == pos[t - 1] + 1;
  const bool explicit_pos = dr.OneIn(2) || !consecutive;
  if (explicit_pos) {
    o.positions = pos32.data();
  } else {
    o.offset = pos.front();
  }
  desc << " pure=" << o.pure_rotation
       << " positions=" << (explicit_pos ? "explicit" : "offset") << " p=";
  for (size_t t = 0; t < std::min<size_t>(T, 6); ++t) desc << pos[t] << ",";
  const std::vector<float> x = dr.Vector(H * T * d);
  const bool in_place = dr.OneIn(3);
  std::vector<float> out = x;
  desc << " in_place=" << in_place;
  if (in_place) {
    DIFF_EXPECT(
        StatusOk(RopeApplyChecked(o, out.data(), out.size(), out.data())));
  } else {
    std::fill(out.begin(), out.end(), -7.0f);
    DIFF_EXPECT(StatusOk(RopeApplyChecked(o, x.data(), x.size(), out.data())));
  }
  int64_t ctx = 0;
  for (int64_t p : pos) ctx = std::max(ctx, p + 1);
  RefRopeSpec spec;
  spec.freq = o.freq;
  spec.layout = o.layout;
  spec.pure = o.pure_rotation;
  spec.xpos = o.xpos;
  spec.xpos_scale_base = o.xpos_scale_base;
  spec.xpos_center = o.xpos_center;
  spec.xpos_key = o.xpos_key;
  std::vector<double> mag;
  const std::vector<double> want = RefRope(spec, x, H, T, pos, ctx, &mag);
  std::vector<double> tol(want.size());
  for (size_t e = 0; e < tol.size(); ++e) {
    tol[e] = kRopeAbs * mag[e] + kRopeRel * std::abs(want[e]);
  }
  DIFF_EXPECT(Close("out", out, want, tol));
  if (o.xpos) {  // the scale table itself
    const size_t r = size_t(EffectiveRotaryDim(o.freq)), h = r / 2;
    std::vector<float> sc(T * h);
    const Status scaled = XposScales(pos32.data(), T, r, o.xpos_scale_base,
                                     o.xpos_center, o.xpos_key, sc.data());
    if (!scaled.ok()) return ::testing::AssertionFailure() << scaled.message();
    std::vector<double> ws(T * h);
    for (size_t t = 0; t < T; ++t) {
      for (size_t i = 0; i < h; ++i) {
        ws[t * h + i] =
            std::pow((2.0 * i + 0.4 * r) / (1.4 * r),
                     (o.xpos_key ? -1.0 : 1.0) *
                         double(pos[t] - o.xpos_center) / o.xpos_scale_base);
      }
    }
    DIFF_EXPECT(Close("xpos scales", sc.data(), ws,
                      [&](size_t e) { return 1e-6 * ws[e]; }));
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult RopeCase(Draw& dr, std::ostream& desc) {
  return RopeCaseImpl(dr, desc, false);
}
::testing::AssertionResult XposCase(Draw& dr, std::ostream& desc) {
  return RopeCaseImpl(dr, desc, true);
}

// ALiBi: slopes for any head count and bias rows of any length.
::testing::AssertionResult AlibiCase(Draw& dr, std::ostream& desc) {
  const size_t H = static_cast<size_t>(dr.Int(1, 80));
  const size_t K = dr.Length(300);
  const size_t Q = std::min(K, dr.Length(K));
  const bool causal = !dr.OneIn(3);
  const bool simple = dr.OneIn(4);
  desc << "alibi H=" << H << " Q=" << Q << " K=" << K << " causal=" << causal
       << " variant=" << (simple ? "simple" : "paper");
  std::vector<float> slopes(H);
  AlibiSlopeValues(H, simple ? AlibiSlopes::kSimple : AlibiSlopes::kPaper,
                   slopes.data());
  std::vector<double> want_slopes = RefSlopes(H);
  if (simple) {
    for (size_t h = 0; h < H; ++h) want_slopes[h] = std::pow(0.5, double(h));
  }
  // Rounded once from double: within half an ulp.
  DIFF_EXPECT(Close("slopes", slopes.data(), want_slopes,
                    [&](size_t e) { return 0.5 * kUlp * 2 * want_slopes[e]; }));
  std::vector<float> out(H * Q * K, 7.0f);
  DIFF_EXPECT(StatusOk(ValidateAlibiBias(int64_t(H), int64_t(Q), int64_t(K))));
  AlibiBias(slopes.data(), H, Q, K, causal, out.data());
  std::vector<double> want(out.size());
  for (size_t h = 0; h < H; ++h) {
    for (size_t i = 0; i < Q; ++i) {
      const int64_t qp = int64_t(i + K - Q);
      for (size_t j = 0; j < K; ++j) {
        const int64_t dist = qp - int64_t(j);
        want[(h * Q + i) * K + j] =
            causal && dist < 0 ? -INFINITY
                               : -double(slopes[h]) * double(std::llabs(dist));
      }
    }
  }
  return Close("bias", out.data(), want,
               [&](size_t e) { return kUlp * std::abs(want[e]); });
}

// T5: buckets and the gathered bias for any bucket settings and offset.
::testing::AssertionResult T5Case(Draw& dr, std::ostream& desc) {
  const bool bidir = dr.OneIn(2);
  const int32_t B = static_cast<int32_t>(dr.Int(bidir ? 4 : 2, 64));
  const int32_t per = bidir ? B / 2 : B;
  const int32_t maxd = static_cast<int32_t>(dr.Int(per / 2 + 1, 1000));
  const size_t Q = dr.Length(120), K = dr.Length(200);
  const int64_t qoff = dr.Int(0, 400);
  const size_t H = static_cast<size_t>(dr.Int(1, 8));
  desc << "t5 B=" << B << " maxd=" << maxd << " bidir=" << bidir << " Q=" << Q
       << " K=" << K << " qoff=" << qoff << " H=" << H;
  DIFF_EXPECT(StatusOk(ValidateT5Buckets(B, maxd, bidir)));
  DIFF_EXPECT(StatusOk(ValidateT5Shape(int64_t(Q), int64_t(K), qoff)));
  std::vector<int32_t> buckets(Q * K, -1);
  T5Buckets(Q, K, qoff, B, maxd, bidir, buckets.data());
  const std::vector<float> table = dr.Vector(size_t(B) * H);
  std::vector<float> bias(H * Q * K);
  T5Bias(table.data(), H, buckets.data(), Q, K, bias.data());
  for (size_t i = 0; i < Q; ++i) {
    for (size_t j = 0; j < K; ++j) {
      const int64_t rel = int64_t(j) - (qoff + int64_t(i));
      const auto want = RefT5Bucket(rel, B, maxd, bidir);
      const int32_t got = buckets[i * K + j];
      if (got < want.first || got > want.second) {
        return ::testing::AssertionFailure()
               << "bucket(rel " << rel << ") = " << got << ", want "
               << want.first << ".." << want.second;
      }
      for (size_t h = 0; h < H; ++h) {
        if (bias[(h * Q + i) * K + j] != table[size_t(got) * H + h]) {
          return ::testing::AssertionFailure()
                 << "bias[" << h << ", " << i << ", " << j << "] != table";
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// Shaw: relative key logits and value sums against their definition.
::testing::AssertionResult ShawCase(Draw& dr, std::ostream& desc) {
  const size_t K = dr.Length(90);
  const size_t Q = std::min(K, dr.Length(K));
  const size_t D = static_cast<size_t>(dr.Int(1, 64));
  const int32_t c = static_cast<int32_t>(dr.Int(0, 10));
  const float scale = float(dr.Real(0.05, 1.5));
  desc << "shaw Q=" << Q << " K=" << K << " D=" << D << " clip=" << c
       << " scale=" << scale;
  DIFF_EXPECT(StatusOk(ValidateShaw(int64_t(Q), int64_t(K), c)));
  const std::vector<float> q = dr.Vector(Q * D), k = dr.Vector(K * D),
                           v = dr.Vector(K * D),
                           tk = dr.Vector((2 * c + 1) * D),
                           tv = dr.Vector((2 * c + 1) * D);
  std::vector<float> probs = dr.Vector(Q * K);
  for (float& p : probs) p = std::abs(p);
  std::vector<float> logits(Q * K), out(Q * D);
  ShawLogits(q.data(), k.data(), tk.data(), Q, K, D, c, scale, logits.data());
  ShawValues(probs.data(), v.data(), tv.data(), Q, K, D, c, out.data());
  std::vector<double> want_l(Q * K), tol_l(Q * K), want_o(Q * D, 0.0),
      tol_o(Q * D, 0.0);
  for (size_t i = 0; i < Q; ++i) {
    for (size_t j = 0; j < K; ++j) {
      const int64_t rel = int64_t(j) - int64_t(i + K - Q);
      const size_t b = size_t(std::clamp<int64_t>(rel, -c, c) + c);
      double s = 0, mag = 0;
      for (size_t e = 0; e < D; ++e) {
        const double t = double(q[i * D + e]) * (k[j * D + e] + tk[b * D + e]);
        s += t;
        mag += std::abs(t);
      }
      want_l[i * K + j] = s * scale;
      tol_l[i * K + j] = (D + 3) * kUlp * mag * scale;
      for (size_t e = 0; e < D; ++e) {
        const double t =
            double(probs[i * K + j]) * (v[j * D + e] + tv[b * D + e]);
        want_o[i * D + e] += t;
        tol_o[i * D + e] += (K + 3) * kUlp * std::abs(t);
      }
    }
  }
  DIFF_EXPECT(Close("logits", logits, want_l, tol_l));
  return Close("values", out, want_o, tol_o);
}

// Sinusoidal table, both layouts.
::testing::AssertionResult SinusoidalCase(Draw& dr, std::ostream& desc) {
  const bool concat = dr.OneIn(2);
  const size_t L = dr.OneIn(10) ? size_t(dr.Int(1000, 5000)) : dr.Length(200);
  const size_t D = 2 * static_cast<size_t>(dr.Int(concat ? 2 : 1, 64));
  const double base = dr.OneIn(2) ? 10000.0 : dr.Real(1.5, 1e5);
  desc << "sinusoidal L=" << L << " D=" << D << " base=" << base
       << " layout=" << (concat ? "concat" : "interleaved");
  const SinusoidalLayout layout =
      concat ? SinusoidalLayout::kConcat : SinusoidalLayout::kInterleaved;
  DIFF_EXPECT(
      StatusOk(ValidateSinusoidal(int64_t(L), int64_t(D), base, layout)));
  std::vector<float> out(L * D, 7.0f);
  SinusoidalTable(L, D, base, layout, out.data());
  const size_t h = D / 2;
  std::vector<double> want(L * D);
  for (size_t p = 0; p < L; ++p) {
    for (size_t i = 0; i < h; ++i) {
      const double w = concat
                           ? std::exp(-double(i) * std::log(base) / (h - 1.0))
                           : std::pow(base, -2.0 * double(i) / double(D));
      want[p * D + (concat ? i : 2 * i)] = std::sin(double(p) * w);
      want[p * D + (concat ? h + i : 2 * i + 1)] = std::cos(double(p) * w);
    }
  }
  return Close("table", out.data(), want,
               [](size_t) { return kSinusoidalAbs; });
}

// KV cache: keys appended in chunks (rotated at their positions), then a
// decode step (or a few queries) attends over the cache.
::testing::AssertionResult KvCacheCase(Draw& dr, std::ostream& desc) {
  const size_t Hkv = static_cast<size_t>(dr.Int(1, 3));
  const size_t H = Hkv * static_cast<size_t>(dr.Int(1, 3));
  const size_t D = dr.OneIn(4) ? 64 : 2 * static_cast<size_t>(dr.Int(1, 24));
  const size_t T = dr.Length(120);
  desc << "kvcache H=" << H << " Hkv=" << Hkv << " D=" << D << " T=" << T;
  AttentionRope rope;
  RefRopeSpec spec;
  if (!dr.OneIn(4)) {
    rope.enabled = true;
    rope.layout = dr.OneIn(2) ? RopeLayout::kHalf : RopeLayout::kInterleaved;
    desc << " rope(" << LayoutName(rope.layout);
    rope.freq = RandomFreq(dr, D, true, desc);
    rope.xpos = dr.OneIn(5);
    if (rope.xpos) rope.xpos_scale_base = double(dr.Int(256, 1024));
    desc << " xpos " << rope.xpos << ")";
    spec.freq = rope.freq;
    spec.layout = rope.layout;
    spec.xpos = rope.xpos;
    spec.xpos_scale_base = rope.xpos_scale_base;
  }
  DIFF_EXPECT(StatusOk(KvCache::Validate(Hkv, D, rope)));
  KvCache cache(Hkv, D, rope);
  const std::vector<float> k = dr.Vector(Hkv * T * D),
                           v = dr.Vector(Hkv * T * D);
  // Explicit positions (increasing with gaps) or implicit ones.
  const bool explicit_pos = dr.OneIn(3);
  std::vector<int64_t> pos(T);
  int64_t p = explicit_pos ? dr.Int(0, 200) : 0;
  for (size_t t = 0; t < T; ++t) {
    pos[t] = p;
    p += explicit_pos ? dr.Int(1, 3) : 1;
  }
  desc << " positions=" << (explicit_pos ? "explicit" : "implicit")
       << " chunks=";
  for (size_t t0 = 0; t0 < T;) {
    const size_t n = std::min(T - t0, size_t(dr.OneIn(2) ? 1 : dr.Int(1, 40)));
    std::vector<float> kc(Hkv * n * D), vc(Hkv * n * D);
    for (size_t g = 0; g < Hkv; ++g) {
      std::copy_n(k.data() + (g * T + t0) * D, n * D, kc.data() + g * n * D);
      std::copy_n(v.data() + (g * T + t0) * D, n * D, vc.data() + g * n * D);
    }
    std::vector<int32_t> pc(pos.begin() + t0, pos.begin() + t0 + n);
    DIFF_EXPECT(StatusOk(cache.Append(kc.data(), vc.data(), n,
                                      explicit_pos ? pc.data() : nullptr)));
    desc << n << ",";
    t0 += n;
  }
  AttentionOptions o;
  o.H = H;
  o.Tq = dr.OneIn(2) ? 1 : std::min(T, dr.Length(8));
  o.causal = !dr.OneIn(4);
  if (dr.OneIn(4)) o.window = dr.Int(1, 16);
  std::vector<float> slopes;
  if (dr.OneIn(3)) {
    for (double s : RefSlopes(H)) slopes.push_back(float(s));
    o.alibi_slopes = slopes.data();
  }
  std::vector<uint8_t> mask(T, 1);
  if (dr.OneIn(4)) {
    for (size_t j = 0; j < T; ++j) mask[j] = !dr.OneIn(3);
    o.key_mask = mask.data();
  }
  desc << " Tq=" << o.Tq << " causal=" << o.causal << " window=" << o.window
       << " alibi=" << !!o.alibi_slopes << " mask=" << !!o.key_mask;
  const std::vector<float> q = dr.Vector(H * o.Tq * D);
  std::vector<float> out(H * o.Tq * D, -7.0f);
  Announce(desc);
  DIFF_EXPECT(StatusOk(cache.Attend(o, q.data(), nullptr, out.data())));
  // Reference: the queries are the last Tq cached tokens.
  o.Hkv = Hkv;
  o.Tk = T;
  o.D = D;
  std::vector<int64_t> qpos(pos.end() - o.Tq, pos.end());
  std::vector<double> qr(q.begin(), q.end()), kr(k.begin(), k.end());
  if (rope.enabled) {
    qr = RefRope(spec, q, H, o.Tq, qpos, 0, nullptr);
    spec.xpos_key = true;
    kr = RefRope(spec, k, Hkv, T, pos, 0, nullptr);
  }
  const RefAttentionResult want = RefAttention(o, qr, kr, v);
  return Close("out", out, want.out, want.tol_out);
}

// ---------------------------------------------------------------------------
// The runner: every kind owns a range of global case indices.

struct Kind {
  const char* name;
  int count;
  CaseFn fn;
};

constexpr int kAttentionCases = 3000;
constexpr int kRopeCases = 2000;
const Kind kKinds[] = {
    {"attention", kAttentionCases, AttentionCase},
    {"rope_apply", kRopeCases, RopeCase},
    {"alibi", 300, AlibiCase},
    {"t5", 300, T5Case},
    {"shaw", 300, ShawCase},
    {"sinusoidal", 300, SinusoidalCase},
    {"xpos", 300, XposCase},
    {"kv_cache_decode", 300, KvCacheCase},
};

class DifferentialTest : public test::PerTarget {
 protected:
  void Run(const char* name) {
    const uint64_t seed = Seed();
    const int64_t only = OnlyCase();
    int64_t first = 0;
    const Kind* kind = nullptr;
    for (const Kind& k : kKinds) {
      if (std::string(k.name) == name) {
        kind = &k;
        break;
      }
      first += k.count;
    }
    ASSERT_NE(kind, nullptr);
    std::printf("[differential] %s: seed %llu (POSENC_DIFF_SEED), target %s",
                name, static_cast<unsigned long long>(seed),
                DispatchedTargetName());
    if (only >= 0)
      std::printf(", only case %lld", static_cast<long long>(only));
    std::printf("\n");
    std::fflush(stdout);
    // POSENC_DIFF_VERBOSE: names each case before it runs (for a crash).
    std::string verbose;
    const bool trace = GetEnv("POSENC_DIFF_VERBOSE", &verbose);
    g_trace = trace;
    int checked = 0, failed = 0;
    for (int64_t i = first; i < first + kind->count; ++i) {
      if (only >= 0 && i != only) continue;
      if (trace) {
        std::printf("[differential] case %lld\n", static_cast<long long>(i));
        std::fflush(stdout);
      }
      Draw dr(seed, i);
      std::ostringstream desc;
      const ::testing::AssertionResult r = kind->fn(dr, desc);
      ++checked;
      if (!r) {
        ++failed;
        ADD_FAILURE() << "case " << i << " (" << desc.str()
                      << "): " << r.message()
                      << "\n  replay: POSENC_DIFF_SEED=" << seed
                      << " POSENC_DIFF_CASE=" << i;
        if (failed >= 10) break;
      }
    }
    std::printf("[differential] %s: %d cases checked, %d failed\n", name,
                checked, failed);
    std::fflush(stdout);
  }
};

TEST_P(DifferentialTest, Attention) { Run("attention"); }
TEST_P(DifferentialTest, RopeApply) { Run("rope_apply"); }
TEST_P(DifferentialTest, Alibi) { Run("alibi"); }
TEST_P(DifferentialTest, T5) { Run("t5"); }
TEST_P(DifferentialTest, Shaw) { Run("shaw"); }
TEST_P(DifferentialTest, Sinusoidal) { Run("sinusoidal"); }
TEST_P(DifferentialTest, Xpos) { Run("xpos"); }
TEST_P(DifferentialTest, KvCacheDecode) { Run("kv_cache_decode"); }

POSENC_INSTANTIATE_PER_TARGET(DifferentialTest);

// ---------------------------------------------------------------------------
// Regressions for the bugs the random cases found, each on one small case.

class DifferentialRegression : public test::PerTarget {};

// Attention with a Shaw key table and no value table read the (null) value
// table: a crash.
TEST_P(DifferentialRegression, ShawKeyTableWithoutValueTable) {
  Draw dr(1, 0);
  AttentionOptions o;
  o.H = o.Hkv = 2;
  o.Tq = o.Tk = 9;
  o.D = 5;
  o.shaw_clip = 2;
  const std::vector<float> table = dr.Vector(5 * o.D);
  o.shaw_k = table.data();
  const std::vector<float> q = dr.Vector(2 * 9 * 5), k = dr.Vector(2 * 9 * 5),
                           v = dr.Vector(2 * 9 * 5);
  std::vector<float> out(q.size());
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  const RefAttentionResult want =
      RefAttention(o, std::vector<double>(q.begin(), q.end()),
                   std::vector<double>(k.begin(), k.end()), v);
  EXPECT_TRUE(Close("out", out, want.out, want.tol_out));
}

// Dynamic NTK inside one attention call: q and k were rotated with the
// frequencies of their own longest position, so a query at position 3 and
// keys up to 99 (past M = 16) used different bases and q.k lost the relative
// property. One context (the call's longest position) now serves both.
TEST_P(DifferentialRegression, DynamicRopeRotatesQueriesAndKeysAlike) {
  Draw dr(2, 0);
  AttentionOptions o;
  o.H = o.Hkv = 1;
  o.Tq = 1;
  o.Tk = 4;
  o.D = 8;
  o.causal = false;
  o.rope.enabled = true;
  o.rope.freq.head_dim = 8;
  o.rope.freq.scaling.type = RopeScalingType::kDynamic;
  o.rope.freq.scaling.factor = 4.0;
  o.rope.freq.scaling.max_position_embeddings = 16;
  const int32_t qpos[] = {3}, kpos[] = {0, 1, 2, 99};
  o.rope.q_positions = qpos;
  o.rope.k_positions = kpos;
  const std::vector<float> q = dr.Vector(8), k = dr.Vector(32),
                           v = dr.Vector(32);
  std::vector<float> out(8);
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  RefRopeSpec spec;
  spec.freq = o.rope.freq;
  const std::vector<double> qr = RefRope(spec, q, 1, 1, {3}, 100, nullptr);
  const std::vector<double> kr =
      RefRope(spec, k, 1, 4, {0, 1, 2, 99}, 100, nullptr);
  const RefAttentionResult want = RefAttention(o, qr, kr, v);
  EXPECT_TRUE(Close("out", out, want.out, want.tol_out));
}

// Queries past the keys (queryOffset > keyLength) with a sliding window see
// no key; the weights' zero fill ran from 0 to the aligned window start,
// past the end of the row (heap corruption). Rows are zeros, nothing else
// is written.
TEST_P(DifferentialRegression, WindowPastTheKeysWritesOnlyItsWeightsRow) {
  Draw dr(3, 0);
  AttentionOptions o;
  o.H = o.Hkv = 1;
  o.Tq = o.Tk = 37;
  o.D = 4;
  o.query_offset = 40;
  o.window = 2;
  const std::vector<float> q = dr.Vector(37 * 4), k = dr.Vector(37 * 4),
                           v = dr.Vector(37 * 4);
  const size_t n = 37 * 37, guard = 256;
  std::vector<float> weights(n + guard, 5.0f), out(37 * 4, 5.0f);
  o.weights = weights.data();
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  for (size_t e = 0; e < n; ++e) ASSERT_EQ(weights[e], 0.0f) << e;
  for (size_t e = n; e < n + guard; ++e) ASSERT_EQ(weights[e], 5.0f) << e;
  for (float x : out) EXPECT_EQ(x, 0.0f);
}

// LongRoPE's default attention factor sqrt(1 + ln s / ln L) is infinite for
// L = 1: such a config rotated everything to inf / NaN. It is rejected now.
TEST(DifferentialRegressionValidation, LongropeNeedsContextOfTwoForItsFactor) {
  RopeFrequencyConfig c;
  c.head_dim = 4;
  c.scaling.type = RopeScalingType::kLongrope;
  c.scaling.factor = 4.0;
  c.scaling.original_max_position_embeddings = 1;
  c.scaling.short_factor = c.scaling.long_factor = {1.0, 1.0};
  const Status s = ValidateRopeConfig(c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("originalMaxPositionEmbeddings must be >= 2"),
            std::string::npos)
      << s.message();
  c.scaling.has_attention_factor = true;  // an explicit factor is fine
  EXPECT_TRUE(ValidateRopeConfig(c).ok());
}

POSENC_INSTANTIATE_PER_TARGET(DifferentialRegression);

}  // namespace
}  // namespace posenc
