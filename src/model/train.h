// Training and evaluation of the tiny transformers on the synthetic tasks.
// Everything is seeded: the same TrainConfig gives the same weights, bit for
// bit, on the same build (single thread, fixed summation order).
#ifndef POSENC_MODEL_TRAIN_H_
#define POSENC_MODEL_TRAIN_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/fields.h"
#include "model/adamw.h"
#include "model/inference.h"
#include "model/rng.h"
#include "model/tasks.h"
#include "model/transformer.h"
#include "ops/encoding.h"

namespace posenc {

// Examples per micro-batch. A step's batch is cut into micro-batches of
// kMicroBatch examples in order (the last one shorter when the batch is not a
// multiple): micro-batch j holds examples [j M, min((j + 1) M, batch)). Its
// gradient g_j starts at zero and accumulates its examples in order; the
// step's gradient is ((g_0 + g_1) + g_2) + ... in float, in j order. Fixed,
// so that data-parallel training (bindings/ts/pool.ts: micro-batches on
// several Workers) gives the bits of one thread whatever the worker count.
inline constexpr int kMicroBatch = 4;

struct TrainConfig {
  TaskKind task = TaskKind::kLanguage;
  // vocab, causal and num_classes are filled in from the task. Ignored when
  // `init` is set.
  ModelConfig model;
  // Fresh training: [1, 10^7]. Continued training (init): [0, 10^7]; 0
  // steps gives init with `scaling` and train_len = seq_len.
  int steps = 1000;
  int batch = 16;
  int seq_len = 64;   // LM tasks: training length (also model.train_len)
  AdamWConfig opt;    // total_steps is set to `steps`
  uint64_t seed = 1;  // weights (fresh training only) and data
  // Continued training: the model starts as a copy of *init (weights and
  // config; read by Create only). Its task must be `task`; its sizes and
  // encoding are kept. The optimiser state starts fresh (the TS API
  // defaults to a smaller lr and a short warmup for it). A learned position
  // table cannot grow: seq_len > init's max_len is an error.
  const Model* init = nullptr;
  // RoPE / xPos scaling of every training forward and backward, stored in
  // the trained model (ModelConfig::rope_scaling) so that inference applies
  // it by default. nullopt: init's own scaling (none for a fresh model).
  // dynamic / longrope see the training length seq_len as the context
  // length. A non-default scaling on another encoding is an error.
  std::optional<RopeScaling> scaling;
};

// The learning rates a request that leaves lr out trains with: fresh
// training, and continued training (a smaller step for a trained model).
inline constexpr double kTrainLr = 3e-3;
inline constexpr double kContinueLr = 1e-3;

// A training request as the JS API gives it: flat, with the API's names
// (src/base/fields.h). ToTrainConfig turns it into a TrainConfig; the
// bindings register it from this list, and tests/ts/contract.test.ts checks
// the TS mirror against it. lr and warmup left out are derived by
// ToTrainConfig (kTrainLr and a tenth of the steps; continued training:
// kContinueLr and min(20, a tenth of the steps)).
#define POSENC_TRAIN_REQUEST_FIELDS(X)                          \
  X(std::string, task, task, Plain, "language")                 \
  X(Encoding, encoding, encoding, EnumName, Encoding::kRope)    \
  X(int, steps, steps, Plain, 1000)                             \
  X(int, batch, batch, Plain, 16)                               \
  X(int, seq_len, seqLen, Plain, 64) /* also the max length */  \
  X(int, d_model, dModel, Plain, 64)                            \
  X(int, heads, heads, Plain, 4)                                \
  X(int, layers, layers, Plain, 2)                              \
  X(int, d_ff, dFf, Plain, 128)                                 \
  X(std::optional<double>, lr, lr, Optional, std::nullopt)      \
  X(std::optional<int>, warmup, warmup, Optional, std::nullopt) \
  X(uint64_t, seed, seed, Plain, 1)

struct TrainRequest {
  POSENC_TRAIN_REQUEST_FIELDS(POSENC_DECLARE_FIELD)
};

// The request's settings into *config (task parsed, model sizes, optimiser,
// seed), lr and warmup derived when left out (continued training when
// config->init is set); the values are checked by Trainer::Create.
Status ToTrainConfig(const TrainRequest& request, TrainConfig* config);

struct TrainProgress {
  int step = 0;       // steps done
  double loss = 0.0;  // mean loss of the last batch (nats per scored token)
  double grad_norm = 0.0;
  float lr = 0.0f;
};

class Trainer {
 public:
  // Validates the config (and the model config it implies).
  static Status Create(const TrainConfig& c, std::unique_ptr<Trainer>* out);
  // One optimiser step on a fresh batch: BeginStep, the micro-batches'
  // gradients summed in j order (see kMicroBatch), ApplyGradient.
  Status Step(TrainProgress* p);

