// RoPE frequencies and every scaling type, checked against values derived
// independently from the definitions (wavelengths, rotations over L, band
// edges) rather than by re-running the same formula.
#include "ops/rope_frequencies.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "test_util.h"

namespace posenc {
namespace {

using test::kPi;

std::vector<double> Freqs(const RopeFrequencyConfig& c, int seq_len,
                          double* factor = nullptr) {
  std::vector<double> f;
  double af = 0.0;
  const Status s = RopeFrequencies(c, seq_len, &f, &af);
  EXPECT_TRUE(s.ok()) << s.message();
  if (factor) *factor = af;
  return f;
}

RopeFrequencyConfig Config(int d, int r, double base) {
  RopeFrequencyConfig c;
  c.head_dim = d;
  c.rotary_dim = r;
  c.base = base;
  return c;
}

TEST(RopeFrequencies, DefaultIsGeometricWithRatioBaseToMinusTwoOverR) {
  for (int r : {2, 4, 6, 64, 128}) {
    const RopeFrequencyConfig c = Config(r, 0, 10000.0);
    double af = 0;
    const std::vector<double> f = Freqs(c, 0, &af);
    ASSERT_EQ(f.size(), size_t(r / 2));
    EXPECT_EQ(f[0], 1.0);
    EXPECT_EQ(af, 1.0);
    const double ratio = std::exp(-2.0 * std::log(10000.0) / r);
    for (size_t i = 1; i < f.size(); ++i) {
      EXPECT_NEAR(f[i] / f[i - 1], ratio, 1e-13) << "r=" << r << " i=" << i;
    }
  }
  // Spot values: r = 4 -> [1, 10000^-0.5 = 0.01].
  EXPECT_NEAR(Freqs(Config(4, 0, 10000.0), 0)[1], 0.01, 1e-17);
}

TEST(RopeFrequencies, PartialRotaryUsesRotaryDimInTheExponent) {
  // d = 128, r = 32: the exponent denominator is 32 (pie PR 603 bug is 128).
  const std::vector<double> f = Freqs(Config(128, 32, 10000.0), 0);
  ASSERT_EQ(f.size(), 16u);
  EXPECT_NEAR(f[8], std::pow(10000.0, -0.5), 1e-15);
}

TEST(RopeFrequencies, LinearDividesEveryFrequency) {
  RopeFrequencyConfig c = Config(64, 0, 10000.0);
  const std::vector<double> base = Freqs(c, 0);
  c.scaling.type = RopeScalingType::kLinear;
  c.scaling.factor = 4.0;
  const std::vector<double> f = Freqs(c, 0);
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(f[i], base[i] / 4.0);
}

TEST(RopeFrequencies, NtkKeepsHighestAndDividesLowestByFactor) {
  // NTK-aware: base' = base s^(r/(r-2)) leaves i = 0 at 1 and makes the
  // lowest frequency exactly the linear-interpolated one.
  RopeFrequencyConfig c = Config(64, 0, 10000.0);
  const std::vector<double> base = Freqs(c, 0);
  c.scaling.type = RopeScalingType::kNtk;
  c.scaling.factor = 8.0;
  const std::vector<double> f = Freqs(c, 0);
  EXPECT_EQ(f[0], 1.0);
  EXPECT_NEAR(f.back(), base.back() / 8.0, 1e-15);
  for (size_t i = 1; i < f.size(); ++i) EXPECT_LT(f[i], base[i]);
}

TEST(RopeFrequencies, DynamicIsDefaultUpToMThenNtkWithEffectiveFactor) {
  RopeFrequencyConfig c = Config(64, 0, 10000.0);
  const std::vector<double> base = Freqs(c, 0);
  c.scaling.type = RopeScalingType::kDynamic;
  c.scaling.factor = 2.0;
  c.scaling.max_position_embeddings = 2048;
  for (int T : {0, 1, 2048}) {
    const std::vector<double> f = Freqs(c, T);
    for (size_t i = 0; i < f.size(); ++i) EXPECT_NEAR(f[i], base[i], 1e-15);
  }
  // T = 4096: effective factor s T / M - (s - 1) = 3; the lowest frequency is
  // divided by exactly that.
  const std::vector<double> f = Freqs(c, 4096);
  EXPECT_NEAR(f.back(), base.back() / 3.0, 1e-15);
  EXPECT_EQ(f[0], 1.0);
}

// A pair's wavelength in positions is 2 pi / f; it completes L / wavelength
// rotations over the original context L.
double Rotations(double f, int L) { return L * f / (2 * kPi); }

TEST(RopeFrequencies, YarnExtrapolatesFastPairsAndInterpolatesSlowOnes) {
  const int L = 4096;
  const double s = 16.0;
  RopeFrequencyConfig c = Config(128, 0, 10000.0);
  const std::vector<double> base = Freqs(c, 0);
  c.scaling.type = RopeScalingType::kYarn;
  c.scaling.factor = s;
  c.scaling.original_max_position_embeddings = L;
  double af = 0;
  const std::vector<double> f = Freqs(c, 0, &af);
  int kept = 0, divided = 0, blended = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    const double rot = Rotations(base[i], L);
    if (f[i] == base[i]) {
      ++kept;
      EXPECT_GT(rot, 32.0 / 2) << i;  // truncation may widen by one pair
    } else if (std::abs(f[i] - base[i] / s) < 1e-18) {
      ++divided;
      EXPECT_LT(rot, 1.0 * 2) << i;
    } else {
      ++blended;
      EXPECT_LT(f[i], base[i]);
      EXPECT_GT(f[i], base[i] / s);
    }
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(divided, 0);
  EXPECT_GT(blended, 0);
  // Every pair with more than 32 rotations over L is kept, every pair with
  // fewer than 1 is interpolated.
  for (size_t i = 0; i < f.size(); ++i) {
    if (Rotations(base[i], L) > 32.0 * 2) EXPECT_EQ(f[i], base[i]) << i;
    if (Rotations(base[i], L) < 0.5) EXPECT_NEAR(f[i], base[i] / s, 1e-18) << i;
  }
  EXPECT_NEAR(af, 0.1 * std::log(16.0) + 1.0, 1e-15);
}

TEST(RopeFrequencies, YarnRampEdgesAtTruncatedCorrectionDims) {
  // Llama-like numbers where the edges are easy to compute by hand:
  // r = 128, base = 10000, L = 4096. Pair i completes L base^(-2i/r) / (2 pi)
  // rotations; it equals beta at i* = (r/2) ln(L/(2 pi beta)) / ln(base).
  const int L = 4096, r = 128;
  const double base = 10000.0;
  auto edge = [&](double beta) {
    return (r / 2.0) * std::log(L / (2 * kPi * beta)) / std::log(base);
  };
  const double lo = std::floor(edge(32.0)), hi = std::ceil(edge(1.0));
  RopeFrequencyConfig c = Config(r, 0, base);
  const std::vector<double> b = Freqs(c, 0);
  c.scaling.type = RopeScalingType::kYarn;
  c.scaling.factor = 4.0;
  c.scaling.original_max_position_embeddings = L;
  const std::vector<double> f = Freqs(c, 0);
  for (int i = 0; i < r / 2; ++i) {
    const double ramp = std::min(1.0, std::max(0.0, (i - lo) / (hi - lo)));
    const double want = b[i] / 4.0 * ramp + b[i] * (1 - ramp);
    EXPECT_NEAR(f[i], want, 1e-15 * b[i]) << i;
  }
  // truncate = false moves the edges to the exact (fractional) values.
  c.scaling.truncate = false;
  const std::vector<double> g = Freqs(c, 0);
  const double lo2 = edge(32.0), hi2 = edge(1.0);
  for (int i = 0; i < r / 2; ++i) {
    const double ramp = std::min(1.0, std::max(0.0, (i - lo2) / (hi2 - lo2)));
    EXPECT_NEAR(g[i], b[i] / 4.0 * ramp + b[i] * (1 - ramp), 1e-15 * b[i]);
  }
}

TEST(RopeFrequencies, YarnAttentionFactorRules) {
  RopeFrequencyConfig c = Config(64, 0, 10000.0);
  c.scaling.type = RopeScalingType::kYarn;
  c.scaling.factor = 40.0;
  c.scaling.original_max_position_embeddings = 4096;
  double af = 0;
  Freqs(c, 0, &af);
  EXPECT_NEAR(af, 1.0 + 0.1 * std::log(40.0), 1e-15);
  // DeepSeek-style mscale / mscale_all_dim.
  c.scaling.mscale = 0.707;
  c.scaling.mscale_all_dim = 1.0;
  Freqs(c, 0, &af);
  EXPECT_NEAR(af,
              (1.0 + 0.0707 * std::log(40.0)) / (1.0 + 0.1 * std::log(40.0)),
              1e-15);
  // Only one of them set: the plain rule.
  c.scaling.mscale_all_dim = 0.0;
  Freqs(c, 0, &af);
  EXPECT_NEAR(af, 1.0 + 0.1 * std::log(40.0), 1e-15);
  // An explicit value wins.
  c.scaling.has_attention_factor = true;
  c.scaling.attention_factor = 1.25;
  Freqs(c, 0, &af);
  EXPECT_EQ(af, 1.25);
  // s <= 1 -> 1.
  c.scaling.has_attention_factor = false;
  c.scaling.factor = 1.0;
  Freqs(c, 0, &af);
  EXPECT_EQ(af, 1.0);
}

TEST(RopeFrequencies, LongropeSwitchesShortToLongPastL) {
  RopeFrequencyConfig c = Config(8, 0, 10000.0);
  const std::vector<double> b = Freqs(c, 0);
  c.scaling.type = RopeScalingType::kLongrope;
  c.scaling.factor = 32.0;
  c.scaling.original_max_position_embeddings = 4096;
  c.scaling.short_factor = {1.0, 1.5, 2.0, 3.0};
  c.scaling.long_factor = {1.0, 4.0, 16.0, 64.0};
  double af = 0;
  std::vector<double> f = Freqs(c, 4096, &af);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(f[i], b[i] / c.scaling.short_factor[i], 1e-17);
  EXPECT_NEAR(af, std::sqrt(1 + std::log(32.0) / std::log(4096.0)), 1e-15);
  f = Freqs(c, 4097);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(f[i], b[i] / c.scaling.long_factor[i], 1e-17);
}

void ExpectInvalid(const RopeFrequencyConfig& c, const std::string& needle) {
  std::vector<double> f;
  double af;
  const Status s = RopeFrequencies(c, 10, &f, &af);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

// Llama 4 Scout: llama3 with lowFreqFactor = highFreqFactor = 1, L = 8192,
// s = 16. No band between the edges: pairs turning within 8192 positions
// keep their frequency, slower ones are divided by 16.
TEST(RopeFrequencies, Llama3WithEqualFactorsSplitsAtOneWavelength) {
  RopeFrequencyConfig c = Config(128, 0, 500000.0);
  const std::vector<double> b = Freqs(c, 0);
  c.scaling.type = RopeScalingType::kLlama3;
  c.scaling.factor = 16.0;
  c.scaling.low_freq_factor = 1.0;
  c.scaling.high_freq_factor = 1.0;
  c.scaling.original_max_position_embeddings = 8192;
  const std::vector<double> f = Freqs(c, 0);
  int kept = 0;
  for (size_t i = 0; i < f.size(); ++i) {
    if (2 * kPi / b[i] < 8192.0) {
      EXPECT_EQ(f[i], b[i]) << i;
      ++kept;
    } else {
      EXPECT_EQ(f[i], b[i] / 16.0) << i;
    }
  }
  // 2 pi 500000^(2i/128) < 8192 for i <= 34 (i = 34: 6695; i = 35: 8219).
  EXPECT_EQ(kept, 35);
}

// Gemma 4's global layers (rope_type "proportional"): head 512, base 1e6,
// partial_rotary_factor 0.25. The exponent runs over all 512 dims, so pair
// 32 turns at 1e6^(-64/512) = 10^(-0.75); pairs 64 .. 255 do not turn.
TEST(RopeFrequencies, ProportionalPadsWithZerosAndKeepsTheFullExponent) {
  RopeFrequencyConfig c = Config(512, 0, 1e6);
  c.scaling.type = RopeScalingType::kProportional;
  c.scaling.partial_rotary_factor = 0.25;
  EXPECT_EQ(ProportionalAngles(c), 64);
  double af = 0;
  std::vector<double> f = Freqs(c, 0, &af);
  ASSERT_EQ(f.size(), 256u);
  EXPECT_EQ(af, 1.0);
  EXPECT_EQ(f[0], 1.0);
  EXPECT_NEAR(f[32], 0.17782794100389228, 1e-16);  // 10^-0.75
  EXPECT_NEAR(f[63], std::pow(10.0, -6.0 * 63.0 / 256.0), 1e-16);
  for (size_t i = 64; i < f.size(); ++i) EXPECT_EQ(f[i], 0.0) << i;
  // A factor divides the turning pairs only.
  c.scaling.factor = 8.0;
  f = Freqs(c, 0);
  EXPECT_EQ(f[0], 1.0 / 8.0);
  EXPECT_NEAR(f[32], 0.17782794100389228 / 8.0, 1e-17);
  EXPECT_EQ(f[64], 0.0);
  // int(p * r // 2): 0.3 * 10 / 2 = 1.5 -> 1 pair of 5.
  c = Config(10, 0, 10000.0);
  c.scaling.type = RopeScalingType::kProportional;
  c.scaling.partial_rotary_factor = 0.3;
  f = Freqs(c, 0);
  EXPECT_EQ(f, (std::vector<double>{1.0, 0.0, 0.0, 0.0, 0.0}));
  // Out of range, or no pair left turning.
  c.scaling.partial_rotary_factor = 0.0;
  ExpectInvalid(c, "scaling.partialRotaryFactor must be in (0, 1], got 0");
  c.scaling.partial_rotary_factor = 1.5;
  ExpectInvalid(c, "scaling.partialRotaryFactor must be in (0, 1], got 1.5");
  c.scaling.partial_rotary_factor = 0.1;
  ExpectInvalid(c, "= 0 pairs; it must rotate at least one");
}

TEST(RopeFrequencies, Llama3BandsByWavelength) {
  // Llama 3.1: base 500000, r 128, factor 8, low 1, high 4, L 8192.
  RopeFrequencyConfig c = Config(128, 0, 500000.0);
  const std::vector<double> b = Freqs(c, 0);
  c.scaling.type = RopeScalingType::kLlama3;
  c.scaling.factor = 8.0;
  c.scaling.low_freq_factor = 1.0;
  c.scaling.high_freq_factor = 4.0;
  c.scaling.original_max_position_embeddings = 8192;
  const std::vector<double> f = Freqs(c, 0);
  int bands[3] = {0, 0, 0};
  for (size_t i = 0; i < f.size(); ++i) {
    const double wl = 2 * kPi / b[i];
    if (wl < 8192.0 / 4.0) {
      EXPECT_EQ(f[i], b[i]);
      ++bands[0];
    } else if (wl > 8192.0) {
      EXPECT_NEAR(f[i], b[i] / 8.0, 1e-18);
      ++bands[2];
    } else {
      // Linear in 1/wavelength between the band edges.
      const double t = (8192.0 / wl - 1.0) / 3.0;
      EXPECT_NEAR(f[i], b[i] * (t + (1 - t) / 8.0), 1e-15 * b[i]);
      ++bands[1];
    }
  }
  EXPECT_GT(bands[0], 0);
  EXPECT_GT(bands[1], 0);
  EXPECT_GT(bands[2], 0);
}

TEST(RopeFrequencies, InvalidConfigsNameTheParameterAndValue) {
  ExpectInvalid(Config(7, 0, 10000.0),
                "headDim must be even when rotaryDim is not given (RoPE "
                "rotates pairs), got 7; pass an even rotaryDim for partial "
                "rotary");
  ExpectInvalid(Config(8, 5, 10000.0),
                "rotaryDim must be even (RoPE rotates pairs), got 5");
  ExpectInvalid(Config(8, 10, 10000.0),
                "rotaryDim (10) must not exceed headDim (8)");
  ExpectInvalid(Config(0, 0, 10000.0),
                "headDim must be an integer >= 1, got 0");
  ExpectInvalid(Config(8, 0, 1.0), "base must be > 1, got 1");
  ExpectInvalid(Config(8, 0, NAN), "base must be a finite number, got NaN");
  RopeFrequencyConfig c = Config(8, 0, 10000.0);
  c.scaling.type = RopeScalingType::kYarn;
  ExpectInvalid(c, "originalMaxPositionEmbeddings must be >= 1");
  c.scaling.original_max_position_embeddings = 100;
  c.scaling.factor = NAN;
  ExpectInvalid(c, "scaling.factor must be a finite number, got NaN");
  c.scaling.factor = 2;
  c.scaling.beta_fast = -1;
  ExpectInvalid(c, "betaFast");
  c.scaling.type = RopeScalingType::kLongrope;
  ExpectInvalid(c, "shortFactor must have rotaryDim/2 = 4 values, got 0");
  c.scaling.type = RopeScalingType::kLlama3;
  c.scaling.low_freq_factor = 4;
  c.scaling.high_freq_factor = 3;
  ExpectInvalid(
      c, "highFreqFactor (3) must not be less than scaling.lowFreqFactor (4)");
  c.scaling.type = RopeScalingType::kDynamic;
  ExpectInvalid(c, "maxPositionEmbeddings");
  c.scaling.type = static_cast<RopeScalingType>(42);
  ExpectInvalid(c, "not a valid enum value: 42");
  RopeScalingType t;
  EXPECT_FALSE(ParseRopeScalingType("ntk-aware", &t).ok());
  ASSERT_TRUE(ParseRopeScalingType("llama3", &t).ok());
  EXPECT_EQ(t, RopeScalingType::kLlama3);
}

// Parameters that each pass validation but whose combination overflows,
// underflows or divides by zero gave inf or NaN frequencies or attention
// factors (or, for ntk, a base' < 1); each is now an error naming them.
TEST(RopeFrequencies, OverflowingScalingsAreErrorsNotInfOrNaN) {
  RopeFrequencyConfig c = Config(8, 0, 10000.0);
  c.scaling.type = RopeScalingType::kLinear;
  c.scaling.factor = 5e-324;  // 1 / factor = inf
  ExpectInvalid(c, "linear scaling gives inv_freq[0] = Infinity");
  c.scaling.type = RopeScalingType::kNtk;
  c.scaling.factor = 1e300;  // base' = inf
  ExpectInvalid(c, "ntk scaling: base * factor^(r/(r-2))");
  c.base = 10.0;
  c.scaling.factor = 1e-3;  // base' = 10 * 1e-4 < 1: rising frequencies
  ExpectInvalid(c, "must be a finite number > 1");
  c.base = 10000.0;
  c.scaling.type = RopeScalingType::kYarn;
  c.scaling.original_max_position_embeddings = 4096;
  c.scaling.factor = 4.0;
  c.scaling.beta_fast = c.scaling.beta_slow = 1e-310;  // ln(L / tiny) = inf
  ExpectInvalid(c, "correction dims for scaling.betaFast");
  c.scaling = RopeScaling();
  c.scaling.type = RopeScalingType::kLongrope;
  c.scaling.factor = 4.0;
  c.scaling.original_max_position_embeddings = 1;  // ln(L) = 0
  c.scaling.short_factor = c.scaling.long_factor = {1, 1, 1, 1};
  ExpectInvalid(c, "originalMaxPositionEmbeddings must be >= 2");
  c.scaling.has_attention_factor = true;  // an explicit factor needs no ln L
  c.scaling.attention_factor = 1.5;
  double af = 0.0;
  EXPECT_EQ(Freqs(c, 10, &af).size(), 4u);
  EXPECT_EQ(af, 1.5);
  c.scaling = RopeScaling();
  c.scaling.type = RopeScalingType::kYarn;
  c.scaling.original_max_position_embeddings = 4096;
  c.scaling.factor = 1e5;  // m(s, 1.7e308) = 0.1 * 1.7e308 * ln(1e5) = inf
  c.scaling.mscale = c.scaling.mscale_all_dim = 1.7e308;  // inf / inf = NaN
  ExpectInvalid(c, "attention factor");
}

// llama3's blend weight smooth = (L/wl - low) / (high - low) left [0, 1]
// when the band is an ulp wide and L / wl rounded past its edge: a pair got
// 1.875 times its default frequency, or a negative one. Every llama3
// frequency is its default one times a multiplier in [1/s, 1].
TEST(RopeFrequencies, Llama3MultiplierStaysInRangeForAnUlpWideBand) {
  struct Case {
    int L;
    double low, base;
    int r;
  };
  for (const Case& k :
       {Case{4096, 3.0, 1.765081386402402e+50, 86},
        Case{4096, 7.195859758680983, 6.944316399065127e+52, 108},
        Case{8192, 7.142860279413093, 3.41545058363299e+56, 50}}) {
    RopeFrequencyConfig c = Config(k.r, 0, k.base);
    const std::vector<double> plain = Freqs(c, 10);
    c.scaling.type = RopeScalingType::kLlama3;
    c.scaling.factor = 8.0;
    c.scaling.original_max_position_embeddings = k.L;
    c.scaling.low_freq_factor = k.low;
    c.scaling.high_freq_factor = std::nextafter(k.low, 100.0);
    const std::vector<double> f = Freqs(c, 10);
    ASSERT_EQ(f.size(), plain.size());
    for (size_t i = 0; i < f.size(); ++i) {
      EXPECT_LE(f[i], plain[i] * (1 + 1e-15)) << "L=" << k.L << " i=" << i;
      EXPECT_GE(f[i], plain[i] / 8.0 * (1 - 1e-15))
          << "L=" << k.L << " i=" << i;
    }
  }
}

// Dynamic NTK's bracket (s T / M) - (s - 1) cancels
// to 0 for a large s at T = M (base' = 0, inv_freq = inf); at T <= M the
// frequencies are the default ones, and past M the bracket is 1 + s(T/M - 1).
TEST(RopeFrequencies, DynamicWithHugeFactorIsDefaultUpToMAndFinitePast) {
  RopeFrequencyConfig c = Config(8, 0, 10000.0);
  const std::vector<double> plain = Freqs(c, 100);
  c.scaling.type = RopeScalingType::kDynamic;
  c.scaling.factor = 1e20;
  c.scaling.max_position_embeddings = 1 << 20;
  EXPECT_EQ(Freqs(c, 1 << 20), plain);
  EXPECT_EQ(Freqs(c, 5), plain);
  // T = 2M: base' = base * (1 + s)^(4/3); the last pair i = 3 has
  // inv_freq = base'^(-3/4) = base^(-3/4) / (1 + s).
  const std::vector<double> f = Freqs(c, 1 << 21);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_NEAR(f[3] / (std::pow(10000.0, -0.75) / (1.0 + 1e20)), 1.0, 1e-12);
  c.scaling.factor = 1e300;  // base' overflows at T = 2M
  std::vector<double> g;
  double af = 0.0;
  const Status s = RopeFrequencies(c, 1 << 21, &g, &af);
  EXPECT_NE(s.message().find("dynamic scaling at seqLen = 2097152"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace posenc
