#include "model/train.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/inference.h"
#include "model/layers.h"

namespace posenc {

Status ModelForTask(TaskKind task, const ModelConfig& base, int seq_len,
                    ModelConfig* out) {
  ModelConfig c = base;
  c.vocab = static_cast<int>(TaskVocab(task).size());
  c.task = TaskName(task);
  if (task == TaskKind::kWordOrder) {
    c.causal = false;
    c.num_classes = static_cast<int>(NumClasses(task));
  } else {
    POSENC_RETURN_IF_ERROR(ValidateTaskLength(
        task, static_cast<size_t>(seq_len < 0 ? 0 : seq_len)));
    c.causal = true;
    c.num_classes = 0;
    c.train_len = seq_len;
  }
  POSENC_RETURN_IF_ERROR(ValidateModelConfig(c));
  *out = c;
  return Status::Ok();
}

namespace {

// The model a continued run starts from: a copy of *c.init with the task's
// config at the new length and the run's scaling.
Status ContinuedModel(const TrainConfig& c, Model* out) {
  const Model& init = *c.init;
  if (init.config.task != TaskName(c.task)) {
    return Status::Invalid(StrCat("the initial model was trained on \"",
                                  init.config.task, "\", not on \"",
                                  TaskName(c.task), "\""));
  }
  ModelConfig mc;
  POSENC_RETURN_IF_ERROR(ModelForTask(c.task, init.config, c.seq_len, &mc));
  if (mc.vocab != init.config.vocab || mc.causal != init.config.causal ||
      mc.num_classes != init.config.num_classes) {
    return Status::Invalid(
        StrCat("the initial model's vocab (", init.config.vocab,
               ") or head does not match the task ", TaskName(c.task)));
  }
  if (mc.encoding == Encoding::kLearned && mc.causal &&
      mc.max_len < c.seq_len) {
    return Status::Invalid(
        StrCat("continued training at seqLen ", c.seq_len,
               " needs positions past the learned table (maxLen ", mc.max_len,
               "): a learned encoding cannot be extended"));
  }
  Model m = init;
  m.config = mc;
  Model layout;
  BuildParamLayout(mc, &layout);
  if (layout.w.size() != m.w.size()) {
    return Status::Invalid(StrCat("the initial model has ", m.w.size(),
                                  " weights, its config implies ",
                                  layout.w.size()));
  }
  *out = std::move(m);
  return Status::Ok();
}

}  // namespace

Status ToTrainConfig(const TrainRequest& r, TrainConfig* c) {
  POSENC_RETURN_IF_ERROR(ParseTask(r.task, &c->task));
  c->model.encoding = r.encoding;
  c->steps = r.steps;
  c->batch = r.batch;
  c->seq_len = r.seq_len;
  c->model.d_model = r.d_model;
  c->model.heads = r.heads;
  c->model.layers = r.layers;
  c->model.d_ff = r.d_ff;
  c->model.max_len = r.seq_len > 0 ? r.seq_len : 1;
  const bool continued = c->init != nullptr;
  const int tenth = r.steps / 10;
  c->opt.lr =
      static_cast<float>(r.lr.value_or(continued ? kContinueLr : kTrainLr));
  c->opt.warmup_steps =
      r.warmup.value_or(continued ? std::min(20, tenth) : tenth);
  c->seed = r.seed;
  return Status::Ok();
}

Status Trainer::Create(const TrainConfig& c, std::unique_ptr<Trainer>* out) {
  const int min_steps = c.init ? 0 : 1;
  if (c.steps < min_steps || c.steps > 10000000) {
    return Status::Invalid(StrCat("steps must be an integer in [", min_steps,
                                  ", 10000000], got ", c.steps));
  }
  if (c.batch < 1 || c.batch > 4096) {
    return Status::Invalid(
        StrCat("batch must be an integer in [1, 4096], got ", c.batch));
  }
  if (c.seq_len < 1 || c.seq_len > 4096) {
    return Status::Invalid(
        StrCat("seqLen must be an integer in [1, 4096], got ", c.seq_len));
  }
  if (!(c.opt.lr > 0.0f && c.opt.lr < 1.0f)) {
    return Status::Invalid(StrCat("lr must be in (0, 1), got ", c.opt.lr));
  }
  if (c.opt.warmup_steps < 0 || c.opt.warmup_steps > c.steps) {
    return Status::Invalid(StrCat("warmup must be an integer in [0, ", c.steps,
                                  "], got ", c.opt.warmup_steps));
  }
  SplitMix64 seeds(c.seed);
  const uint64_t init_seed = seeds.Next();
  const uint64_t data_seed = seeds.Next();
  Model m;
  if (c.init) {
    POSENC_RETURN_IF_ERROR(ContinuedModel(c, &m));
  } else {
    ModelConfig mc;
    POSENC_RETURN_IF_ERROR(ModelForTask(c.task, c.model, c.seq_len, &mc));
    if (mc.encoding == Encoding::kLearned && mc.causal &&
        mc.max_len < c.seq_len) {
      return Status::Invalid(StrCat("maxLen (", mc.max_len,
                                    ") must be at least seqLen (", c.seq_len,
                                    ") for a learned encoding"));
    }
    POSENC_RETURN_IF_ERROR(NewModel(mc, init_seed, &m));
  }
  if (c.scaling) {
    // Stored canonically: a default scaling carries no parameters.
    m.config.rope_scaling = c.scaling->type == RopeScalingType::kDefault
                                ? RopeScaling()
                                : *c.scaling;
  }
  // The scaling's type and encoding, its parameters, and frequencies at the
  // training length.
  POSENC_RETURN_IF_ERROR(ValidateModelConfig(m.config));
  TrainConfig tc = c;
  tc.init = nullptr;
  tc.model = m.config;
  tc.scaling = m.config.rope_scaling;
  tc.opt.total_steps = c.steps;
  std::unique_ptr<Trainer> t(new Trainer(tc, m.w.size()));
  t->model_ = std::move(m);
  t->data_ = SplitMix64(data_seed);
  t->grad_.assign(t->model_.w.size(), 0.0f);
  *out = std::move(t);
  return Status::Ok();
}

Status Trainer::BeginStep() {
  begun_ = false;
  batch_.clear();
  size_t total = 0;
  for (int b = 0; b < c_.batch; ++b) {
    batch_.push_back(
        SampleExample(c_.task, static_cast<size_t>(c_.seq_len), &data_));
    const Example& e = batch_.back();
    if (c_.task == TaskKind::kWordOrder) {
      ++total;
    } else {
      for (int32_t t : e.targets) total += t >= 0 ? 1 : 0;
    }
  }
  if (total == 0) return Status::Invalid("the batch has no scored tokens");
  total_ = total;
  // The weights stay as they are until ApplyGradient.
  TransposeWeights(model_, &wt_);
  begun_ = true;
  return Status::Ok();
}

Status Trainer::MicroBatchGradient(int j, float* grad, double* loss) {
  if (!begun_) {
    return Status::Invalid("MicroBatchGradient: no step begun (BeginStep)");
  }
  if (j < 0 || j >= micro_batches()) {
    return Status::Invalid(StrCat("micro-batch must be an integer in [0, ",
                                  micro_batches(), "), got ", j));
  }
  std::fill(grad, grad + model_.w.size(), 0.0f);
  const float inv = 1.0f / static_cast<float>(total_);
  double sum = 0.0;
  // The cache, logits and backward scratch live in the trainer: after the
  // first step, a micro-batch allocates nothing.
  const int end = std::min(c_.batch, (j + 1) * kMicroBatch);
  for (int b = j * kMicroBatch; b < end; ++b) {
    const Example& e = batch_[static_cast<size_t>(b)];
    POSENC_RETURN_IF_ERROR(Forward(model_, e.tokens.data(), e.tokens.size(),
                                   ForwardOptions(), &cache_, &logits_));
    dlogits_.resize(logits_.size());
    if (c_.task == TaskKind::kWordOrder) {
      const int32_t label = e.label;
      sum += SoftmaxCrossEntropy(logits_.data(), 1, logits_.size(), &label, inv,
                                 dlogits_.data(), nullptr, nullptr);
    } else {
      const size_t V = static_cast<size_t>(model_.config.vocab);
      sum += SoftmaxCrossEntropy(logits_.data(), e.tokens.size(), V,
                                 e.targets.data(), inv, dlogits_.data(),
                                 nullptr, nullptr);
    }
    Backward(model_, e.tokens.data(), cache_, dlogits_.data(), grad, wt_.data(),
             &scratch_);
  }
  *loss = sum;
  return Status::Ok();
}

Status Trainer::ApplyGradient(const float* grad, double loss,
                              TrainProgress* p) {
  return ApplyGradientRows(grad, 1, loss, p);
}

Status Trainer::ApplyGradientRows(const float* rows, int count, double loss,
                                  TrainProgress* p) {
  if (count < 1) {
    return Status::Invalid(StrCat("rows must be >= 1, got ", count));
  }
  if (!begun_) {
    return Status::Invalid("ApplyGradient: no step begun (BeginStep)");
  }
  const size_t n = grad_.size();
  std::copy(rows, rows + n, grad_.begin());
  for (int r = 1; r < count; ++r) {
    const float* row = rows + static_cast<size_t>(r) * n;
    for (size_t i = 0; i < n; ++i) grad_[i] += row[i];
  }
  return Update(loss, p);
}

Status Trainer::BlockGradient(int first, int count, float* grad, double* loss) {
  if (count < 1 || first < 0 || first + count > micro_batches()) {
    return Status::Invalid(StrCat("micro-batches [", first, ", ", first + count,
                                  ") must lie in [0, ", micro_batches(),
                                  ") and not be empty"));
  }
  POSENC_RETURN_IF_ERROR(MicroBatchGradient(first, grad, loss));
  micro_.resize(model_.w.size());
  for (int j = first + 1; j < first + count; ++j) {
    double l = 0.0;
    POSENC_RETURN_IF_ERROR(MicroBatchGradient(j, micro_.data(), &l));
    for (size_t i = 0; i < micro_.size(); ++i) grad[i] += micro_[i];
    *loss += l;
  }
  return Status::Ok();
}

Status Trainer::Step(TrainProgress* p) {
  POSENC_RETURN_IF_ERROR(BeginStep());
  double loss = 0.0;
  POSENC_RETURN_IF_ERROR(
      BlockGradient(0, micro_batches(), grad_.data(), &loss));
  return Update(loss, p);
}

Status Trainer::Update(double loss, TrainProgress* p) {
  begun_ = false;
  const float lr = ScheduledLr(c_.opt, opt_.step());
  const double norm = opt_.Step(&model_, &grad_);
  p->step = opt_.step();
  p->loss = loss / static_cast<double>(total_);
  p->grad_norm = norm;
  p->lr = lr;
  if (!std::isfinite(p->loss) || !std::isfinite(norm)) {
    return Status::Invalid(StrCat("training diverged at step ", p->step,
                                  ": loss ", p->loss, ", gradient norm ",
                                  norm));
  }
  return Status::Ok();
}

Status Evaluate(const Model& m, TaskKind task, size_t length, size_t count,
                uint64_t seed, const InferenceOptions& options,
                EvalResult* out) {
  if (m.config.task != TaskName(task)) {
    return Status::Invalid(StrCat("the model was trained on \"", m.config.task,
                                  "\", not on \"", TaskName(task), "\""));
  }
  if (count < 1 || count > 100000) {
    return Status::Invalid(
        StrCat("count must be an integer in [1, 100000], got ", count));
  }
  if (task != TaskKind::kWordOrder) {
    POSENC_RETURN_IF_ERROR(ValidateTaskLength(task, length));
  }
  const std::vector<Example> data = SampleBatch(task, length, count, seed);
  EvalResult r;
  r.length = length;
  r.examples = count;
  std::vector<double> pos_sum;
  std::vector<size_t> pos_n;
  size_t correct = 0;
  InferenceOptions opt = options;
  opt.attention_maps = false;
  InferenceResult res;
  for (const Example& e : data) {
    POSENC_RETURN_IF_ERROR(
        Infer(m, e.tokens.data(), e.tokens.size(), opt, &res));
    if (task == TaskKind::kWordOrder) {
      const int32_t label = e.label;
      r.loss += SoftmaxCrossEntropy(res.logits.data(), 1, res.logits.size(),
                                    &label, 1.0f, nullptr, &r.scored, &correct);
      continue;
    }
    const size_t T = e.tokens.size();
    const size_t V = static_cast<size_t>(m.config.vocab);
    if (pos_sum.size() < T) {
      pos_sum.resize(T, 0.0);
      pos_n.resize(T, 0);
    }
    for (size_t t = 0; t < T; ++t) {
      if (e.targets[t] < 0) continue;
      const double l =
          SoftmaxCrossEntropy(res.logits.data() + t * V, 1, V, &e.targets[t],
                              1.0f, nullptr, &r.scored, &correct);
      r.loss += l;
      pos_sum[t] += l;
      ++pos_n[t];
    }
  }
  r.loss /= static_cast<double>(r.scored ? r.scored : 1);
  r.accuracy = static_cast<double>(correct) /
               static_cast<double>(r.scored ? r.scored : 1);
  r.position_loss.resize(pos_sum.size());
  for (size_t t = 0; t < pos_sum.size(); ++t) {
    r.position_loss[t] = pos_n[t] ? pos_sum[t] / static_cast<double>(pos_n[t])
                                  : std::numeric_limits<double>::quiet_NaN();
  }
  *out = std::move(r);
  return Status::Ok();
}

}  // namespace posenc
