// The Embind surface of the models module (posenc-models-<flavour>): tiny
// models, training and the tasks, which the package loads the first time a
// model is used. As in the core module (core_module.cc), every function
// returns "" or the core's error message, and every output buffer comes with
// its capacity, checked before anything is written.
#include <emscripten/bind.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/targets.h"
#include "codecs.h"
#include "model/config.h"
#include "model/inference.h"
#include "model/model_io.h"
#include "model/position_bug.h"
#include "model/tasks.h"
#include "model/train.h"
#include "ops/encoding.h"
#include "ops/rope_frequencies.h"

namespace posenc {
namespace {

// Every struct declared from a field list that crosses into this module:
// X(struct, its list).
#define POSENC_MODELS_STRUCTS(X)                    \
  X(RopeScaling, POSENC_ROPE_SCALING_FIELDS)        \
  X(RopeFrequencyConfig, POSENC_ROPE_CONFIG_FIELDS) \
  X(ModelConfig, POSENC_MODEL_CONFIG_FIELDS)        \
  X(TrainRequest, POSENC_TRAIN_REQUEST_FIELDS)

// The contract of the structs that cross the boundary (see ContractJs in
// core_module.cc).
std::string ContractJs(const std::string& name) {
  POSENC_MODELS_STRUCTS(POSENC_DESCRIBE_STRUCT)
  return "";
}

// The name tables this module parses, one name per line; "" for another
// list (bindings/ts/names.ts holds the same names).
std::string NamesJs(const std::string& list) {
  if (list == "encoding") return NameLines(EncodingName, kNumEncodings);
  if (list == "task") return NameLines(TaskName, kNumTasks);
  if (list == "positionBug") {
    return NameLines(PositionBugName, kNumPositionBugs);
  }
  return "";
}

// Inference options from the loader's scaling (when present) and bug name.
Status ToInference(uintptr_t scaling_present,
                   const RopeFrequencyConfig& scaling, const std::string& bug,
                   InferenceOptions* o) {
  if (scaling_present) o->scaling = scaling.scaling;
  return ParsePositionBug(bug, &o->bug);
}

// A loaded (or trained) tiny model the loader wraps. A failed load leaves
// error() non-empty and every method returning it.
class TinyModelJs {
 public:
  // bytes: [n] safetensors file in wasm memory.
  TinyModelJs(uintptr_t bytes, double n) {
    if (!(n >= 0 && n <= 2147483647.0)) {
      error_ = StrCat("bytes length out of range: ", n);
      return;
    }
    const Status s =
        LoadModel(Ptr<uint8_t>(bytes), static_cast<size_t>(n), &model_);
    if (!s.ok()) {
      error_ = s.message();
      return;
    }
    Finish();
  }
  explicit TinyModelJs(Model m) : model_(std::move(m)) { Finish(); }

  std::string error() const { return error_; }
  const Model& model() const { return model_; }
  ModelConfig config() const { return model_.config; }
  // The task's words, one per line (ids are line numbers); the classes'
  // names likewise.
  std::string vocab() const { return vocab_; }
  std::string classes() const { return classes_; }

  // tokens: int32 [T]; logits: float [T, V] or [K] in a buffer of
  // logits_capacity floats; maps (if nonzero): float [layers, H, T, T] in
  // one of maps_capacity; bug: a PositionBug name.
  std::string forward(uintptr_t tokens, double T, uintptr_t logits,
                      double logits_capacity, uintptr_t maps,
                      double maps_capacity, uintptr_t scaling_spec_present,
                      const RopeFrequencyConfig& scaling,
                      const std::string& bug) {
    if (!error_.empty()) return error_;
    InferenceOptions opt;
    Status s = ToInference(scaling_spec_present, scaling, bug, &opt);
    if (!s.ok()) return s.message();
    opt.attention_maps = maps != 0;
    InferenceResult r;
    s = Infer(model_, Ptr<int32_t>(tokens), static_cast<size_t>(T), opt, &r);
    if (!s.ok()) return s.message();
    size_t map_floats = 0;
    for (const std::vector<float>& m : r.maps) map_floats += m.size();
    std::string room =
        CheckCapacity("logits", r.logits.size(), logits_capacity);
    if (room.empty() && maps) {
      room = CheckCapacity("attentionMaps", map_floats, maps_capacity);
    }
    if (!room.empty()) return room;
    std::memcpy(Ptr<float>(logits), r.logits.data(),
                r.logits.size() * sizeof(float));
    if (maps) {
      float* dst = Ptr<float>(maps);
      for (const std::vector<float>& m : r.maps) {
        std::memcpy(dst, m.data(), m.size() * sizeof(float));
        dst += m.size();
      }
    }
    return "";
  }

