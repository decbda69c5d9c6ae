#include "model/config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "base/decimal.h"
#include "model/json.h"
#include "ops/t5.h"

namespace posenc {
namespace {

Status CheckInt(const char* name, int v, int lo, int hi) {
  if (v < lo || v > hi) {
    return Status::Invalid(
        StrCat(name, " must be an integer in [", lo, ", ", hi, "], got ", v));
  }
  return Status::Ok();
}

Status CheckBase(const char* name, double v) {
  if (!std::isfinite(v) || v <= 1.0) {
    return Status::Invalid(
        StrCat(name, " must be a finite number > 1, got ", v));
  }
  return Status::Ok();
}

// rope_scaling as one line of JSON with the Hugging Face `rope_scaling` key
// names. Every scalar is written (the value round-trips exactly), the
// optional attention factor and the LongRoPE lists only when set.
Json Doubles(const std::vector<double>& v) {
  std::vector<Json> items;
  for (const double x : v) items.push_back(Json::Double(x));
  return Json::Array(std::move(items));
}

std::string ScalingToJson(const RopeScaling& s) {
  Json j = Json::Object();
  j.Set("rope_type", Json::String(RopeScalingTypeName(s.type)));
  j.Set("factor", Json::Double(s.factor));
  j.Set("original_max_position_embeddings",
        Json::Signed(s.original_max_position_embeddings));
  j.Set("max_position_embeddings", Json::Signed(s.max_position_embeddings));
  j.Set("beta_fast", Json::Double(s.beta_fast));
  j.Set("beta_slow", Json::Double(s.beta_slow));
  j.Set("truncate", Json::Bool(s.truncate));
  j.Set("mscale", Json::Double(s.mscale));
  j.Set("mscale_all_dim", Json::Double(s.mscale_all_dim));
  if (s.has_attention_factor) {
    j.Set("attention_factor", Json::Double(s.attention_factor));
  }
  j.Set("low_freq_factor", Json::Double(s.low_freq_factor));
  j.Set("high_freq_factor", Json::Double(s.high_freq_factor));
  if (!s.short_factor.empty()) j.Set("short_factor", Doubles(s.short_factor));
  if (!s.long_factor.empty()) j.Set("long_factor", Doubles(s.long_factor));
  if (s.type == RopeScalingType::kProportional) {
    j.Set("partial_rotary_factor", Json::Double(s.partial_rotary_factor));
  }
  return DumpJson(j);
}

Status ScalingError(const std::string& what) {
  return Status::Invalid(StrCat("model metadata \"rope_scaling\" ", what));
}

Status JsonNumber(const Json& v, const std::string& key, double* out) {
  if (!v.IsNumber()) return ScalingError(StrCat(key, " must be a number"));
  *out = v.real;
  if (!std::isfinite(*out)) {
    return ScalingError(StrCat(key, " must be finite"));
  }
  return Status::Ok();
}

Status JsonInt(const Json& v, const std::string& key, int* out) {
  double x = 0.0;
  POSENC_RETURN_IF_ERROR(JsonNumber(v, key, &x));
  if (x != std::floor(x) || x < 0.0 || x > (1 << 30)) {
    return ScalingError(
        StrCat(key, " must be an integer in [0, 2^30], got ", x));
  }
  *out = static_cast<int>(x);
  return Status::Ok();
}

Status JsonList(const Json& v, const std::string& key,
                std::vector<double>* out) {
  if (!v.IsArray() || v.array.empty() || v.array.size() > (1 << 16)) {
    return ScalingError(StrCat(key, " must be a list of 1 to 65536 numbers"));
  }
  out->resize(v.array.size());
  for (size_t i = 0; i < v.array.size(); ++i) {
    POSENC_RETURN_IF_ERROR(
        JsonNumber(v.array[i], StrCat(key, "[", i, "]"), &(*out)[i]));
  }
  return Status::Ok();
}

// The inverse of ScalingToJson: an object with a non-default rope_type and
// known keys only (absent ones keep their defaults).
Status ScalingFromJson(const std::string& text, RopeScaling* out) {
  Json j;
  if (!ParseJson(text, &j) || !j.IsObject()) {
    return ScalingError("must be a JSON object");
  }
  RopeScaling s;
  const Json* type = j.Find("rope_type");
  if (type == nullptr || !type->IsString()) {
    return ScalingError("lacks the string \"rope_type\"");
  }
  POSENC_RETURN_IF_ERROR(ParseRopeScalingType(type->string, &s.type));
  if (s.type == RopeScalingType::kDefault) {
    return ScalingError("must not be 'default' (omit the key instead)");
  }
  for (const JsonMember& m : j.object) {
    const std::string& k = m.key;
    const Json& v = m.value;
    Status st = Status::Ok();
    if (k == "rope_type") {
      continue;
    } else if (k == "factor") {
      st = JsonNumber(v, k, &s.factor);
    } else if (k == "original_max_position_embeddings") {
      st = JsonInt(v, k, &s.original_max_position_embeddings);
    } else if (k == "max_position_embeddings") {
      st = JsonInt(v, k, &s.max_position_embeddings);
    } else if (k == "beta_fast") {
      st = JsonNumber(v, k, &s.beta_fast);
    } else if (k == "beta_slow") {
      st = JsonNumber(v, k, &s.beta_slow);
    } else if (k == "truncate") {
      if (!v.IsBoolean()) return ScalingError("truncate must be a boolean");
      s.truncate = v.boolean;
    } else if (k == "mscale") {
      st = JsonNumber(v, k, &s.mscale);
    } else if (k == "mscale_all_dim") {
      st = JsonNumber(v, k, &s.mscale_all_dim);
    } else if (k == "attention_factor") {
      s.has_attention_factor = true;
      st = JsonNumber(v, k, &s.attention_factor);
    } else if (k == "low_freq_factor") {
      st = JsonNumber(v, k, &s.low_freq_factor);
    } else if (k == "high_freq_factor") {
      st = JsonNumber(v, k, &s.high_freq_factor);
    } else if (k == "short_factor") {
      st = JsonList(v, k, &s.short_factor);
    } else if (k == "long_factor") {
      st = JsonList(v, k, &s.long_factor);
    } else if (k == "partial_rotary_factor") {
      st = JsonNumber(v, k, &s.partial_rotary_factor);
    } else {
      return ScalingError(StrCat("has an unknown key \"", k, "\""));
    }
    POSENC_RETURN_IF_ERROR(st);
  }
  *out = s;
  return Status::Ok();
}

}  // namespace

RopeFrequencyConfig ModelConfig::Rope(const RopeScaling& scaling) const {
  RopeFrequencyConfig f;
  f.head_dim = head_dim();
  f.rotary_dim = rotary_dim;
  f.base = rope_base;
  f.scaling = scaling;
  return f;
}

Status ValidateModelConfig(const ModelConfig& c) {
  POSENC_RETURN_IF_ERROR(CheckInt("vocab", c.vocab, 3, 65536));
  POSENC_RETURN_IF_ERROR(CheckInt("dModel", c.d_model, 2, 2048));
  POSENC_RETURN_IF_ERROR(CheckInt("heads", c.heads, 1, 64));
  if (c.d_model % c.heads != 0) {
    return Status::Invalid(StrCat("dModel must be a multiple of heads, got ",
                                  c.d_model, " and ", c.heads));
  }
  POSENC_RETURN_IF_ERROR(CheckInt("layers", c.layers, 1, 32));
  POSENC_RETURN_IF_ERROR(CheckInt("dFf", c.d_ff, 1, 16384));
  POSENC_RETURN_IF_ERROR(CheckInt("maxLen", c.max_len, 1, 1 << 16));
  POSENC_RETURN_IF_ERROR(CheckInt("trainLen", c.train_len, 1, 1 << 16));
  if (c.causal) {
    if (c.num_classes != 0) {
      return Status::Invalid(
          StrCat("numClasses must be 0 for a causal language model, got ",
                 c.num_classes));
    }
  } else {
    POSENC_RETURN_IF_ERROR(CheckInt("numClasses", c.num_classes, 2, 65536));
  }
  const bool rotary =
      c.encoding == Encoding::kRope || c.encoding == Encoding::kXpos;
  if (!rotary && c.rope_scaling.type != RopeScalingType::kDefault) {
    return Status::Invalid(
        StrCat("ropeScaling applies to RoPE and xPos models; this model uses '",
               EncodingName(c.encoding), "'"));
  }
  switch (c.encoding) {
    case Encoding::kNope:
    case Encoding::kLearned:
    case Encoding::kAlibi:
      break;
    case Encoding::kSinusoidal:
      if (c.d_model % 2 != 0) {
        return Status::Invalid(StrCat(
            "dModel must be even for sinusoidal embeddings, got ", c.d_model));
      }
      POSENC_RETURN_IF_ERROR(CheckBase("sinusoidalBase", c.sinusoidal_base));
      break;
    case Encoding::kRope:
    case Encoding::kXpos:
      POSENC_RETURN_IF_ERROR(ValidateRopeConfig(c.Rope()));
      if (c.rope_scaling.type != RopeScalingType::kDefault) {
        // The frequencies compute at every length a model may run at (only
        // dynamic and longrope depend on it; dynamic's base grows with it).
        std::vector<double> inv;
        double factor = 1.0;
        for (int len : {1, 1 << 20}) {
          POSENC_RETURN_IF_ERROR(RopeFrequencies(c.Rope(), len, &inv, &factor));
        }
      }
      if (c.encoding == Encoding::kXpos &&
          (!std::isfinite(c.xpos_scale_base) || c.xpos_scale_base <= 0.0)) {
        return Status::Invalid(
            StrCat("xposScaleBase must be a finite number > 0, got ",
                   c.xpos_scale_base));
      }
      break;
    case Encoding::kT5:
      POSENC_RETURN_IF_ERROR(
          ValidateT5Buckets(c.t5_buckets, c.t5_max_distance, !c.causal));
      break;
    case Encoding::kShaw:
      POSENC_RETURN_IF_ERROR(CheckInt("shawClip", c.shaw_clip, 1, 4096));
      break;
    default:
      return Status::Invalid(
          StrCat("encoding must be one of nope, sinusoidal, "
                 "learned, rope, alibi, t5, shaw, xpos, "
                 "got enum value ",
                 static_cast<int>(c.encoding)));
  }
  return Status::Ok();
}

std::map<std::string, std::string> ConfigToMetadata(const ModelConfig& c) {
  std::map<std::string, std::string> m;
  m["format"] = "posenc-tiny-transformer-1";
  m["vocab"] = StrCat(c.vocab);
  m["d_model"] = StrCat(c.d_model);
  m["heads"] = StrCat(c.heads);
  m["layers"] = StrCat(c.layers);
  m["d_ff"] = StrCat(c.d_ff);
  m["encoding"] = EncodingName(c.encoding);
  m["causal"] = c.causal ? "true" : "false";
  m["num_classes"] = StrCat(c.num_classes);
  m["max_len"] = StrCat(c.max_len);
  m["train_len"] = StrCat(c.train_len);
  m["rotary_dim"] = StrCat(c.rotary_dim);
  m["rope_base"] = StrCat(c.rope_base);
  m["xpos_scale_base"] = StrCat(c.xpos_scale_base);
  m["sinusoidal_base"] = StrCat(c.sinusoidal_base);
  m["t5_buckets"] = StrCat(c.t5_buckets);
  m["t5_max_distance"] = StrCat(c.t5_max_distance);
  m["shaw_clip"] = StrCat(c.shaw_clip);
  if (c.rope_scaling.type != RopeScalingType::kDefault) {
    m["rope_scaling"] = ScalingToJson(c.rope_scaling);
  }
  m["task"] = c.task;
  return m;
}

Status ConfigFromMetadata(const std::map<std::string, std::string>& m,
                          ModelConfig* out) {
  auto get = [&](const char* key, const std::string** v) -> Status {
    auto it = m.find(key);
    if (it == m.end()) {
      return Status::Invalid(
          StrCat("model metadata lacks the key \"", key, "\""));
    }
    *v = &it->second;
    return Status::Ok();
  };
  auto get_int = [&](const char* key, int* v) -> Status {
    const std::string* s = nullptr;
    POSENC_RETURN_IF_ERROR(get(key, &s));
    errno = 0;
    char* end = nullptr;
    const long x = std::strtol(s->c_str(), &end, 10);
    if (s->empty() || *end != '\0' || errno != 0 || x < -(1L << 30) ||
        x > (1L << 30)) {
      return Status::Invalid(StrCat("model metadata \"", key,
                                    "\" must be an integer, got \"", *s, "\""));
    }
    *v = static_cast<int>(x);
    return Status::Ok();
  };
  auto get_double = [&](const char* key, double* v) -> Status {
    const std::string* s = nullptr;
    POSENC_RETURN_IF_ERROR(get(key, &s));
    const char* end = nullptr;
    const double x = ParseDouble(s->c_str(), &end);
    if (s->empty() || *end != '\0' || !std::isfinite(x)) {
      return Status::Invalid(StrCat("model metadata \"", key,
                                    "\" must be a finite number, got \"", *s,
                                    "\""));
    }
    *v = x;
    return Status::Ok();
  };
  const std::string* s = nullptr;
  POSENC_RETURN_IF_ERROR(get("format", &s));
  if (*s != "posenc-tiny-transformer-1") {
    return Status::Invalid(StrCat(
        "model metadata \"format\" must be \"posenc-tiny-transformer-1\", "
        "got \"",
        *s, "\""));
  }
  ModelConfig c;
  POSENC_RETURN_IF_ERROR(get_int("vocab", &c.vocab));
  POSENC_RETURN_IF_ERROR(get_int("d_model", &c.d_model));
  POSENC_RETURN_IF_ERROR(get_int("heads", &c.heads));
  POSENC_RETURN_IF_ERROR(get_int("layers", &c.layers));
  POSENC_RETURN_IF_ERROR(get_int("d_ff", &c.d_ff));
  POSENC_RETURN_IF_ERROR(get("encoding", &s));
  POSENC_RETURN_IF_ERROR(ParseEncoding(*s, &c.encoding));
  POSENC_RETURN_IF_ERROR(get("causal", &s));
  if (*s != "true" && *s != "false") {
    return Status::Invalid(StrCat(
        "model metadata \"causal\" must be \"true\" or \"false\", got \"", *s,
        "\""));
  }
  c.causal = *s == "true";
  POSENC_RETURN_IF_ERROR(get_int("num_classes", &c.num_classes));
  POSENC_RETURN_IF_ERROR(get_int("max_len", &c.max_len));
  POSENC_RETURN_IF_ERROR(get_int("train_len", &c.train_len));
  POSENC_RETURN_IF_ERROR(get_int("rotary_dim", &c.rotary_dim));
  POSENC_RETURN_IF_ERROR(get_double("rope_base", &c.rope_base));
  POSENC_RETURN_IF_ERROR(get_double("xpos_scale_base", &c.xpos_scale_base));
  POSENC_RETURN_IF_ERROR(get_double("sinusoidal_base", &c.sinusoidal_base));
  POSENC_RETURN_IF_ERROR(get_int("t5_buckets", &c.t5_buckets));
  POSENC_RETURN_IF_ERROR(get_int("t5_max_distance", &c.t5_max_distance));
  POSENC_RETURN_IF_ERROR(get_int("shaw_clip", &c.shaw_clip));
  if (const auto it = m.find("rope_scaling"); it != m.end()) {
    POSENC_RETURN_IF_ERROR(ScalingFromJson(it->second, &c.rope_scaling));
  }
  POSENC_RETURN_IF_ERROR(get("task", &s));
  c.task = *s;
  POSENC_RETURN_IF_ERROR(ValidateModelConfig(c));
  *out = c;
  return Status::Ok();
}

}  // namespace posenc
