#include "model/transformer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/attention_layer.h"
#include "model/layers.h"
#include "model/rng.h"
#include "ops/alibi.h"
#include "ops/rope.h"
#include "ops/rope_apply.h"
#include "ops/shaw.h"
#include "ops/sinusoidal.h"
#include "ops/t5.h"

namespace posenc {
namespace {

size_t Add(Model* m, std::string name, std::vector<int64_t> shape, bool decay) {
  ParamInfo p;
  p.name = std::move(name);
  p.shape = std::move(shape);
  p.size = 1;
  for (int64_t s : p.shape) p.size *= static_cast<size_t>(s);
  p.offset =
      m->params.empty() ? 0 : m->params.back().offset + m->params.back().size;
  p.decay = decay;
  m->params.push_back(p);
  return p.offset;
}

bool UsesRope(const ModelConfig& c) {
  return c.encoding == Encoding::kRope || c.encoding == Encoding::kXpos;
}

// The rotation of every head of every token: x, y: [T, H * Dh] (row t is
// H heads of Dh), by the table rows cos, sin: [T, half]. The ops' scalar
// kernel with strides: it rounds each product and sum on its own (no fused
// multiply-add), so the bits do not depend on the CPU target. y may equal x.
void RotateHeads(const float* x, size_t T, size_t H, size_t Dh, size_t half,
                 const float* cos, const float* sin, float* y) {
  // x, y: [T, H, Dh] (token-major), one call for every head and token.
  ApplyRopeScalarStrided(RopeLayout::kHalf, x, H, T, Dh, 2 * half, cos, sin, y,
                         Dh, H * Dh);
}

AttentionLayerShape Shape(const Model& m, size_t T) {
  AttentionLayerShape s;
  s.T = T;
  s.H = static_cast<size_t>(m.config.heads);
  s.Dh = static_cast<size_t>(m.config.head_dim());
  s.causal = m.config.causal;
  s.scale = 1.0f / std::sqrt(static_cast<float>(s.Dh));
  return s;
}

// The positional terms of layer lp for the forward pass cached in fc.
AttentionTerms Terms(const Model& m, const LayerParams& lp,
                     const ForwardCache& fc) {
  AttentionTerms e;
  const float* w = m.w.data();
  if (m.config.encoding == Encoding::kAlibi) {
    e.alibi_slopes = m.alibi_slopes.data();
  }
  if (m.has_t5) {
    e.t5_table = w + m.t5;
    e.t5_bucket = fc.t5_bucket.data();
  }
  if (lp.shaw_k) {
    e.shaw_k = w + lp.shaw_k;
    e.shaw_v = w + lp.shaw_v;
    e.shaw_idx = fc.shaw_idx.data();
    e.shaw_rows = static_cast<size_t>(2 * m.config.shaw_clip + 1);
  }
  return e;
}

}  // namespace

void BuildParamLayout(const ModelConfig& c, Model* m) {
  m->config = c;
  m->params.clear();
  m->layer.clear();
  const int64_t C = c.d_model, F = c.d_ff, V = c.vocab, Dh = c.head_dim();
  m->embed = Add(m, "embed.weight", {V, C}, false);
  m->has_pos = c.encoding == Encoding::kLearned;
  if (m->has_pos) m->pos = Add(m, "pos.weight", {c.max_len, C}, false);
  m->has_t5 = c.encoding == Encoding::kT5;
  if (m->has_t5) m->t5 = Add(m, "t5.bias", {c.t5_buckets, c.heads}, false);
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "layers." + std::to_string(l) + ".";
    LayerParams lp;
    lp.ln1_g = Add(m, p + "ln1.weight", {C}, false);
    lp.ln1_b = Add(m, p + "ln1.bias", {C}, false);
    lp.wq = Add(m, p + "attn.wq", {C, C}, true);
    lp.bq = Add(m, p + "attn.bq", {C}, false);
    lp.wk = Add(m, p + "attn.wk", {C, C}, true);
    lp.bk = Add(m, p + "attn.bk", {C}, false);
    lp.wv = Add(m, p + "attn.wv", {C, C}, true);
    lp.bv = Add(m, p + "attn.bv", {C}, false);
    lp.wo = Add(m, p + "attn.wo", {C, C}, true);
    lp.bo = Add(m, p + "attn.bo", {C}, false);
    if (c.encoding == Encoding::kShaw) {
      lp.shaw_k = Add(m, p + "attn.shaw_k", {2 * c.shaw_clip + 1, Dh}, false);
      lp.shaw_v = Add(m, p + "attn.shaw_v", {2 * c.shaw_clip + 1, Dh}, false);
    }
    lp.ln2_g = Add(m, p + "ln2.weight", {C}, false);
    lp.ln2_b = Add(m, p + "ln2.bias", {C}, false);
    lp.w1 = Add(m, p + "mlp.w1", {C, F}, true);
    lp.b1 = Add(m, p + "mlp.b1", {F}, false);
    lp.w2 = Add(m, p + "mlp.w2", {F, C}, true);
    lp.b2 = Add(m, p + "mlp.b2", {C}, false);
    m->layer.push_back(lp);
  }
  m->lnf_g = Add(m, "final_ln.weight", {C}, false);
  m->lnf_b = Add(m, "final_ln.bias", {C}, false);
  if (c.causal) {
    m->head = Add(m, "head.weight", {C, V}, true);
  } else {
    m->head = Add(m, "cls.weight", {C, c.num_classes}, true);
    m->head_b = Add(m, "cls.bias", {c.num_classes}, false);
  }
  m->w.assign(m->params.back().offset + m->params.back().size, 0.0f);
  m->alibi_slopes.assign(static_cast<size_t>(c.heads), 0.0f);
  if (c.encoding == Encoding::kAlibi) {
    AlibiSlopeValues(static_cast<size_t>(c.heads), AlibiSlopes::kPaper,
                     m->alibi_slopes.data());
  }
}

