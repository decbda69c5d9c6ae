// The kernel inference path against the materialised training path, the
// KV-cache decoder against both, and the model-level properties the page
// demonstrates (NoPE encoders are permutation-invariant, the others not;
// learned positions stop at their table).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "model/inference.h"
#include "model/rng.h"
#include "model/transformer.h"

namespace posenc {
namespace {

struct Case {
  Encoding encoding;
  bool causal;
};

std::string Name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(EncodingName(info.param.encoding)) +
         (info.param.causal ? "_causal" : "_encoder");
}

ModelConfig SmallConfig(const Case& k) {
  ModelConfig c;
  c.vocab = 13;
  c.d_model = 32;
  c.heads = 4;
  c.layers = 2;
  c.d_ff = 48;
  c.encoding = k.encoding;
  c.causal = k.causal;
  c.num_classes = k.causal ? 0 : 4;
  c.max_len = 48;
  c.rotary_dim = 6;
  c.xpos_scale_base = 64.0;
  c.t5_buckets = 8;
  c.t5_max_distance = 20;
  c.shaw_clip = 3;
  return c;
}

Model RandomModel(const Case& k, uint64_t seed) {
  Model m;
  EXPECT_TRUE(NewModel(SmallConfig(k), seed, &m).ok());
  SplitMix64 rng(seed + 1);
  for (float& x : m.w) x += rng.Symmetric(0.1);  // non-zero T5, biases
  return m;
}

std::vector<int32_t> RandomTokens(size_t T, uint64_t seed) {
  SplitMix64 rng(seed);
  std::vector<int32_t> t(T);
  for (int32_t& x : t) x = static_cast<int32_t>(rng.Below(13));
  return t;
}

double MaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0.0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    d = std::fmax(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  }
  return d;
}

class ModelPaths : public ::testing::TestWithParam<Case> {};

TEST_P(ModelPaths, KernelMatchesMaterialised) {
  const Model m = RandomModel(GetParam(), 3);
  for (size_t T : {1, 5, 37}) {
    const std::vector<int32_t> tokens = RandomTokens(T, T);
    ForwardCache cache;
    std::vector<float> ref;
    ASSERT_TRUE(
        Forward(m, tokens.data(), T, ForwardOptions(), &cache, &ref).ok());
    InferenceOptions opt;
    opt.attention_maps = true;
    InferenceResult res;
    const Status st = Infer(m, tokens.data(), T, opt, &res);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_LT(MaxDiff(res.logits, ref), 2e-4) << "T=" << T;
    ASSERT_EQ(res.maps.size(), cache.layers.size());
    for (size_t l = 0; l < res.maps.size(); ++l) {
      EXPECT_LT(MaxDiff(res.maps[l], cache.layers[l].p), 1e-5)
          << "layer " << l << " T=" << T;
    }
  }
}

class ModelDecode : public ::testing::TestWithParam<Case> {};

