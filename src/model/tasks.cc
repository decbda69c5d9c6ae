// The synthetic tasks: word-order classification, a second-order Markov
// language, and long-range key-value retrieval. Data generation uses only
// SplitMix64 and integer arithmetic; libm appears only in the entropy
// computations, which are evaluation constants, not data.
#include "model/tasks.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace posenc {
namespace {

constexpr int32_t kFirstContent = 3;  // after <pad>, <bos>, <unk>

// ---------------------------------------------------------------------------
// Word-order: <bos> subject [adverb] verb object, subject != object, both of
// the sentence's language; label = the subject's class. Both languages are
// SVO, so with positions the answer is simply the token at position 1. A
// bidirectional encoder without positions sees only the multiset of tokens,
// which is identical for "A verb B" and "B verb A" and both are equally
// likely, so it cannot beat 50% accuracy: it cannot tell subject from object.

constexpr int kPeoplePerLanguage = 6;
const char* const kPeople[2][kPeoplePerLanguage] = {
    {"Alice", "Bob", "Carol", "Dave", "Eve", "Frank"},
    {"我", "你", "他", "她", "小明", "小红"}};
constexpr int kVerbsPerLanguage = 5;
const char* const kVerbs[2][kVerbsPerLanguage] = {
    {"likes", "helps", "sees", "calls", "teaches"},
    {"喜欢", "帮助", "看见", "叫", "教"}};
constexpr int kAdverbsPerLanguage = 2;
const char* const kAdverbs[2][kAdverbsPerLanguage] = {{"really", "often"},
                                                      {"很", "常常"}};

// Vocabulary layout: specials, 12 people (id = 3 + class), 10 verbs,
// 4 adverbs.
constexpr int32_t kFirstVerb = kFirstContent + 2 * kPeoplePerLanguage;
constexpr int32_t kFirstAdverb = kFirstVerb + 2 * kVerbsPerLanguage;

std::vector<std::string> WordOrderWords() {
  std::vector<std::string> w;
  for (const auto& l : kPeople) w.insert(w.end(), l, l + kPeoplePerLanguage);
  for (const auto& l : kVerbs) w.insert(w.end(), l, l + kVerbsPerLanguage);
  for (const auto& l : kAdverbs) w.insert(w.end(), l, l + kAdverbsPerLanguage);
  return w;
}

Example SampleWordOrder(SplitMix64* rng) {
  const int lang = static_cast<int>(rng->Below(2));  // 0 English, 1 Chinese
  const int subject = static_cast<int>(rng->Below(kPeoplePerLanguage));
  // Uniform over the other five people.
  int object = static_cast<int>(rng->Below(kPeoplePerLanguage - 1));
  if (object >= subject) ++object;
  const int32_t verb = static_cast<int32_t>(rng->Below(kVerbsPerLanguage));
  const bool has_adverb = rng->Below(2) == 1;
  const int32_t adverb = static_cast<int32_t>(rng->Below(kAdverbsPerLanguage));

  const int32_t person0 = kFirstContent + lang * kPeoplePerLanguage;
  Example ex;
  ex.tokens = {kBosToken, person0 + subject};
  if (has_adverb) {
    ex.tokens.push_back(kFirstAdverb + lang * kAdverbsPerLanguage + adverb);
  }
  ex.tokens.push_back(kFirstVerb + lang * kVerbsPerLanguage + verb);
  ex.tokens.push_back(person0 + object);
  ex.targets.assign(ex.tokens.size(), -1);
  ex.label = lang * kPeoplePerLanguage + subject;
  return ex;
}

// ---------------------------------------------------------------------------
// Language: x_t ~ P(. | x_{t-2}, x_{t-1}) over kLangTokens content tokens.
// For each of the 32 x 32 contexts, 3 distinct favoured tokens get
// 0.55 / 0.25 / 0.12 and the remaining 0.08 is spread uniformly over all 32
// tokens. Probabilities are integers out of kLangTotal so sampling is exact.
// The table comes from a fixed seed: every example speaks the same language.
// Because every context has the same distribution up to relabelling, the
// conditional entropy given the two previous tokens is the same everywhere,
// so the entropy rate is the optimal loss at every scored position,
// whatever the start state.

constexpr int kLangTokens = 32;
constexpr int kLangContexts = kLangTokens * kLangTokens;
constexpr uint32_t kLangTotal = 3200;
constexpr uint32_t kLangUniform = 8;  // per token: 32 * 8 = 256 = 0.08
constexpr uint32_t kLangFavoured[3] = {1760, 800, 384};  // 0.55, 0.25, 0.12
constexpr uint64_t kLangTableSeed = 0x5EED1A46ull;
constexpr int kLangBurnIn = 64;
// Positions 0 and 1 (predicting tokens[1], tokens[2]) lack two tokens of
// context, so they are not scored: every scored target has optimal loss
// LanguageEntropyRate(), at any T.
constexpr size_t kLangFirstScored = 2;

struct LanguageTable {
  int32_t favoured[kLangContexts][3];  // content indices 0..31
};

const LanguageTable& Table() {
  static const LanguageTable* table = [] {
    auto* t = new LanguageTable;
    SplitMix64 rng(kLangTableSeed);
    for (auto& fav : t->favoured) {
      for (int k = 0; k < 3; ++k) {
        int32_t c;
        do {
          c = static_cast<int32_t>(rng.Below(kLangTokens));
        } while (std::find(fav, fav + k, c) != fav + k);
        fav[k] = c;
      }
    }
    return t;
  }();
  return *table;
}

// Draws the next content index given content indices a, b.
int32_t NextLanguageToken(int32_t a, int32_t b, SplitMix64* rng) {
  uint32_t r = rng->Below(kLangTotal);
  if (r < kLangUniform * kLangTokens) {
    return static_cast<int32_t>(r / kLangUniform);
  }
  r -= kLangUniform * kLangTokens;
  const int32_t* fav = Table().favoured[a * kLangTokens + b];
  for (int k = 0; k < 2; ++k) {
    if (r < kLangFavoured[k]) return fav[k];
    r -= kLangFavoured[k];
  }
  return fav[2];
}

// P(c | a, b) for content indices, [kLangTokens].
std::vector<double> ContentProbs(int32_t a, int32_t b) {
  std::vector<double> p(kLangTokens,
                        static_cast<double>(kLangUniform) / kLangTotal);
  const int32_t* fav = Table().favoured[a * kLangTokens + b];
  for (int k = 0; k < 3; ++k) {
    p[fav[k]] += static_cast<double>(kLangFavoured[k]) / kLangTotal;
  }
  return p;
}

Example SampleLanguage(size_t length, SplitMix64* rng) {
  int32_t a = static_cast<int32_t>(rng->Below(kLangTokens));
  int32_t b = static_cast<int32_t>(rng->Below(kLangTokens));
  for (int i = 0; i < kLangBurnIn; ++i) {
    a = std::exchange(b, NextLanguageToken(a, b, rng));
  }
  Example ex;
  ex.tokens.assign(length, kBosToken);
  ex.targets.assign(length, -1);
  for (size_t t = 1; t < length; ++t) {
    a = std::exchange(b, NextLanguageToken(a, b, rng));
    ex.tokens[t] = kFirstContent + b;
  }
  for (size_t t = kLangFirstScored; t + 1 < length; ++t) {
    ex.targets[t] = ex.tokens[t + 1];
  }
  return ex;
}

double Entropy(const std::vector<double>& p) {
  double h = 0;
  for (double x : p) h -= x > 0 ? x * std::log(x) : 0.0;
  return h;
}

struct LanguageEntropies {
  double rate, bigram, unigram;
  // Accuracy of the argmax of P(next | two previous) and of the marginal.
  double best_accuracy, chance_accuracy;
};

// Stationary distribution pi(a, b) of the pair chain by power iteration,
// then the three conditional entropies under it.
const LanguageEntropies& Entropies() {
  static const LanguageEntropies* e = [] {
    std::vector<std::vector<double>> next(kLangContexts);
    for (int ab = 0; ab < kLangContexts; ++ab) {
      next[ab] = ContentProbs(ab / kLangTokens, ab % kLangTokens);
    }
    std::vector<double> pi(kLangContexts, 1.0 / kLangContexts), nxt;
    for (int it = 0; it < 10000; ++it) {
      nxt.assign(kLangContexts, 0.0);
      for (int ab = 0; ab < kLangContexts; ++ab) {
        const int b = ab % kLangTokens;
        for (int c = 0; c < kLangTokens; ++c) {
          nxt[b * kLangTokens + c] += pi[ab] * next[ab][c];
        }
      }
      double diff = 0;
      for (int ab = 0; ab < kLangContexts; ++ab) {
        diff += std::abs(nxt[ab] - pi[ab]);
      }
      pi.swap(nxt);
      if (diff < 1e-15) break;
    }
    auto* out = new LanguageEntropies{0, 0, 0, 0, 0};
    std::vector<double> marginal(kLangTokens, 0.0);
    std::vector<std::vector<double>> given_b(kLangTokens,
                                             std::vector<double>(kLangTokens));
    for (int ab = 0; ab < kLangContexts; ++ab) {
      out->rate += pi[ab] * Entropy(next[ab]);
      out->best_accuracy +=
          pi[ab] * *std::max_element(next[ab].begin(), next[ab].end());
      marginal[ab % kLangTokens] += pi[ab];
      for (int c = 0; c < kLangTokens; ++c) {
        given_b[ab % kLangTokens][c] += pi[ab] * next[ab][c];  // P(b, c)
      }
    }
    for (int b = 0; b < kLangTokens; ++b) {
      for (double& x : given_b[b]) x /= marginal[b];
      out->bigram += marginal[b] * Entropy(given_b[b]);
    }
    out->unigram = Entropy(marginal);
    out->chance_accuracy = *std::max_element(marginal.begin(), marginal.end());
    return out;
  }();
  return *e;
}

// ---------------------------------------------------------------------------
// Retrieval: <bos>, filler with kPairs (key value) pairs at uniformly random
// non-overlapping positions of the body, then the query block
// "? k v k v ..." asking kQueries of the keys once each, in random order.
// Only the query keys are scored (target = the value paired with that key
// earlier), so chance accuracy is 1/16; keys never occur in the filler, so
// the answer is unique. More pairs than queries matters: when every pair is
// queried, "a value of the body not yet answered" is right by elimination
// half of the time (1/4 + 1/3 + 1/2 + 1 over four queries) without any
// retrieval, and models learn exactly that; with 12 pairs and 8 queries
// elimination is worth 13%. T >= 42 has 12 pairs and 8 queries; shorter
// sequences fall back to as many pairs as queries (T = 16 or 17: 3;
// 18 .. 41: 4).

constexpr int kKeys = 16;
constexpr int kFillers = 16;
constexpr int kPairs = 12;
constexpr int kQueries = 8;
constexpr int32_t kFirstKey = kFirstContent;
constexpr int32_t kFirstValue = kFirstKey + kKeys;
constexpr int32_t kQueryToken = kFirstValue + kKeys;  // "?"
constexpr int32_t kFirstFiller = kQueryToken + 1;

Example SampleRetrieval(size_t length, SplitMix64* rng) {
  // Fits 1 + 2 * pairs (body) + 1 + 2 * queries (query) <= length.
  int pairs = kPairs, queries = kQueries;
  if (length < 2 + 2 * kPairs + 2 * kQueries) {
    pairs = queries = static_cast<int>(std::min<size_t>(4, (length - 2) / 4));
  }
  const size_t query_start = length - 1 - 2 * queries;  // index of "?"
  const size_t body = query_start - 1;                  // slots 1 .. body

  // Distinct keys, independent uniform values.
  int32_t keys[kPairs], values[kPairs];
  for (int i = 0; i < pairs; ++i) {
    do {
      keys[i] = static_cast<int32_t>(rng->Below(kKeys));
    } while (std::find(keys, keys + i, keys[i]) != keys + i);
    values[i] = static_cast<int32_t>(rng->Below(kKeys));
  }
  // Uniform non-overlapping placement: choose `pairs` distinct offsets in
  // [0, body - pairs), sort, and shift the i-th by i (stars and bars).
  size_t offsets[kPairs];
  for (int i = 0; i < pairs; ++i) {
    do {
      offsets[i] = rng->Below(static_cast<uint32_t>(body - pairs));
    } while (std::find(offsets, offsets + i, offsets[i]) != offsets + i);
  }
  // Insertion sort (at most kPairs elements; std::sort here trips a GCC
  // -Warray-bounds false positive on the fixed-size array).
  for (int i = 1; i < pairs; ++i) {
    for (int j = i; j > 0 && offsets[j - 1] > offsets[j]; --j) {
      std::swap(offsets[j - 1], offsets[j]);
    }
  }

  Example ex;
  ex.tokens.resize(length);
  ex.targets.assign(length, -1);
  ex.tokens[0] = kBosToken;
  for (size_t t = 1; t <= body; ++t) {
    ex.tokens[t] = kFirstFiller + static_cast<int32_t>(rng->Below(kFillers));
  }
  for (int i = 0; i < pairs; ++i) {  // pair i (in key order) at offsets[i]+i
    const size_t pos = 1 + offsets[i] + i;
    ex.tokens[pos] = kFirstKey + keys[i];
    ex.tokens[pos + 1] = kFirstValue + values[i];
  }
  // Queried pairs and their order: the first `queries` of a Fisher-Yates
  // shuffle of the pairs.
  int order[kPairs];
  for (int i = 0; i < pairs; ++i) order[i] = i;
  for (int i = pairs - 1; i > 0; --i) {
    std::swap(order[i], order[rng->Below(static_cast<uint32_t>(i + 1))]);
  }
  ex.tokens[query_start] = kQueryToken;
  for (int q = 0; q < queries; ++q) {
    const size_t pos = query_start + 1 + 2 * q;
    ex.tokens[pos] = kFirstKey + keys[order[q]];
    ex.tokens[pos + 1] = kFirstValue + values[order[q]];
    ex.targets[pos] = ex.tokens[pos + 1];
  }
  return ex;
}

}  // namespace