Status NewModel(const ModelConfig& c, uint64_t seed, Model* m) {
  POSENC_RETURN_IF_ERROR(ValidateModelConfig(c));
  BuildParamLayout(c, m);
  SplitMix64 rng(seed);
  // Uniform initialisation (no libm: identical natively and in wasm) with
  // the standard deviations of GPT-2 style models, rescaled for tiny
  // widths: matrices 1/sqrt(fan_in), residual outputs also 1/sqrt(2 L).
  const double sqrt3 = 1.7320508075688772;
  auto fill = [&](size_t off, size_t n, double stdev) {
    for (size_t i = 0; i < n; ++i) m->w[off + i] = rng.Symmetric(sqrt3 * stdev);
  };
  auto ones = [&](size_t off, size_t n) {
    for (size_t i = 0; i < n; ++i) m->w[off + i] = 1.0f;
  };
  const size_t C = static_cast<size_t>(c.d_model),
               F = static_cast<size_t>(c.d_ff);
  const double in_c = 1.0 / std::sqrt(static_cast<double>(C));
  const double in_f = 1.0 / std::sqrt(static_cast<double>(F));
  const double resid = 1.0 / std::sqrt(2.0 * c.layers);
  fill(m->embed, static_cast<size_t>(c.vocab) * C, 1.0);
  if (m->has_pos) fill(m->pos, static_cast<size_t>(c.max_len) * C, 0.1);
  // T5 tables start at zero: every distance equal until trained.
  for (const LayerParams& lp : m->layer) {
    ones(lp.ln1_g, C);
    ones(lp.ln2_g, C);
    fill(lp.wq, C * C, in_c);
    fill(lp.wk, C * C, in_c);
    fill(lp.wv, C * C, in_c);
    fill(lp.wo, C * C, in_c * resid);
    fill(lp.w1, C * F, in_c);
    fill(lp.w2, F * C, in_f * resid);
    if (c.encoding == Encoding::kShaw) {
      const size_t n = static_cast<size_t>(2 * c.shaw_clip + 1) *
                       static_cast<size_t>(c.head_dim());
      fill(lp.shaw_k, n, 0.1);
      fill(lp.shaw_v, n, 0.1);
    }
  }
  ones(m->lnf_g, C);
  fill(m->head, C * static_cast<size_t>(c.causal ? c.vocab : c.num_classes),
       in_c);
  return Status::Ok();
}