  // Decodes greedily (temperature 0) or by sampling from `seed` after the
  // prompt [n], through the KV cache (cache) or full passes (!cache), with
  // the scaling and bug given; writes max_new ids to out (a buffer of
  // `capacity` ints).
  std::string generate(uintptr_t prompt, double n, double max_new,
                       double temperature, double seed,
                       uintptr_t scaling_spec_present,
                       const RopeFrequencyConfig& scaling,
                       const std::string& bug, bool cache, uintptr_t out,
                       double capacity) {
    if (!error_.empty()) return error_;
    if (!(max_new >= 0.0 && max_new <= 1048576.0)) {
      return StrCat("maxNewTokens must be in [0, 2^20], got ", max_new);
    }
    const std::string room =
        CheckCapacity("out", static_cast<size_t>(max_new), capacity, "ints");
    if (!room.empty()) return room;
    InferenceOptions inf;
    Status s = ToInference(scaling_spec_present, scaling, bug, &inf);
    if (!s.ok()) return s.message();
    GenerateOptions opt;
    opt.scaling = inf.scaling;
    opt.bug = inf.bug;
    opt.max_new_tokens = static_cast<size_t>(max_new);
    opt.temperature = temperature;
    opt.seed = static_cast<uint64_t>(seed);
    opt.cache = cache;
    std::vector<int32_t> ids;
    s = Generate(model_, Ptr<int32_t>(prompt), static_cast<size_t>(n), opt,
                 &ids);
    if (!s.ok()) return s.message();
    std::memcpy(Ptr<int32_t>(out), ids.data(), ids.size() * sizeof(int32_t));
    return "";
  }

  // Evaluates `count` task examples of `length` tokens (seeded) with the
  // given RoPE scaling, bug and sliding window (0: none). out: float64
  // [3 + length] (in a buffer of `capacity`): loss, accuracy, scored, then
  // the per-position loss (NaN where nothing is scored).
  std::string evaluate(double length, double count, double seed,
                       uintptr_t scaling_spec_present,
                       const RopeFrequencyConfig& scaling,
                       const std::string& bug, double window, uintptr_t out,
                       double capacity) {
    if (!error_.empty()) return error_;
    if (!(length >= 0 && length <= 1048576.0)) {
      return StrCat("length must be in [0, 2^20], got ", length);
    }
    const size_t L = static_cast<size_t>(length);
    const std::string room = CheckCapacity("out", 3 + L, capacity, "doubles");
    if (!room.empty()) return room;
    TaskKind task;
    Status s = ParseTask(model_.config.task, &task);
    if (!s.ok()) {
      return StrCat("this model's task \"", model_.config.task,
                    "\" has no generator to evaluate on");
    }
    InferenceOptions opt;
    s = ToInference(scaling_spec_present, scaling, bug, &opt);
    if (!s.ok()) return s.message();
    opt.window = static_cast<size_t>(window);
    EvalResult r;
    s = Evaluate(model_, task, L, static_cast<size_t>(count),
                 static_cast<uint64_t>(seed), opt, &r);
    if (!s.ok()) return s.message();
    double* o = Ptr<double>(out);
    o[0] = r.loss;
    o[1] = r.accuracy;
    o[2] = static_cast<double>(r.scored);
    for (size_t t = 0; t < L; ++t) {
      o[3 + t] = t < r.position_loss.size()
                     ? r.position_loss[t]
                     : std::numeric_limits<double>::quiet_NaN();
    }
    return "";
  }