// ---------------------------------------------------------------------------

namespace {
const char* const kTaskNames[kNumTasks] = {"word-order", "language",
                                           "retrieval"};
}  // namespace

Status ParseTask(const std::string& name, TaskKind* out) {
  for (int i = 0; i < kNumTasks; ++i) {
    if (name == kTaskNames[i]) {
      *out = static_cast<TaskKind>(i);
      return Status::Ok();
    }
  }
  return Status::Invalid(StrCat("unknown task '", name, "', expected ",
                                JoinNames(kTaskNames, kNumTasks, " or ")));
}

const char* TaskName(TaskKind t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < kNumTasks ? kTaskNames[i] : "unknown";
}

Vocab::Vocab(std::vector<std::string> words) {
  words_ = {"<pad>", "<bos>", "<unk>"};
  words_.insert(words_.end(), std::make_move_iterator(words.begin()),
                std::make_move_iterator(words.end()));
  for (size_t i = 0; i < words_.size(); ++i) {
    ids_.emplace(words_[i], static_cast<int32_t>(i));  // keeps the first id
  }
}

const std::string& Vocab::Word(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= words_.size()) {
    return words_[kUnkToken];
  }
  return words_[id];
}

int32_t Vocab::Id(const std::string& w) const {
  const auto it = ids_.find(w);
  return it == ids_.end() ? kUnkToken : it->second;
}