Status CheckModelTokens(const Model& m, const int32_t* tokens, size_t n,
                        size_t first_pos) {
  const ModelConfig& c = m.config;
  if (n < 1 || first_pos + n > (size_t{1} << 20)) {
    return Status::Invalid(
        StrCat("tokens must hold 1 to 2^20 ids in total, "
               "got ",
               n, " after ", first_pos));
  }
  for (size_t t = 0; t < n; ++t) {
    if (tokens[t] < 0 || tokens[t] >= c.vocab) {
      return Status::Invalid(StrCat("tokens[", t, "] must be in [0, ", c.vocab,
                                    "), got ", tokens[t]));
    }
  }
  if (m.has_pos && first_pos + n > static_cast<size_t>(c.max_len)) {
    return Status::Invalid(
        StrCat("sequence length ", first_pos + n,
               " exceeds the learned position table (", c.max_len,
               " rows): a learned encoding has no position beyond it"));
  }
  return Status::Ok();
}

void EmbedTokens(const Model& m, const int32_t* tokens, size_t n,
                 size_t first_pos, float* x) {
  const ModelConfig& c = m.config;
  const size_t C = static_cast<size_t>(c.d_model);
  for (size_t t = 0; t < n; ++t) {
    const float* e = m.w.data() + m.embed + static_cast<size_t>(tokens[t]) * C;
    for (size_t i = 0; i < C; ++i) x[t * C + i] = e[i];
  }
  if (m.has_pos) {
    const float* p = m.w.data() + m.pos + first_pos * C;
    for (size_t e = 0; e < n * C; ++e) x[e] += p[e];
  } else if (c.encoding == Encoding::kSinusoidal) {
    std::vector<float> table((first_pos + n) * C);
    SinusoidalTable(first_pos + n, C, c.sinusoidal_base,
                    SinusoidalLayout::kInterleaved, table.data());
    for (size_t e = 0; e < n * C; ++e) x[e] += table[first_pos * C + e];
  }
}

