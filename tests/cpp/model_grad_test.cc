// Finite-difference checks of the tiny transformer's backward pass, for
// every positional encoding, in causal-LM and encoder mode: every tensor's
// analytic gradient is compared with central differences of the loss.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "model/layers.h"
#include "model/rng.h"
#include "model/transformer.h"

namespace posenc {
namespace {

struct GradCase {
  Encoding encoding;
  bool causal;
};

std::string CaseName(const ::testing::TestParamInfo<GradCase>& info) {
  return std::string(EncodingName(info.param.encoding)) +
         (info.param.causal ? "_causal" : "_encoder");
}

class ModelGrad : public ::testing::TestWithParam<GradCase> {};

ModelConfig TinyConfig(const GradCase& g) {
  ModelConfig c;
  c.vocab = 11;
  c.d_model = 16;
  c.heads = 2;
  c.layers = 2;
  c.d_ff = 20;
  c.encoding = g.encoding;
  c.causal = g.causal;
  c.num_classes = g.causal ? 0 : 5;
  c.max_len = 8;
  c.rotary_dim = 6;  // partial rotary (head dim 8)
  c.rope_base = 100.0;
  c.xpos_scale_base = 16.0;
  c.t5_buckets = 6;
  c.t5_max_distance = 8;
  c.shaw_clip = 2;
  return c;
}

// Cross-entropy of the model on one sequence (mean over scored rows), in
// double; grad (if not null) gets its analytic gradient.
double Loss(const Model& m, const std::vector<int32_t>& tokens,
            const std::vector<int32_t>& targets, std::vector<float>* grad) {
  ForwardCache cache;
  std::vector<float> logits;
  const Status st = Forward(m, tokens.data(), tokens.size(), ForwardOptions(),
                            &cache, &logits);
  EXPECT_TRUE(st.ok()) << st.message();
  const size_t rows = targets.size();
  const size_t V = logits.size() / rows;
  std::vector<float> dlogits(logits.size());
  size_t scored = 0;
  const double loss = SoftmaxCrossEntropy(
      logits.data(), rows, V, targets.data(), 1.0f / static_cast<float>(rows),
      dlogits.data(), &scored, nullptr);
  if (grad) Backward(m, tokens.data(), cache, dlogits.data(), grad->data());
  return loss / static_cast<double>(rows);
}

TEST_P(ModelGrad, MatchesFiniteDifferences) {
  const ModelConfig c = TinyConfig(GetParam());
  Model m;
  ASSERT_TRUE(NewModel(c, 7, &m).ok());
  // Perturb everything so no gradient is trivially zero (T5 tables and
  // biases start at 0, LayerNorm gains at 1).
  SplitMix64 rng(99);
  for (float& x : m.w) x += rng.Symmetric(0.2);
  const size_t T = 7;
  std::vector<int32_t> tokens(T), targets;
  for (int32_t& t : tokens) t = static_cast<int32_t>(rng.Below(11));
  if (c.causal) {
    for (size_t t = 0; t < T; ++t)
      targets.push_back(static_cast<int32_t>(rng.Below(11)));
  } else {
    targets.push_back(3);
  }
  std::vector<float> grad(m.w.size(), 0.0f);
  Loss(m, tokens, targets, &grad);

  for (const ParamInfo& p : m.params) {
    // Up to 6 elements per tensor, the largest-gradient one among them.
    double worst = 0.0, max_abs = 0.0;
    const size_t n = p.size < 6 ? p.size : 6;
    for (size_t s = 0; s < n; ++s) {
      const size_t e = p.offset + (s * 7919) % p.size;
      const float saved = m.w[e];
      const float h = 1e-2f;
      m.w[e] = saved + h;
      const double up = Loss(m, tokens, targets, nullptr);
      m.w[e] = saved - h;
      const double down = Loss(m, tokens, targets, nullptr);
      m.w[e] = saved;
      const double fd = (up - down) / (2.0 * h);
      const double err = std::fabs(fd - grad[e]) / (1e-3 + std::fabs(fd));
      worst = err > worst ? err : worst;
      max_abs = std::fabs(fd) > max_abs ? std::fabs(fd) : max_abs;
    }
    EXPECT_LT(worst, 2e-2) << p.name;
    // The embedding rows of absent tokens and the learned positions past T
    // are legitimately 0; so is the key bias unless keys are rotated (it
    // adds q.bk to a whole softmax row); everything else must carry
    // gradient.
    const bool rotated =
        c.encoding == Encoding::kRope || c.encoding == Encoding::kXpos;
    const bool key_bias = p.name.find("attn.bk") != std::string::npos;
    if (p.name != "embed.weight" && p.name != "pos.weight" &&
        (rotated || !key_bias)) {
      EXPECT_GT(max_abs, 1e-5) << p.name << " has no gradient";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Encodings, ModelGrad,
    ::testing::Values(
        GradCase{Encoding::kNope, true}, GradCase{Encoding::kNope, false},
        GradCase{Encoding::kSinusoidal, true},
        GradCase{Encoding::kLearned, true}, GradCase{Encoding::kLearned, false},
        GradCase{Encoding::kRope, true}, GradCase{Encoding::kRope, false},
        GradCase{Encoding::kAlibi, true}, GradCase{Encoding::kAlibi, false},
        GradCase{Encoding::kT5, true}, GradCase{Encoding::kT5, false},
        GradCase{Encoding::kShaw, true}, GradCase{Encoding::kShaw, false},
        GradCase{Encoding::kXpos, true}),
    CaseName);

}  // namespace
}  // namespace posenc