std::vector<int32_t> Vocab::Encode(const std::string& text) const {
  std::vector<int32_t> ids;
  size_t i = 0;
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  };
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    size_t j = i;
    while (j < text.size() && !is_space(text[j])) ++j;
    if (j > i) ids.push_back(Id(text.substr(i, j - i)));
    i = j;
  }
  return ids;
}

std::string Vocab::Decode(const std::vector<int32_t>& ids) const {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) s += ' ';
    s += Word(ids[i]);
  }
  return s;
}

Vocab TaskVocab(TaskKind t) {
  std::vector<std::string> w;
  auto add = [&w](const char* prefix, int n) {
    for (int i = 0; i < n; ++i) w.push_back(StrCat(prefix, i));
  };
  switch (t) {
    case TaskKind::kWordOrder:
      w = WordOrderWords();
      break;
    case TaskKind::kLanguage:
      add("w", kLangTokens);
      break;
    case TaskKind::kRetrieval:
      add("k", kKeys);
      add("v", kKeys);
      w.push_back("?");
      add("f", kFillers);
      break;
  }
  return Vocab(std::move(w));
}

size_t MinTaskLength(TaskKind t) {
  // Retrieval: 1 + 2 * 3 (pairs) + 1 + 2 * 3 (query) = 14 <= 16.
  constexpr size_t kMin[] = {0, 8, 16};
  const int i = static_cast<int>(t);
  return i >= 0 && i < 3 ? kMin[i] : 0;
}

