// libFuzzer target for RoPE frequency configs and every scaling type
// (RopeFrequencies / ValidateRopeConfig) with fuzzer-chosen type, dims,
// base, factors, lengths and seqLen, special values (NaN, +-inf, 0, -0,
// subnormal, huge) included. Either the config is rejected with a message,
// or every inverse frequency and the attention factor are finite and > 0,
// and they agree with a float64 computation from docs/formulas.md#rope-scaling
// (default, linear, ntk, proportional: frequencies and factor, in the log
// domain here, and proportional's unturned pairs exactly 0;
// yarn, longrope: the factor of tests/cpp/reference/rope.h), and the
// frequencies do not increase where the math guarantees it. Anything else
// traps.
//   node tools/fuzz.mjs 60        (every target; build: tools/build.mjs fuzz)
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "fuzz_check.h"
#include "ops/rope_frequencies.h"
#include "reference/rope.h"

namespace {

using posenc::RopeFrequencyConfig;
using posenc::RopeScalingType;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = std::numeric_limits<double>::epsilon();

// A double that is often a special value, often a plausible one, sometimes
// any bit pattern.
double PickDouble(FuzzedDataProvider& p) {
  static const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                                    kInf,
                                    -kInf,
                                    0.0,
                                    -0.0,
                                    1.0,
                                    -1.0,
                                    std::numeric_limits<double>::denorm_min(),
                                    std::numeric_limits<double>::min(),
                                    std::numeric_limits<double>::max(),
                                    1e-300,
                                    1e300,
                                    1.0 + 1e-15,
                                    0.5,
                                    2.0,
                                    32.0,
                                    10000.0,
                                    500000.0};
  switch (p.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return kSpecial[p.ConsumeIntegralInRange<size_t>(
          0, sizeof(kSpecial) / sizeof(kSpecial[0]) - 1)];
    case 1:
      return p.ConsumeFloatingPointInRange<double>(-4.0, 64.0);
    case 2:
      return std::exp(p.ConsumeFloatingPointInRange<double>(-30.0, 30.0));
    default:
      return p.ConsumeFloatingPoint<double>();
  }
}

int PickInt(FuzzedDataProvider& p) {
  static const int kSpecial[] = {std::numeric_limits<int>::min(),
                                 std::numeric_limits<int>::max(),
                                 -1,
                                 0,
                                 1,
                                 2,
                                 4096,
                                 131072};
  if (p.ConsumeBool()) {
    return kSpecial[p.ConsumeIntegralInRange<size_t>(
        0, sizeof(kSpecial) / sizeof(kSpecial[0]) - 1)];
  }
  return p.ConsumeIntegralInRange<int>(-4, 300);
}

// |a - b| <= rtol * |b| on values known to be finite.
bool Close(double a, double b, double rtol) {
  return std::abs(a - b) <= rtol * std::abs(b);
}