  // Step in parts, for data parallelism over replicas (trainers made from
  // the same config sample the same batches and make the same updates):
  // BeginStep samples the next batch (a batch not applied is dropped: the
  // data stream still moves on); MicroBatchGradient computes any
  // micro-batch of it, in any order; ApplyGradient takes the sum.
  Status BeginStep();
  // ceil(batch / kMicroBatch).
  int micro_batches() const {
    return (c_.batch + kMicroBatch - 1) / kMicroBatch;
  }
  size_t num_params() const { return model_.w.size(); }
  // grad: [num_params()] = micro-batch j's gradient of the step's mean loss
  // (overwritten, from zero); *loss: its examples' summed loss in nats.
  // Between BeginStep and ApplyGradient only.
  Status MicroBatchGradient(int j, float* grad, double* loss);
  // grad: [num_params()] = the gradients of micro-batches [first, first +
  // count) summed in j order (float32: the first into grad, each later one
  // added), *loss: their losses summed in j order: Step's sum, for a block
  // of micro-batches (Step is BlockGradient over all of them).
  Status BlockGradient(int first, int count, float* grad, double* loss);
  // grad: [num_params()] the step's gradient (the micro-batches' summed in j
  // order); loss: their losses summed in j order (double). The AdamW update.
  Status ApplyGradient(const float* grad, double loss, TrainProgress* p);
  // rows: [count, num_params()] consecutive parts of the step's gradient in
  // j order (a block's sum, or one micro-batch's); the gradient is
  // ((rows[0] + rows[1]) + rows[2]) + ... in float, Step's sum when rows[0]
  // is a first block's sum and each later row one micro-batch. Then as
  // ApplyGradient.
  Status ApplyGradientRows(const float* rows, int count, double loss,
                           TrainProgress* p);
  const Model& model() const { return model_; }
  Model* mutable_model() { return &model_; }
  const TrainConfig& config() const { return c_; }

 private:
  Trainer(const TrainConfig& c, size_t n) : c_(c), opt_(c.opt, n), data_(0) {}
  // The AdamW update from grad_ (clipped in place).
  Status Update(double loss, TrainProgress* p);
  TrainConfig c_;
  Model model_;
  AdamW opt_;
  SplitMix64 data_;
  std::vector<float> grad_;   // [n] the step's gradient
  std::vector<float> micro_;  // [n] one micro-batch's (Step)
  // The batch BeginStep sampled, its scored tokens and whether it awaits
  // ApplyGradient.
  std::vector<Example> batch_;
  size_t total_ = 0;
  bool begun_ = false;
  // Reused by every step (no allocation in the forward / backward passes).
  ForwardCache cache_;
  std::vector<float> logits_, dlogits_;
  BackwardScratch scratch_;
  std::vector<float> wt_;  // TransposeWeights(model_), once per step
};

// The model config a task implies, from a base (sizes, encoding).
Status ModelForTask(TaskKind task, const ModelConfig& base, int seq_len,
                    ModelConfig* out);

struct EvalResult {
  size_t length = 0;
  size_t examples = 0;
  size_t scored = 0;
  double loss = 0.0;      // mean nats per scored token (or per example)
  double accuracy = 0.0;  // argmax hits / scored
  // LM tasks: mean loss at each position t of the sequence ([length]; NaN
  // where nothing is scored).
  std::vector<double> position_loss;
};

// Evaluates `count` examples of length `length` drawn from `seed` through
// the kernel inference path (Infer) with `opt`: its RoPE scaling, position
// bug and left padding (attention_maps is ignored).
Status Evaluate(const Model& m, TaskKind task, size_t length, size_t count,
                uint64_t seed, const InferenceOptions& opt, EvalResult* out);

}  // namespace posenc

#endif  // POSENC_MODEL_TRAIN_H_