  // save: the safetensors bytes (saveSize() first, then saveInto(ptr) into a
  // buffer of `capacity` bytes).
  double saveSize() {
    saved_ = SaveModel(model_);
    return static_cast<double>(saved_.size());
  }
  std::string saveInto(uintptr_t dst, double capacity) {
    const std::string room =
        CheckCapacity("the save buffer", saved_.size(), capacity, "bytes");
    if (room.empty()) {
      std::memcpy(Ptr<uint8_t>(dst), saved_.data(), saved_.size());
    }
    saved_.clear();
    saved_.shrink_to_fit();
    return room;
  }

 private:
  LiveCount<TinyModelJs> live_;
  void Finish() {
    TaskKind task;
    if (ParseTask(model_.config.task, &task).ok()) {
      const Vocab v = TaskVocab(task);
      for (size_t i = 0; i < v.size(); ++i) {
        vocab_ += v.Word(static_cast<int32_t>(i)) + "\n";
      }
      for (size_t k = 0; k < NumClasses(task); ++k) {
        classes_ += ClassName(task, static_cast<int32_t>(k)) + "\n";
      }
    }
  }
  std::string error_;
  Model model_;
  std::string vocab_, classes_, saved_;
};

// A trainer over a training request (its values checked, and lr / warmup
// derived when left out, in C++ only: ToTrainConfig, Trainer::Create).
class TrainerJs {
 public:
  // Fresh training.
  explicit TrainerJs(const TrainRequest& spec) {
    TrainConfig tc;
    if (Configure(spec, &tc)) Create(tc);
  }
  // Continued training of `init` (a copy), with the scaling when present
  // (else init's own). Sizes and encoding come from init.
  TrainerJs(const TrainRequest& spec, const TinyModelJs& init,
            uintptr_t scaling_present, const RopeFrequencyConfig& scaling) {
    TrainConfig tc;
    if (!init.error().empty()) {
      error_ = init.error();
      return;
    }
    tc.init = &init.model();
    if (!Configure(spec, &tc)) return;
    if (scaling_present) tc.scaling = scaling.scaling;
    Create(tc);
  }
  std::string error() const { return error_; }
  // Runs up to n steps; out: float64 [4 * n] (step, loss, grad norm, lr) in
  // a buffer of `capacity` doubles.
  std::string step(double n, uintptr_t out, double capacity) {
    if (!trainer_) return error_;
    if (!(n >= 0 && n <= 10000000.0)) {
      return StrCat("steps per call must be in [0, 10000000], got ", n);
    }
    const size_t steps = static_cast<size_t>(n);
    const std::string room =
        CheckCapacity("out", 4 * steps, capacity, "doubles");
    if (!room.empty()) return room;
    double* o = Ptr<double>(out);
    for (size_t i = 0; i < steps; ++i) {
      TrainProgress p;
      const Status s = trainer_->Step(&p);
      if (!s.ok()) return s.message();
      o[4 * i] = p.step;
      o[4 * i + 1] = p.loss;
      o[4 * i + 2] = p.grad_norm;
      o[4 * i + 3] = p.lr;
    }
    return "";
  }
  TinyModelJs model() const {
    return trainer_ ? TinyModelJs(trainer_->model()) : TinyModelJs(Model());
  }