TEST_P(ModelDecode, CachedDecodingMatchesFullPass) {
  const Model m = RandomModel(GetParam(), 5);
  const size_t T = 29;
  const std::vector<int32_t> tokens = RandomTokens(T, 11);
  InferenceResult full;
  ASSERT_TRUE(Infer(m, tokens.data(), T, InferenceOptions(), &full).ok());
  std::unique_ptr<Decoder> dec;
  ASSERT_TRUE(Decoder::Create(m, RopeScaling(), PositionBug::kNone, &dec).ok());
  std::vector<float> step, all;
  // A 3-token prompt, then one token at a time.
  ASSERT_TRUE(dec->Feed(tokens.data(), 3, &step).ok());
  all = step;
  for (size_t t = 3; t < T; ++t) {
    const Status st = dec->Feed(tokens.data() + t, 1, &step);
    ASSERT_TRUE(st.ok()) << st.message();
    all.insert(all.end(), step.begin(), step.end());
  }
  EXPECT_EQ(dec->length(), T);
  EXPECT_LT(MaxDiff(all, full.logits), 2e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Encodings, ModelPaths,
    ::testing::Values(
        Case{Encoding::kNope, true}, Case{Encoding::kNope, false},
        Case{Encoding::kSinusoidal, true}, Case{Encoding::kSinusoidal, false},
        Case{Encoding::kLearned, true}, Case{Encoding::kRope, true},
        Case{Encoding::kRope, false}, Case{Encoding::kAlibi, true},
        Case{Encoding::kAlibi, false}, Case{Encoding::kT5, true},
        Case{Encoding::kT5, false}, Case{Encoding::kShaw, true},
        Case{Encoding::kShaw, false}, Case{Encoding::kXpos, true}),
    Name);

INSTANTIATE_TEST_SUITE_P(Encodings, ModelDecode,
                         ::testing::Values(Case{Encoding::kNope, true},
                                           Case{Encoding::kSinusoidal, true},
                                           Case{Encoding::kLearned, true},
                                           Case{Encoding::kRope, true},
                                           Case{Encoding::kAlibi, true},
                                           Case{Encoding::kT5, true},
                                           Case{Encoding::kShaw, true},
                                           Case{Encoding::kXpos, true}),
                         Name);

// Permuting the tokens of a NoPE encoder leaves its pooled logits unchanged
// (up to float rounding of the reordered sums); any encoding breaks that.
TEST(ModelProperties, NopeEncoderIsPermutationInvariant) {
  const std::vector<int32_t> a = {1, 4, 7, 9, 2, 11};
  const std::vector<int32_t> b = {9, 2, 1, 11, 7, 4};
  for (Encoding e : {Encoding::kNope, Encoding::kRope, Encoding::kSinusoidal,
                     Encoding::kAlibi, Encoding::kT5, Encoding::kShaw}) {
    const Model m = RandomModel(Case{e, false}, 21);
    InferenceResult ra, rb;
    ASSERT_TRUE(Infer(m, a.data(), a.size(), InferenceOptions(), &ra).ok());
    ASSERT_TRUE(Infer(m, b.data(), b.size(), InferenceOptions(), &rb).ok());
    const double d = MaxDiff(ra.logits, rb.logits);
    if (e == Encoding::kNope) {
      EXPECT_LT(d, 1e-5) << EncodingName(e);
    } else {
      EXPECT_GT(d, 1e-3) << EncodingName(e);
    }
  }
}

TEST(ModelProperties, LearnedPositionsStopAtTheirTable) {
  const Model m = RandomModel(Case{Encoding::kLearned, true}, 2);
  const std::vector<int32_t> tokens = RandomTokens(49, 1);  // max_len 48
  InferenceResult r;
  const Status st =
      Infer(m, tokens.data(), tokens.size(), InferenceOptions(), &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("exceeds the learned position table (48 rows)"),
            std::string::npos)
      << st.message();
  ForwardCache cache;
  std::vector<float> logits;
  EXPECT_FALSE(Forward(m, tokens.data(), tokens.size(), ForwardOptions(),
                       &cache, &logits)
                   .ok());
  std::unique_ptr<Decoder> dec;
  ASSERT_TRUE(Decoder::Create(m, RopeScaling(), PositionBug::kNone, &dec).ok());
  ASSERT_TRUE(dec->Feed(tokens.data(), 48, &logits).ok());
  EXPECT_FALSE(dec->Feed(tokens.data(), 1, &logits).ok());
}

// Context extension at inference: each method at factor 1 (or below its
// threshold) is the plain model; at factor 4 it changes the logits.
TEST(ModelProperties, RopeScalingAtInference) {
  const Model m = RandomModel(Case{Encoding::kRope, true}, 8);
  const std::vector<int32_t> tokens = RandomTokens(40, 4);
  InferenceResult plain;
  ASSERT_TRUE(Infer(m, tokens.data(), 40, InferenceOptions(), &plain).ok());
  for (RopeScalingType type :
       {RopeScalingType::kLinear, RopeScalingType::kNtk,
        RopeScalingType::kDynamic, RopeScalingType::kYarn,
        RopeScalingType::kLlama3}) {
    for (double factor : {1.0, 4.0}) {
      InferenceOptions opt;
      opt.scaling.emplace().type = type;
      opt.scaling->factor = factor;
      opt.scaling->original_max_position_embeddings = 10;
      opt.scaling->max_position_embeddings = 10;
      if (type == RopeScalingType::kYarn) {
        opt.scaling->has_attention_factor = true;  // isolate the frequencies
        opt.scaling->attention_factor = 1.0;
      }
      InferenceResult r;
      const Status st = Infer(m, tokens.data(), 40, opt, &r);
      ASSERT_TRUE(st.ok()) << RopeScalingTypeName(type) << ": " << st.message();
      const double d = MaxDiff(r.logits, plain.logits);
      // dynamic changes the base once T = 40 > 10 even at factor 1.
      if (factor == 1.0 && type != RopeScalingType::kDynamic) {
        EXPECT_LT(d, 1e-5) << RopeScalingTypeName(type);
      } else {
        EXPECT_GT(d, 1e-3) << RopeScalingTypeName(type) << " " << factor;
      }
    }
  }
  // Dynamic below its threshold is the plain model.
  InferenceOptions opt;
  opt.scaling.emplace().type = RopeScalingType::kDynamic;
  opt.scaling->factor = 4.0;
  opt.scaling->max_position_embeddings = 64;
  InferenceResult r;
  ASSERT_TRUE(Infer(m, tokens.data(), 40, opt, &r).ok());
  EXPECT_LT(MaxDiff(r.logits, plain.logits), 1e-5);
}

// A sliding window of W in each of the 2 layers: position i sees tokens
// i - 2(W - 1) .. i and nothing older. A window of at least T, and every
// position before W, give the plain logits; changing the token just outside
// the reach of the last position leaves its logits alone with the window
// (and not without); the window cannot be combined with the restart bug.
TEST(ModelProperties, SlidingWindowLimitsWhatEachPositionSees) {
  for (Encoding e : {Encoding::kRope, Encoding::kAlibi, Encoding::kLearned}) {
    const Model m = RandomModel(Case{e, true}, 12);
    const size_t T = 30, W = 5, V = 13, reach = 2 * (W - 1);
    std::vector<int32_t> tokens = RandomTokens(T, 6);
    InferenceResult plain, full, win;
    ASSERT_TRUE(Infer(m, tokens.data(), T, InferenceOptions(), &plain).ok());
    InferenceOptions opt;
    opt.window = T;
    ASSERT_TRUE(Infer(m, tokens.data(), T, opt, &full).ok());
    EXPECT_LT(MaxDiff(full.logits, plain.logits), 1e-6) << EncodingName(e);
    opt.window = W;
    ASSERT_TRUE(Infer(m, tokens.data(), T, opt, &win).ok());
    const auto row = [&](const InferenceResult& r, size_t t) {
      return std::vector<float>(r.logits.begin() + t * V,
                                r.logits.begin() + (t + 1) * V);
    };
    for (size_t t = 0; t < W; ++t) {
      EXPECT_LT(MaxDiff(row(win, t), row(plain, t)), 1e-6) << t;
    }
    EXPECT_GT(MaxDiff(row(win, T - 1), row(plain, T - 1)), 1e-4);
    // The token just outside the reach of position T - 1.
    tokens[T - 1 - reach - 1] = (tokens[T - 1 - reach - 1] + 1) % 13;
    InferenceResult win2, plain2;
    ASSERT_TRUE(Infer(m, tokens.data(), T, opt, &win2).ok());
    ASSERT_TRUE(Infer(m, tokens.data(), T, InferenceOptions(), &plain2).ok());
    EXPECT_LT(MaxDiff(row(win2, T - 1), row(win, T - 1)), 1e-6)
        << EncodingName(e);
    EXPECT_GT(MaxDiff(row(plain2, T - 1), row(plain, T - 1)), 1e-6)
        << EncodingName(e);
    // ... and the token at the edge of the reach does change them.
    tokens[T - 1 - reach] = (tokens[T - 1 - reach] + 1) % 13;
    InferenceResult win3;
    ASSERT_TRUE(Infer(m, tokens.data(), T, opt, &win3).ok());
    EXPECT_GT(MaxDiff(row(win3, T - 1), row(win2, T - 1)), 1e-6)
        << EncodingName(e);
  }
  const Model m = RandomModel(Case{Encoding::kRope, true}, 12);
  const std::vector<int32_t> tokens = RandomTokens(8, 6);
  InferenceOptions opt;
  opt.window = 4;
  opt.bug = PositionBug::kRestartPositions;
  InferenceResult r;
  const Status st = Infer(m, tokens.data(), 8, opt, &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("a window (4) cannot be combined with bug "
                              "'restart-positions'"),
            std::string::npos)
      << st.message();
}

TEST(ModelProperties, BadTokensAreErrors) {
  const Model m = RandomModel(Case{Encoding::kRope, true}, 2);
  const std::vector<int32_t> tokens = {1, 2, 13};
  InferenceResult r;
  const Status st = Infer(m, tokens.data(), 3, InferenceOptions(), &r);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("tokens[2] must be in [0, 13), got 13"),
            std::string::npos)
      << st.message();
}