Status ValidateTaskLength(TaskKind t, size_t length) {
  if (length < MinTaskLength(t)) {
    return Status::Invalid(StrCat("task ", TaskName(t), " needs length >= ",
                                  MinTaskLength(t), ", got ", length));
  }
  return Status::Ok();
}

Example SampleExample(TaskKind t, size_t length, SplitMix64* rng) {
  if (!ValidateTaskLength(t, length).ok()) return Example();
  switch (t) {
    case TaskKind::kWordOrder:
      return SampleWordOrder(rng);
    case TaskKind::kLanguage:
      return SampleLanguage(length, rng);
    case TaskKind::kRetrieval:
      return SampleRetrieval(length, rng);
  }
  return Example();
}

std::vector<Example> SampleBatch(TaskKind t, size_t length, size_t count,
                                 uint64_t seed) {
  std::vector<Example> batch;
  if (!ValidateTaskLength(t, length).ok()) return batch;
  SplitMix64 rng(seed);
  batch.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    SplitMix64 ex_rng = rng.Fork();
    batch.push_back(SampleExample(t, length, &ex_rng));
  }
  return batch;
}

size_t NumClasses(TaskKind t) {
  return t == TaskKind::kWordOrder ? 2 * kPeoplePerLanguage : 0;
}

std::string ClassName(TaskKind t, int32_t label) {
  if (label < 0 || static_cast<size_t>(label) >= NumClasses(t)) return "";
  return kPeople[label / kPeoplePerLanguage][label % kPeoplePerLanguage];
}

