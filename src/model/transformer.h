// The tiny pre-LayerNorm transformer: parameters, forward with saved
// activations, backward. This is the training path: attention is
// materialised per head ([H, T, T] probabilities, fine up to a few hundred
// tokens) and every positional encoding has its exact backward. Inference
// at long lengths goes through the posenc kernel (see inference.h).
//
//   x = E[tok] (+ P[t]: learned or sinusoidal)              [T, C]
//   per layer: x += Wo Attn(LN1(x)) ; x += W2 gelu(W1 LN2(x))
//   causal LM:  logits = LNf(x) Wout                         [T, V]
//   encoder:    logits = mean_t(LNf(x)) Wc + bc              [K]
// Matrices are stored [in, out] (y = x W).
#ifndef POSENC_MODEL_TRANSFORMER_H_
#define POSENC_MODEL_TRANSFORMER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/config.h"
#include "ops/rope_frequencies.h"

namespace posenc {

struct ParamInfo {
  std::string name;
  std::vector<int64_t> shape;
  size_t offset = 0;  // into Model::w
  size_t size = 0;
  bool decay = false;  // AdamW weight decay applies (matrices only)
};

// Offsets of one layer's tensors in Model::w (shaw_* are 0 when unused).
struct LayerParams {
  size_t ln1_g, ln1_b, wq, bq, wk, bk, wv, bv, wo, bo;
  size_t ln2_g, ln2_b, w1, b1, w2, b2;
  size_t shaw_k = 0, shaw_v = 0;
};

struct Model {
  ModelConfig config;
  std::vector<ParamInfo> params;  // in file order
  std::vector<LayerParams> layer;
  size_t embed = 0, pos = 0, t5 = 0, lnf_g = 0, lnf_b = 0, head = 0, head_b = 0;
  bool has_pos = false, has_t5 = false;
  std::vector<float> w;             // every parameter, flat
  std::vector<float> alibi_slopes;  // [H] (ALiBi)
};

// The tensor list of a config (names and shapes), with offsets.
void BuildParamLayout(const ModelConfig& c, Model* m);
// Validates c, lays out and initialises the weights from `seed`.
Status NewModel(const ModelConfig& c, uint64_t seed, Model* m);

// Checks tokens [n] (ids in [0, vocab)) placed at positions first_pos ..:
// at most 2^20 in total, and within a learned position table.
Status CheckModelTokens(const Model& m, const int32_t* tokens, size_t n,
                        size_t first_pos);
// x [n, C] = token embeddings + absolute positions first_pos .. (learned or
// sinusoidal models; nothing for the others). Tokens must be checked.
void EmbedTokens(const Model& m, const int32_t* tokens, size_t n,
                 size_t first_pos, float* x);

// Per-call options of the forward pass.
struct ForwardOptions {
  // RoPE / xPos scaling; nullopt: the model's own (ModelConfig::rope_scaling).
  // dynamic / longrope see the context length T.
  std::optional<RopeScaling> scaling;
};

// Activations saved for backward; Layer::p are the attention maps
// [H, T, T] the page shows.
struct ForwardCache {
  size_t T = 0;
  std::vector<float> x0;  // [T, C] embeddings (+ positions)
  struct Layer {
    std::vector<float> x_in, a, mean1, rstd1, q, k, v, qr, kr, p, att, x_mid, b,
        mean2, rstd2, hpre, u, gelu_th;
  };
  std::vector<Layer> layers;
  std::vector<float> x_out, y, meanf, rstdf, pooled;
  std::vector<float> cos_q, sin_q, cos_k, sin_k;  // RoPE/xPos tables [T, r/2]
  std::vector<int32_t> t5_bucket;                 // [T, T]
  std::vector<int32_t> shaw_idx;                  // [T, T] Shaw table rows
};

// tokens: [T] ids in [0, vocab). logits: [T, V] (causal) or [K] (encoder).
Status Forward(const Model& m, const int32_t* tokens, size_t T,
               const ForwardOptions& opt, ForwardCache* cache,
               std::vector<float>* logits);

// Backward's temporary gradients, kept by a caller that runs Backward
// repeatedly (the trainer) so that no step allocates.
struct BackwardScratch {
  std::vector<float> nsin_q, nsin_k, dy, dpooled, dx, du, dh, db, datt, dqr,
      dkr, dq, dk, dv, da;
};

// wt: [m.w.size()], each dense weight [In, Out] of m (the layers' q, k, v,
// o, w1, w2 and the head) transposed to [Out, In] at its own offset; the
// rest is left alone. Backward reads them; a trainer computes them once per
// step, since the weights only change between steps.
void TransposeWeights(const Model& m, std::vector<float>* wt);

// grad: [w.size()], accumulated (+=). dlogits shaped like the logits.
void Backward(const Model& m, const int32_t* tokens, const ForwardCache& cache,
              const float* dlogits, float* grad);
// wt: TransposeWeights(m) for the weights as they are now.
void Backward(const Model& m, const int32_t* tokens, const ForwardCache& cache,
              const float* dlogits, float* grad, const float* wt,
              BackwardScratch* scratch);

}  // namespace posenc

#endif  // POSENC_MODEL_TRANSFORMER_H_
