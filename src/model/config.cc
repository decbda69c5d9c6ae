#include "model/config.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

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
    char* end = nullptr;
    const double x = std::strtod(s->c_str(), &end);
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
  POSENC_RETURN_IF_ERROR(get("task", &s));
  c.task = *s;
  POSENC_RETURN_IF_ERROR(ValidateModelConfig(c));
  *out = c;
  return Status::Ok();
}

}  // namespace posenc