Status Forward(const Model& m, const int32_t* tokens, size_t T,
               const ForwardOptions& opt, ForwardCache* cache,
               std::vector<float>* logits) {
  const ModelConfig& c = m.config;
  const size_t C = static_cast<size_t>(c.d_model),
               H = static_cast<size_t>(c.heads),
               Dh = static_cast<size_t>(c.head_dim()),
               F = static_cast<size_t>(c.d_ff),
               V = static_cast<size_t>(c.vocab);
  POSENC_RETURN_IF_ERROR(CheckModelTokens(m, tokens, T, 0));
  ForwardCache& fc = *cache;
  fc.T = T;
  fc.x0.resize(T * C);
  EmbedTokens(m, tokens, T, 0, fc.x0.data());
  // Relative-encoding tables for this length.
  size_t half = 0;
  if (UsesRope(c)) {
    RopeApplyOptions ro;
    ro.freq = opt.scaling ? c.Rope(*opt.scaling) : c.Rope();
    ro.layout = RopeLayout::kHalf;
    ro.heads = 1;
    ro.seq_len = static_cast<int64_t>(T);
    ro.xpos = c.encoding == Encoding::kXpos;
    ro.xpos_scale_base = c.xpos_scale_base;
    POSENC_RETURN_IF_ERROR(ValidateRopeApply(ro, T * Dh));
    POSENC_RETURN_IF_ERROR(RopeTable(ro, &fc.cos_q, &fc.sin_q));
    ro.xpos_key = true;
    POSENC_RETURN_IF_ERROR(RopeTable(ro, &fc.cos_k, &fc.sin_k));
    half = static_cast<size_t>(EffectiveRotaryDim(ro.freq)) / 2;
  }
  if (m.has_t5) {
    fc.t5_bucket.resize(T * T);
    for (size_t i = 0; i < T; ++i) {
      for (size_t j = 0; j < T; ++j) {
        fc.t5_bucket[i * T + j] =
            T5Bucket(static_cast<int64_t>(j) - static_cast<int64_t>(i),
                     c.t5_buckets, c.t5_max_distance, !c.causal);
      }
    }
  }
  if (c.encoding == Encoding::kShaw) {
    fc.shaw_idx.resize(T * T);
    ShawIndices(T, T, c.shaw_clip, fc.shaw_idx.data());
  }
  const AttentionLayerShape shape = Shape(m, T);
  fc.layers.resize(m.layer.size());
  // The residual stream [T, C]: each layer's input is saved in its x_in
  // (layer 0's is a copy of x0), and its output is written straight into the
  // next layer's x_in (the last one's into x_out). Buffers keep their
  // capacity from call to call: a trainer reusing the cache allocates
  // nothing after the first example.
  (m.layer.empty() ? fc.x_out : fc.layers[0].x_in)
      .assign(fc.x0.begin(), fc.x0.end());
  for (size_t l = 0; l < m.layer.size(); ++l) {
    const LayerParams& lp = m.layer[l];
    ForwardCache::Layer& L = fc.layers[l];
    const float* w = m.w.data();
    const float* x = L.x_in.data();
    L.a.resize(T * C);
    L.mean1.resize(T);
    L.rstd1.resize(T);
    LayerNormForward(x, T, C, w + lp.ln1_g, w + lp.ln1_b, L.a.data(),
                     L.mean1.data(), L.rstd1.data());
    L.q.resize(T * C);
    L.k.resize(T * C);
    L.v.resize(T * C);
    LinearForward(L.a.data(), T, C, C, w + lp.wq, w + lp.bq, L.q.data());
    LinearForward(L.a.data(), T, C, C, w + lp.wk, w + lp.bk, L.k.data());
    LinearForward(L.a.data(), T, C, C, w + lp.wv, w + lp.bv, L.v.data());
    // Rotated copies only where there is a rotation (else qr = q, kr = k).
    if (half) {
      L.qr.resize(T * C);
      L.kr.resize(T * C);
      RotateHeads(L.q.data(), T, H, Dh, half, fc.cos_q.data(), fc.sin_q.data(),
                  L.qr.data());
      RotateHeads(L.k.data(), T, H, Dh, half, fc.cos_k.data(), fc.sin_k.data(),
                  L.kr.data());
    } else {
      L.qr.clear();
      L.kr.clear();
    }
    // Materialised attention per head.
    L.p.resize(H * T * T);
    L.att.resize(T * C);
    AttentionForward(shape, Terms(m, lp, fc), half ? L.qr.data() : L.q.data(),
                     half ? L.kr.data() : L.k.data(), L.q.data(), L.v.data(),
                     L.p.data(), L.att.data());
    L.x_mid.resize(T * C);
    LinearForward(L.att.data(), T, C, C, w + lp.wo, w + lp.bo, L.x_mid.data());
    for (size_t e = 0; e < T * C; ++e) L.x_mid[e] += x[e];
    L.b.resize(T * C);
    L.mean2.resize(T);
    L.rstd2.resize(T);
    LayerNormForward(L.x_mid.data(), T, C, w + lp.ln2_g, w + lp.ln2_b,
                     L.b.data(), L.mean2.data(), L.rstd2.data());
    L.hpre.resize(T * F);
    L.u.resize(T * F);
    L.gelu_th.resize(T * F);
    LinearForward(L.b.data(), T, C, F, w + lp.w1, w + lp.b1, L.hpre.data());
    GeluForward(L.hpre.data(), T * F, L.u.data(), L.gelu_th.data());
    std::vector<float>& out =
        l + 1 < m.layer.size() ? fc.layers[l + 1].x_in : fc.x_out;
    out.resize(T * C);
    LinearForward(L.u.data(), T, F, C, w + lp.w2, w + lp.b2, out.data());
    for (size_t e = 0; e < T * C; ++e) out[e] += L.x_mid[e];
  }
  const float* x = fc.x_out.data();
  const float* w = m.w.data();
  fc.y.resize(T * C);
  fc.meanf.resize(T);
  fc.rstdf.resize(T);
  LayerNormForward(x, T, C, w + m.lnf_g, w + m.lnf_b, fc.y.data(),
                   fc.meanf.data(), fc.rstdf.data());
  if (c.causal) {
    logits->resize(T * V);
    LinearForward(fc.y.data(), T, C, V, w + m.head, nullptr, logits->data());
  } else {
    const size_t K = static_cast<size_t>(c.num_classes);
    fc.pooled.assign(C, 0.0f);
    for (size_t t = 0; t < T; ++t) {
      for (size_t i = 0; i < C; ++i) fc.pooled[i] += fc.y[t * C + i];
    }
    for (size_t i = 0; i < C; ++i) fc.pooled[i] /= static_cast<float>(T);
    logits->resize(K);
    LinearForward(fc.pooled.data(), 1, C, K, w + m.head, w + m.head_b,
                  logits->data());
  }
  return Status::Ok();
}

