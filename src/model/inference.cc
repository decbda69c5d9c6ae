#include "model/inference.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>

#include "model/layers.h"
#include "model/rng.h"
#include "ops/attention.h"
#include "ops/rope_apply.h"

namespace posenc {
namespace {

constexpr size_t kMaxLeftPad = size_t{1} << 16;

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

// The model's rotation (RoPE / xPos, half layout, its base and rotary dim)
// with `bug`'s changes to the layout, the base or the attention factor.
Status ModelRope(const Model& m, const RopeScaling& scaling, PositionBug bug,
                 AttentionRope* out) {
  const ModelConfig& c = m.config;
  AttentionRope r;
  r.enabled = c.encoding == Encoding::kRope || c.encoding == Encoding::kXpos;
  r.freq = c.Rope(scaling);
  r.layout = RopeLayout::kHalf;
  r.xpos = c.encoding == Encoding::kXpos;
  r.xpos_scale_base = c.xpos_scale_base;
  if (!r.enabled) {
    *out = r;
    return Status::Ok();
  }
  switch (bug) {
    case PositionBug::kLayoutMismatch:
      r.layout = RopeLayout::kInterleaved;
      break;
    case PositionBug::kWrongBase:
      r.freq.base = kBugWrongBase;
      break;
    case PositionBug::kWrongScaling:
      r.freq.scaling = RopeScaling();
      r.freq.scaling.type = RopeScalingType::kLinear;
      r.freq.scaling.factor = kBugWrongScalingFactor;
      break;
    case PositionBug::kPartialRotaryFreqOverHeadDim:
      // (base^(r/d))^(-2i/r) = base^(-2i/d).
      r.freq.base = std::pow(c.rope_base,
                             static_cast<double>(c.rotary_dim) / c.head_dim());
      break;
    case PositionBug::kYarnMagnitudeTwice: {
      // The factor f multiplies cos and sin of q and k (logits * f^2);
      // passing f^2 as the explicit factor applies it twice (logits * f^4).
      std::vector<double> inv;
      double f = 1.0;
      POSENC_RETURN_IF_ERROR(RopeFrequencies(r.freq, c.train_len, &inv, &f));
      r.freq.scaling.has_attention_factor = true;
      r.freq.scaling.attention_factor = f * f;
      break;
    }
    default:
      break;
  }
  POSENC_RETURN_IF_ERROR(ValidateRopeConfig(r.freq));
  *out = r;
  return Status::Ok();
}

// out: [heads, n, D] = x [heads, n, D] rotated by `rope` at positions [n]
// (keys take xPos's inverse scale), or, with `mismatch`, transformed by
// kRotateHalfMismatch's non-rotation; the context length covers `seen`
// (default: these positions).
Status RotateAt(const AttentionRope& rope, const float* x, size_t heads,
                size_t n, const int32_t* positions, bool key,
                std::vector<float>* out, bool mismatch = false,
                std::initializer_list<PositionRun> seen = {}) {
  const RopeApplyOptions r =
      seen.size() == 0
          ? RotationOf(rope, heads, n, positions, key, {{positions, n}})
          : RotationOf(rope, heads, n, positions, key, seen);
  out->resize(heads * n * static_cast<size_t>(rope.freq.head_dim));
  return mismatch ? RotateHalfMismatch(r, x, out->size(), out->data())
                  : RopeApplyChecked(r, x, out->size(), out->data());
}

// The positions a bug rotates queries [Tq] and keys [Tk] at, from the
// correct ones: kQkPositionMismatch moves queries one ahead,
// kShortCosSinCache clamps both to the last row of its short cache.
void BugPositions(const Model& m, PositionBug bug, std::vector<int32_t>* qpos,
                  std::vector<int32_t>* kpos) {
  if (bug == PositionBug::kQkPositionMismatch) {
    for (int32_t& p : *qpos) ++p;
  } else if (bug == PositionBug::kShortCosSinCache) {
    const int32_t last = static_cast<int32_t>(ShortCacheRows(m.config)) - 1;
    for (int32_t& p : *qpos) p = std::min(p, last);
    for (int32_t& p : *kpos) p = std::min(p, last);
  }
}

// CheckPositionBug for a call: with the call's scaling, except for
// kWrongScaling, which replaces the model's own scaling and conflicts only
// with one the caller passed.
Status CheckCall(const Model& m, const std::optional<RopeScaling>& scaling,
                 PositionBug bug) {
  return CheckPositionBug(m.config,
                          bug == PositionBug::kWrongScaling
                              ? scaling.value_or(RopeScaling())
                              : CallScaling(m, scaling),
                          bug);
}

// Attention of a full pass (q, k, v: [H, n, D]) with the bugs that act
// inside attention applied: kOnlyQ (keys not rotated), kRotateV (values
// rotated at the keys' positions), kRopeOnEmbeddings (nothing rotated here),
// kQkPositionMismatch / kShortCosSinCache (other positions) and
// kRotateHalfMismatch (q and k transformed by it, then no rotation).
Status AttendFull(const Model& m, AttentionOptions ao, PositionBug bug,
                  const float* q, const float* k, const float* v, float* o) {
  if (!ao.rope.enabled) return Attention(ao, q, k, v, o);
  switch (bug) {
    case PositionBug::kOnlyQ:
      ao.rope.rotate_k = false;
      return Attention(ao, q, k, v, o);
    case PositionBug::kRopeOnEmbeddings:
      ao.rope.enabled = false;
      return Attention(ao, q, k, v, o);
    case PositionBug::kRotateV:
    case PositionBug::kQkPositionMismatch:
    case PositionBug::kShortCosSinCache:
    case PositionBug::kRotateHalfMismatch:
      break;
    default:
      return Attention(ao, q, k, v, o);
  }
  std::vector<int32_t> qpos, kpos;
  AttentionPositions(ao, &qpos, &kpos);
  if (bug == PositionBug::kRotateV) {
    std::vector<float> vr;
    POSENC_RETURN_IF_ERROR(
        RotateAt(ao.rope, v, ao.Hkv, ao.Tk, kpos.data(), true, &vr));
    return Attention(ao, q, k, vr.data(), o);
  }
  BugPositions(m, bug, &qpos, &kpos);
  if (bug == PositionBug::kRotateHalfMismatch) {
    // q and k rotated for the one context length of both.
    const PositionRun qr{qpos.data(), qpos.size()},
        kr{kpos.data(), kpos.size()};
    std::vector<float> qm, km;
    POSENC_RETURN_IF_ERROR(RotateAt(ao.rope, q, ao.H, ao.Tq, qpos.data(), false,
                                    &qm, true, {qr, kr}));
    POSENC_RETURN_IF_ERROR(RotateAt(ao.rope, k, ao.Hkv, ao.Tk, kpos.data(),
                                    true, &km, true, {qr, kr}));
    ao.rope.enabled = false;
    return Attention(ao, qm.data(), km.data(), v, o);
  }
  ao.rope.q_positions = qpos.data();
  ao.rope.k_positions = kpos.data();
  return Attention(ao, q, k, v, o);
}

// kRopeOnEmbeddings: x [n, C], viewed as [n, H, Dh], has every head-sized
// block rotated by `rope` at positions first .. first + n - 1 (the queries'
// rotation: xPos's query-side scale).
Status RotateEmbeddings(const Model& m, const AttentionRope& rope, size_t n,
                        size_t first, float* x) {
  const size_t H = static_cast<size_t>(m.config.heads),
               Dh = static_cast<size_t>(m.config.head_dim());
  std::vector<float> xh(n * H * Dh), rotated;  // [H, n, Dh]
  SplitHeads(x, n, H, Dh, xh.data());
  std::vector<int32_t> pos(n);
  for (size_t t = 0; t < n; ++t) pos[t] = static_cast<int32_t>(first + t);
  POSENC_RETURN_IF_ERROR(
      RotateAt(rope, xh.data(), H, n, pos.data(), false, &rotated));
  MergeHeads(rotated.data(), n, H, Dh, x);
  return Status::Ok();
}

// x [P, C] = the <pad> token's embedding (no position: pads are masked).
void EmbedPads(const Model& m, size_t P, float* x) {
  const size_t C = static_cast<size_t>(m.config.d_model);
  const float* e = m.w.data() + m.embed;  // <pad> is id 0
  for (size_t t = 0; t < P; ++t) {
    for (size_t i = 0; i < C; ++i) x[t * C + i] = e[i];
  }
}

// maps [H, n, n] -> [H, T, T]: the last T rows and columns (the real tokens
// after P = n - T pads).
std::vector<float> CropMaps(const std::vector<float>& maps, size_t H, size_t n,
                            size_t T) {
  const size_t P = n - T;
  std::vector<float> out(H * T * T);
  for (size_t h = 0; h < H; ++h) {
    for (size_t i = 0; i < T; ++i) {
      const float* src = maps.data() + (h * n + P + i) * n + P;
      std::copy(src, src + T, out.data() + (h * T + i) * T);
    }
  }
  return out;
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

// kRestartPositions: a chunked cached run, RestartChunk() tokens per Feed.
Status InferRestarted(const Model& m, const int32_t* tokens, size_t T,
                      const InferenceOptions& opt, InferenceResult* out) {
  if (opt.attention_maps) {
    return Status::Invalid(StrCat("attention maps are not available with bug '",
                                  PositionBugName(opt.bug),
                                  "' (it runs the KV cache chunk by chunk)"));
  }
  if (opt.left_pad != 0) {
    return Status::Invalid(StrCat("left padding (", opt.left_pad,
                                  " pads) cannot be combined with bug '",
                                  PositionBugName(opt.bug), "'"));
  }
  if (opt.window != 0) {
    return Status::Invalid(StrCat("a window (", opt.window,
                                  ") cannot be combined with bug '",
                                  PositionBugName(opt.bug), "'"));
  }
  std::unique_ptr<Decoder> dec;
  POSENC_RETURN_IF_ERROR(Decoder::Create(m, opt.scaling, opt.bug, &dec));
  const size_t chunk = RestartChunk(m.config);
  std::vector<float> step;
  out->logits.clear();
  out->maps.clear();
  for (size_t s = 0; s < T || s == 0; s += chunk) {
    POSENC_RETURN_IF_ERROR(
        dec->Feed(tokens + s, std::min(chunk, T - s), &step));
    out->logits.insert(out->logits.end(), step.begin(), step.end());
  }
  return Status::Ok();
}

}  // namespace

RopeScaling CallScaling(const Model& m,
                        const std::optional<RopeScaling>& scaling) {
  return scaling ? *scaling : m.config.rope_scaling;
}

Status Infer(const Model& m, const int32_t* tokens, size_t T,
             const InferenceOptions& opt, InferenceResult* out) {
  POSENC_RETURN_IF_ERROR(CheckCall(m, opt.scaling, opt.bug));
  if (opt.window > kMaxWindow) {
    return Status::Invalid(StrCat("window must be an integer in [1, ",
                                  kMaxWindow, "], got ", opt.window,
                                  " (0: no window)"));
  }
  if (opt.bug == PositionBug::kRestartPositions) {
    return InferRestarted(m, tokens, T, opt, out);
  }
  if (opt.left_pad > kMaxLeftPad) {
    return Status::Invalid(StrCat("leftPad must be in [0, ", kMaxLeftPad,
                                  "], got ", opt.left_pad));
  }
  const bool pad_bug = opt.bug == PositionBug::kLeftPaddingInPositions;
  const size_t P = opt.left_pad ? opt.left_pad : (pad_bug ? kBugLeftPad : 0);
  // With the bug the real tokens sit at positions P .. P + T - 1.
  POSENC_RETURN_IF_ERROR(CheckModelTokens(m, tokens, T, pad_bug ? P : 0));
  AttentionRope rope;
  POSENC_RETURN_IF_ERROR(
      ModelRope(m, CallScaling(m, opt.scaling), opt.bug, &rope));
  rope.positions_from_mask = P > 0 && !pad_bug;
  const size_t C = static_cast<size_t>(m.config.d_model),
               H = static_cast<size_t>(m.config.heads), n = P + T;
  std::vector<float> x(n * C);
  EmbedPads(m, P, x.data());
  EmbedTokens(m, tokens, T, pad_bug ? P : 0, x.data() + P * C);
  if (rope.enabled && opt.bug == PositionBug::kRopeOnEmbeddings) {
    POSENC_RETURN_IF_ERROR(RotateEmbeddings(m, rope, T, 0, x.data() + P * C));
  }
  std::vector<uint8_t> mask(n, 1);
  std::fill(mask.begin(), mask.begin() + P, 0);
  out->maps.clear();
  std::vector<float> maps;
  for (size_t l = 0; l < m.layer.size(); ++l) {
    if (opt.attention_maps) maps.assign(H * n * n, 0.0f);
    POSENC_RETURN_IF_ERROR(
        Block(m, l, n, x.data(),
              [&](const float* q, const float* k, const float* v, float* o) {
                AttentionOptions ao = LayerAttention(m, l, n, n);
                ao.rope = rope;
                if (P > 0) ao.key_mask = mask.data();
                ao.window = static_cast<int64_t>(opt.window);
                if (opt.attention_maps) ao.weights = maps.data();
                return AttendFull(m, ao, opt.bug, q, k, v, o);
              }));
    if (opt.attention_maps) {
      out->maps.push_back(P > 0 ? CropMaps(maps, H, n, T) : std::move(maps));
    }
  }
  Head(m, x.data() + P * C, T, &out->logits);
  return Status::Ok();
}

Status Decoder::Create(const Model& m,
                       const std::optional<RopeScaling>& scaling,
                       PositionBug bug, std::unique_ptr<Decoder>* out) {
  if (!m.config.causal) {
    return Status::Invalid(
        "incremental decoding needs a causal model; this one is an encoder");
  }
  POSENC_RETURN_IF_ERROR(CheckCall(m, scaling, bug));
  std::unique_ptr<Decoder> d(new Decoder(m, bug));
  POSENC_RETURN_IF_ERROR(ModelRope(m, CallScaling(m, scaling), bug, &d->rope_));
  if (bug == PositionBug::kLeftPaddingInPositions) d->pad_ = kBugLeftPad;
  const size_t H = static_cast<size_t>(m.config.heads),
               Dh = static_cast<size_t>(m.config.head_dim());
  // kOnlyQ: the cache stores keys unrotated; Attend rotates the queries.
  // kRopeOnEmbeddings: nothing is rotated in attention. kRotateHalfMismatch:
  // Attend transforms keys and queries itself.
  AttentionRope cache_rope = d->rope_;
  if (bug == PositionBug::kOnlyQ || bug == PositionBug::kRopeOnEmbeddings ||
      bug == PositionBug::kRotateHalfMismatch) {
    cache_rope.enabled = false;
  }
  POSENC_RETURN_IF_ERROR(KvCache::Validate(H, Dh, cache_rope));
  for (size_t l = 0; l < m.layer.size(); ++l) {
    d->caches_.emplace_back(H, Dh, cache_rope);
  }
  *out = std::move(d);
  return Status::Ok();
}

// Layer l's attention for n new rows (q, k, v: [H, n, Dh]) placed after
// `slots` cached ones at `positions` [n] (null: slots + t).
Status Decoder::Attend(size_t l, size_t n, size_t slots,
                       const int32_t* positions, const float* q, const float* k,
                       const float* v, float* o) {
  KvCache& cache = caches_[l];
  const size_t H = static_cast<size_t>(m_.config.heads);
  std::vector<int32_t> pos(n);
  for (size_t t = 0; t < n; ++t) {
    pos[t] = positions ? positions[t] : static_cast<int32_t>(slots + t);
  }
  // The positions the keys are cached at and the queries rotated at.
  std::vector<int32_t> qpos = pos, kpos = pos;
  if (rope_.enabled) BugPositions(m_, bug_, &qpos, &kpos);
  std::vector<float> vr, qr, kr;
  if (rope_.enabled && bug_ == PositionBug::kRotateV) {
    POSENC_RETURN_IF_ERROR(RotateAt(rope_, v, H, n, pos.data(), true, &vr));
    v = vr.data();
  }
  if (rope_.enabled && bug_ == PositionBug::kRotateHalfMismatch) {
    const PositionRun qrun{qpos.data(), n}, krun{kpos.data(), n};
    POSENC_RETURN_IF_ERROR(
        RotateAt(rope_, k, H, n, kpos.data(), true, &kr, true, {qrun, krun}));
    POSENC_RETURN_IF_ERROR(
        RotateAt(rope_, q, H, n, qpos.data(), false, &qr, true, {qrun, krun}));
    k = kr.data();
    q = qr.data();
  }
  POSENC_RETURN_IF_ERROR(cache.Append(k, v, n, kpos.data()));
  AttentionOptions ao = LayerAttention(m_, l, n, cache.length());
  if (pad_ > 0) ao.key_mask = mask_.data();
  if (rope_.enabled && bug_ == PositionBug::kOnlyQ) {
    POSENC_RETURN_IF_ERROR(RotateAt(rope_, q, H, n, pos.data(), false, &qr));
    q = qr.data();
  }
  return cache.Attend(ao, q, qpos.data(), o);
}

Status Decoder::Feed(const int32_t* tokens, size_t n,
                     std::vector<float>* logits) {
  const bool restart = bug_ == PositionBug::kRestartPositions;
  const size_t pads = length_ == 0 ? pad_ : 0;  // the first call adds pads
  const size_t slots = length_ == 0 ? 0 : pad_ + length_;  // cached rows
  // Positions of the new tokens: their slots (with pads: counting them), or
  // 0 .. n-1 when they restart.
  const size_t first_pos = restart ? 0 : slots + pads;
  POSENC_RETURN_IF_ERROR(CheckModelTokens(m_, tokens, n, first_pos));
  const size_t C = static_cast<size_t>(m_.config.d_model), rows = pads + n;
  std::vector<float> x(rows * C);
  EmbedPads(m_, pads, x.data());
  EmbedTokens(m_, tokens, n, first_pos, x.data() + pads * C);
  if (rope_.enabled && bug_ == PositionBug::kRopeOnEmbeddings) {
    POSENC_RETURN_IF_ERROR(
        RotateEmbeddings(m_, rope_, n, first_pos, x.data() + pads * C));
  }
  std::vector<int32_t> restarted;
  if (restart) {
    for (size_t t = 0; t < n; ++t) restarted.push_back(static_cast<int32_t>(t));
  }
  if (pad_ > 0) {
    mask_.resize(slots + rows, 1);
    std::fill(mask_.begin(), mask_.begin() + pad_, 0);
  }
  for (size_t l = 0; l < m_.layer.size(); ++l) {
    POSENC_RETURN_IF_ERROR(
        Block(m_, l, rows, x.data(),
              [&](const float* q, const float* k, const float* v, float* o) {
                return Attend(l, rows, slots,
                              restart ? restarted.data() : nullptr, q, k, v, o);
              }));
  }
  length_ += n;
  Head(m_, x.data() + pads * C, n, logits);
  return Status::Ok();
}

namespace {

// The next token from logits [V]: the argmax, or a softmax sample at
// `temperature` (> 0) drawn from rng.
int32_t PickToken(const float* logits, size_t V, double temperature,
                  SplitMix64* rng) {
  size_t pick = 0;
  for (size_t v = 1; v < V; ++v) pick = logits[v] > logits[pick] ? v : pick;
  if (temperature > 0.0) {
    std::vector<double> p(V);
    double sum = 0.0;
    for (size_t v = 0; v < V; ++v) {
      p[v] = std::exp((logits[v] - logits[pick]) / temperature);
      sum += p[v];
    }
    double u = rng->Uniform() * sum;
    for (pick = 0; pick + 1 < V && u >= p[pick]; ++pick) u -= p[pick];
  }
  return static_cast<int32_t>(pick);
}

}  // namespace

Status Generate(const Model& m, const int32_t* prompt, size_t n,
                const GenerateOptions& opt, std::vector<int32_t>* out) {
  if (!m.config.causal) {
    return Status::Invalid(
        "generate needs a causal language model; this one is an encoder "
        "(use forward)");
  }
  if (opt.max_new_tokens > (size_t{1} << 20)) {
    return Status::Invalid(
        StrCat("maxNewTokens must be in [0, 2^20], got ", opt.max_new_tokens));
  }
  POSENC_RETURN_IF_ERROR(CheckFinite("temperature", opt.temperature));
  if (!(opt.temperature >= 0.0 && opt.temperature <= 100.0)) {
    return Status::Invalid(
        StrCat("temperature must be in [0, 100], got ", opt.temperature));
  }
  POSENC_RETURN_IF_ERROR(CheckCall(m, opt.scaling, opt.bug));
  const size_t V = static_cast<size_t>(m.config.vocab);
  std::unique_ptr<Decoder> dec;
  InferenceOptions full;  // the uncached run
  full.scaling = opt.scaling;
  full.bug =
      opt.bug == PositionBug::kRestartPositions ? PositionBug::kNone : opt.bug;
  std::vector<int32_t> seq;  // [prompt + generated] when uncached
  InferenceResult r;
  std::vector<float>& logits = r.logits;  // [rows, V]; the last row is next
  if (opt.cache) {
    POSENC_RETURN_IF_ERROR(Decoder::Create(m, opt.scaling, opt.bug, &dec));
    POSENC_RETURN_IF_ERROR(dec->Feed(prompt, n, &logits));
  } else {
    seq.assign(prompt, prompt + n);
    POSENC_RETURN_IF_ERROR(Infer(m, seq.data(), seq.size(), full, &r));
  }
  SplitMix64 rng(opt.seed);
  out->assign(opt.max_new_tokens, 0);
  for (size_t i = 0; i < opt.max_new_tokens; ++i) {
    const int32_t t =
        PickToken(logits.data() + logits.size() - V, V, opt.temperature, &rng);
    (*out)[i] = t;
    if (i + 1 == opt.max_new_tokens) break;
    if (opt.cache) {
      POSENC_RETURN_IF_ERROR(dec->Feed(&t, 1, &logits));
    } else {
      seq.push_back(t);
      POSENC_RETURN_IF_ERROR(Infer(m, seq.data(), seq.size(), full, &r));
    }
  }
  return Status::Ok();
}

}  // namespace posenc
