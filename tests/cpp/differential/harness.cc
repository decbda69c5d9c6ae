#include "differential/harness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "base/targets.h"

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
namespace diff {
namespace {

constexpr uint64_t kDefaultSeed = 20240611;

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

// Set by POSENC_DIFF_VERBOSE.
bool g_trace = false;

struct Kind {
  const char* name;
  int count;
  CaseFn fn;
};

// The order fixes each kind's range of global case indices: keep it.
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

}  // namespace

AttentionTolerance AttentionTolerances(const AttentionOptions& o,
                                       const ref::AttentionResult& want) {
  const size_t Tk = o.Tk, D = o.D;
  AttentionTolerance tol;
  tol.out.assign(want.out.size(), 0.0);
  tol.weights.assign(want.weights.size(), kWeightAbs);
  for (size_t row = 0; row < want.visible_keys.size(); ++row) {
    if (want.visible_keys[row] == 0) continue;  // exactly zero
    const double delta = kLogitRel * want.logit_mag[row];
    for (size_t j = 0; j < Tk && !want.weights.empty(); ++j) {
      const size_t at = row * Tk + j;
      tol.weights[at] += (kWeightRel + 2 * delta) * want.weights[at];
    }
    for (size_t e = 0; e < D; ++e) {
      const size_t at = row * D + e;
      tol.out[at] = (kOutAbs + 2 * delta) * want.value_max[row] +
                    kOutRel * std::abs(want.out[at]);
    }
  }
  return tol;
}

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

Draw::Draw(uint64_t seed, int64_t index)
    : rng_(Mix(seed ^ Mix(static_cast<uint64_t>(index)))) {}

int64_t Draw::Int(int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo +
         static_cast<int64_t>(rng_.Next() % static_cast<uint64_t>(hi - lo + 1));
}

double Draw::Real(double lo, double hi) {
  return lo + (hi - lo) * static_cast<double>(rng_.Next() >> 11) *
                  (1.0 / 9007199254740992.0);
}

std::vector<float> Draw::Vector(size_t n, float magnitude) {
  std::vector<float> v = rng_.Vector(n);
  for (float& x : v) x *= magnitude;
  return v;
}

size_t Draw::Length(size_t max) {
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

::testing::AssertionResult StatusOk(const Status& s) {
  if (s.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "error: " << s.message();
}

const char* LayoutName(RopeLayout l) {
  return l == RopeLayout::kHalf ? "half" : "interleaved";
}

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

void Announce(const std::ostream& desc) {
  if (!g_trace) return;
  std::printf("  %s\n",
              static_cast<const std::ostringstream&>(desc).str().c_str());
  std::fflush(stdout);
}

void DifferentialTest::Run(const char* name) {
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
  if (only >= 0) std::printf(", only case %lld", static_cast<long long>(only));
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
  std::printf("[differential] %s: %d cases checked, %d failed\n", name, checked,
              failed);
  std::fflush(stdout);
}

POSENC_INSTANTIATE_PER_TARGET(DifferentialTest);

}  // namespace diff
}  // namespace posenc
