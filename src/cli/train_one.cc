// Trains one tiny model and prints its progress and evaluation (for
// experiments; the shipped suite is train_models).
//   posenc_train_one [--lr=X] [--warmup=N] [--batch=N] [--seed=N]
//                    [--eval-every=N]
//                    <task> <encoding> <steps> [seq_len] [eval lengths...]
// (default warmup: a tenth of the steps).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "model/train.h"

int main(int argc, char** argv) {
  using namespace posenc;
  TrainConfig tc;
  int warmup = -1;
  int eval_every = 0;  // > 0: accuracy at seq_len every this many steps
  // Options first; the positional arguments follow.
  while (argc > 1 && std::strncmp(argv[1], "--", 2) == 0) {
    const char* a = argv[1];
    if (std::strncmp(a, "--lr=", 5) == 0) {
      tc.opt.lr = static_cast<float>(std::atof(a + 5));
    } else if (std::strncmp(a, "--warmup=", 9) == 0) {
      warmup = std::atoi(a + 9);
    } else if (std::strncmp(a, "--batch=", 8) == 0) {
      tc.batch = std::atoi(a + 8);
    } else if (std::strncmp(a, "--eval-every=", 13) == 0) {
      eval_every = std::atoi(a + 13);
    } else if (std::strncmp(a, "--seed=", 7) == 0) {
      tc.seed = std::strtoull(a + 7, nullptr, 10);
    } else {
      std::fprintf(stderr, "unknown option %s\n", a);
      return 2;
    }
    ++argv;
    --argc;
  }
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: %s <task> <encoding> <steps> [seq_len] [lengths...]\n",
                 argv[0]);
    return 2;
  }
  Status st = ParseTask(argv[1], &tc.task);
  if (st.ok()) st = ParseEncoding(argv[2], &tc.model.encoding);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 2;
  }
  tc.steps = std::atoi(argv[3]);
  tc.seq_len = argc > 4 ? std::atoi(argv[4]) : 64;
  tc.model.max_len = tc.seq_len;
  tc.model.d_ff = 128;
  tc.opt.warmup_steps = warmup >= 0 ? warmup : tc.steps / 10;
  std::unique_ptr<Trainer> tr;
  st = Trainer::Create(tc, &tr);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  TrainProgress p;
  for (int s = 0; s < tc.steps; ++s) {
    st = tr->Step(&p);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      return 1;
    }
    if (p.step % (tc.steps / 10 > 0 ? tc.steps / 10 : 1) == 0) {
      std::printf("step %d loss %.4f grad %.3f lr %.5f\n", p.step, p.loss,
                  p.grad_norm, p.lr);
    }
    if (eval_every > 0 && p.step % eval_every == 0) {
      EvalResult r;
      st = Evaluate(tr->model(), tc.task, tc.seq_len, 32, 12345,
                    InferenceOptions(), &r);
      const double at =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
              .count();
      if (st.ok()) {
        std::printf("step %d acc %.4f at %.1f s\n", p.step, r.accuracy, at);
      }
      std::fflush(stdout);
    }
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  std::printf("trained in %.1f s (%.2f steps/s)\n", secs, tc.steps / secs);
  for (int a = 5; a < argc || a == 5; ++a) {
    const size_t L = a < argc ? std::atoi(argv[a]) : tc.seq_len;
    EvalResult r;
    st = Evaluate(tr->model(), tc.task, L,
                  tc.task == TaskKind::kWordOrder ? 500 : 32, 12345,
                  InferenceOptions(), &r);
    if (!st.ok()) {
      std::printf("eval T=%zu: %s\n", L, st.message().c_str());
      continue;
    }
    std::printf("eval T=%zu loss %.4f acc %.4f", L, r.loss, r.accuracy);
    if (!r.position_loss.empty() && L >= 64) {
      // Mean loss over the last quarter of positions.
      double s = 0;
      size_t n = 0;
      for (size_t t = L * 3 / 4; t < L; ++t) {
        if (r.position_loss[t] == r.position_loss[t]) {
          s += r.position_loss[t];
          ++n;
        }
      }
      std::printf(" last-quarter %.4f", n ? s / n : 0.0);
    }
    std::printf("\n");
  }
  return 0;
}