TEST(ModelProperties, ConfigMetadataRoundTripAndErrors) {
  ModelConfig c = SmallConfig(Case{Encoding::kT5, false});
  c.task = "word-order";
  ModelConfig back;
  ASSERT_TRUE(ConfigFromMetadata(ConfigToMetadata(c), &back).ok());
  EXPECT_EQ(ConfigToMetadata(back), ConfigToMetadata(c));
  auto meta = ConfigToMetadata(c);
  meta["heads"] = "5";  // 32 is not a multiple of 5
  Status st = ConfigFromMetadata(meta, &back);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(
      st.message().find("dModel must be a multiple of heads, got 32 and 5"),
      std::string::npos)
      << st.message();
  meta = ConfigToMetadata(c);
  meta["layers"] = "2x";
  st = ConfigFromMetadata(meta, &back);
  EXPECT_NE(st.message().find("\"layers\" must be an integer, got \"2x\""),
            std::string::npos)
      << st.message();
  meta = ConfigToMetadata(c);
  meta.erase("encoding");
  st = ConfigFromMetadata(meta, &back);
  EXPECT_NE(st.message().find("lacks the key \"encoding\""), std::string::npos)
      << st.message();
  meta = ConfigToMetadata(c);
  meta["encoding"] = "rotary";
  EXPECT_FALSE(ConfigFromMetadata(meta, &back).ok());
}

}  // namespace
}  // namespace posenc