void TransposeWeights(const Model& m, std::vector<float>* wt) {
  const ModelConfig& c = m.config;
  const size_t C = static_cast<size_t>(c.d_model),
               F = static_cast<size_t>(c.d_ff);
  const size_t out = c.causal ? static_cast<size_t>(c.vocab)
                              : static_cast<size_t>(c.num_classes);
  wt->resize(m.w.size());
  const float* w = m.w.data();
  float* t = wt->data();
  TransposeInto(w + m.head, C, out, t + m.head);
  for (const LayerParams& lp : m.layer) {
    for (size_t o : {lp.wq, lp.wk, lp.wv, lp.wo})
      TransposeInto(w + o, C, C, t + o);
    TransposeInto(w + lp.w1, C, F, t + lp.w1);
    TransposeInto(w + lp.w2, F, C, t + lp.w2);
  }
}

void Backward(const Model& m, const int32_t* tokens, const ForwardCache& fc,
              const float* dlogits, float* grad) {
  BackwardScratch scratch;
  std::vector<float> wt;
  TransposeWeights(m, &wt);
  Backward(m, tokens, fc, dlogits, grad, wt.data(), &scratch);
}

namespace {

// v sized to n, keeping its capacity (no allocation once it is large
// enough), its contents left as they are (for a buffer the next call
// overwrites whole).
float* Sized(std::vector<float>* v, size_t n) {
  if (v->size() != n) v->resize(n);
  return v->data();
}

// v = n zeros, keeping its capacity.
float* Zeroed(std::vector<float>* v, size_t n) {
  float* p = Sized(v, n);
  std::fill(p, p + n, 0.0f);
  return p;
}

}  // namespace

