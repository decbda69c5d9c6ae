// Finite-difference checks of each forward / backward pair of the model
// layer on its own (model_grad_test checks them composed, through the whole
// model): linear, LayerNorm, GELU, softmax cross-entropy, and attention with
// each positional term (none, causal or not; ALiBi; T5; Shaw). For a layer
// y = f(inputs), the loss is L = sum_i r_i y_i with fixed random r, so
// dL/dy = r goes into the backward function and each input's analytic
// gradient is compared with central differences of L.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "model/attention_layer.h"
#include "model/layers.h"
#include "model/rng.h"
#include "ops/shaw.h"
#include "ops/t5.h"

namespace posenc {
namespace {

std::vector<float> Random(size_t n, SplitMix64* rng, double amp = 1.0) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng->Symmetric(amp));
  return v;
}

// sum_i r_i y_i in double.
double Weighted(const std::vector<float>& y, const std::vector<float>& r) {
  double s = 0.0;
  for (size_t i = 0; i < y.size(); ++i) s += static_cast<double>(y[i]) * r[i];
  return s;
}

// Compares grad (analytic dL/dx) with central differences of loss() over
// up to `samples` elements of *x spread over the tensor; at least one
// sampled element must carry gradient.
void CheckInput(const std::string& name, std::vector<float>* x,
                const std::vector<float>& grad,
                const std::function<double()>& loss, size_t samples = 12) {
  ASSERT_EQ(x->size(), grad.size()) << name;
  const size_t n = x->size() < samples ? x->size() : samples;
  double largest = 0.0;
  for (size_t s = 0; s < n; ++s) {
    const size_t e = (s * 7919) % x->size();
    const float saved = (*x)[e];
    const float h = 1e-2f;
    (*x)[e] = saved + h;
    const double up = loss();
    (*x)[e] = saved - h;
    const double down = loss();
    (*x)[e] = saved;
    const double fd = (up - down) / (2.0 * h);
    EXPECT_NEAR(grad[e], fd, 2e-2 * (1e-2 + std::fabs(fd)))
        << name << "[" << e << "]";
    largest = std::fabs(fd) > largest ? std::fabs(fd) : largest;
  }
  EXPECT_GT(largest, 1e-4) << name << ": no sampled element carries gradient";
}

TEST(LayerGrad, Linear) {
  SplitMix64 rng(1);
  const size_t T = 5, In = 7, Out = 9;
  std::vector<float> x = Random(T * In, &rng), w = Random(In * Out, &rng),
                     b = Random(Out, &rng), r = Random(T * Out, &rng);
  auto loss = [&] {
    std::vector<float> y(T * Out);
    LinearForward(x.data(), T, In, Out, w.data(), b.data(), y.data());
    return Weighted(y, r);
  };
  std::vector<float> dx(x.size()), dw(w.size()), db(b.size());
  LinearBackward(x.data(), r.data(), T, In, Out, w.data(), dx.data(), dw.data(),
                 db.data());
  CheckInput("x", &x, dx, loss);
  CheckInput("w", &w, dw, loss);
  CheckInput("b", &b, db, loss);
}

TEST(LayerGrad, BackwardAccumulates) {
  // Backward adds to what the gradient buffers hold.
  SplitMix64 rng(2);
  const size_t T = 3, In = 4, Out = 5;
  std::vector<float> x = Random(T * In, &rng), w = Random(In * Out, &rng),
                     dy = Random(T * Out, &rng);
  std::vector<float> once(In * Out), twice(In * Out);
  LinearBackward(x.data(), dy.data(), T, In, Out, w.data(), nullptr,
                 once.data(), nullptr);
  for (int k = 0; k < 2; ++k) {
    LinearBackward(x.data(), dy.data(), T, In, Out, w.data(), nullptr,
                   twice.data(), nullptr);
  }
  // (Equal up to rounding: the second call's sums add to the first's.)
  for (size_t i = 0; i < once.size(); ++i)
    EXPECT_NEAR(twice[i], 2.0f * once[i], 1e-5f * std::fabs(once[i])) << i;
}

