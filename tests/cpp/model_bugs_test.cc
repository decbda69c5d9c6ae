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
#include "ops/rope_apply.h"
#include "shipped_model.h"

namespace posenc {
namespace {

constexpr size_t kT = 64;         // the shipped models' training length
constexpr size_t kExamples = 16;  // 16 x 64 tokens per loss
constexpr uint64_t kSeed = 4242;  // evaluation data

using test::ExpectError;
using test::Logits;
using test::Shipped;

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
  ExpectError(ParsePositionBug("rotate-k", &b),
              "'short-cos-sin-cache', 'wrong-scaling'; got");
  EXPECT_STREQ(PositionBugName(static_cast<PositionBug>(kNumPositionBugs)),
               "invalid");
  EXPECT_EQ(kNumPositionBugs, 14);
  const Model m = Shipped("language-rope");
  for (int bad : {kNumPositionBugs, -1, 1000}) {
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
  for (PositionBug bug :
       {PositionBug::kRotateV, PositionBug::kOnlyQ,
        PositionBug::kLayoutMismatch, PositionBug::kWrongBase,
        PositionBug::kPartialRotaryFreqOverHeadDim,
        PositionBug::kYarnMagnitudeTwice, PositionBug::kRopeOnEmbeddings,
        PositionBug::kQkPositionMismatch, PositionBug::kRotateHalfMismatch,
        PositionBug::kShortCosSinCache, PositionBug::kWrongScaling}) {
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
  InferenceOptions wrong = WithBug(PositionBug::kWrongScaling);
  wrong.scaling.emplace().type = RopeScalingType::kYarn;
  wrong.scaling->factor = 4.0;
  wrong.scaling->original_max_position_embeddings = 64;
  ExpectError(Infer(rope, tokens.data(), 8, wrong, &r),
              "bug 'wrong-scaling' runs the model with another model's "
              "scaling (linear x4) and cannot be combined with the scaling "
              "'yarn' passed as well");
  std::unique_ptr<Decoder> dec;
  ExpectError(Decoder::Create(rope, wrong.scaling, wrong.bug, &dec),
              "cannot be combined with the scaling 'yarn'");
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
  for (PositionBug bug :
       {PositionBug::kRotateV, PositionBug::kOnlyQ,
        PositionBug::kLayoutMismatch, PositionBug::kWrongBase,
        PositionBug::kRestartPositions, PositionBug::kRopeOnEmbeddings,
        PositionBug::kQkPositionMismatch, PositionBug::kRotateHalfMismatch,
        PositionBug::kShortCosSinCache, PositionBug::kWrongScaling}) {
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
  yarn.scaling.emplace().type = RopeScalingType::kYarn;
  yarn.scaling->factor = 4.0;
  yarn.scaling->original_max_position_embeddings = 64;
  InferenceOptions twice = yarn;
  twice.bug = PositionBug::kYarnMagnitudeTwice;
  InferenceOptions squared = yarn;
  const double mscale = 0.1 * std::log(4.0) + 1.0;
  squared.scaling->has_attention_factor = true;
  squared.scaling->attention_factor = mscale * mscale;
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
  const std::vector<int32_t> tokens = Sequence(40);  // past the short cache
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
        Case{&rope, PositionBug::kRopeOnEmbeddings},
        Case{&rope, PositionBug::kQkPositionMismatch},
        Case{&rope, PositionBug::kRotateHalfMismatch},
        Case{&rope, PositionBug::kShortCosSinCache},
        Case{&rope, PositionBug::kWrongScaling},
        Case{&xpos, PositionBug::kRopeOnEmbeddings},
        Case{&xpos, PositionBug::kQkPositionMismatch},
        Case{&xpos, PositionBug::kRotateHalfMismatch},
        Case{&xpos, PositionBug::kShortCosSinCache},
        Case{&partial, PositionBug::kRotateHalfMismatch},
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

// rope-on-embeddings is a NoPE model whose input rows are the embeddings
// rotated block by block at their positions: with every token id used once,
// those rows can be baked into the embedding table (rotated here in double).
TEST(PositionBugEmbeddings, EqualsNoPEWithRotatedEmbeddings) {
  const Model m = Shipped("language-rope");
  const ModelConfig& c = m.config;
  const size_t C = static_cast<size_t>(c.d_model),
               H = static_cast<size_t>(c.heads),
               Dh = static_cast<size_t>(c.head_dim()),
               r = c.rotary_dim ? static_cast<size_t>(c.rotary_dim) : Dh,
               h = r / 2;
  std::vector<int32_t> tokens;  // [vocab] distinct ids in a scrambled order
  for (int32_t t = 0; t < c.vocab; ++t) {
    tokens.push_back((11 * t + 3) % c.vocab);
  }
  ASSERT_EQ(c.vocab, 35);
  Model nope = m;
  nope.config.encoding = Encoding::kNope;
  for (size_t t = 0; t < tokens.size(); ++t) {
    float* row =
        nope.w.data() + nope.embed + static_cast<size_t>(tokens[t]) * C;
    for (size_t b = 0; b < H; ++b) {
      float* x = row + b * Dh;
      for (size_t i = 0; i < h; ++i) {
        const double ang =
            static_cast<double>(t) * std::pow(c.rope_base, -2.0 * i / r);
        const double a = x[i], bb = x[i + h];
        x[i] = static_cast<float>(a * std::cos(ang) - bb * std::sin(ang));
        x[i + h] = static_cast<float>(a * std::sin(ang) + bb * std::cos(ang));
      }
    }
  }
  const std::vector<float> bug =
      Logits(m, tokens, WithBug(PositionBug::kRopeOnEmbeddings));
  EXPECT_LT(MaxDiff(bug, Logits(nope, tokens, {})), 1e-4);
  EXPECT_GT(MaxDiff(bug, Logits(m, tokens, {})), 0.1);
}

// rotate_half with a repeat_interleaved cos/sin table: the formula (in
// double), identity at position 0, norms changed elsewhere, and neither of
// the two correct layouts.
TEST(PositionBugRotateHalf, MismatchIsNotARotation) {
  RopeApplyOptions o;
  o.freq.head_dim = 16;
  o.freq.rotary_dim = 12;
  o.heads = 2;
  o.seq_len = 3;
  const int32_t positions[3] = {0, 5, 37};
  o.positions = positions;
  const size_t d = 16, h = 6, n = 2 * 3 * d;
  SplitMix64 rng(17);
  std::vector<float> x(n), out(n);
  for (float& v : x) v = static_cast<float>(rng.Symmetric(1.0));
  ASSERT_TRUE(RotateHalfMismatch(o, x.data(), n, out.data()).ok());
  for (size_t row = 0; row < 6; ++row) {
    const double p = positions[row % 3];
    const float* xr = x.data() + row * d;
    const float* y = out.data() + row * d;
    auto angle = [&](size_t pair) {
      return p * std::pow(10000.0, -2.0 * static_cast<double>(pair) / 12.0);
    };
    double nx = 0.0, ny = 0.0;
    for (size_t j = 0; j < h; ++j) {
      const double ta = angle(j / 2), tb = angle((j + h) / 2);
      EXPECT_NEAR(y[j], xr[j] * std::cos(ta) - xr[j + h] * std::sin(ta), 1e-5);
      EXPECT_NEAR(y[j + h], xr[j + h] * std::cos(tb) + xr[j] * std::sin(tb),
                  1e-5);
    }
    for (size_t e = 0; e < d; ++e) {
      if (e >= 2 * h) EXPECT_EQ(y[e], xr[e]);  // partial rotary tail
      nx += static_cast<double>(xr[e]) * xr[e];
      ny += static_cast<double>(y[e]) * y[e];
    }
    if (p == 0) {
      EXPECT_NEAR(ny, nx, 1e-5) << "position 0 is the identity";
    } else {
      EXPECT_GT(std::fabs(std::sqrt(ny) - std::sqrt(nx)), 1e-2)
          << "norm preserved at position " << p;
    }
  }
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    RopeApplyOptions r = o;
    r.layout = layout;
    std::vector<float> rot(n);
    ASSERT_TRUE(RopeApplyChecked(r, x.data(), n, rot.data()).ok());
    for (size_t row : {1, 2, 4, 5}) {  // positions 5 and 37
      EXPECT_GT(MaxDiff(std::vector<float>(out.begin() + row * d,
                                           out.begin() + (row + 1) * d),
                        std::vector<float>(rot.begin() + row * d,
                                           rot.begin() + (row + 1) * d)),
                0.05)
          << "layout " << static_cast<int>(layout) << " row " << row;
    }
  }
}

// Queries one position ahead: the first token attends to itself alone (one
// key: the score does not matter), every later row changes.
TEST(PositionBugQkMismatch, OnlyRowsWithSeveralKeysChange) {
  const Model m = Shipped("language-rope");
  const size_t V = static_cast<size_t>(m.config.vocab);
  const std::vector<int32_t> tokens = Sequence(kT);
  const std::vector<float> bug =
      Logits(m, tokens, WithBug(PositionBug::kQkPositionMismatch));
  const std::vector<float> plain = Logits(m, tokens, {});
  EXPECT_LT(MaxDiff(bug, plain, V, 0, 1), 1e-5);
  EXPECT_GT(MaxDiff(bug, plain, V, 1, kT), 0.5);
}

// A cos/sin cache of 32 rows: nothing changes before position 32, the loss
// rises after it.
TEST(PositionBugShortCache, LossRisesPastTheCache) {
  const Model m = Shipped("language-rope");
  const size_t V = static_cast<size_t>(m.config.vocab);
  const size_t rows = ShortCacheRows(m.config);
  ASSERT_EQ(rows, 32u);
  const InferenceOptions bug = WithBug(PositionBug::kShortCosSinCache);
  const std::vector<int32_t> tokens = Sequence(kT);
  const std::vector<float> short_logits = Logits(m, tokens, bug);
  const std::vector<float> plain = Logits(m, tokens, {});
  EXPECT_LT(MaxDiff(short_logits, plain, V, 0, rows), 1e-5);
  EXPECT_GT(MaxDiff(short_logits, plain, V, rows, kT), 0.5);
  EvalResult a, b;
  ASSERT_TRUE(Evaluate(m, TaskKind::kLanguage, kT, kExamples, kSeed,
                       InferenceOptions(), &a)
                  .ok());
  ASSERT_TRUE(
      Evaluate(m, TaskKind::kLanguage, kT, kExamples, kSeed, bug, &b).ok());
  double before = 0.0, after_plain = 0.0, after_bug = 0.0;
  size_t n_after = 0;
  for (size_t t = 0; t < kT; ++t) {
    if (std::isnan(a.position_loss[t])) continue;
    if (t < rows) {
      before =
          std::fmax(before, std::fabs(a.position_loss[t] - b.position_loss[t]));
    } else if (t >= rows + 8) {
      after_plain += a.position_loss[t];
      after_bug += b.position_loss[t];
      ++n_after;
    }
  }
  ASSERT_GT(n_after, 0u);
  after_plain /= n_after;
  after_bug /= n_after;
  std::printf(
      "language-rope short cos/sin cache: positions >= 40 loss %.4f -> "
      "%.4f\n",
      after_plain, after_bug);
  EXPECT_LT(before, 1e-4);
  EXPECT_GT(after_bug, after_plain + 0.3);
}

// Another model's scaling is exactly an explicit linear x4.
TEST(PositionBugWrongScaling, IsLinearTimesFour) {
  const Model m = Shipped("language-rope");
  const std::vector<int32_t> tokens = Sequence(kT);
  InferenceOptions linear;
  linear.scaling.emplace().type = RopeScalingType::kLinear;
  linear.scaling->factor = 4.0;
  const std::vector<float> bug =
      Logits(m, tokens, WithBug(PositionBug::kWrongScaling));
  EXPECT_LT(MaxDiff(bug, Logits(m, tokens, linear)), 1e-6);
  EXPECT_GT(MaxDiff(bug, Logits(m, tokens, {})), 0.5);
}

std::vector<int32_t> Gen(const Model& m, const std::vector<int32_t>& prompt,
                         const GenerateOptions& opt) {
  std::vector<int32_t> out;
  const Status st = Generate(m, prompt.data(), prompt.size(), opt, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

GenerateOptions GenOptions(bool cache, PositionBug bug = PositionBug::kNone,
                           double temperature = 0.0) {
  GenerateOptions o;
  o.max_new_tokens = 40;
  o.cache = cache;
  o.bug = bug;
  o.temperature = temperature;
  o.seed = 5;
  return o;
}

// Without a bug the KV cache changes nothing: cached and uncached decoding
// pick the same tokens (greedy and sampled), for every kind of encoding.
TEST(Generate, CachedEqualsUncached) {
  const std::vector<int32_t> prompt = Sequence(12);
  for (const char* name : {"language-rope", "language-xpos", "language-alibi",
                           "language-sinusoidal", "language-t5"}) {
    const Model m = Shipped(name);
    for (double temperature : {0.0, 0.8}) {
      const std::vector<int32_t> cached =
          Gen(m, prompt, GenOptions(true, PositionBug::kNone, temperature));
      EXPECT_EQ(cached.size(), 40u);
      EXPECT_EQ(cached, Gen(m, prompt,
                            GenOptions(false, PositionBug::kNone, temperature)))
          << name << " temperature " << temperature;
    }
  }
}

// restart-positions shows only with a cache: uncached it is the correct
// model. A bug inside attention (rotate-v) is the same either way.
TEST(Generate, RestartPositionsShowsOnlyWithACache) {
  const Model m = Shipped("language-rope");
  const std::vector<int32_t> prompt = Sequence(12);
  const std::vector<int32_t> plain = Gen(m, prompt, GenOptions(true));
  const std::vector<int32_t> cached =
      Gen(m, prompt, GenOptions(true, PositionBug::kRestartPositions));
  const std::vector<int32_t> uncached =
      Gen(m, prompt, GenOptions(false, PositionBug::kRestartPositions));
  EXPECT_NE(cached, uncached);
  EXPECT_EQ(uncached, plain);
  const std::vector<int32_t> rv =
      Gen(m, prompt, GenOptions(true, PositionBug::kRotateV));
  EXPECT_EQ(rv, Gen(m, prompt, GenOptions(false, PositionBug::kRotateV)));
  EXPECT_NE(rv, plain);
}

TEST(Generate, Errors) {
  const std::vector<int32_t> prompt = Sequence(8);
  std::vector<int32_t> out;
  const Model encoder = Shipped("word-order-rope");
  ExpectError(Generate(encoder, prompt.data(), 4, GenOptions(false), &out),
              "generate needs a causal language model; this one is an "
              "encoder");
  const Model rope = Shipped("language-rope");
  GenerateOptions hot = GenOptions(false);
  hot.temperature = 200.0;
  ExpectError(Generate(rope, prompt.data(), 8, hot, &out),
              "temperature must be in [0, 100], got 200");
  GenerateOptions many = GenOptions(false);
  many.max_new_tokens = (size_t{1} << 20) + 1;
  ExpectError(Generate(rope, prompt.data(), 8, many, &out),
              "maxNewTokens must be in [0, 2^20], got 1048577");
  const Model alibi = Shipped("language-alibi");
  ExpectError(Generate(alibi, prompt.data(), 8,
                       GenOptions(false, PositionBug::kRestartPositions), &out),
              "bug 'restart-positions' needs a model with positions");
  const int32_t bad[2] = {1, 99};
  ExpectError(Generate(rope, bad, 2, GenOptions(false), &out),
              "tokens[1] must be in [0, 35), got 99");
  GenerateOptions none = GenOptions(false);
  none.max_new_tokens = 0;
  ASSERT_TRUE(Generate(rope, prompt.data(), 8, none, &out).ok());
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace posenc
