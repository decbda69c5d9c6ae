// Trains the shipped tiny models from their seeds and writes them as
// safetensors files: one encoder per encoding for word-order, one causal LM
// per encoding for language and for retrieval, plus language-rope-partial
// (RoPE on half of each head). Deterministic: the same
// build gives the same bytes (single thread, fixed order of every sum).
//   posenc_train_models [--seed=N] <out_dir> [name ...]  (default: every model)
//   posenc_train_models --list
// --seed=N trains the same recipes from seed N instead of the shipped seed 1
// (tools/seed_bands.mjs: how much a result varies with the seed).
// Prints one JSON line per model: name, steps, seconds, final loss.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "model/model_io.h"
#include "model/train.h"

namespace {

using posenc::Encoding;
using posenc::TaskKind;

struct Recipe {
  std::string name;
  posenc::TrainConfig config;
};

std::vector<Recipe> Suite() {
  std::vector<Recipe> out;
  const Encoding kAll[] = {Encoding::kNope,    Encoding::kSinusoidal,
                           Encoding::kLearned, Encoding::kRope,
                           Encoding::kAlibi,   Encoding::kT5,
                           Encoding::kShaw,    Encoding::kXpos};
  for (Encoding e : kAll) {
    if (e != Encoding::kXpos) {  // xPos is defined for causal models
      posenc::TrainConfig c;
      c.task = TaskKind::kWordOrder;
      c.model.encoding = e;
      c.model.d_model = 32;
      c.model.heads = 4;
      c.model.layers = 2;
      c.model.d_ff = 64;
      c.model.max_len = 8;  // sentences have at most 5 tokens
      c.steps = 400;
      c.batch = 16;
      c.opt.warmup_steps = 40;
      c.seed = 1;
      out.push_back({std::string("word-order-") + EncodingName(e), c});
    }
    for (TaskKind t : {TaskKind::kLanguage, TaskKind::kRetrieval}) {
      posenc::TrainConfig c;
      c.task = t;
      c.model.encoding = e;
      c.model.d_model = 64;
      c.model.heads = 4;
      c.model.layers = 2;
      c.model.d_ff = 128;
      c.model.max_len = 64;
      c.seq_len = 64;
      c.steps = t == TaskKind::kLanguage ? 2000 : 6000;
      // Retrieval needs an induction circuit; at 3e-3 the RoPE model never
      // formed one in 6000 steps, at 1e-3 it does within 2400.
      c.opt.lr = t == TaskKind::kLanguage ? 3e-3f : 1e-3f;
      c.batch = 16;
      c.opt.warmup_steps = c.steps / 10;
      c.seed = 1;
      out.push_back({std::string(TaskName(t)) + "-" + EncodingName(e), c});
      if (t == TaskKind::kLanguage && e == Encoding::kRope) {
        // Partial rotary (half of each head rotates) for the bug zoo's
        // frequencies-over-head-dim bug; otherwise the same recipe.
        c.model.rotary_dim = c.model.d_model / c.model.heads / 2;
        out.push_back({"language-rope-partial", c});
      }
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<Recipe> suite = Suite();
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const Recipe& r : suite) std::printf("%s\n", r.name.c_str());
    return 0;
  }
  int first = 1;
  uint64_t seed = 0;  // 0: each recipe's own seed
  if (argc > 1 && std::strncmp(argv[1], "--seed=", 7) == 0) {
    char* end = nullptr;
    seed = std::strtoull(argv[1] + 7, &end, 10);
    if (*end != '\0' || seed == 0) {
      std::fprintf(stderr, "--seed needs a positive integer, got \"%s\"\n",
                   argv[1] + 7);
      return 2;
    }
    first = 2;
  }
  if (argc <= first) {
    std::fprintf(stderr, "usage: %s [--seed=N] <out_dir> [name ...] | --list\n",
                 argv[0]);
    return 2;
  }
  const std::string dir = argv[first];
  std::vector<std::string> only(argv + first + 1, argv + argc);
  for (const std::string& n : only) {
    bool known = false;
    for (const Recipe& r : suite) known = known || r.name == n;
    if (!known) {
      std::fprintf(stderr, "unknown model \"%s\" (see --list)\n", n.c_str());
      return 2;
    }
  }
  for (Recipe r : suite) {
    if (seed != 0) r.config.seed = seed;
    if (!only.empty()) {
      bool want = false;
      for (const std::string& n : only) want = want || n == r.name;
      if (!want) continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    std::unique_ptr<posenc::Trainer> tr;
    posenc::Status st = posenc::Trainer::Create(r.config, &tr);
    posenc::TrainProgress p;
    for (int s = 0; st.ok() && s < r.config.steps; ++s) st = tr->Step(&p);
    if (!st.ok()) {
      std::fprintf(stderr, "%s: %s\n", r.name.c_str(), st.message().c_str());
      return 1;
    }
    const std::string bytes = posenc::SaveModel(tr->model());
    const std::string path = dir + "/" + r.name + ".safetensors";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() ||
        std::fclose(f) != 0) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    std::printf(
        "{\"name\":\"%s\",\"steps\":%d,\"seconds\":%.2f,\"loss\":%.6f,"
        "\"bytes\":%zu}\n",
        r.name.c_str(), r.config.steps, secs, p.loss, bytes.size());
    std::fflush(stdout);
  }
  return 0;
}