TEST(LayerGrad, LayerNorm) {
  SplitMix64 rng(3);
  const size_t T = 4, C = 12;
  std::vector<float> x = Random(T * C, &rng, 2.0), g = Random(C, &rng),
                     b = Random(C, &rng), r = Random(T * C, &rng);
  std::vector<float> mean(T), rstd(T);
  auto loss = [&] {
    std::vector<float> y(T * C), m(T), s(T);
    LayerNormForward(x.data(), T, C, g.data(), b.data(), y.data(), m.data(),
                     s.data());
    return Weighted(y, r);
  };
  std::vector<float> y(T * C);
  LayerNormForward(x.data(), T, C, g.data(), b.data(), y.data(), mean.data(),
                   rstd.data());
  std::vector<float> dx(x.size()), dg(C), db(C);
  LayerNormBackward(x.data(), r.data(), mean.data(), rstd.data(), T, C,
                    g.data(), dx.data(), dg.data(), db.data());
  CheckInput("x", &x, dx, loss);
  CheckInput("g", &g, dg, loss);
  CheckInput("b", &b, db, loss);
}

TEST(LayerGrad, Gelu) {
  SplitMix64 rng(4);
  const size_t n = 40;
  std::vector<float> x = Random(n, &rng, 3.0), r = Random(n, &rng);
  auto loss = [&] {
    std::vector<float> y(n);
    GeluForward(x.data(), n, y.data());
    return Weighted(y, r);
  };
  std::vector<float> y(n), th(n), dx(n);
  GeluForward(x.data(), n, y.data(), th.data());
  GeluBackward(x.data(), th.data(), r.data(), n, dx.data());
  CheckInput("x", &x, dx, loss, n);
}

TEST(LayerGrad, SoftmaxCrossEntropy) {
  SplitMix64 rng(5);
  const size_t R = 4, V = 6;
  std::vector<float> logits = Random(R * V, &rng, 2.0);
  const std::vector<int32_t> targets = {2, -1, 0, 5};  // row 1 unscored
  auto loss = [&] {
    std::vector<float> d(R * V);
    size_t scored = 0;
    return SoftmaxCrossEntropy(logits.data(), R, V, targets.data(), 1.0f,
                               d.data(), &scored, nullptr);
  };
  std::vector<float> d(R * V);
  size_t scored = 0, correct = 0;
  SoftmaxCrossEntropy(logits.data(), R, V, targets.data(), 1.0f, d.data(),
                      &scored, &correct);
  EXPECT_EQ(scored, 3u);
  for (size_t v = 0; v < V; ++v) EXPECT_EQ(d[V + v], 0.0f) << "unscored row";
  CheckInput("logits", &logits, d, loss, R * V);
}

// Attention with one kind of positional term.
enum class Term { kNone, kAlibi, kT5, kShaw };

struct AttentionCase {
  Term term;
  bool causal;
};

void PrintTo(const AttentionCase& c, std::ostream* os) {
  const char* names[] = {"none", "alibi", "t5", "shaw"};
  *os << names[static_cast<int>(c.term)] << (c.causal ? " causal" : " encoder");
}

std::string AttentionCaseName(
    const ::testing::TestParamInfo<AttentionCase>& info) {
  const char* names[] = {"none", "alibi", "t5", "shaw"};
  return std::string(names[static_cast<int>(info.param.term)]) +
         (info.param.causal ? "_causal" : "_encoder");
}

class AttentionGrad : public ::testing::TestWithParam<AttentionCase> {};

