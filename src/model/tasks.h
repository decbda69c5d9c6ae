// The three synthetic tasks the tiny models are trained and evaluated on,
// generated in code from a SplitMix64 stream (integer arithmetic only, no
// libm), so the same seed yields the same data natively and in wasm.
//
// Shapes: T = sequence length (tokens). Every task shares the special tokens
// 0 <pad>, 1 <bos>, 2 <unk>.
//   word-order  classification, T = 4 or 5: <bos> subject [adverb] verb object
//   language    next-token LM, any T >= 8: a fixed second-order Markov chain
//   retrieval   next-token LM, any T >= 16: key-value recall over the context
#ifndef POSENC_MODEL_TASKS_H_
#define POSENC_MODEL_TASKS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/rng.h"

namespace posenc {

enum class TaskKind : int { kWordOrder = 0, kLanguage = 1, kRetrieval = 2 };
constexpr int kNumTasks = 3;

// "word-order", "language", "retrieval".
Status ParseTask(const std::string& name, TaskKind* out);
const char* TaskName(TaskKind t);

constexpr int32_t kPadToken = 0;
constexpr int32_t kBosToken = 1;
constexpr int32_t kUnkToken = 2;

// A whitespace tokenizer over a fixed vocabulary. The constructor takes the
// content words; <pad>, <bos>, <unk> are always prepended as ids 0, 1, 2, so
// content word i gets id 3 + i. A repeated word keeps its first id.
class Vocab {
 public:
  explicit Vocab(std::vector<std::string> words);
  size_t size() const { return words_.size(); }
  // "<unk>" for an id outside [0, size()).
  const std::string& Word(int32_t id) const;
  // kUnkToken if `w` is not in the vocabulary.
  int32_t Id(const std::string& w) const;
  // Splits on ASCII whitespace (space, \t, \n, \r); multi-byte UTF-8 words
  // such as 喜欢 are single tokens.
  std::vector<int32_t> Encode(const std::string& text) const;
  // Words joined by single spaces.
  std::string Decode(const std::vector<int32_t>& ids) const;

 private:
  std::vector<std::string> words_;
  std::map<std::string, int32_t> ids_;
};

// The task's full vocabulary (specials included); ids match SampleExample.
Vocab TaskVocab(TaskKind t);

struct Example {
  std::vector<int32_t> tokens;   // [T]
  std::vector<int32_t> targets;  // [T] next-token target, -1 = not scored
  int32_t label = -1;            // class id (word-order only), else -1
};

// The shortest `length` SampleExample accepts: 8 (language), 16
// (retrieval); word-order ignores length and accepts any value.
size_t MinTaskLength(TaskKind t);
// Ok, or Invalid naming the task, the length and the minimum.
Status ValidateTaskLength(TaskKind t, size_t length);

// One example, deterministic given the rng state. `length` = T for the LM
// tasks (the data is stationary, so the same generator serves training at
// T = 64 and evaluation at T = 1024); word-order ignores it. Precondition:
// ValidateTaskLength(t, length).ok(); otherwise returns an empty Example.
Example SampleExample(TaskKind t, size_t length, SplitMix64* rng);

// `count` examples; example i is drawn from the i-th Fork() of
// SplitMix64(seed). Empty if the length is invalid.
std::vector<Example> SampleBatch(TaskKind t, size_t length, size_t count,
                                 uint64_t seed);

// Word-order: 12 person classes (0..5 English, 6..11 Chinese); else 0.
size_t NumClasses(TaskKind t);
// The word of a class (word-order: the person), "" if out of range.
std::string ClassName(TaskKind t, int32_t label);

// ---------------------------------------------------------------------------
// The language task's generator, for evaluation (all in nats).

// P(next = c | previous two tokens = a, b) over the whole vocabulary [V],
// for content-token ids a, b; all zeros if a or b is not a content token.
std::vector<double> LanguageNextTokenProbs(int32_t a, int32_t b);
// Entropy rate H(x_t | x_{t-1}, x_{t-2}) of the chain: the optimal expected
// loss per scored token of the language task.
double LanguageEntropyRate();
// H(x_t | x_{t-1}) under the stationary distribution: the best loss of a
// model that only sees the previous token.
double LanguageBigramEntropy();
// H(x_t) of the stationary marginal: the best loss without any context.
double LanguageUnigramEntropy();

// ---------------------------------------------------------------------------
// Reference levels of a task, from its generator (exact, not sampled): what
// a model's loss and accuracy are measured against. Loss in nats per scored
// token (word-order: per sentence); accuracy = argmax hits / scored.
struct TaskReference {
  static constexpr double kNotApplicable =
      std::numeric_limits<double>::quiet_NaN();
  TaskKind task = TaskKind::kLanguage;
  // Without the input: the best predictor ignores the context and always
  // predicts the targets' marginal. chance_accuracy = its largest
  // probability (word-order 1/12 classes, retrieval 1/16 values: both
  // uniform), chance_loss = its entropy (ln 12, ln 16; language: the
  // unigram entropy).
  double chance_accuracy = 0.0;
  double chance_loss = 0.0;
  // With the whole input: the Bayes-optimal predictor. Word-order and
  // retrieval have a unique answer (accuracy 1, loss 0); language: the
  // entropy rate and the probability of each context's favourite token.
  double best_accuracy = 0.0;
  double best_loss = 0.0;
  // Language only (else NaN): the three conditional entropies above.
  double entropy_rate = kNotApplicable;
  double bigram_entropy = kNotApplicable;
  double unigram_entropy = kNotApplicable;
  // Word-order only (else NaN): the best an encoder without positions can
  // do. It sees the multiset of tokens, identical for "A verb B" and
  // "B verb A", which are equally likely: accuracy 1/2, loss ln 2.
  double order_free_accuracy = kNotApplicable;
  double order_free_loss = kNotApplicable;
};
TaskReference GetTaskReference(TaskKind t);

}  // namespace posenc

#endif  // POSENC_MODEL_TASKS_H_
