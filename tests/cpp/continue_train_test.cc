// Continued training after a RoPE context extension (TrainConfig::init and
// ::scaling): the shipped language-rope model, trained at 64, extended to
// 128 and trained further; the scaling the model remembers (inference
// default, metadata round trip); and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/inference.h"
#include "model/layers.h"
#include "model/model_io.h"
#include "model/position_bug.h"
#include "model/rng.h"
#include "model/tasks.h"
#include "model/train.h"
#include "shipped_model.h"

namespace posenc {
namespace {

constexpr int kLong = 128;          // the extended length (trained at 64)
constexpr uint64_t kEvalSeed = 31;  // evaluation data, unseen in training

using test::ExpectError;
using test::Logits;
using test::Shipped;

RopeScaling Linear2() {
  RopeScaling s;
  s.type = RopeScalingType::kLinear;
  s.factor = 2.0;
  return s;
}

RopeScaling Yarn2() {
  RopeScaling s;
  s.type = RopeScalingType::kYarn;
  s.factor = 2.0;
  s.original_max_position_embeddings = 64;
  return s;
}

TrainConfig Continue(const Model& init, const RopeScaling& scaling, int steps,
                     float lr = 1e-3f) {
  TrainConfig tc;
  tc.task = TaskKind::kLanguage;
  tc.init = &init;
  tc.scaling = scaling;
  tc.steps = steps;
  tc.seq_len = kLong;
  tc.opt.lr = lr;
  tc.opt.warmup_steps = steps / 10;
  tc.seed = 7;
  return tc;
}

// Runs every step of tc; returns the trained model.
Model Train(const TrainConfig& tc, std::vector<TrainProgress>* progress) {
  std::unique_ptr<Trainer> tr;
  const Status st = Trainer::Create(tc, &tr);
  EXPECT_TRUE(st.ok()) << st.message();
  if (!st.ok()) return Model();
  for (int s = 0; s < tc.steps; ++s) {
    TrainProgress p;
    const Status step = tr->Step(&p);
    EXPECT_TRUE(step.ok()) << step.message();
    if (progress) progress->push_back(p);
  }
  return tr->model();
}

// Mean loss at positions [from, to) of 32 sequences of length 128.
double RangeLoss(const Model& m, const InferenceOptions& opt, size_t from,
                 size_t to) {
  EvalResult r;
  const Status st =
      Evaluate(m, TaskKind::kLanguage, kLong, 32, kEvalSeed, opt, &r);
  EXPECT_TRUE(st.ok()) << st.message();
  double sum = 0;
  int n = 0;
  for (size_t t = from; t < to && t < r.position_loss.size(); ++t) {
    if (std::isnan(r.position_loss[t])) continue;
    sum += r.position_loss[t];
    ++n;
  }
  return n ? sum / n : NAN;
}

InferenceOptions With(const RopeScaling& s) {
  InferenceOptions o;
  o.scaling = s;
  return o;
}

// A few dozen steps at 128 with linear x2 recover positions 64..127, which
// the extension alone left far above the model's loss at its own length.
TEST(ContinueTraining, LinearTimesTwoLowersTheLateLoss) {
  const Model init = Shipped("language-rope");
  const double own = RangeLoss(init, InferenceOptions(), 0, 64);
  const double scaled = RangeLoss(init, With(Linear2()), 64, kLong);
  const Model trained = Train(Continue(init, Linear2(), 30), nullptr);
  // The trained model runs with its own scaling by default.
  const double after = RangeLoss(trained, InferenceOptions(), 64, kLong);
  std::printf(
      "continue linear x2 at 128, 30 steps: positions 64-127 %.3f -> %.3f "
      "(original at 0-63: %.3f)\n",
      scaled, after, own);
  EXPECT_LT(after, scaled - 0.5);
  EXPECT_LT(after, own + 0.15);
  EXPECT_EQ(after, RangeLoss(trained, With(Linear2()), 64, kLong));
}

// Seeded: the same run gives the same weights, bit for bit; another data
// seed other weights.
TEST(ContinueTraining, Deterministic) {
  const Model init = Shipped("language-rope");
  TrainConfig tc = Continue(init, Linear2(), 3);
  tc.batch = 2;
  const Model a = Train(tc, nullptr);
  EXPECT_EQ(Train(tc, nullptr).w, a.w);
  EXPECT_NE(a.w, init.w);
  tc.seed = 8;
  EXPECT_NE(Train(tc, nullptr).w, a.w);
}

// YaRN x2 needs little: extended at inference only, the model is already
// near its own loss at 64..127; a short run with a small lr keeps it there,
// far below the unextended model.
TEST(ContinueTraining, YarnTimesTwoStaysGood) {
  const Model init = Shipped("language-rope");
  const double scaled = RangeLoss(init, With(Yarn2()), 64, kLong);
  const Model trained = Train(Continue(init, Yarn2(), 30, 3e-4f), nullptr);
  const double after = RangeLoss(trained, InferenceOptions(), 64, kLong);
  std::printf(
      "continue yarn x2 at 128, 30 steps: positions 64-127 %.3f -> "
      "%.3f\n",
      scaled, after);
  EXPECT_LT(after, scaled + 0.02);
  EXPECT_LT(after, RangeLoss(init, InferenceOptions(), 64, kLong) - 0.3);
}

// The training forward runs with the scaling: the first step's loss (taken
// before the update) is the scaled model's loss on the same batch.
TEST(ContinueTraining, StepsUseTheScaling) {
  const Model init = Shipped("language-rope");
  TrainConfig tc = Continue(init, Linear2(), 1);
  tc.batch = 4;
  std::vector<TrainProgress> p;
  Train(tc, &p);
  ASSERT_EQ(p.size(), 1u);
  // The batch: the data stream is the second draw of SplitMix64(seed).
  SplitMix64 seeds(tc.seed);
  seeds.Next();
  SplitMix64 data(seeds.Next());
  double with = 0, without = 0;
  size_t scored = 0;
  for (int b = 0; b < tc.batch; ++b) {
    const Example e = SampleExample(TaskKind::kLanguage, kLong, &data);
    const size_t V = static_cast<size_t>(init.config.vocab);
    const std::vector<float> a = Logits(init, e.tokens, With(Linear2()));
    const std::vector<float> b0 = Logits(init, e.tokens, InferenceOptions());
    for (size_t t = 0; t < e.tokens.size(); ++t) {
      if (e.targets[t] < 0) continue;
      with += SoftmaxCrossEntropy(a.data() + t * V, 1, V, &e.targets[t], 1.0f,
                                  nullptr, nullptr, nullptr);
      without += SoftmaxCrossEntropy(b0.data() + t * V, 1, V, &e.targets[t],
                                     1.0f, nullptr, nullptr, nullptr);
      ++scored;
    }
  }
  with /= static_cast<double>(scored);
  without /= static_cast<double>(scored);
  std::printf("first step loss %.4f; batch with linear x2 %.4f, without %.4f\n",
              p[0].loss, with, without);
  EXPECT_NEAR(p[0].loss, with, 1e-3);
  EXPECT_GT(std::fabs(with - without), 0.1);
  // The optimiser starts fresh: step 1, the first warmup learning rate.
  EXPECT_EQ(p[0].step, 1);
  EXPECT_FLOAT_EQ(p[0].lr, ScheduledLr(tc.opt, 0));
}

// Zero steps: the initial model with the scaling stored, equal to running
// the initial model with that scaling; a caller's scaling replaces it.
TEST(ContinueTraining, ZeroStepsIsTheScaledModel) {
  const Model init = Shipped("language-rope");
  for (const RopeScaling& s : {Linear2(), Yarn2()}) {
    const Model c = Train(Continue(init, s, 0), nullptr);
    EXPECT_EQ(c.w, init.w);
    EXPECT_EQ(c.config.train_len, kLong);
    EXPECT_EQ(c.config.rope_scaling.type, s.type);
    const std::vector<int32_t> tokens =
        SampleBatch(TaskKind::kLanguage, kLong, 1, 5)[0].tokens;
    EXPECT_EQ(Logits(c, tokens, InferenceOptions()),
              Logits(init, tokens, With(s)));
    EXPECT_EQ(Logits(c, tokens, With(RopeScaling())),
              Logits(init, tokens, InferenceOptions()));
    ForwardCache cache;
    std::vector<float> a, b;
    ASSERT_TRUE(
        Forward(c, tokens.data(), kLong, ForwardOptions(), &cache, &a).ok());
    ForwardOptions fo;
    fo.scaling = s;
    ASSERT_TRUE(Forward(init, tokens.data(), kLong, fo, &cache, &b).ok());
    EXPECT_EQ(a, b);
    // The training forward (materialised) and the kernel agree on it.
    const std::vector<float> kernel = Logits(c, tokens, InferenceOptions());
    ASSERT_EQ(a.size(), kernel.size());
    double diff = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      diff = std::fmax(diff, std::fabs(a[i] - kernel[i]));
    }
    std::printf("%s x2: max |training forward - kernel| %.2e\n",
                RopeScalingTypeName(s.type), diff);
    EXPECT_LT(diff, 2e-4) << RopeScalingTypeName(s.type);
    // Generation and evaluation default to it as well.
    GenerateOptions g;
    g.max_new_tokens = 20;
    std::vector<int32_t> ga, gb;
    ASSERT_TRUE(Generate(c, tokens.data(), 100, g, &ga).ok());
    g.scaling = s;
    ASSERT_TRUE(Generate(init, tokens.data(), 100, g, &gb).ok());
    EXPECT_EQ(ga, gb);
    EXPECT_EQ(RangeLoss(c, InferenceOptions(), 0, kLong),
              RangeLoss(init, With(s), 0, kLong));
    // Saved and loaded, the scaling is still the default.
    const std::string bytes = SaveModel(c);
    Model loaded;
    ASSERT_TRUE(LoadModel(reinterpret_cast<const uint8_t*>(bytes.data()),
                          bytes.size(), &loaded)
                    .ok());
    EXPECT_EQ(ConfigToMetadata(loaded.config), ConfigToMetadata(c.config));
    EXPECT_EQ(Logits(loaded, tokens, InferenceOptions()),
              Logits(c, tokens, InferenceOptions()));
  }
  // Without a scaling the initial model's own is kept (none here) and the
  // shipped file's bytes come back unchanged at the same length.
  TrainConfig same = Continue(init, RopeScaling(), 0);
  same.scaling.reset();
  same.seq_len = 64;
  EXPECT_EQ(SaveModel(Train(same, nullptr)), SaveModel(init));
}

// The bugs that concern the scaling see the model's own: yarn-magnitude-
// twice applies to it; wrong-scaling replaces it (and only a scaling the
// caller passes conflicts with it).
TEST(ContinueTraining, ScalingBugsSeeTheStoredScaling) {
  const Model init = Shipped("language-rope");
  const Model c = Train(Continue(init, Yarn2(), 0), nullptr);
  const std::vector<int32_t> tokens =
      SampleBatch(TaskKind::kLanguage, kLong, 1, 6)[0].tokens;
  InferenceOptions twice;
  twice.bug = PositionBug::kYarnMagnitudeTwice;
  InferenceOptions twice_passed = With(Yarn2());
  twice_passed.bug = twice.bug;
  EXPECT_EQ(Logits(c, tokens, twice), Logits(init, tokens, twice_passed));
  EXPECT_NE(Logits(c, tokens, twice), Logits(c, tokens, InferenceOptions()));
  InferenceOptions wrong;
  wrong.bug = PositionBug::kWrongScaling;
  EXPECT_EQ(Logits(c, tokens, wrong), Logits(init, tokens, wrong));
  wrong.scaling = Yarn2();
  InferenceResult r;
  ExpectError(Infer(c, tokens.data(), tokens.size(), wrong, &r),
              "cannot be combined with the scaling 'yarn' passed as well");
}

// Every scaling type survives the metadata, exactly.
TEST(ContinueTraining, ScalingMetadataRoundTrip) {
  ModelConfig c = Shipped("language-rope").config;
  std::vector<RopeScaling> all;
  RopeScaling s = Linear2();
  s.factor = 1.0 / 3.0;  // not a short decimal
  all.push_back(s);
  s.type = RopeScalingType::kNtk;
  all.push_back(s);
  s.type = RopeScalingType::kDynamic;
  s.max_position_embeddings = 64;
  all.push_back(s);
  s = Yarn2();
  s.beta_fast = 16;
  s.truncate = false;
  s.mscale = 0.7;
  s.has_attention_factor = true;
  s.attention_factor = 1.1;
  all.push_back(s);
  s = RopeScaling();
  s.type = RopeScalingType::kLongrope;
  s.factor = 4;
  s.original_max_position_embeddings = 64;
  for (int i = 0; i < c.head_dim() / 2; ++i) {
    s.short_factor.push_back(1.0 + 0.1 * i);
    s.long_factor.push_back(2.0 + 0.3 * i);
  }
  all.push_back(s);
  s = RopeScaling();
  s.type = RopeScalingType::kLlama3;
  s.factor = 8;
  s.original_max_position_embeddings = 32;
  s.low_freq_factor = 1;
  s.high_freq_factor = 4;
  all.push_back(s);
  for (const RopeScaling& x : all) {
    c.rope_scaling = x;
    ASSERT_TRUE(ValidateModelConfig(c).ok()) << RopeScalingTypeName(x.type);
    const std::map<std::string, std::string> m = ConfigToMetadata(c);
    ASSERT_EQ(m.count("rope_scaling"), 1u);
    ModelConfig back;
    const Status st = ConfigFromMetadata(m, &back);
    ASSERT_TRUE(st.ok()) << st.message();
    const RopeScaling& y = back.rope_scaling;
    EXPECT_EQ(y.type, x.type);
    EXPECT_EQ(y.factor, x.factor);
    EXPECT_EQ(y.original_max_position_embeddings,
              x.original_max_position_embeddings);
    EXPECT_EQ(y.max_position_embeddings, x.max_position_embeddings);
    EXPECT_EQ(y.beta_fast, x.beta_fast);
    EXPECT_EQ(y.truncate, x.truncate);
    EXPECT_EQ(y.mscale, x.mscale);
    EXPECT_EQ(y.has_attention_factor, x.has_attention_factor);
    EXPECT_EQ(y.attention_factor, x.attention_factor);
    EXPECT_EQ(y.short_factor, x.short_factor);
    EXPECT_EQ(y.long_factor, x.long_factor);
    EXPECT_EQ(y.low_freq_factor, x.low_freq_factor);
    EXPECT_EQ(ConfigToMetadata(back), m);
  }
  // A model without a scaling has no key (the shipped files are unchanged).
  EXPECT_EQ(
      ConfigToMetadata(Shipped("language-rope").config).count("rope_scaling"),
      0u);
}

TEST(ContinueTraining, BadScalingMetadataIsAnError) {
  std::map<std::string, std::string> m =
      ConfigToMetadata(Shipped("language-rope").config);
  ModelConfig c;
  const std::pair<const char*, const char*> cases[] = {
      {"{\"rope_type\": \"linear\"", "must be a JSON object"},
      {"[1, 2]", "must be a JSON object"},
      {"{\"factor\": 2}", "lacks the string \"rope_type\""},
      {"{\"rope_type\": \"default\"}", "must not be 'default'"},
      {"{\"rope_type\": \"pi\", \"factor\": 2}", "'pi'"},
      {"{\"rope_type\": \"linear\", \"factor\": \"2\"}",
       "factor must be a number"},
      {"{\"rope_type\": \"linear\", \"factor\": 2, \"scale\": 1}",
       "unknown key \"scale\""},
      {"{\"rope_type\": \"linear\", \"factor\": -2}", "factor"},
      {"{\"rope_type\": \"yarn\", \"factor\": 2, "
       "\"original_max_position_embeddings\": 1.5}",
       "original_max_position_embeddings must be an integer"},
      {"{\"rope_type\": \"yarn\", \"factor\": 2, "
       "\"original_max_position_embeddings\": 1e300}",
       "original_max_position_embeddings must be an integer"},
      {"{\"rope_type\": \"yarn\", \"factor\": 2, \"truncate\": 1, "
       "\"original_max_position_embeddings\": 64}",
       "truncate must be a boolean"},
      {"{\"rope_type\": \"longrope\", \"factor\": 2, "
       "\"original_max_position_embeddings\": 64, \"short_factor\": [], "
       "\"long_factor\": [1]}",
       "short_factor must be a list"},
  };
  for (const auto& [json, part] : cases) {
    m["rope_scaling"] = json;
    ExpectError(ConfigFromMetadata(m, &c), part);
  }
  // On a model without rotation.
  std::map<std::string, std::string> alibi =
      ConfigToMetadata(Shipped("language-alibi").config);
  alibi["rope_scaling"] = "{\"rope_type\": \"linear\", \"factor\": 2}";
  ExpectError(ConfigFromMetadata(alibi, &c),
              "ropeScaling applies to RoPE and xPos models; this model uses "
              "'alibi'");
}

TEST(ContinueTraining, Errors) {
  const Model rope = Shipped("language-rope");
  const Model retrieval = Shipped("retrieval-rope");
  std::unique_ptr<Trainer> tr;
  // Another task's model.
  ExpectError(Trainer::Create(Continue(retrieval, Linear2(), 10), &tr),
              "the initial model was trained on \"retrieval\", not on "
              "\"language\"");
  // A learned table cannot grow.
  const Model learned = Shipped("language-learned");
  TrainConfig tc = Continue(learned, RopeScaling(), 10);
  tc.scaling.reset();
  ExpectError(Trainer::Create(tc, &tr),
              "continued training at seqLen 128 needs positions past the "
              "learned table (maxLen 64)");
  tc.seq_len = 64;  // at its own length it may continue
  EXPECT_TRUE(Trainer::Create(tc, &tr).ok());
  // A scaling needs a rotation.
  const Model alibi = Shipped("language-alibi");
  ExpectError(Trainer::Create(Continue(alibi, Linear2(), 10), &tr),
              "ropeScaling applies to RoPE and xPos models; this model uses "
              "'alibi'");
  EXPECT_TRUE(Trainer::Create(Continue(alibi, RopeScaling(), 10), &tr).ok());
  // Bad scaling parameters, bad steps.
  RopeScaling bad = Yarn2();
  bad.factor = -1;
  ExpectError(Trainer::Create(Continue(rope, bad, 10), &tr), "factor");
  ExpectError(Trainer::Create(Continue(rope, Linear2(), -1), &tr),
              "steps must be an integer in [0, 10000000], got -1");
  TrainConfig fresh;
  fresh.steps = 0;
  ExpectError(Trainer::Create(fresh, &tr),
              "steps must be an integer in [1, 10000000], got 0");
  TrainConfig short_len = Continue(rope, Linear2(), 10);
  short_len.seq_len = 4;
  ExpectError(Trainer::Create(short_len, &tr), "needs length >= 8, got 4");
}

// The request the JS API sends reaches every setting of the TrainConfig.
TEST(TrainRequest, ToTrainConfigCarriesEveryField) {
  TrainRequest r;
  r.task = "retrieval";
  r.encoding = Encoding::kAlibi;
  r.steps = 7;
  r.batch = 3;
  r.seq_len = 40;
  r.d_model = 32;
  r.heads = 2;
  r.layers = 3;
  r.d_ff = 48;
  r.lr = 0.25;
  r.warmup = 2;
  r.seed = 99;
  TrainConfig c;
  ASSERT_TRUE(ToTrainConfig(r, &c).ok());
  EXPECT_EQ(c.task, TaskKind::kRetrieval);
  EXPECT_EQ(c.model.encoding, Encoding::kAlibi);
  EXPECT_EQ(c.steps, 7);
  EXPECT_EQ(c.batch, 3);
  EXPECT_EQ(c.seq_len, 40);
  EXPECT_EQ(c.model.max_len, 40);
  EXPECT_EQ(c.model.d_model, 32);
  EXPECT_EQ(c.model.heads, 2);
  EXPECT_EQ(c.model.layers, 3);
  EXPECT_EQ(c.model.d_ff, 48);
  EXPECT_EQ(c.opt.lr, 0.25f);
  EXPECT_EQ(c.opt.warmup_steps, 2);
  EXPECT_EQ(c.seed, 99u);
  r.task = "poetry";
  ExpectError(ToTrainConfig(r, &c), "poetry");
}

}  // namespace
}  // namespace posenc