void Backward(const Model& m, const int32_t* tokens, const ForwardCache& fc,
              const float* dlogits, float* grad, const float* wt,
              BackwardScratch* scratch) {
  BackwardScratch& b = *scratch;
  const ModelConfig& c = m.config;
  const size_t T = fc.T, C = static_cast<size_t>(c.d_model),
               H = static_cast<size_t>(c.heads),
               Dh = static_cast<size_t>(c.head_dim()),
               F = static_cast<size_t>(c.d_ff),
               V = static_cast<size_t>(c.vocab);
  const float* w = m.w.data();
  const size_t half = fc.cos_q.empty() ? 0 : fc.cos_q.size() / T;
  float* nsin_q = Sized(&b.nsin_q, fc.sin_q.size());
  float* nsin_k = Sized(&b.nsin_k, fc.sin_k.size());
  for (size_t i = 0; i < fc.sin_q.size(); ++i) nsin_q[i] = -fc.sin_q[i];
  for (size_t i = 0; i < fc.sin_k.size(); ++i) nsin_k[i] = -fc.sin_k[i];
  // Head.
  float* dy = Zeroed(&b.dy, T * C);
  if (c.causal) {
    LinearBackwardT(fc.y.data(), dlogits, T, C, V, wt + m.head, dy,
                    grad + m.head, nullptr);
  } else {
    const size_t K = static_cast<size_t>(c.num_classes);
    float* dpooled = Zeroed(&b.dpooled, C);
    LinearBackwardT(fc.pooled.data(), dlogits, 1, C, K, wt + m.head, dpooled,
                    grad + m.head, grad + m.head_b);
    for (size_t t = 0; t < T; ++t) {
      for (size_t i = 0; i < C; ++i) {
        dy[t * C + i] = dpooled[i] / static_cast<float>(T);
      }
    }
  }
  float* dx = Zeroed(&b.dx, T * C);
  LayerNormBackward(fc.x_out.data(), dy, fc.meanf.data(), fc.rstdf.data(), T, C,
                    w + m.lnf_g, dx, grad + m.lnf_g, grad + m.lnf_b);
  // Layers, last to first. dx is the gradient of the residual stream.
  for (size_t l = m.layer.size(); l-- > 0;) {
    const LayerParams& lp = m.layer[l];
    const ForwardCache::Layer& L = fc.layers[l];
    // MLP: x_out = x_mid + W2 gelu(W1 LN2(x_mid)).
    // (du, db, datt, da: the first product writing them overwrites.)
    float* du = Sized(&b.du, T * F);
    float* dh = Zeroed(&b.dh, T * F);
    float* db = Sized(&b.db, T * C);
    LinearBackwardT(L.u.data(), dx, T, F, C, wt + lp.w2, du, grad + lp.w2,
                    grad + lp.b2, DxMode::kOverwrite);
    GeluBackward(L.hpre.data(), L.gelu_th.data(), du, T * F, dh);
    LinearBackwardT(L.b.data(), dh, T, C, F, wt + lp.w1, db, grad + lp.w1,
                    grad + lp.b1, DxMode::kOverwrite);
    LayerNormBackward(L.x_mid.data(), db, L.mean2.data(), L.rstd2.data(), T, C,
                      w + lp.ln2_g, dx, grad + lp.ln2_g, grad + lp.ln2_b);
    // Attention: x_mid = x_in + Wo att.
    float* datt = Sized(&b.datt, T * C);
    LinearBackwardT(L.att.data(), dx, T, C, C, wt + lp.wo, datt, grad + lp.wo,
                    grad + lp.bo, DxMode::kOverwrite);
    float* dqr = Zeroed(&b.dqr, T * C);
    float* dkr = Zeroed(&b.dkr, T * C);
    float* dq = Zeroed(&b.dq, T * C);
    float* dk = Zeroed(&b.dk, T * C);
    float* dv = Zeroed(&b.dv, T * C);
    AttentionGrads ag;
    ag.dqr = dqr;
    ag.dkr = dkr;
    ag.dq = dq;
    ag.dv = dv;
    if (m.has_t5) ag.d_t5 = grad + m.t5;
    if (lp.shaw_k) ag.d_shaw_k = grad + lp.shaw_k;
    if (lp.shaw_v) ag.d_shaw_v = grad + lp.shaw_v;
    AttentionBackward(Shape(m, T), Terms(m, lp, fc),
                      half ? L.qr.data() : L.q.data(),
                      half ? L.kr.data() : L.k.data(), L.q.data(), L.v.data(),
                      L.p.data(), datt, ag);
    // Undo the rotation: dq += R^T dqr, R^T being the rotation by -theta
    // (the same cos, the sin negated).
    if (half) {
      RotateHeads(dqr, T, H, Dh, half, fc.cos_q.data(), nsin_q, dqr);
      RotateHeads(dkr, T, H, Dh, half, fc.cos_k.data(), nsin_k, dkr);
    }
    for (size_t e = 0; e < T * C; ++e) {
      dq[e] += dqr[e];
      dk[e] += dkr[e];
    }
    float* da = Sized(&b.da, T * C);
    LinearBackwardT(L.a.data(), dq, T, C, C, wt + lp.wq, da, grad + lp.wq,
                    grad + lp.bq, DxMode::kOverwrite);
    LinearBackwardT(L.a.data(), dk, T, C, C, wt + lp.wk, da, grad + lp.wk,
                    grad + lp.bk);
    LinearBackwardT(L.a.data(), dv, T, C, C, wt + lp.wv, da, grad + lp.wv,
                    grad + lp.bv);
    // x_mid = x_in + ..., a = LN1(x_in): dx (residual) += LN1^T da.
    LayerNormBackward(L.x_in.data(), da, L.mean1.data(), L.rstd1.data(), T, C,
                      w + lp.ln1_g, dx, grad + lp.ln1_g, grad + lp.ln1_b);
  }
  // Embeddings (and learned positions).
  for (size_t t = 0; t < T; ++t) {
    float* ge = grad + m.embed + static_cast<size_t>(tokens[t]) * C;
    for (size_t i = 0; i < C; ++i) ge[i] += dx[t * C + i];
  }
  if (m.has_pos) {
    for (size_t e = 0; e < T * C; ++e) grad[m.pos + e] += dx[e];
  }
}

}  // namespace posenc