  // Data-parallel steps (the Worker pool): replicas made from one request
  // sample the same batches. Micro-batches per step and floats per gradient.
  double microBatches() const {
    return trainer_ ? trainer_->micro_batches() : 0;
  }
  double paramCount() const {
    return trainer_ ? static_cast<double>(trainer_->num_params()) : 0;
  }
  // Samples the next step's batch (Trainer::BeginStep).
  std::string beginStep() {
    if (!trainer_) return error_;
    const Status s = trainer_->BeginStep();
    return s.ok() ? "" : s.message();
  }
  // grad: float [paramCount()] (a buffer of grad_capacity) = the gradients
  // of micro-batches [first, first + count) summed in order; loss: float64
  // [1] (a buffer of loss_capacity) their summed loss (Trainer::BlockGradient).
  std::string blockGradient(double first, double count, uintptr_t grad,
                            double grad_capacity, uintptr_t loss,
                            double loss_capacity) {
    if (!trainer_) return error_;
    std::string room =
        CheckCapacity("grad", trainer_->num_params(), grad_capacity);
    if (room.empty()) room = CheckCapacity("loss", 1, loss_capacity, "doubles");
    if (!room.empty()) return room;
    const double J = trainer_->micro_batches();
    if (!(first >= 0 && count >= 1 && first + count <= J &&
          first == std::floor(first) && count == std::floor(count))) {
      return StrCat("micro-batches [", first, ", ", first + count,
                    ") must be integers in [0, ", J, ") and not empty");
    }
    const Status s = trainer_->BlockGradient(
        static_cast<int>(first), static_cast<int>(count), Ptr<float>(grad),
        Ptr<double>(loss));
    return s.ok() ? "" : s.message();
  }
  // grad: float [n], n = rows · paramCount(): the step's gradient in rows,
  // summed in order (Trainer::ApplyGradientRows; one row: the gradient
  // itself); loss: the micro-batches' summed losses. out: float64 [4] (step,
  // loss, grad norm, lr) in a buffer of `capacity` doubles.
  std::string applyGradient(uintptr_t grad, double n, double loss,
                            uintptr_t out, double capacity) {
    if (!trainer_) return error_;
    const double P = static_cast<double>(trainer_->num_params());
    const double rows = n / P;
    if (!(rows >= 1 && rows == std::floor(rows) &&
          rows <= trainer_->micro_batches())) {
      return StrCat("grad must have k · ", trainer_->num_params(),
                    " floats (k gradients, 1 <= k <= ",
                    trainer_->micro_batches(), "), got ", n);
    }
    const std::string room = CheckCapacity("out", 4, capacity, "doubles");
    if (!room.empty()) return room;
    TrainProgress p;
    const Status s = trainer_->ApplyGradientRows(
        Ptr<float>(grad), static_cast<int>(rows), loss, &p);
    if (!s.ok()) return s.message();
    double* o = Ptr<double>(out);
    o[0] = p.step;
    o[1] = p.loss;
    o[2] = p.grad_norm;
    o[3] = p.lr;
    return "";
  }

