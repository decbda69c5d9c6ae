#include "model/inference.h"

#include <cmath>
#include <utility>

#include "model/layers.h"
#include "ops/attention.h"

namespace posenc {
namespace {

// [T, C] with heads in columns <-> [H, T, Dh].
void SplitHeads(const float* x, size_t T, size_t H, size_t Dh, float* out) {
  for (size_t t = 0; t < T; ++t) {
    for (size_t h = 0; h < H; ++h) {
      for (size_t e = 0; e < Dh; ++e) {
        out[(h * T + t) * Dh + e] = x[t * H * Dh + h * Dh + e];
      }
    }
  }
}
void MergeHeads(const float* x, size_t T, size_t H, size_t Dh, float* out) {
  for (size_t h = 0; h < H; ++h) {
    for (size_t t = 0; t < T; ++t) {
      for (size_t e = 0; e < Dh; ++e) {
        out[t * H * Dh + h * Dh + e] = x[(h * T + t) * Dh + e];
      }
    }
  }
}

AttentionRope ModelRope(const Model& m, const RopeScaling& scaling) {
  const ModelConfig& c = m.config;
  AttentionRope r;
  r.enabled = c.encoding == Encoding::kRope || c.encoding == Encoding::kXpos;
  r.freq = c.Rope(scaling);
  r.layout = RopeLayout::kHalf;
  r.xpos = c.encoding == Encoding::kXpos;
  r.xpos_scale_base = c.xpos_scale_base;
  return r;
}

// Everything but q/k/v and the rope: heads, masks and bias encodings.
AttentionOptions LayerAttention(const Model& m, size_t l, size_t Tq,
                                size_t Tk) {
  const ModelConfig& c = m.config;
  AttentionOptions o;
  o.H = o.Hkv = static_cast<size_t>(c.heads);
  o.Tq = Tq;
  o.Tk = Tk;
  o.D = static_cast<size_t>(c.head_dim());
  o.causal = c.causal;
  if (c.encoding == Encoding::kAlibi) o.alibi_slopes = m.alibi_slopes.data();
  if (m.has_t5) {
    o.t5_table = m.w.data() + m.t5;
    o.t5_buckets = c.t5_buckets;
    o.t5_max_distance = c.t5_max_distance;
    o.t5_bidirectional = !c.causal;
  }
  if (c.encoding == Encoding::kShaw) {
    o.shaw_k = m.w.data() + m.layer[l].shaw_k;
    o.shaw_v = m.w.data() + m.layer[l].shaw_v;
    o.shaw_clip = c.shaw_clip;
  }
  return o;
}

// One block on x [n, C] in place; `attend` maps q [H, n, Dh] (and k, v) to
// the heads' outputs [H, n, Dh].
template <class Attend>
Status Block(const Model& m, size_t l, size_t n, float* x, Attend attend) {
  const ModelConfig& c = m.config;
  const size_t C = static_cast<size_t>(c.d_model),
               H = static_cast<size_t>(c.heads),
               Dh = static_cast<size_t>(c.head_dim()),
               F = static_cast<size_t>(c.d_ff);
  const LayerParams& lp = m.layer[l];
  const float* w = m.w.data();
  std::vector<float> a(n * C), mean(n), rstd(n), q(n * C), k(n * C), v(n * C);
  LayerNormForward(x, n, C, w + lp.ln1_g, w + lp.ln1_b, a.data(), mean.data(),
                   rstd.data());
  LinearForward(a.data(), n, C, C, w + lp.wq, w + lp.bq, q.data());
  LinearForward(a.data(), n, C, C, w + lp.wk, w + lp.bk, k.data());
  LinearForward(a.data(), n, C, C, w + lp.wv, w + lp.bv, v.data());
  std::vector<float> qh(n * C), kh(n * C), vh(n * C), oh(n * C);
  SplitHeads(q.data(), n, H, Dh, qh.data());
  SplitHeads(k.data(), n, H, Dh, kh.data());
  SplitHeads(v.data(), n, H, Dh, vh.data());
  POSENC_RETURN_IF_ERROR(attend(qh.data(), kh.data(), vh.data(), oh.data()));
  MergeHeads(oh.data(), n, H, Dh, a.data());
  LinearForward(a.data(), n, C, C, w + lp.wo, w + lp.bo, q.data());
  for (size_t e = 0; e < n * C; ++e) x[e] += q[e];
  std::vector<float> hid(n * F), u(n * F);
  LayerNormForward(x, n, C, w + lp.ln2_g, w + lp.ln2_b, a.data(), mean.data(),
                   rstd.data());
  LinearForward(a.data(), n, C, F, w + lp.w1, w + lp.b1, hid.data());
  GeluForward(hid.data(), n * F, u.data());
  LinearForward(u.data(), n, F, C, w + lp.w2, w + lp.b2, q.data());
  for (size_t e = 0; e < n * C; ++e) x[e] += q[e];
  return Status::Ok();
}

// Final norm and head: logits [n, V] (causal) or pooled [K].
void Head(const Model& m, const float* x, size_t n,
          std::vector<float>* logits) {
  const ModelConfig& c = m.config;
  const size_t C = static_cast<size_t>(c.d_model);
  const float* w = m.w.data();
  std::vector<float> y(n * C), mean(n), rstd(n);
  LayerNormForward(x, n, C, w + m.lnf_g, w + m.lnf_b, y.data(), mean.data(),
                   rstd.data());
  if (c.causal) {
    const size_t V = static_cast<size_t>(c.vocab);
    logits->resize(n * V);
    LinearForward(y.data(), n, C, V, w + m.head, nullptr, logits->data());
    return;
  }
  const size_t K = static_cast<size_t>(c.num_classes);
  std::vector<float> pooled(C, 0.0f);
  for (size_t t = 0; t < n; ++t) {
    for (size_t i = 0; i < C; ++i) pooled[i] += y[t * C + i];
  }
  for (float& p : pooled) p /= static_cast<float>(n);
  logits->resize(K);
  LinearForward(pooled.data(), 1, C, K, w + m.head, w + m.head_b,
                logits->data());
}

}  // namespace

Status Infer(const Model& m, const int32_t* tokens, size_t T,
             const InferenceOptions& opt, InferenceResult* out) {
  POSENC_RETURN_IF_ERROR(CheckModelTokens(m, tokens, T, 0));
  const AttentionRope rope = ModelRope(m, opt.scaling);
  if (rope.enabled) POSENC_RETURN_IF_ERROR(ValidateRopeConfig(rope.freq));
  const size_t C = static_cast<size_t>(m.config.d_model),
               H = static_cast<size_t>(m.config.heads);
  std::vector<float> x(T * C);
  EmbedTokens(m, tokens, T, 0, x.data());
  out->maps.clear();
  for (size_t l = 0; l < m.layer.size(); ++l) {
    if (opt.attention_maps) out->maps.emplace_back(H * T * T);
    POSENC_RETURN_IF_ERROR(
        Block(m, l, T, x.data(),
              [&](const float* q, const float* k, const float* v, float* o) {
                AttentionOptions ao = LayerAttention(m, l, T, T);
                ao.rope = rope;
                if (opt.attention_maps) ao.weights = out->maps.back().data();
                return Attention(ao, q, k, v, o);
              }));
  }
  Head(m, x.data(), T, &out->logits);
  return Status::Ok();
}

Status Decoder::Create(const Model& m, const RopeScaling& scaling,
                       std::unique_ptr<Decoder>* out) {
  if (!m.config.causal) {
    return Status::Invalid(
        "incremental decoding needs a causal model; this one is an encoder");
  }
  std::unique_ptr<Decoder> d(new Decoder(m));
  d->rope_ = ModelRope(m, scaling);
  if (d->rope_.enabled)
    POSENC_RETURN_IF_ERROR(ValidateRopeConfig(d->rope_.freq));
  const size_t H = static_cast<size_t>(m.config.heads),
               Dh = static_cast<size_t>(m.config.head_dim());
  POSENC_RETURN_IF_ERROR(KvCache::Validate(H, Dh, d->rope_));
  for (size_t l = 0; l < m.layer.size(); ++l) {
    d->caches_.emplace_back(H, Dh, d->rope_);
  }
  *out = std::move(d);
  return Status::Ok();
}

Status Decoder::Feed(const int32_t* tokens, size_t n,
                     std::vector<float>* logits) {
  POSENC_RETURN_IF_ERROR(CheckModelTokens(m_, tokens, n, length_));
  const size_t C = static_cast<size_t>(m_.config.d_model);
  std::vector<float> x(n * C);
  EmbedTokens(m_, tokens, n, length_, x.data());
  for (size_t l = 0; l < m_.layer.size(); ++l) {
    KvCache& cache = caches_[l];
    POSENC_RETURN_IF_ERROR(
        Block(m_, l, n, x.data(),
              [&](const float* q, const float* k, const float* v, float* o) {
                POSENC_RETURN_IF_ERROR(cache.Append(k, v, n, nullptr));
                AttentionOptions ao = LayerAttention(m_, l, n, cache.length());
                return cache.Attend(ao, q, nullptr, o);
              }));
  }
  length_ += n;
  Head(m_, x.data(), n, logits);
  return Status::Ok();
}

}  // namespace posenc
