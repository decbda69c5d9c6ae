// RoPE frequencies and scaling, written from the formulas in
// docs/formulas.md#rope-scaling. All in double; callers round to float32 once
// at the end.
#include "ops/rope_frequencies.h"

#include <cmath>

namespace posenc {
namespace {

constexpr double kPi = 3.14159265358979323846;

const char* const kScalingNames[kNumRopeScalingTypes] = {
    "default", "linear",   "ntk",    "dynamic",
    "yarn",    "longrope", "llama3", "proportional"};

bool Finite(double x) { return std::isfinite(x); }

// YaRN's m(s, k): 1 if s <= 1, else 0.1 * k * ln(s) + 1.
double YarnMscale(double s, double k) {
  return s <= 1.0 ? 1.0 : 0.1 * k * std::log(s) + 1.0;
}

// Number of pair dimensions whose wavelength completes `rotations` turns over
// L positions: r * ln(L / (2 pi rotations)) / (2 ln base).
double YarnCorrectionDim(double rotations, int r, double base, int L) {
  return r * std::log(L / (2.0 * kPi * rotations)) / (2.0 * std::log(base));
}

// Static NTK-aware base: base * s^(r/(r-2)).
double NtkBase(double base, double s, int r) {
  return base * std::pow(s, r / (r - 2.0));
}

// Dynamic NTK base at context length T >= M:
// base * ((s T / M) - (s - 1))^(r/(r-2)), with the bracket written as
// 1 + s (T/M - 1) (the same number; no cancellation for large s), and
// exactly base at T = M.
double DynamicBase(double base, double s, double T, double M, int r) {
  if (T <= M) return base;
  return base * std::pow(1.0 + s * (T / M - 1.0), r / (r - 2.0));
}

Status CheckPositiveFinite(const char* name, double v) {
  return CheckFiniteAbove(StrCat("scaling.", name), v, 0.0);
}

Status CheckLength(const char* name, int v) {
  if (v < 1) {
    return Status::Invalid(StrCat(
        "scaling.", name, " must be >= 1 for this scaling type, got ", v));
  }
  return Status::Ok();
}

Status CheckFactorList(const char* name, const std::vector<double>& f,
                       int half) {
  if (static_cast<int>(f.size()) != half) {
    return Status::Invalid(StrCat("scaling.", name, " must have rotaryDim/2 = ",
                                  half, " values, got ", f.size()));
  }
  for (size_t i = 0; i < f.size(); ++i) {
    POSENC_RETURN_IF_ERROR(
        CheckFiniteAbove(StrCat("scaling.", name, "[", i, "]"), f[i], 0.0));
  }
  return Status::Ok();
}

Status ValidateMrope(const RopeFrequencyConfig& c, int r) {
  const std::vector<double>& sec = c.mrope_section;
  if (sec.empty()) {
    if (c.mrope_interleaved) {
      return Status::Invalid(
          "mropeInterleaved is set without mropeSection (the pairs per row)");
    }
    return Status::Ok();
  }
  if (sec.size() != 3) {
    return Status::Invalid(
        StrCat("mropeSection must have 3 values (pairs for the temporal, "
               "height and width rows), got ",
               sec.size()));
  }
  double sum = 0.0;
  for (size_t a = 0; a < 3; ++a) {
    if (!(sec[a] >= 0.0 && sec[a] <= r && sec[a] == std::floor(sec[a]))) {
      return Status::Invalid(StrCat("mropeSection[", a,
                                    "] must be an integer >= 0, got ", sec[a]));
    }
    sum += sec[a];
  }
  if (sum != r / 2) {
    return Status::Invalid(
        StrCat("mropeSection (", sec[0], ", ", sec[1], ", ", sec[2],
               ") must sum to rotaryDim / 2 = ", r / 2, ", got ", sum));
  }
  return Status::Ok();
}

}  // namespace

int MropeAxis(const RopeFrequencyConfig& c, int i) {
  const int s0 = static_cast<int>(c.mrope_section[0]);
  const int s1 = static_cast<int>(c.mrope_section[1]);
  const int s2 = static_cast<int>(c.mrope_section[2]);
  if (c.mrope_interleaved) {
    if (i % 3 == 1 && i < 3 * s1) return 1;
    if (i % 3 == 2 && i < 3 * s2) return 2;
    return 0;
  }
  return i < s0 ? 0 : (i < s0 + s1 ? 1 : 2);
}

Status ParseRopeScalingType(const std::string& name, RopeScalingType* type) {
  for (int i = 0; i < kNumRopeScalingTypes; ++i) {
    if (name == kScalingNames[i]) {
      *type = static_cast<RopeScalingType>(i);
      return Status::Ok();
    }
  }
  return Status::Invalid(StrCat("scaling.type must be one of ",
                                JoinNames(kScalingNames, kNumRopeScalingTypes),
                                "; got '", name, "'"));
}

const char* RopeScalingTypeName(RopeScalingType type) {
  const int i = static_cast<int>(type);
  return (i >= 0 && i < kNumRopeScalingTypes) ? kScalingNames[i] : "invalid";
}

const char* RequiredScalingFields(RopeScalingType type) {
  switch (type) {
    case RopeScalingType::kDefault:
      return "";
    case RopeScalingType::kLinear:
    case RopeScalingType::kNtk:
      return "factor";
    case RopeScalingType::kDynamic:
      return "factor maxPositionEmbeddings";
    case RopeScalingType::kYarn:
      return "factor originalMaxPositionEmbeddings";
    case RopeScalingType::kLongrope:
      return "factor originalMaxPositionEmbeddings shortFactor longFactor";
    case RopeScalingType::kLlama3:
      return "factor originalMaxPositionEmbeddings lowFreqFactor "
             "highFreqFactor";
    case RopeScalingType::kProportional:
      return "";  // factor and partialRotaryFactor default to 1, as in HF
  }
  return "";
}

Status ValidateRopeConfig(const RopeFrequencyConfig& c) {
  if (c.head_dim < 1) {
    return Status::Invalid(
        StrCat("headDim must be an integer >= 1, got ", c.head_dim));
  }
  if (c.rotary_dim < 0) {
    return Status::Invalid(
        StrCat("rotaryDim must be an integer >= 0, got ", c.rotary_dim));
  }
  const int r = EffectiveRotaryDim(c);
  if (r > c.head_dim) {
    return Status::Invalid(StrCat(
        "rotaryDim (", r, ") must not exceed headDim (", c.head_dim, ")"));
  }
  if (r % 2 != 0) {
    return Status::Invalid(
        c.rotary_dim == 0
            ? StrCat("headDim must be even when rotaryDim is not given (RoPE "
                     "rotates pairs), got ",
                     r, "; pass an even rotaryDim for partial rotary")
            : StrCat("rotaryDim must be even (RoPE rotates pairs), got ", r));
  }
  POSENC_RETURN_IF_ERROR(CheckFiniteAbove("base", c.base, 1.0));
  POSENC_RETURN_IF_ERROR(ValidateMrope(c, r));
  const RopeScaling& s = c.scaling;
  const int type = static_cast<int>(s.type);
  if (type < 0 || type >= kNumRopeScalingTypes) {
    return Status::Invalid(
        StrCat("scaling.type is not a valid enum value: ", type));
  }
  if (s.type == RopeScalingType::kDefault) return Status::Ok();
  POSENC_RETURN_IF_ERROR(CheckPositiveFinite("factor", s.factor));
  switch (s.type) {
    case RopeScalingType::kDefault:
    case RopeScalingType::kLinear:
      break;
    case RopeScalingType::kNtk: {
      if (r < 4) {
        return Status::Invalid(StrCat(
            "ntk scaling needs rotaryDim >= 4 (exponent r/(r-2)), got ", r));
      }
      const double ntk_base = NtkBase(c.base, s.factor, r);
      if (!Finite(ntk_base) || ntk_base <= 1.0) {
        return Status::Invalid(
            StrCat("ntk scaling: base * factor^(r/(r-2)) = ", c.base, " * ",
                   s.factor, "^(", r, "/", r - 2, ") = ", ntk_base,
                   " must be a finite number > 1"));
      }
      break;
    }
    case RopeScalingType::kDynamic:
      if (r < 4) {
        return Status::Invalid(StrCat(
            "dynamic scaling needs rotaryDim >= 4 (exponent r/(r-2)), got ",
            r));
      }
      POSENC_RETURN_IF_ERROR(
          CheckLength("maxPositionEmbeddings", s.max_position_embeddings));
      break;
    case RopeScalingType::kYarn:
      POSENC_RETURN_IF_ERROR(CheckLength("originalMaxPositionEmbeddings",
                                         s.original_max_position_embeddings));
      POSENC_RETURN_IF_ERROR(CheckPositiveFinite("betaFast", s.beta_fast));
      POSENC_RETURN_IF_ERROR(CheckPositiveFinite("betaSlow", s.beta_slow));
      POSENC_RETURN_IF_ERROR(
          CheckFiniteAtLeast("scaling.mscale", s.mscale, 0.0));
      POSENC_RETURN_IF_ERROR(
          CheckFiniteAtLeast("scaling.mscaleAllDim", s.mscale_all_dim, 0.0));
      if (s.has_attention_factor) {
        POSENC_RETURN_IF_ERROR(
            CheckPositiveFinite("attentionFactor", s.attention_factor));
      }
      break;
    case RopeScalingType::kLongrope:
      POSENC_RETURN_IF_ERROR(CheckLength("originalMaxPositionEmbeddings",
                                         s.original_max_position_embeddings));
      // The default attention factor divides by ln(L): L = 1 would give inf.
      if (!s.has_attention_factor && s.factor > 1.0 &&
          s.original_max_position_embeddings < 2) {
        return Status::Invalid(
            StrCat("scaling.originalMaxPositionEmbeddings must be >= 2 for "
                   "longrope without attentionFactor (the default factor "
                   "divides by ln of it), got ",
                   s.original_max_position_embeddings));
      }
      POSENC_RETURN_IF_ERROR(
          CheckFactorList("shortFactor", s.short_factor, r / 2));
      POSENC_RETURN_IF_ERROR(
          CheckFactorList("longFactor", s.long_factor, r / 2));
      if (s.has_attention_factor) {
        POSENC_RETURN_IF_ERROR(
            CheckPositiveFinite("attentionFactor", s.attention_factor));
      }
      break;
    case RopeScalingType::kLlama3:
      POSENC_RETURN_IF_ERROR(CheckLength("originalMaxPositionEmbeddings",
                                         s.original_max_position_embeddings));
      POSENC_RETURN_IF_ERROR(
          CheckPositiveFinite("lowFreqFactor", s.low_freq_factor));
      POSENC_RETURN_IF_ERROR(
          CheckPositiveFinite("highFreqFactor", s.high_freq_factor));
      // Equal factors (Llama 4 Scout: 1 and 1) leave no band between the
      // two; Hugging Face reads them, so posenc does too.
      if (!(s.high_freq_factor >= s.low_freq_factor)) {
        return Status::Invalid(
            StrCat("scaling.highFreqFactor (", s.high_freq_factor,
                   ") must not be less than scaling.lowFreqFactor (",
                   s.low_freq_factor, ")"));
      }
      break;
    case RopeScalingType::kProportional: {
      const double p = s.partial_rotary_factor;
      if (!(p > 0.0 && p <= 1.0)) {
        return Status::Invalid(
            StrCat("scaling.partialRotaryFactor must be in (0, 1], got ", p));
      }
      if (ProportionalAngles(c) < 1) {
        return Status::Invalid(StrCat(
            "proportional scaling rotates floor(partialRotaryFactor * "
            "rotaryDim / 2) = floor(",
            p, " * ", r, " / 2) = 0 pairs; it must rotate at least one"));
      }
      break;
    }
  }
  return Status::Ok();
}

int ProportionalAngles(const RopeFrequencyConfig& c) {
  return static_cast<int>(std::floor(c.scaling.partial_rotary_factor *
                                     EffectiveRotaryDim(c) / 2.0));
}

Status RopeFrequencies(const RopeFrequencyConfig& c, int seq_len,
                       std::vector<double>* inv_freq,
                       double* attention_factor) {
  POSENC_RETURN_IF_ERROR(ValidateRopeConfig(c));
  if (seq_len < 0) {
    return Status::Invalid(
        StrCat("seqLen must be an integer >= 0, got ", seq_len));
  }
  const RopeScaling& s = c.scaling;
  const int r = EffectiveRotaryDim(c);
  const int half = r / 2;
  double base = c.base;
  double factor = 1.0;
  if (s.type == RopeScalingType::kNtk) {
    base = NtkBase(c.base, s.factor, r);
  } else if (s.type == RopeScalingType::kDynamic) {
    const double M = s.max_position_embeddings;
    base = DynamicBase(c.base, s.factor, seq_len, M, r);
    if (!Finite(base)) {
      return Status::Invalid(
          StrCat("dynamic scaling at seqLen = ", seq_len,
                 ": base * (1 + factor * (seqLen / maxPositionEmbeddings - "
                 "1))^(r/(r-2)) overflows (base = ",
                 c.base, ", factor = ", s.factor,
                 ", maxPositionEmbeddings = ", s.max_position_embeddings, ")"));
    }
  }

  inv_freq->assign(half, 0.0);
  for (int i = 0; i < half; ++i) {
    (*inv_freq)[i] = std::pow(base, -2.0 * i / r);
  }

  switch (s.type) {
    case RopeScalingType::kDefault:
    case RopeScalingType::kNtk:
    case RopeScalingType::kDynamic:
      break;
    case RopeScalingType::kLinear:
      for (double& f : *inv_freq) f /= s.factor;
      break;
    case RopeScalingType::kYarn: {
      const int L = s.original_max_position_embeddings;
      double low = YarnCorrectionDim(s.beta_fast, r, c.base, L);
      double high = YarnCorrectionDim(s.beta_slow, r, c.base, L);
      if (!Finite(low) || !Finite(high)) {
        // ln(L / (2 pi beta)) of a beta so small or large that the ratio
        // overflows or underflows: the ramp would be NaN.
        return Status::Invalid(
            StrCat("yarn scaling: the correction dims for scaling.betaFast = ",
                   s.beta_fast, " and scaling.betaSlow = ", s.beta_slow,
                   " (originalMaxPositionEmbeddings = ", L, ") are ", low,
                   " and ", high, "; both must be finite"));
      }
      if (s.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
      }
      if (low < 0.0) low = 0.0;
      if (high > r - 1) high = r - 1;
      if (high == low) high += 0.001;
      for (int i = 0; i < half; ++i) {
        double ramp = (i - low) / (high - low);
        ramp = ramp < 0.0 ? 0.0 : (ramp > 1.0 ? 1.0 : ramp);
        const double extrap = (*inv_freq)[i];
        const double interp = extrap / s.factor;
        (*inv_freq)[i] = interp * ramp + extrap * (1.0 - ramp);
      }
      if (s.has_attention_factor) {
        factor = s.attention_factor;
      } else if (s.mscale != 0.0 && s.mscale_all_dim != 0.0) {
        factor = YarnMscale(s.factor, s.mscale) /
                 YarnMscale(s.factor, s.mscale_all_dim);
      } else {
        factor = YarnMscale(s.factor, 1.0);
      }
      break;
    }
    case RopeScalingType::kLongrope: {
      const int L = s.original_max_position_embeddings;
      const std::vector<double>& ext =
          seq_len > L ? s.long_factor : s.short_factor;
      for (int i = 0; i < half; ++i) (*inv_freq)[i] /= ext[i];
      if (s.has_attention_factor) {
        factor = s.attention_factor;
      } else {
        factor = s.factor <= 1.0
                     ? 1.0
                     : std::sqrt(1.0 + std::log(s.factor) / std::log(L));
      }
      break;
    }
    case RopeScalingType::kProportional: {
      const int angles = ProportionalAngles(c);
      for (int i = 0; i < half; ++i) {
        (*inv_freq)[i] = i < angles ? (*inv_freq)[i] / s.factor : 0.0;
      }
      break;
    }
    case RopeScalingType::kLlama3: {
      const double L = s.original_max_position_embeddings;
      const double low_wl = L / s.low_freq_factor;
      const double high_wl = L / s.high_freq_factor;
      for (int i = 0; i < half; ++i) {
        const double f = (*inv_freq)[i];
        const double wl = 2.0 * kPi / f;
        if (wl < high_wl) continue;  // high frequency: keep
        if (wl > low_wl) {           // low frequency: interpolate
          (*inv_freq)[i] = f / s.factor;
          continue;
        }
        // In [0, 1] on the band; clamped because L / wl can round past a
        // band edge that wl did not cross (factors an ulp apart: the
        // multiplier below left [1/s, 1], or went negative).
        // With equal factors the band is the one wavelength L (0 / 0 in
        // Hugging Face's formula): that pair is kept, as on the fast side.
        const double width = s.high_freq_factor - s.low_freq_factor;
        double smooth =
            width > 0.0 ? (L / wl - s.low_freq_factor) / width : 1.0;
        smooth = smooth < 0.0 ? 0.0 : (smooth > 1.0 ? 1.0 : smooth);
        (*inv_freq)[i] = (1.0 - smooth) * f / s.factor + smooth * f;
      }
      break;
    }
  }
  // Extreme but individually valid parameters (a factor of 1e-320, a base
  // of 1e300 with a tiny r, a huge mscale) can still overflow or underflow:
  // a frequency must be a normal positive double, the factor finite > 0.
  const int rotated =
      s.type == RopeScalingType::kProportional ? ProportionalAngles(c) : half;
  for (int i = 0; i < rotated; ++i) {
    const double f = (*inv_freq)[i];
    if (!std::isnormal(f) || f < 0.0) {
      return Status::Invalid(StrCat(
          RopeScalingTypeName(s.type), " scaling gives inv_freq[", i, "] = ", f,
          ", not a finite number > 0 (base = ", c.base, ", rotaryDim = ", r,
          ", scaling.factor = ", s.factor, ", seqLen = ", seq_len, ")"));
    }
  }
  if (!Finite(factor) || factor <= 0.0) {
    return Status::Invalid(StrCat(RopeScalingTypeName(s.type),
                                  " scaling gives the attention factor ",
                                  factor,
                                  ", not a finite number > 0 "
                                  "(scaling.factor = ",
                                  s.factor, ")"));
  }
  *attention_factor = factor;
  return Status::Ok();
}

}  // namespace posenc