 private:
  // The request's settings into tc; false (error_ set) if a name is unknown.
  bool Configure(const TrainRequest& request, TrainConfig* tc) {
    const Status s = ToTrainConfig(request, tc);
    if (!s.ok()) error_ = s.message();
    return s.ok();
  }
  void Create(const TrainConfig& tc) {
    const Status s = Trainer::Create(tc, &trainer_);
    if (!s.ok()) error_ = s.message();
  }
  LiveCount<TrainerJs> live_;
  std::string error_;
  std::unique_ptr<Trainer> trainer_;
};

// Heap and handle counts for leak checks, as text (so that reading them
// allocates nothing beforehand): bytes in use by malloc, then the live
// TinyModel and Trainer objects.
std::string MemoryStatsJs() {
  return StrCat(HeapInUse(), " ", LiveCount<TinyModelJs>::live, " ",
                LiveCount<TrainerJs>::live);
}

// The task's reference levels (GetTaskReference) into out: float64 [9] (a
// buffer of `capacity`) = chance accuracy, chance loss, best accuracy, best
// loss, entropy rate, bigram entropy, unigram entropy, order-free accuracy,
// order-free loss (NaN where a level does not apply).
std::string TaskReferenceJs(const std::string& task, uintptr_t out,
                            double capacity) {
  TaskKind t;
  const Status s = ParseTask(task, &t);
  if (!s.ok()) return s.message();
  const TaskReference r = GetTaskReference(t);
  const double values[] = {
      r.chance_accuracy, r.chance_loss,         r.best_accuracy,
      r.best_loss,       r.entropy_rate,        r.bigram_entropy,
      r.unigram_entropy, r.order_free_accuracy, r.order_free_loss};
  const std::string room =
      CheckCapacity("out", std::size(values), capacity, "doubles");
  if (!room.empty()) return room;
  std::memcpy(Ptr<double>(out), values, sizeof(values));
  return "";
}

// One example of a task, for the page: tokens and targets ([n] each, n <=
// cap; word-order examples have their own length) and n in count[0].
std::string SampleTaskJs(const std::string& task, double length, double seed,
                         double cap, uintptr_t tokens, uintptr_t targets,
                         uintptr_t count) {
  TaskKind t;
  Status s = ParseTask(task, &t);
  if (s.ok()) s = ValidateTaskLength(t, static_cast<size_t>(length));
  if (!s.ok()) return s.message();
  const std::vector<Example> batch = SampleBatch(
      t, static_cast<size_t>(length), 1, static_cast<uint64_t>(seed));
  const Example& ex = batch.at(0);
  if (!(static_cast<double>(ex.tokens.size()) <= cap)) {
    return StrCat("sampleTask: an example of ", ex.tokens.size(),
                  " tokens does not fit its buffer of ", cap);
  }
  std::memcpy(Ptr<int32_t>(tokens), ex.tokens.data(),
              ex.tokens.size() * sizeof(int32_t));
  std::memcpy(Ptr<int32_t>(targets), ex.targets.data(),
              ex.targets.size() * sizeof(int32_t));
  Ptr<int32_t>(count)[0] = static_cast<int32_t>(ex.tokens.size());
  return "";
}

std::string TargetJs() { return DispatchedTargetName(); }

}  // namespace
}  // namespace posenc

EMSCRIPTEN_BINDINGS(posenc_models) {
  using namespace emscripten;
  using namespace posenc;
  POSENC_MODELS_STRUCTS(POSENC_REGISTER_STRUCT)
  function("contract", &ContractJs);
  function("memoryStats", &MemoryStatsJs);
  function("target", &TargetJs);
  function("names", &NamesJs);
  function(
      "defaultTrainRequest", +[] { return TrainRequest(); });
  class_<TinyModelJs>("TinyModel")
      .constructor<uintptr_t, double>()
      .function("error", &TinyModelJs::error)
      .function("config", &TinyModelJs::config)
      .function("vocab", &TinyModelJs::vocab)
      .function("classes", &TinyModelJs::classes)
      .function("forward", &TinyModelJs::forward)
      .function("generate", &TinyModelJs::generate)
      .function("evaluate", &TinyModelJs::evaluate)
      .function("saveSize", &TinyModelJs::saveSize)
      .function("saveInto", &TinyModelJs::saveInto);
  class_<TrainerJs>("Trainer")
      .constructor<const TrainRequest&>()
      .constructor<const TrainRequest&, const TinyModelJs&, uintptr_t,
                   const RopeFrequencyConfig&>()
      .function("error", &TrainerJs::error)
      .function("step", &TrainerJs::step)
      .function("model", &TrainerJs::model)
      .function("microBatches", &TrainerJs::microBatches)
      .function("paramCount", &TrainerJs::paramCount)
      .function("beginStep", &TrainerJs::beginStep)
      .function("blockGradient", &TrainerJs::blockGradient)
      .function("applyGradient", &TrainerJs::applyGradient);
  function("sampleTask", &SampleTaskJs);
  function("taskReference", &TaskReferenceJs);
}