void CheckFrequencies(const RopeFrequencyConfig& c, int seq_len,
                      const std::vector<double>& inv, double af) {
  const posenc::RopeScaling& s = c.scaling;
  const int r = c.rotary_dim == 0 ? c.head_dim : c.rotary_dim;
  CHECK(r >= 2 && r % 2 == 0 && r <= c.head_dim);
  CHECK(static_cast<int>(inv.size()) == r / 2);
  // Proportional turns int(p * r // 2) pairs; the rest have frequency 0.
  const int turning = s.type == RopeScalingType::kProportional
                          ? static_cast<int>(s.partial_rotary_factor * r / 2)
                          : r / 2;
  CHECK(turning >= 1 && turning <= r / 2);
  for (int i = 0; i < r / 2; ++i) {
    CHECK(i < turning ? std::isfinite(inv[i]) && inv[i] > 0.0 : inv[i] == 0.0);
  }
  CHECK(std::isfinite(af) && af > 0.0);

  // ln inv_freq[i] = -(2i/r) ln base' - ln(s), independent of pow().
  double ln_base = std::log(c.base);
  double ln_size = std::abs(ln_base);  // sizes of the summed logs
  double ln_div = 0.0;
  bool exact = true;
  switch (s.type) {
    case RopeScalingType::kDefault:
      break;
    case RopeScalingType::kLinear:
    case RopeScalingType::kProportional:
      ln_div = std::log(s.factor);
      break;
    case RopeScalingType::kNtk:
      ln_base += r / (r - 2.0) * std::log(s.factor);
      ln_size += std::abs(r / (r - 2.0) * std::log(s.factor));
      break;
    default:
      exact = false;
  }
  if (exact) {
    CHECK(af == 1.0);
    for (int i = 0; i < turning; ++i) {
      const double term = (2.0 * i / r) * ln_base;
      const double want = -term - ln_div;
      const double got = std::log(inv[i]);
      // exp/log of terms of size |x| ~ 700 lose |x| ulps of relative error
      // (the terms may cancel: the tolerance follows their sizes).
      const double tol =
          16.0 * kEps * (1.0 + (2.0 * i / r) * ln_size + std::abs(ln_div));
      if (!(std::abs(got - want) <= tol)) {
        std::fprintf(stderr,
                     "type %d r %d base %.17g factor %.17g i %d: ln inv_freq "
                     "%.17g, want %.17g\n",
                     static_cast<int>(s.type), r, c.base, s.factor, i, got,
                     want);
        CHECK(false);
      }
    }
  }

  // Attention factors with a closed form (tests/cpp/reference/rope.h).
  if (s.type == RopeScalingType::kYarn ||
      s.type == RopeScalingType::kLongrope) {
    CHECK(Close(af, posenc::ref::RopeAttentionFactor(s), 1e-12));
  } else if (s.type == RopeScalingType::kDynamic) {
    CHECK(af == 1.0);
  }

  // Non-increasing frequencies where the math guarantees it: a base > 1
  // (default, linear, dynamic and ntk with an effective base > 1, which
  // validation requires), yarn with s >= 1 and betaFast >= betaSlow (the
  // ramp rises with i), llama3 with s >= 1 (the multiplier falls from 1 to
  // 1/s), longrope when the chosen rescale factors do not decrease.
  bool monotone = true;
  if (s.type == RopeScalingType::kYarn) {
    monotone = s.factor >= 1.0 && s.beta_fast >= s.beta_slow;
  } else if (s.type == RopeScalingType::kLlama3) {
    monotone = s.factor >= 1.0;
  } else if (s.type == RopeScalingType::kLongrope) {
    const std::vector<double>& ext =
        seq_len > s.original_max_position_embeddings ? s.long_factor
                                                     : s.short_factor;
    for (size_t i = 1; i < ext.size(); ++i) monotone &= ext[i] >= ext[i - 1];
  }
  if (monotone) {
    for (size_t i = 1; i < inv.size(); ++i) {
      CHECK(inv[i] <= inv[i - 1] * (1.0 + 1e-12));  // (0 after a turning pair)
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider p(data, size);
  RopeFrequencyConfig c;
  // Types 0..7 and, rarely, invalid enum values.
  const int type = p.ConsumeIntegralInRange<int>(-1, 9);
  c.scaling.type = static_cast<RopeScalingType>(type);
  c.head_dim =
      p.ConsumeBool() ? p.ConsumeIntegralInRange<int>(0, 130) : PickInt(p);
  c.rotary_dim = p.ConsumeBool() ? 0 : PickInt(p);
  c.base = PickDouble(p);
  posenc::RopeScaling& s = c.scaling;
  s.factor = PickDouble(p);
  s.original_max_position_embeddings = PickInt(p);
  s.max_position_embeddings = PickInt(p);
  s.beta_fast = PickDouble(p);
  s.beta_slow = PickDouble(p);
  s.truncate = p.ConsumeBool();
  s.mscale = p.ConsumeBool() ? 0.0 : PickDouble(p);
  s.mscale_all_dim = p.ConsumeBool() ? 0.0 : PickDouble(p);
  s.has_attention_factor = p.ConsumeBool();
  s.attention_factor = PickDouble(p);
  s.low_freq_factor = PickDouble(p);
  s.high_freq_factor = PickDouble(p);
  const int r = c.rotary_dim == 0 ? c.head_dim : c.rotary_dim;
  // Factor lists: usually the right length r/2, sometimes not.
  for (std::vector<double>* list : {&s.short_factor, &s.long_factor}) {
    size_t n = r >= 2 && r <= 512 && p.ConsumeBool()
                   ? static_cast<size_t>(r / 2)
                   : p.ConsumeIntegralInRange<size_t>(0, 8);
    for (size_t i = 0; i < n; ++i) {
      list->push_back(p.ConsumeBool()
                          ? p.ConsumeFloatingPointInRange<double>(0.5, 64.0)
                          : PickDouble(p));
    }
  }
  const int seq_len = PickInt(p);
  s.partial_rotary_factor =
      p.ConsumeBool() ? p.ConsumeFloatingPointInRange<double>(0.0, 1.0)
                      : PickDouble(p);

  std::vector<double> inv;
  double af = 0.0;
  const posenc::Status st = posenc::RopeFrequencies(c, seq_len, &inv, &af);
  const posenc::Status valid = posenc::ValidateRopeConfig(c);
  if (!valid.ok()) CHECK(!st.ok() && st.message() == valid.message());
  if (!st.ok()) {
    CHECK(!st.message().empty());
    return 0;
  }
  CheckFrequencies(c, seq_len, inv, af);
  return 0;
}
