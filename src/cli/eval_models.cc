// Evaluates the shipped tiny models on fresh, seeded task data through the
// kernel inference path and prints one JSON line per measurement:
//   {"model":..., "task":..., "encoding":..., "length":L, "scaling":...,
//    "loss":..., "accuracy":..., "scored":N}
// plus the language task's reference entropies. tools/eval_models.mjs
// turns them into the README tables.
//   posenc_eval_models [--no-scaling] <dir with .safetensors files> [name ...]
// --no-scaling leaves out the RoPE model's context-extension rows
// (tools/seed_bands.mjs needs only the plain ones).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "model/model_io.h"
#include "model/train.h"

namespace {

using posenc::RopeScaling;
using posenc::RopeScalingType;

constexpr size_t kLengths[] = {64, 128, 256, 512, 1024};

void Print(const std::string& model, const posenc::Model& m, size_t length,
           const char* scaling, const posenc::EvalResult& r) {
  std::printf(
      "{\"model\":\"%s\",\"task\":\"%s\",\"encoding\":\"%s\",\"length\":%zu,"
      "\"scaling\":\"%s\",\"loss\":%.6f,\"accuracy\":%.6f,\"scored\":%zu}\n",
      model.c_str(), m.config.task.c_str(), EncodingName(m.config.encoding),
      length, scaling, r.loss, r.accuracy, r.scored);
  std::fflush(stdout);
}

// The context-extension methods at factor s = L / train_len, as a user
// would configure them for a model trained at train_len.
std::vector<std::pair<const char*, RopeScaling>> Scalings(int train_len,
                                                          size_t L, int half) {
  const double s = static_cast<double>(L) / train_len;
  std::vector<std::pair<const char*, RopeScaling>> out;
  RopeScaling r;
  r.type = RopeScalingType::kLinear;
  r.factor = s;
  out.emplace_back("linear", r);
  r = RopeScaling();
  r.type = RopeScalingType::kNtk;
  r.factor = s;
  out.emplace_back("ntk", r);
  r = RopeScaling();
  r.type = RopeScalingType::kDynamic;
  r.factor = 1.0;
  r.max_position_embeddings = train_len;
  out.emplace_back("dynamic", r);
  r = RopeScaling();
  r.type = RopeScalingType::kYarn;
  r.factor = s;
  r.original_max_position_embeddings = train_len;
  out.emplace_back("yarn", r);
  r = RopeScaling();
  r.type = RopeScalingType::kLlama3;
  r.factor = s;
  r.original_max_position_embeddings = train_len;
  r.low_freq_factor = 1.0;
  r.high_freq_factor = 4.0;
  out.emplace_back("llama3", r);
  // LongRoPE's factors come from a search; here a hand-set rule in its
  // spirit: pairs whose wavelength exceeds the training length are
  // interpolated by s, the others kept (ramped in between).
  r = RopeScaling();
  r.type = RopeScalingType::kLongrope;
  r.factor = s;
  r.original_max_position_embeddings = train_len;
  for (int i = 0; i < half; ++i) {
    const double wavelength =
        2.0 * 3.141592653589793 * std::pow(10000.0, 2.0 * i / (2.0 * half));
    const double t =
        std::fmin(1.0, std::fmax(0.0, wavelength / train_len - 0.5));
    r.short_factor.push_back(1.0);
    r.long_factor.push_back(1.0 + t * (s - 1.0));
  }
  out.emplace_back("longrope", r);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const bool scalings =
      !(argc > 1 && std::strcmp(argv[1], "--no-scaling") == 0);
  const int first = scalings ? 1 : 2;
  if (argc < first + 2) {
    std::fprintf(stderr, "usage: %s [--no-scaling] <dir> <name> [name ...]\n",
                 argv[0]);
    return 2;
  }
  std::printf(
      "{\"reference\":\"language\",\"entropy_rate\":%.6f,\"bigram\":%.6f,"
      "\"unigram\":%.6f}\n",
      posenc::LanguageEntropyRate(), posenc::LanguageBigramEntropy(),
      posenc::LanguageUnigramEntropy());
  for (int a = first + 1; a < argc; ++a) {
    const std::string name = argv[a];
    std::ifstream in(std::string(argv[first]) + "/" + name + ".safetensors",
                     std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
    posenc::Model m;
    posenc::Status st = posenc::LoadModel(
        reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &m);
    posenc::TaskKind task;
    if (st.ok()) st = posenc::ParseTask(m.config.task, &task);
    if (!st.ok()) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), st.message().c_str());
      return 1;
    }
    posenc::EvalResult r;
    if (task == posenc::TaskKind::kWordOrder) {
      st = posenc::Evaluate(m, task, 0, 2000, 777, posenc::InferenceOptions(),
                            &r);
      if (!st.ok()) {
        std::fprintf(stderr, "%s: %s\n", name.c_str(), st.message().c_str());
        return 1;
      }
      Print(name, m, 0, "none", r);
      continue;
    }
    for (size_t L : kLengths) {
      // About 16k scored tokens for the language task at every length;
      // 64 sequences (256 queries) for retrieval.
      const size_t count = task == posenc::TaskKind::kLanguage
                               ? (L < 1024 ? 16384 / L : 16)
                               : 64;
      st = posenc::Evaluate(m, task, L, count, 777, posenc::InferenceOptions(),
                            &r);
      if (!st.ok()) {
        // Learned positions end at their table: record the error.
        std::printf(
            "{\"model\":\"%s\",\"task\":\"%s\",\"encoding\":\"%s\","
            "\"length\":%zu,\"scaling\":\"none\",\"error\":\"%s\"}\n",
            name.c_str(), m.config.task.c_str(),
            EncodingName(m.config.encoding), L,
            st.message().substr(0, st.message().find('(')).c_str());
        continue;
      }
      Print(name, m, L, "none", r);
      // The scaling table is the full-rotary RoPE model's.
      if (!scalings || m.config.encoding != posenc::Encoding::kRope ||
          m.config.rotary_dim != 0 || L == 64) {
        continue;
      }
      for (const auto& sc :
           Scalings(m.config.train_len, L,
                    posenc::EffectiveRotaryDim(m.config.Rope()) / 2)) {
        posenc::InferenceOptions opt;
        opt.scaling = sc.second;
        st = posenc::Evaluate(m, task, L, count, 777, opt, &r);
        if (!st.ok()) {
          std::fprintf(stderr, "%s %s: %s\n", name.c_str(), sc.first,
                       st.message().c_str());
          return 1;
        }
        Print(name, m, L, sc.first, r);
      }
    }
  }
  return 0;
}