TEST_P(AttentionGrad, MatchesFiniteDifferences) {
  const AttentionCase c = GetParam();
  SplitMix64 rng(6);
  AttentionLayerShape s;
  s.T = 6;
  s.H = 2;
  s.Dh = 5;  // odd: the kernel's vector and scalar tails both run
  s.causal = c.causal;
  s.scale = 1.0f / std::sqrt(5.0f);
  const size_t T = s.T, H = s.H, C = s.H * s.Dh;
  std::vector<float> qr = Random(T * C, &rng), kr = Random(T * C, &rng),
                     q = Random(T * C, &rng), v = Random(T * C, &rng),
                     r = Random(T * C, &rng);
  AttentionTerms e;
  const std::vector<float> slopes = {0.5f, 0.25f};
  const int32_t buckets = 6, clip = 2;
  std::vector<int32_t> t5_bucket(T * T), shaw_idx(T * T);
  std::vector<float> t5 = Random(buckets * H, &rng),
                     shaw_k = Random((2 * clip + 1) * s.Dh, &rng),
                     shaw_v = Random((2 * clip + 1) * s.Dh, &rng);
  if (c.term == Term::kAlibi) e.alibi_slopes = slopes.data();
  if (c.term == Term::kT5) {
    T5Buckets(T, T, 0, buckets, 8, !c.causal, t5_bucket.data());
    e.t5_table = t5.data();
    e.t5_bucket = t5_bucket.data();
  }
  if (c.term == Term::kShaw) {
    ShawIndices(T, T, clip, shaw_idx.data());
    e.shaw_k = shaw_k.data();
    e.shaw_v = shaw_v.data();
    e.shaw_idx = shaw_idx.data();
    e.shaw_rows = 2 * clip + 1;
  }
  auto loss = [&] {
    std::vector<float> p(H * T * T), att(T * C);
    AttentionForward(s, e, qr.data(), kr.data(), q.data(), v.data(), p.data(),
                     att.data());
    return Weighted(att, r);
  };
  std::vector<float> p(H * T * T), att(T * C);
  AttentionForward(s, e, qr.data(), kr.data(), q.data(), v.data(), p.data(),
                   att.data());
  // Causal: no weight above the diagonal; every row sums to 1.
  for (size_t h = 0; h < H; ++h) {
    for (size_t i = 0; i < T; ++i) {
      double sum = 0.0;
      for (size_t j = 0; j < T; ++j) {
        const float pij = p[(h * T + i) * T + j];
        if (c.causal && j > i)
          EXPECT_EQ(pij, 0.0f) << h << " " << i << " " << j;
        sum += pij;
      }
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
  }
  std::vector<float> dqr(T * C), dkr(T * C), dq(T * C), dv(T * C),
      d_t5(t5.size()), d_shaw_k(shaw_k.size()), d_shaw_v(shaw_v.size());
  AttentionGrads g;
  g.dqr = dqr.data();
  g.dkr = dkr.data();
  g.dq = dq.data();
  g.dv = dv.data();
  if (c.term == Term::kT5) g.d_t5 = d_t5.data();
  if (c.term == Term::kShaw) {
    g.d_shaw_k = d_shaw_k.data();
    g.d_shaw_v = d_shaw_v.data();
  }
  AttentionBackward(s, e, qr.data(), kr.data(), q.data(), v.data(), p.data(),
                    r.data(), g);
  CheckInput("qr", &qr, dqr, loss);
  CheckInput("kr", &kr, dkr, loss);
  CheckInput("v", &v, dv, loss);
  if (c.term == Term::kT5) CheckInput("t5 table", &t5, d_t5, loss);
  if (c.term == Term::kShaw) {
    // Shaw's key term reads the unrotated q.
    CheckInput("q", &q, dq, loss);
    CheckInput("shaw_k", &shaw_k, d_shaw_k, loss);
    CheckInput("shaw_v", &shaw_v, d_shaw_v, loss);
  } else {
    for (float x : dq) EXPECT_EQ(x, 0.0f) << "dq without Shaw";
  }
}

INSTANTIATE_TEST_SUITE_P(Terms, AttentionGrad,
                         ::testing::Values(AttentionCase{Term::kNone, true},
                                           AttentionCase{Term::kNone, false},
                                           AttentionCase{Term::kAlibi, true},
                                           AttentionCase{Term::kAlibi, false},
                                           AttentionCase{Term::kT5, true},
                                           AttentionCase{Term::kT5, false},
                                           AttentionCase{Term::kShaw, true},
                                           AttentionCase{Term::kShaw, false}),
                         AttentionCaseName);

}  // namespace
}  // namespace posenc