std::vector<double> LanguageNextTokenProbs(int32_t a, int32_t b) {
  const size_t vocab = kFirstContent + kLangTokens;
  std::vector<double> p(vocab, 0.0);
  auto content = [](int32_t id) {
    return id >= kFirstContent && id < kFirstContent + kLangTokens;
  };
  if (!content(a) || !content(b)) return p;
  const std::vector<double> q =
      ContentProbs(a - kFirstContent, b - kFirstContent);
  std::copy(q.begin(), q.end(), p.begin() + kFirstContent);
  return p;
}

double LanguageEntropyRate() { return Entropies().rate; }
double LanguageBigramEntropy() { return Entropies().bigram; }
double LanguageUnigramEntropy() { return Entropies().unigram; }

TaskReference GetTaskReference(TaskKind t) {
  TaskReference r;
  r.task = t;
  switch (t) {
    case TaskKind::kWordOrder: {
      // Subjects are uniform over the 12 people; with positions the subject
      // is the token at position 1.
      const double k = static_cast<double>(NumClasses(t));
      r.chance_accuracy = 1.0 / k;
      r.chance_loss = std::log(k);
      r.best_accuracy = 1.0;
      r.best_loss = 0.0;
      // P(subject = A | {A, B}) = P(subject = B | {A, B}): a coin flip.
      r.order_free_accuracy = 0.5;
      r.order_free_loss = std::log(2.0);
      break;
    }
    case TaskKind::kLanguage: {
      const LanguageEntropies& e = Entropies();
      r.chance_accuracy = e.chance_accuracy;
      r.chance_loss = e.unigram;
      r.best_accuracy = e.best_accuracy;
      r.best_loss = e.rate;
      r.entropy_rate = e.rate;
      r.bigram_entropy = e.bigram;
      r.unigram_entropy = e.unigram;
      break;
    }
    case TaskKind::kRetrieval:
      // Values are uniform and independent of their keys; a key's value is
      // unique in the context (keys never occur in the filler).
      r.chance_accuracy = 1.0 / kKeys;
      r.chance_loss = std::log(static_cast<double>(kKeys));
      r.best_accuracy = 1.0;
      r.best_loss = 0.0;
      break;
  }
  return r;
}

}  // namespace posenc
