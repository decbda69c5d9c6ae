// The bug zoo (model/position_bug.h) on the shipped models: each bug's
// consequence on a real trained model (loss at the training length, logits,
// cached against uncached), the honest non-effects (a uniform position
// shift is invisible to RoPE), the correct left padding, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "model/inference.h"
#include "model/model_io.h"
#include "model/position_bug.h"
#include "model/rng.h"
#include "model/tasks.h"
#include "model/train.h"

namespace posenc {
namespace {

constexpr size_t kT = 64;         // the shipped models' training length
constexpr size_t kExamples = 16;  // 16 x 64 tokens per loss
constexpr uint64_t kSeed = 4242;  // evaluation data

Model Shipped(const std::string& name) {
  const std::string path = std::string(POSENC_SOURCE_DIR) +
                           "/web/public/models/" + name + ".safetensors";
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  Model m;
  const Status st = LoadModel(reinterpret_cast<const uint8_t*>(bytes.data()),
                              bytes.size(), &m);
  EXPECT_TRUE(st.ok()) << path << ": " << st.message();
  return m;
}

InferenceOptions WithBug(PositionBug bug) {
  InferenceOptions o;
  o.bug = bug;
  return o;
}

// Mean loss of the language task at T = 64 under `opt`.
double Loss(const Model& m, const InferenceOptions& opt) {
  EvalResult r;
  const Status st =
      Evaluate(m, TaskKind::kLanguage, kT, kExamples, kSeed, opt, &r);
  EXPECT_TRUE(st.ok()) << st.message();
  return r.loss;
}

// A fixed language-task sequence of length T.
std::vector<int32_t> Sequence(size_t T) {
  return SampleBatch(TaskKind::kLanguage, T, 1, 99)[0].tokens;
}

std::vector<float> Logits(const Model& m, const std::vector<int32_t>& tokens,
                          const InferenceOptions& opt) {
  InferenceResult r;
  const Status st = Infer(m, tokens.data(), tokens.size(), opt, &r);
  EXPECT_TRUE(st.ok()) << st.message();
  return r.logits;
}

// Max |a - b| over rows [from, to) of [*, V] logits (all rows by default).
double MaxDiff(const std::vector<float>& a, const std::vector<float>& b,
               size_t V = 1, size_t from = 0, size_t to = SIZE_MAX) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0.0;
  for (size_t i = from * V; i < a.size() && i < b.size() && i < to * V; ++i) {
    d = std::fmax(d, std::fabs(static_cast<double>(a[i]) - b[i]));
  }
  return d;
}

void ExpectError(const Status& st, const std::string& part) {
  ASSERT_FALSE(st.ok()) << "expected an error containing: " << part;
  EXPECT_NE(st.message().find(part), std::string::npos) << st.message();
}

// Decoder logits for `tokens` fed `chunk` tokens per call.
std::vector<float> Decode(const Model& m, const std::vector<int32_t>& tokens,
                          size_t chunk, PositionBug bug,
                          const RopeScaling& scaling = RopeScaling()) {
  std::unique_ptr<Decoder> dec;
  Status st = Decoder::Create(m, scaling, bug, &dec);
  EXPECT_TRUE(st.ok()) << st.message();
  std::vector<float> all, step;
  for (size_t s = 0; dec && s < tokens.size(); s += chunk) {
    const size_t n = std::min(chunk, tokens.size() - s);
    st = dec->Feed(tokens.data() + s, n, &step);
    EXPECT_TRUE(st.ok()) << st.message();
    all.insert(all.end(), step.begin(), step.end());
  }
  return all;
}

TEST(PositionBugNames, RoundTripAndBadValues) {
  for (int i = 0; i < kNumPositionBugs; ++i) {
    PositionBug b;
    const Status st =
        ParsePositionBug(PositionBugName(static_cast<PositionBug>(i)), &b);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(static_cast<int>(b), i);
  }
  PositionBug b;
  ExpectError(ParsePositionBug("rotate-k", &b),
              "bug must be one of 'none', 'restart-positions', 'rotate-v'");
  ExpectError(ParsePositionBug("rotate-k", &b), "got 'rotate-k'");
  EXPECT_STREQ(PositionBugName(static_cast<PositionBug>(9)), "invalid");
  const Model m = Shipped("language-rope");
  for (int bad : {9, -1, 1000}) {
    const std::string want =
        "bug is not a valid PositionBug value: " + std::to_string(bad);
    const PositionBug bug = static_cast<PositionBug>(bad);
    InferenceResult r;
    const std::vector<int32_t> tokens = Sequence(8);
    ExpectError(Infer(m, tokens.data(), 8, WithBug(bug), &r), want);
    std::unique_ptr<Decoder> dec;
    ExpectError(Decoder::Create(m, RopeScaling(), bug, &dec), want);
    EvalResult e;
    ExpectError(
        Evaluate(m, TaskKind::kLanguage, kT, 1, kSeed, WithBug(bug), &e), want);
  }
}

TEST(PositionBugErrors, EachBugNamesWhatItNeeds) {
  const Model alibi = Shipped("language-alibi");
  const std::vector<int32_t> tokens = Sequence(8);
  InferenceResult r;
  for (PositionBug bug : {PositionBug::kRotateV, PositionBug::kOnlyQ,
                          PositionBug::kLayoutMismatch, PositionBug::kWrongBase,
                          PositionBug::kPartialRotaryFreqOverHeadDim,
                          PositionBug::kYarnMagnitudeTwice}) {
    ExpectError(Infer(alibi, tokens.data(), 8, WithBug(bug), &r),
                std::string("bug '") + PositionBugName(bug) +
                    "' needs a RoPE or xPos model, this model uses alibi");
  }
  for (PositionBug bug :
       {PositionBug::kRestartPositions, PositionBug::kLeftPaddingInPositions}) {
    ExpectError(Infer(alibi, tokens.data(), 8, WithBug(bug), &r),
                std::string("bug '") + PositionBugName(bug) +
                    "' needs a model with positions (RoPE, xPos, sinusoidal "
                    "or learned), this model uses alibi");
  }
  const Model rope = Shipped("language-rope");
  ExpectError(
      Infer(rope, tokens.data(), 8,
            WithBug(PositionBug::kPartialRotaryFreqOverHeadDim), &r),
      "needs partial rotary (rotaryDim < headDim); this model rotates all 16 "
      "dims");
  ExpectError(Infer(rope, tokens.data(), 8,
                    WithBug(PositionBug::kYarnMagnitudeTwice), &r),
              "bug 'yarn-magnitude-twice' needs a yarn scaling; the scaling "
              "is 'default'");
  InferenceOptions maps = WithBug(PositionBug::kRestartPositions);
  maps.attention_maps = true;
  ExpectError(Infer(rope, tokens.data(), 8, maps, &r),
              "attention maps are not available with bug "
              "'restart-positions'");
  const Model encoder = Shipped("word-order-rope");
  ExpectError(Infer(encoder, tokens.data(), 4,
                    WithBug(PositionBug::kRestartPositions), &r),
              "bug 'restart-positions' emulates a KV-cache run and needs a "
              "causal model; this one is an encoder");
  InferenceOptions pad;
  pad.left_pad = 70000;
  ExpectError(Infer(rope, tokens.data(), 8, pad, &r),
              "leftPad must be in [0, 65536], got 70000");
}

// kNone is the plain model: the kernel path equals the materialised
// training forward, and the cached decoder equals both.
TEST(PositionBugNone, IsThePlainModel) {
  const Model m = Shipped("language-rope");
  const std::vector<int32_t> tokens = Sequence(kT);
  const std::vector<float> none =
      Logits(m, tokens, WithBug(PositionBug::kNone));
  ForwardCache cache;
  std::vector<float> ref;
  ASSERT_TRUE(
      Forward(m, tokens.data(), kT, ForwardOptions(), &cache, &ref).ok());
  EXPECT_LT(MaxDiff(none, ref), 2e-4);
  EXPECT_LT(MaxDiff(Decode(m, tokens, 5, PositionBug::kNone), none), 2e-4);
}

// Every RoPE bug makes the trained model clearly worse at its own training
// length; printed for the report.
TEST(PositionBugLoss, RopeBugsRaiseTheLossOfLanguageRope) {
  const Model m = Shipped("language-rope");
  const double plain = Loss(m, InferenceOptions());
  std::printf("language-rope T=64 loss: none %.4f\n", plain);
  EXPECT_LT(plain, 1.6);  // README: 1.451 (entropy rate 1.367)
  for (PositionBug bug : {PositionBug::kRotateV, PositionBug::kOnlyQ,
                          PositionBug::kLayoutMismatch, PositionBug::kWrongBase,
                          PositionBug::kRestartPositions}) {
    const double l = Loss(m, WithBug(bug));
    std::printf("language-rope T=64 loss: %s %.4f\n", PositionBugName(bug), l);
    EXPECT_GT(l, plain + 0.1) << PositionBugName(bug);
  }
}

TEST(PositionBugLoss, PartialRotaryFrequenciesOverHeadDim) {
  const Model m = Shipped("language-rope-partial");
  ASSERT_EQ(m.config.rotary_dim * 2, m.config.head_dim());
  const double plain = Loss(m, InferenceOptions());
  const double bug =
      Loss(m, WithBug(PositionBug::kPartialRotaryFreqOverHeadDim));
  std::printf("language-rope-partial T=64 loss: none %.4f, %s %.4f\n", plain,
              PositionBugName(PositionBug::kPartialRotaryFreqOverHeadDim), bug);
  EXPECT_LT(plain, 1.6);
  EXPECT_GT(bug, plain + 0.1);
}

// YaRN's attention factor m = 0.1 ln(s) + 1 scales the logits by m^2;
// applied twice, by m^4: the same as an explicit factor m^2.
TEST(PositionBugYarn, MagnitudeTwiceIsFactorSquared) {
  const Model m = Shipped("language-rope");
  const std::vector<int32_t> tokens = Sequence(2 * kT);
  InferenceOptions yarn;
  yarn.scaling.type = RopeScalingType::kYarn;
  yarn.scaling.factor = 4.0;
  yarn.scaling.original_max_position_embeddings = 64;
  InferenceOptions twice = yarn;
  twice.bug = PositionBug::kYarnMagnitudeTwice;
  InferenceOptions squared = yarn;
  const double mscale = 0.1 * std::log(4.0) + 1.0;
  squared.scaling.has_attention_factor = true;
  squared.scaling.attention_factor = mscale * mscale;
  const std::vector<float> once = Logits(m, tokens, yarn);
  const std::vector<float> bug = Logits(m, tokens, twice);
  const double d = MaxDiff(bug, once);
  std::printf("yarn x4, T=128: max |logit twice - once| = %.4f\n", d);
  EXPECT_GT(d, 0.1);
  EXPECT_LT(MaxDiff(bug, Logits(m, tokens, squared)), 1e-4);
  EvalResult r1, r2;
  ASSERT_TRUE(
      Evaluate(m, TaskKind::kLanguage, 2 * kT, 8, kSeed, yarn, &r1).ok());
  ASSERT_TRUE(
      Evaluate(m, TaskKind::kLanguage, 2 * kT, 8, kSeed, twice, &r2).ok());
  std::printf("language-rope T=128 yarn x4 loss: once %.4f, twice %.4f\n",
              r1.loss, r2.loss);
  EXPECT_GT(r2.loss, r1.loss);  // over-sharpened attention
}

// Left padding done right (positions from the mask) is the unpadded run, for
// every encoding; the maps are the real tokens' maps.
TEST(PositionBugPadding, CorrectLeftPaddingEqualsUnpadded) {
  const std::vector<int32_t> tokens = Sequence(48);
  for (const char* name :
       {"language-rope", "language-xpos", "language-sinusoidal",
        "language-learned", "language-alibi", "language-t5", "language-shaw",
        "language-nope"}) {
    const Model m = Shipped(name);
    InferenceOptions plain;
    plain.attention_maps = true;
    InferenceOptions padded = plain;
    padded.left_pad = 16;
    InferenceResult a, b;
    ASSERT_TRUE(Infer(m, tokens.data(), tokens.size(), plain, &a).ok());
    const Status st = Infer(m, tokens.data(), tokens.size(), padded, &b);
    ASSERT_TRUE(st.ok()) << name << ": " << st.message();
    EXPECT_LT(MaxDiff(a.logits, b.logits), 2e-5) << name;
    ASSERT_EQ(a.maps.size(), b.maps.size());
    for (size_t l = 0; l < a.maps.size(); ++l) {
      EXPECT_LT(MaxDiff(a.maps[l], b.maps[l]), 1e-6) << name << " layer " << l;
    }
  }
}

// Positions that count the pads: a uniform shift, invisible to RoPE and
// xPos (float rounding only), a real change for sinusoidal, past the table
// for learned.
TEST(PositionBugPadding, PositionsCountingPads) {
  const std::vector<int32_t> tokens = Sequence(kT);
  const InferenceOptions bug = WithBug(PositionBug::kLeftPaddingInPositions);
  for (const char* name : {"language-rope", "language-xpos"}) {
    const Model m = Shipped(name);
    const double d = MaxDiff(Logits(m, tokens, bug), Logits(m, tokens, {}));
    std::printf("%s: padded positions, max |logit diff| = %.2e\n", name, d);
    EXPECT_LT(d, 1e-3) << name;
    EXPECT_NEAR(Loss(m, bug), Loss(m, InferenceOptions()), 1e-4) << name;
  }
  const Model sin = Shipped("language-sinusoidal");
  const double plain = Loss(sin, InferenceOptions());
  const double shifted = Loss(sin, bug);
  std::printf("language-sinusoidal T=64 loss: none %.4f, %s %.4f\n", plain,
              PositionBugName(PositionBug::kLeftPaddingInPositions), shifted);
  EXPECT_GT(shifted, plain + 0.05);
  EXPECT_GT(MaxDiff(Logits(sin, tokens, bug), Logits(sin, tokens, {})), 0.1);
  const Model learned = Shipped("language-learned");
  InferenceResult r;
  ExpectError(Infer(learned, tokens.data(), kT, bug, &r),
              "sequence length 80 exceeds the learned position table (64 "
              "rows)");
}

// The cached decoder restarting positions at every Feed: the first chunk
// (positions 0 ..) agrees with the full pass, later chunks do not; without
// the bug every chunk agrees. Infer emulates it with chunks of 16.
TEST(PositionBugRestart, CachedDiffersFromUncached) {
  const std::vector<int32_t> tokens = Sequence(40);
  for (const char* name : {"language-rope", "language-sinusoidal"}) {
    const Model m = Shipped(name);
    const size_t V = static_cast<size_t>(m.config.vocab);
    const std::vector<float> full = Logits(m, tokens, {});
    const std::vector<float> ok = Decode(m, tokens, 8, PositionBug::kNone);
    const std::vector<float> bug =
        Decode(m, tokens, 8, PositionBug::kRestartPositions);
    EXPECT_LT(MaxDiff(ok, full), 2e-4) << name;
    EXPECT_LT(MaxDiff(bug, full, V, 0, 8), 2e-4) << name;
    const double d = MaxDiff(bug, full, V, 8, 40);
    std::printf("%s: restarted cache vs full pass, max |logit diff| %.3f\n",
                name, d);
    EXPECT_GT(d, 0.5) << name;
    EXPECT_EQ(RestartChunk(m.config), 16u);
    EXPECT_LT(
        MaxDiff(Logits(m, tokens, WithBug(PositionBug::kRestartPositions)),
                Decode(m, tokens, 16, PositionBug::kRestartPositions)),
        1e-6)
        << name;
  }
}

// The decoder applies the other bugs like the full pass does (cached logits
// under a bug equal the uncached ones under the same bug).
TEST(PositionBugDecoder, CachedEqualsUncachedUnderEachBug) {
  const std::vector<int32_t> tokens = Sequence(30);
  const Model rope = Shipped("language-rope");
  const Model xpos = Shipped("language-xpos");
  const Model sin = Shipped("language-sinusoidal");
  const Model partial = Shipped("language-rope-partial");
  struct Case {
    const Model* m;
    PositionBug bug;
  };
  for (const Case& c :
       {Case{&rope, PositionBug::kRotateV}, Case{&rope, PositionBug::kOnlyQ},
        Case{&rope, PositionBug::kLayoutMismatch},
        Case{&rope, PositionBug::kWrongBase},
        Case{&xpos, PositionBug::kRotateV}, Case{&xpos, PositionBug::kOnlyQ},
        Case{&partial, PositionBug::kPartialRotaryFreqOverHeadDim},
        Case{&sin, PositionBug::kLeftPaddingInPositions},
        Case{&rope, PositionBug::kLeftPaddingInPositions}}) {
    const std::vector<float> full = Logits(*c.m, tokens, WithBug(c.bug));
    const std::vector<float> plain = Logits(*c.m, tokens, {});
    EXPECT_LT(MaxDiff(Decode(*c.m, tokens, 3, c.bug), full), 2e-4)
        << c.m->config.task << "-" << EncodingName(c.m->config.encoding) << " "
        << PositionBugName(c.bug);
    if (c.bug != PositionBug::kLeftPaddingInPositions ||
        c.m->config.encoding != Encoding::kRope) {
      EXPECT_GT(MaxDiff(full, plain), 0.05) << PositionBugName(c.bug);
    }
  }
}

}  // namespace
}  // namespace posenc
