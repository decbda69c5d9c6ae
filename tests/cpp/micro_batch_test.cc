// A training step's gradient in micro-batches (kMicroBatch): each
// micro-batch's gradient computed here from scratch (the batch resampled from
// the seed, Forward, SoftmaxCrossEntropy and Backward with fresh buffers)
// equals Trainer::MicroBatchGradient bit for bit in any call order, and Step
// equals ApplyGradient of those gradients summed in micro-batch order: the
// invariant that lets the Worker pool train with the bits of one thread.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "model/layers.h"
#include "model/rng.h"
#include "model/tasks.h"
#include "model/train.h"
#include "model/transformer.h"

namespace posenc {
namespace {

struct Case {
  TaskKind task;
  int batch;  // 16: 4 full micro-batches; 6 and 5: a shorter last one
};

TrainConfig Config(const Case& k) {
  TrainConfig c;
  c.task = k.task;
  c.model.encoding = Encoding::kRope;
  c.model.d_model = 16;
  c.model.heads = 2;
  c.model.layers = 1;
  c.model.d_ff = 32;
  c.model.max_len = 16;
  c.seq_len = 16;
  c.batch = k.batch;
  c.steps = 3;
  c.opt.warmup_steps = 1;
  c.seed = 5;
  return c;
}

// The examples of the next `batch` draws of the trainer's data stream (its
// seed is the second draw of SplitMix64(seed), as Trainer::Create makes it).
std::vector<Example> Batch(const TrainConfig& c, SplitMix64* data) {
  std::vector<Example> out;
  for (int b = 0; b < c.batch; ++b) {
    out.push_back(SampleExample(c.task, static_cast<size_t>(c.seq_len), data));
  }
  return out;
}

// grads[j]: micro-batch j's gradient from zero, its examples in order, each
// with a fresh cache and the plain Backward; losses[j] its summed loss.
void ReferenceMicroBatches(const Model& m, const TrainConfig& c,
                           const std::vector<Example>& batch,
                           std::vector<std::vector<float>>* grads,
                           std::vector<double>* losses) {
  size_t total = 0;
  for (const Example& e : batch) {
    if (c.task == TaskKind::kWordOrder) {
      ++total;
    } else {
      for (int32_t t : e.targets) total += t >= 0 ? 1 : 0;
    }
  }
  const float inv = 1.0f / static_cast<float>(total);
  grads->clear();
  losses->clear();
  for (size_t first = 0; first < batch.size(); first += kMicroBatch) {
    std::vector<float> g(m.w.size(), 0.0f);
    double loss = 0.0;
    for (size_t b = first; b < batch.size() && b < first + kMicroBatch; ++b) {
      const Example& e = batch[b];
      ForwardCache cache;
      std::vector<float> logits;
      const Status s = Forward(m, e.tokens.data(), e.tokens.size(),
                               ForwardOptions(), &cache, &logits);
      EXPECT_TRUE(s.ok()) << s.message();
      std::vector<float> dlogits(logits.size());
      if (c.task == TaskKind::kWordOrder) {
        loss += SoftmaxCrossEntropy(logits.data(), 1, logits.size(), &e.label,
                                    inv, dlogits.data(), nullptr, nullptr);
      } else {
        loss += SoftmaxCrossEntropy(
            logits.data(), e.tokens.size(), static_cast<size_t>(m.config.vocab),
            e.targets.data(), inv, dlogits.data(), nullptr, nullptr);
      }
      Backward(m, e.tokens.data(), cache, dlogits.data(), g.data());
    }
    grads->push_back(std::move(g));
    losses->push_back(loss);
  }
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class MicroBatchTest : public ::testing::TestWithParam<Case> {};

TEST_P(MicroBatchTest, StepIsTheSumOfIndependentMicroBatchesInOrder) {
  const TrainConfig c = Config(GetParam());
  // rows: each step applied as ApplyGradientRows of a first block's sum
  // and the later micro-batches one by one (a pool Worker's sum).
  std::unique_ptr<Trainer> whole, parts, rows;
  ASSERT_TRUE(Trainer::Create(c, &whole).ok());
  ASSERT_TRUE(Trainer::Create(c, &parts).ok());
  ASSERT_TRUE(Trainer::Create(c, &rows).ok());
  const int J = (c.batch + kMicroBatch - 1) / kMicroBatch;
  ASSERT_EQ(parts->micro_batches(), J);
  SplitMix64 seeds(c.seed);
  seeds.Next();
  SplitMix64 data(seeds.Next());
  for (int step = 0; step < c.steps; ++step) {
    SCOPED_TRACE(StrCat("step ", step));
    const std::vector<Example> batch = Batch(c, &data);
    std::vector<std::vector<float>> ref;
    std::vector<double> ref_loss;
    ReferenceMicroBatches(parts->model(), c, batch, &ref, &ref_loss);
    ASSERT_EQ(static_cast<int>(ref.size()), J);

    // The trainer's micro-batches, last first (a Worker computes only some).
    ASSERT_TRUE(parts->BeginStep().ok());
    std::vector<float> g(parts->num_params());
    for (int j = J - 1; j >= 0; --j) {
      double loss = -1.0;
      ASSERT_TRUE(parts->MicroBatchGradient(j, g.data(), &loss).ok());
      EXPECT_TRUE(SameBits(g, ref[static_cast<size_t>(j)])) << "micro " << j;
      EXPECT_EQ(loss, ref_loss[static_cast<size_t>(j)]) << "micro " << j;
    }
    // Every block of them, summed in order (a Worker's share of a step).
    for (int first = 0; first < J; ++first) {
      for (int count = 1; first + count <= J; ++count) {
        std::vector<float> want = ref[static_cast<size_t>(first)];
        double want_loss = ref_loss[static_cast<size_t>(first)];
        for (int j = first + 1; j < first + count; ++j) {
          for (size_t i = 0; i < want.size(); ++i) {
            want[i] += ref[static_cast<size_t>(j)][i];
          }
          want_loss += ref_loss[static_cast<size_t>(j)];
        }
        double block_loss = -1.0;
        ASSERT_TRUE(
            parts->BlockGradient(first, count, g.data(), &block_loss).ok());
        EXPECT_TRUE(SameBits(g, want)) << "block " << first << "+" << count;
        EXPECT_EQ(block_loss, want_loss) << "block " << first << "+" << count;
      }
    }
    // ((g_0 + g_1) + g_2) + ... and the losses likewise.
    std::vector<float> sum = ref[0];
    double loss = ref_loss[0];
    for (int j = 1; j < J; ++j) {
      for (size_t i = 0; i < sum.size(); ++i) {
        sum[i] += ref[static_cast<size_t>(j)][i];
      }
      loss += ref_loss[static_cast<size_t>(j)];
    }
    // The first block: micro-batches [0, split), split cycling over the steps.
    const int split = 1 + step % J;
    const size_t P = rows->num_params();
    std::vector<float> packed(static_cast<size_t>(J - split + 1) * P);
    double rows_loss = 0.0;
    ASSERT_TRUE(rows->BeginStep().ok());
    ASSERT_TRUE(rows->BlockGradient(0, split, packed.data(), &rows_loss).ok());
    for (int j = split; j < J; ++j) {
      double l = 0.0;
      ASSERT_TRUE(
          rows->MicroBatchGradient(
                  j, packed.data() + static_cast<size_t>(j - split + 1) * P, &l)
              .ok());
      rows_loss += l;
    }
    TrainProgress pp, pw, pr;
    ASSERT_TRUE(
        rows->ApplyGradientRows(packed.data(), J - split + 1, rows_loss, &pr)
            .ok());
    ASSERT_TRUE(parts->ApplyGradient(sum.data(), loss, &pp).ok());
    ASSERT_TRUE(whole->Step(&pw).ok());
    EXPECT_TRUE(SameBits(whole->model().w, parts->model().w));
    EXPECT_TRUE(SameBits(whole->model().w, rows->model().w))
        << "first block of " << split;
    EXPECT_EQ(pw.loss, pr.loss);
    EXPECT_EQ(pw.grad_norm, pr.grad_norm);
    EXPECT_EQ(pw.step, pp.step);
    EXPECT_EQ(pw.loss, pp.loss);
    EXPECT_EQ(pw.grad_norm, pp.grad_norm);
    EXPECT_EQ(pw.lr, pp.lr);
  }
}

INSTANTIATE_TEST_SUITE_P(Tasks, MicroBatchTest,
                         ::testing::Values(Case{TaskKind::kLanguage, 16},
                                           Case{TaskKind::kRetrieval, 6},
                                           Case{TaskKind::kWordOrder, 5}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string n = TaskName(info.param.task);
                           for (char& ch : n) ch = ch == '-' ? '_' : ch;
                           return StrCat(n, "_batch", info.param.batch);
                         });

TEST(MicroBatch, CallsOutOfOrderAreErrors) {
  const TrainConfig c = Config({TaskKind::kLanguage, 6});
  std::unique_ptr<Trainer> t;
  ASSERT_TRUE(Trainer::Create(c, &t).ok());
  std::vector<float> g(t->num_params());
  double loss = 0.0;
  TrainProgress p;
  EXPECT_EQ(t->MicroBatchGradient(0, g.data(), &loss).message(),
            "MicroBatchGradient: no step begun (BeginStep)");
  EXPECT_EQ(t->ApplyGradient(g.data(), 0.0, &p).message(),
            "ApplyGradient: no step begun (BeginStep)");
  EXPECT_EQ(t->ApplyGradientRows(g.data(), 1, 0.0, &p).message(),
            "ApplyGradient: no step begun (BeginStep)");
  EXPECT_EQ(t->ApplyGradientRows(g.data(), 0, 0.0, &p).message(),
            "rows must be >= 1, got 0");
  ASSERT_TRUE(t->BeginStep().ok());
  EXPECT_EQ(t->MicroBatchGradient(2, g.data(), &loss).message(),
            "micro-batch must be an integer in [0, 2), got 2");
  EXPECT_EQ(t->MicroBatchGradient(-1, g.data(), &loss).message(),
            "micro-batch must be an integer in [0, 2), got -1");
  EXPECT_EQ(t->BlockGradient(1, 2, g.data(), &loss).message(),
            "micro-batches [1, 3) must lie in [0, 2) and not be empty");
  EXPECT_EQ(t->BlockGradient(0, 0, g.data(), &loss).message(),
            "micro-batches [0, 0) must lie in [0, 2) and not be empty");
  ASSERT_TRUE(t->MicroBatchGradient(1, g.data(), &loss).ok());
  ASSERT_TRUE(t->ApplyGradient(g.data(), loss, &p).ok());
  EXPECT_EQ(p.step, 1);
  // Applied: the next micro-batch needs a new BeginStep.
  EXPECT_FALSE(t->MicroBatchGradient(0, g.data(), &loss).ok());
}

}  // namespace
}  // namespace posenc
