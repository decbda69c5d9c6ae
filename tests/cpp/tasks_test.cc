#include "model/tasks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace posenc {
namespace {

constexpr TaskKind kAllTasks[] = {TaskKind::kWordOrder, TaskKind::kLanguage,
                                  TaskKind::kRetrieval};

// FNV-1a over tokens, targets and label of a batch.
uint64_t Checksum(const std::vector<Example>& batch) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](int32_t x) {
    h = (h ^ static_cast<uint32_t>(x)) * 0x100000001b3ull;
  };
  for (const Example& ex : batch) {
    for (int32_t x : ex.tokens) mix(x);
    for (int32_t x : ex.targets) mix(x);
    mix(ex.label);
  }
  return h;
}

bool Same(const Example& a, const Example& b) {
  return a.tokens == b.tokens && a.targets == b.targets && a.label == b.label;
}

// Total variation distance between two count histograms.
double TotalVariation(const std::vector<double>& a,
                      const std::vector<double>& b) {
  double sa = 0, sb = 0, tv = 0;
  for (double x : a) sa += x;
  for (double x : b) sb += x;
  for (size_t i = 0; i < a.size(); ++i) tv += std::abs(a[i] / sa - b[i] / sb);
  return tv / 2;
}

// ---------------------------------------------------------------------------

TEST(Tasks, ParseAndName) {
  for (TaskKind t : kAllTasks) {
    TaskKind got = TaskKind::kWordOrder;
    ASSERT_TRUE(ParseTask(TaskName(t), &got).ok()) << TaskName(t);
    EXPECT_EQ(got, t);
  }
  EXPECT_STREQ(TaskName(TaskKind::kWordOrder), "word-order");
  TaskKind got;
  const Status s = ParseTask("wordorder", &got);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'wordorder'"), std::string::npos) << s.message();
}

TEST(Vocab, SpecialsAndSizes) {
  const size_t want_size[] = {29, 35, 52};
  for (TaskKind t : kAllTasks) {
    const Vocab v = TaskVocab(t);
    EXPECT_EQ(v.size(), want_size[static_cast<int>(t)]) << TaskName(t);
    EXPECT_EQ(v.Word(0), "<pad>");
    EXPECT_EQ(v.Word(1), "<bos>");
    EXPECT_EQ(v.Word(2), "<unk>");
    EXPECT_EQ(v.Id("<bos>"), kBosToken);
    for (size_t i = 0; i < v.size(); ++i) {
      EXPECT_EQ(v.Id(v.Word(static_cast<int32_t>(i))), static_cast<int32_t>(i))
          << TaskName(t) << " word " << v.Word(static_cast<int32_t>(i));
    }
  }
}

TEST(Vocab, RoundTripIncludingChinese) {
  const Vocab v = TaskVocab(TaskKind::kWordOrder);
  for (const std::string s :
       {"<bos> Alice really likes Bob", "<bos> 我 很 喜欢 你",
        "<bos> 小明 常常 帮助 小红", "<bos> Frank teaches Eve"}) {
    const std::vector<int32_t> ids = v.Encode(s);
    for (int32_t id : ids) EXPECT_NE(id, kUnkToken) << s;
    EXPECT_EQ(v.Decode(ids), s);
  }
  EXPECT_EQ(v.Encode("<bos> 我 很 喜欢 你").size(), 5u);
  // Runs of whitespace, leading/trailing blanks, unknown words.
  EXPECT_EQ(v.Encode("  Alice\t likes\nBob  "), v.Encode("Alice likes Bob"));
  EXPECT_EQ(v.Encode("Alice loves Bob")[1], kUnkToken);
  EXPECT_EQ(v.Encode("我很"), std::vector<int32_t>{kUnkToken});  // no spaces
  EXPECT_TRUE(v.Encode("").empty());
  EXPECT_EQ(v.Word(-1), "<unk>");
  EXPECT_EQ(v.Word(static_cast<int32_t>(v.size())), "<unk>");
  // A caller-built vocabulary: specials first, duplicates keep the first id.
  const Vocab w({"a", "b", "a"});
  EXPECT_EQ(w.size(), 6u);
  EXPECT_EQ(w.Id("a"), 3);
  EXPECT_EQ(w.Decode(w.Encode("b a c")), "b a <unk>");
}

TEST(Tasks, Determinism) {
  for (TaskKind t : kAllTasks) {
    const auto a = SampleBatch(t, 64, 32, 7);
    const auto b = SampleBatch(t, 64, 32, 7);
    const auto c = SampleBatch(t, 64, 32, 8);
    ASSERT_EQ(a.size(), 32u);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(Same(a[i], b[i]));
    EXPECT_NE(Checksum(a), Checksum(c)) << TaskName(t);
    // Examples within a batch differ too.
    size_t distinct = 0;
    for (size_t i = 1; i < a.size(); ++i) distinct += !Same(a[i], a[0]);
    EXPECT_GT(distinct, 20u) << TaskName(t);
    // SampleExample: same rng state, same example.
    SplitMix64 r1(99), r2(99);
    EXPECT_TRUE(Same(SampleExample(t, 100, &r1), SampleExample(t, 100, &r2)));
  }
}

TEST(Tasks, ShapesAndLengthValidation) {
  for (TaskKind t : kAllTasks) {
    const size_t vocab = TaskVocab(t).size();
    for (size_t len : {16, 17, 18, 64, 333, 1024}) {
      for (const Example& ex : SampleBatch(t, len, 20, len)) {
        if (t != TaskKind::kWordOrder) {
          ASSERT_EQ(ex.tokens.size(), len);
        }
        ASSERT_EQ(ex.targets.size(), ex.tokens.size());
        EXPECT_EQ(ex.tokens[0], kBosToken);
        for (size_t i = 0; i < ex.tokens.size(); ++i) {
          ASSERT_GE(ex.tokens[i], kBosToken);
          ASSERT_LT(ex.tokens[i], static_cast<int32_t>(vocab));
          if (i > 0) {
            ASSERT_GT(ex.tokens[i], kUnkToken);  // one <bos>, no pad
          }
          if (ex.targets[i] == -1) continue;
          // Scored targets are the next token.
          ASSERT_LT(i + 1, ex.tokens.size());
          EXPECT_EQ(ex.targets[i], ex.tokens[i + 1]);
        }
        EXPECT_EQ(ex.label >= 0, t == TaskKind::kWordOrder);
      }
    }
  }
  EXPECT_TRUE(ValidateTaskLength(TaskKind::kLanguage, 8).ok());
  EXPECT_TRUE(ValidateTaskLength(TaskKind::kWordOrder, 0).ok());
  const Status s = ValidateTaskLength(TaskKind::kRetrieval, 15);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "task retrieval needs length >= 16, got 15");
  SplitMix64 rng(1);
  EXPECT_TRUE(SampleExample(TaskKind::kLanguage, 7, &rng).tokens.empty());
  EXPECT_TRUE(SampleBatch(TaskKind::kRetrieval, 15, 4, 1).empty());
}

// ---------------------------------------------------------------------------
// Word-order.

TEST(WordOrder, SentencesAndLabels) {
  const Vocab v = TaskVocab(TaskKind::kWordOrder);
  ASSERT_EQ(NumClasses(TaskKind::kWordOrder), 12u);
  EXPECT_EQ(NumClasses(TaskKind::kLanguage), 0u);
  EXPECT_EQ(ClassName(TaskKind::kWordOrder, 0), "Alice");
  EXPECT_EQ(ClassName(TaskKind::kWordOrder, 6), "我");
  EXPECT_EQ(ClassName(TaskKind::kWordOrder, 12), "");
  const std::vector<std::string> adverbs = {"really", "often", "很", "常常"};
  auto language = [&v](int32_t id) {  // 0 English, 1 Chinese, by the word
    const std::string& w = v.Word(id);
    return static_cast<unsigned char>(w[0]) >= 0x80 ? 1 : 0;
  };
  const int n = 20000;
  int chinese = 0, with_adverb = 0;
  std::vector<int> label_count(12, 0);
  bool saw_example_sentence = false;
  for (const Example& ex : SampleBatch(TaskKind::kWordOrder, 0, n, 5)) {
    const size_t len = ex.tokens.size();
    ASSERT_TRUE(len == 4 || len == 5);
    ASSERT_GE(ex.label, 0);
    ASSERT_LT(ex.label, 12);
    const int32_t subject = ex.tokens[1], object = ex.tokens[len - 1];
    EXPECT_NE(subject, object);
    EXPECT_EQ(v.Word(subject), ClassName(TaskKind::kWordOrder, ex.label));
    const std::string& object_word = v.Word(object);
    bool object_is_person = false;
    for (int c = 0; c < 12; ++c) {
      object_is_person |= object_word == ClassName(TaskKind::kWordOrder, c);
    }
    EXPECT_TRUE(object_is_person) << v.Decode(ex.tokens);
    for (int32_t id : ex.tokens) {
      if (id != kBosToken) {
        ASSERT_EQ(language(id), language(subject));
      }
    }
    if (len == 5) {
      ++with_adverb;
      EXPECT_NE(std::find(adverbs.begin(), adverbs.end(), v.Word(ex.tokens[2])),
                adverbs.end());
    }
    chinese += language(subject);
    ++label_count[ex.label];
    saw_example_sentence |= v.Decode(ex.tokens) == "<bos> 我 很 喜欢 你";
  }
  EXPECT_TRUE(saw_example_sentence);
  EXPECT_NEAR(chinese / double{n}, 0.5, 0.02);
  EXPECT_NEAR(with_adverb / double{n}, 0.5, 0.02);
  for (int c = 0; c < 12; ++c)
    EXPECT_NEAR(label_count[c] / double{n}, 1 / 12.0, 0.01);
}

// The reason a position-free encoder is at chance: "A verb B" and "B verb A"
// have the same multiset of tokens but different labels, and are equally
// likely. The best classifier of the multiset alone gets ~50%.
TEST(WordOrder, TokenMultisetCannotBeatChance) {
  const Vocab v = TaskVocab(TaskKind::kWordOrder);
  const std::vector<int32_t> a = v.Encode("<bos> Alice really likes Bob");
  const std::vector<int32_t> b = v.Encode("<bos> Bob really likes Alice");
  EXPECT_NE(a, b);
  EXPECT_TRUE(std::is_permutation(a.begin(), a.end(), b.begin()));

  // Empirical Bayes accuracy of the multiset classifier vs position 1.
  std::map<std::vector<int32_t>, std::vector<int>> by_bag;
  const int n = 200000;
  int positional_correct = 0;
  for (const Example& ex : SampleBatch(TaskKind::kWordOrder, 0, n, 11)) {
    std::vector<int32_t> bag = ex.tokens;
    std::sort(bag.begin(), bag.end());
    auto& counts = by_bag[bag];
    counts.resize(12, 0);
    ++counts[ex.label];
    positional_correct +=
        v.Word(ex.tokens[1]) == ClassName(TaskKind::kWordOrder, ex.label);
  }
  int bag_correct = 0;
  for (const auto& [bag, counts] : by_bag) {
    bag_correct += *std::max_element(counts.begin(), counts.end());
    // Exactly two labels per bag: the two people in it.
    EXPECT_EQ(std::count_if(counts.begin(), counts.end(),
                            [](int c) { return c > 0; }),
              2);
  }
  const double bag_acc = bag_correct / double{n};
  std::printf(
      "word-order: %zu token multisets, best multiset accuracy %.4f, "
      "position-1 accuracy %.4f\n",
      by_bag.size(), bag_acc, positional_correct / double{n});
  EXPECT_EQ(by_bag.size(), 450u);  // 2 langs * C(6,2) pairs * 5 verbs * 3
  EXPECT_LT(bag_acc, 0.53);
  EXPECT_EQ(positional_correct, n);
}

// ---------------------------------------------------------------------------
// Language.

constexpr int32_t kLangFirst = 3, kLangN = 32;

TEST(Language, GeneratorTable) {
  const double favoured[] = {0.5525, 0.2525, 0.1225};
  for (int32_t a = kLangFirst; a < kLangFirst + kLangN; ++a) {
    for (int32_t b = kLangFirst; b < kLangFirst + kLangN; ++b) {
      std::vector<double> p = LanguageNextTokenProbs(a, b);
      ASSERT_EQ(p.size(), 35u);
      double sum = 0;
      for (double x : p) sum += x;
      EXPECT_NEAR(sum, 1.0, 1e-12);
      EXPECT_EQ(p[0] + p[1] + p[2], 0.0);
      std::sort(p.rbegin(), p.rend());
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(p[k], favoured[k], 1e-12);
      EXPECT_NEAR(p[3], 0.0025, 1e-12);
    }
  }
  EXPECT_EQ(LanguageNextTokenProbs(kBosToken, 5)[5], 0.0);
  // The favourites depend on both previous tokens, not only the last one.
  int differs = 0;
  for (int32_t a = kLangFirst + 1; a < kLangFirst + kLangN; ++a) {
    differs += LanguageNextTokenProbs(a, 7) != LanguageNextTokenProbs(3, 7);
  }
  EXPECT_GE(differs, 28);
}

TEST(Language, Entropies) {
  const double rate = LanguageEntropyRate();
  const double bigram = LanguageBigramEntropy();
  const double unigram = LanguageUnigramEntropy();
  std::printf(
      "language entropy (nats/token): rate %.6f, bigram %.6f, "
      "unigram %.6f, uniform ln(32) %.6f\n",
      rate, bigram, unigram, std::log(32.0));
  // Every context has the same distribution up to relabelling.
  const double p[] = {0.5525, 0.2525, 0.1225};
  double h = -29 * 0.0025 * std::log(0.0025);
  for (double x : p) h -= x * std::log(x);
  EXPECT_NEAR(rate, h, 1e-9);
  EXPECT_LT(rate, unigram - 1.5);
  EXPECT_LT(rate, bigram - 1.0);
  EXPECT_LT(bigram, unigram);
  EXPECT_LE(unigram, std::log(32.0) + 1e-12);
}

struct LanguageStats {
  std::vector<double> unigram;           // [32] counts
  std::vector<std::vector<double>> tri;  // [32*32][32] counts of c after a b
  double nll = 0;                        // sum of -ln P(target | context)
  double scored = 0;
};

LanguageStats CollectLanguage(size_t length, size_t count, uint64_t seed) {
  LanguageStats s;
  s.unigram.assign(kLangN, 0);
  s.tri.assign(kLangN * kLangN, std::vector<double>(kLangN, 0));
  for (const Example& ex :
       SampleBatch(TaskKind::kLanguage, length, count, seed)) {
    for (size_t t = 1; t < length; ++t) {
      ++s.unigram[ex.tokens[t] - kLangFirst];
      if (t < 3) continue;
      const int32_t a = ex.tokens[t - 2], b = ex.tokens[t - 1],
                    c = ex.tokens[t];
      ++s.tri[(a - kLangFirst) * kLangN + (b - kLangFirst)][c - kLangFirst];
    }
    for (size_t t = 0; t + 1 < length; ++t) {
      if (ex.targets[t] < 0) continue;
      s.nll -= std::log(LanguageNextTokenProbs(ex.tokens[t - 1],
                                               ex.tokens[t])[ex.targets[t]]);
      ++s.scored;
    }
  }
  return s;
}

TEST(Language, TargetsAndScoredPositions) {
  for (size_t len : {8, 64, 1024}) {
    for (const Example& ex : SampleBatch(TaskKind::kLanguage, len, 5, 3)) {
      // Positions 0 and 1 lack two tokens of context; the last has no next.
      EXPECT_EQ(ex.targets[0], -1);
      EXPECT_EQ(ex.targets[1], -1);
      EXPECT_EQ(ex.targets[len - 1], -1);
      for (size_t t = 2; t + 1 < len; ++t)
        EXPECT_EQ(ex.targets[t], ex.tokens[t + 1]);
    }
  }
}

TEST(Language, EmpiricalFrequenciesMatchTable) {
  const LanguageStats s = CollectLanguage(1024, 400, 17);  // ~409k transitions
  // Pearson chi-square over all contexts against the generator's table:
  // E[chi2] = degrees of freedom; a wrong table gives many times more.
  double chi2 = 0, dof = 0, hit[3] = {0, 0, 0}, total = 0;
  for (int ab = 0; ab < kLangN * kLangN; ++ab) {
    const std::vector<double> p = LanguageNextTokenProbs(
        kLangFirst + ab / kLangN, kLangFirst + ab % kLangN);
    double n = 0;
    for (double c : s.tri[ab]) n += c;
    if (n < 50) continue;
    dof += kLangN - 1;
    for (int c = 0; c < kLangN; ++c) {
      const double e = n * p[kLangFirst + c];
      chi2 += (s.tri[ab][c] - e) * (s.tri[ab][c] - e) / e;
      // Rank of c among the context's probabilities.
      int rank = 0;
      for (int d = 0; d < kLangN; ++d)
        rank += p[kLangFirst + d] > p[kLangFirst + c];
      if (rank < 3) hit[rank] += s.tri[ab][c];
    }
    total += n;
  }
  std::printf(
      "language: chi2/dof = %.4f over %.0f dof, top-3 frequencies "
      "%.4f %.4f %.4f\n",
      chi2 / dof, dof, hit[0] / total, hit[1] / total, hit[2] / total);
  EXPECT_GT(dof, 900 * 31);
  EXPECT_LT(chi2 / dof, 1.1);
  EXPECT_GT(chi2 / dof, 0.9);
  EXPECT_NEAR(hit[0] / total, 0.5525, 0.005);
  EXPECT_NEAR(hit[1] / total, 0.2525, 0.005);
  EXPECT_NEAR(hit[2] / total, 0.1225, 0.005);
  // The generator's own loss on the scored targets is the entropy rate.
  EXPECT_NEAR(s.nll / s.scored, LanguageEntropyRate(), 0.01);
  // The plug-in unigram and bigram entropies match the stationary ones.
  double n = 0, hu = 0;
  for (double c : s.unigram) n += c;
  for (double c : s.unigram) hu -= c > 0 ? c / n * std::log(c / n) : 0;
  EXPECT_NEAR(hu, LanguageUnigramEntropy(), 0.01);
  double hb = 0, m = 0;
  for (int b = 0; b < kLangN; ++b) {
    std::vector<double> next(kLangN, 0);
    for (int a = 0; a < kLangN; ++a) {
      for (int c = 0; c < kLangN; ++c) next[c] += s.tri[a * kLangN + b][c];
    }
    double nb = 0;
    for (double c : next) nb += c;
    for (double c : next) hb -= c > 0 ? c * std::log(c / nb) : 0;
    m += nb;
  }
  EXPECT_NEAR(hb / m, LanguageBigramEntropy(), 0.01);
}

TEST(Language, Stationary) {
  // First vs second half of long sequences.
  std::vector<double> first(kLangN, 0), second(kLangN, 0);
  const size_t len = 4096;
  for (const Example& ex : SampleBatch(TaskKind::kLanguage, len, 60, 23)) {
    for (size_t t = 1; t < len; ++t) {
      ++(t < len / 2 ? first : second)[ex.tokens[t] - kLangFirst];
    }
  }
  const double tv_halves = TotalVariation(first, second);
  // The first tokens after <bos> (after burn-in) vs deep in the sequence.
  std::vector<double> early(kLangN, 0);
  for (const Example& ex : SampleBatch(TaskKind::kLanguage, 8, 20000, 29)) {
    for (size_t t = 1; t < 8; ++t) ++early[ex.tokens[t] - kLangFirst];
  }
  const double tv_early = TotalVariation(early, second);
  // A far-from-uniform stationary law makes these comparisons meaningful.
  const double tv_uniform =
      TotalVariation(second, std::vector<double>(kLangN, 1.0));
  std::printf(
      "language: TV(first half, second half) %.4f, TV(positions 1-7, "
      "second half) %.4f, TV(second half, uniform) %.4f\n",
      tv_halves, tv_early, tv_uniform);
  EXPECT_LT(tv_halves, 0.02);
  EXPECT_LT(tv_early, 0.02);
}

// ---------------------------------------------------------------------------
// Retrieval.

constexpr int32_t kKey0 = 3, kValue0 = 19, kQuery = 35, kFiller0 = 36;

bool IsKey(int32_t id) { return id >= kKey0 && id < kValue0; }
bool IsValue(int32_t id) { return id >= kValue0 && id < kQuery; }

TEST(Retrieval, VocabLayout) {
  const Vocab v = TaskVocab(TaskKind::kRetrieval);
  EXPECT_EQ(v.Id("k0"), kKey0);
  EXPECT_EQ(v.Id("v0"), kValue0);
  EXPECT_EQ(v.Id("?"), kQuery);
  EXPECT_EQ(v.Id("f0"), kFiller0);
  EXPECT_EQ(v.Id("f15"), 51);
}

// Checks one example; returns the pair (key) positions in the body.
std::vector<size_t> CheckRetrieval(const Example& ex) {
  const size_t len = ex.tokens.size();
  // 12 pairs, 8 of them asked, from T = 42; shorter: every pair asked.
  const size_t pairs = len >= 42 ? 12 : (len >= 18 ? 4 : 3);
  const size_t queries = len >= 42 ? 8 : pairs;
  const size_t query = len - 1 - 2 * queries;
  std::vector<size_t> key_pos;
  EXPECT_EQ(ex.tokens[query], kQuery);
  for (size_t t = 1; t < query; ++t) {
    const int32_t id = ex.tokens[t];
    EXPECT_NE(id, kQuery);
    EXPECT_EQ(ex.targets[t], -1);
    if (IsKey(id)) {
      key_pos.push_back(t);
      EXPECT_LT(t + 1, query);  // the pair lies wholly before the query
      EXPECT_TRUE(IsValue(ex.tokens[t + 1]));
    } else if (IsValue(id)) {
      EXPECT_TRUE(IsKey(ex.tokens[t - 1]));
    }
  }
  EXPECT_EQ(key_pos.size(), pairs);
  int scored = 0;
  std::vector<int32_t> asked;
  for (size_t t = query + 1; t < len; ++t) {
    if ((t - query) % 2 == 1) {
      EXPECT_TRUE(IsKey(ex.tokens[t]));
      asked.push_back(ex.tokens[t]);
      // Scored: the value paired with this key earlier (exactly one pair).
      int found = 0;
      for (size_t p : key_pos) {
        if (ex.tokens[p] != ex.tokens[t]) continue;
        ++found;
        EXPECT_EQ(ex.targets[t], ex.tokens[p + 1]);
      }
      EXPECT_EQ(found, 1);
      ++scored;
    } else {
      EXPECT_TRUE(IsValue(ex.tokens[t]));
      EXPECT_EQ(ex.targets[t], -1);
    }
  }
  EXPECT_EQ(scored, static_cast<int>(queries));
  std::sort(asked.begin(), asked.end());
  EXPECT_EQ(std::unique(asked.begin(), asked.end()), asked.end());  // distinct
  return key_pos;
}

TEST(Retrieval, StructureForAllLengths) {
  std::vector<size_t> lengths;
  for (size_t len = 16; len <= 130; ++len) lengths.push_back(len);
  for (size_t len : {255, 1000, 1024, 4095, 4096}) lengths.push_back(len);
  for (size_t len : lengths) {
    for (const Example& ex : SampleBatch(TaskKind::kRetrieval, len, 8, len)) {
      ASSERT_EQ(ex.tokens.size(), len);
      CheckRetrieval(ex);
      if (HasFailure()) FAIL() << "length " << len;
    }
  }
}

TEST(Retrieval, PairsSpreadOverTheWholeContext) {
  const size_t len = 4096, body = len - 18;
  std::vector<double> quarter(4, 0);
  double farthest = 0;
  int first_asked_is_earliest = 0;
  std::vector<double> values(16, 0);
  const int n = 1000;
  for (const Example& ex : SampleBatch(TaskKind::kRetrieval, len, n, 31)) {
    const std::vector<size_t> pos = CheckRetrieval(ex);
    for (size_t p : pos) {
      ++quarter[std::min<size_t>(3, 4 * (p - 1) / body)];
      farthest = std::max(farthest, double(len - 17 - p) / len);
      ++values[ex.tokens[p + 1] - kValue0];
    }
    first_asked_is_earliest += ex.tokens[len - 16] == ex.tokens[pos[0]];
  }
  std::printf(
      "retrieval T=4096: pair share per quarter of the context %.3f "
      "%.3f %.3f %.3f, farthest pair %.3f T before the query\n",
      quarter[0] / (12 * n), quarter[1] / (12 * n), quarter[2] / (12 * n),
      quarter[3] / (12 * n), farthest);
  for (double q : quarter) EXPECT_NEAR(q / (12 * n), 0.25, 0.03);
  EXPECT_GT(farthest, 0.99);
  // The asked pairs are a random subset in random order: the first query
  // is the earliest of the 12 pairs one time in 12.
  EXPECT_NEAR(first_asked_is_earliest / double{n}, 1.0 / 12, 0.03);
  // Values are uniform: chance accuracy 1/16.
  EXPECT_LT(TotalVariation(values, std::vector<double>(16, 1.0)), 0.06);
}

// ---------------------------------------------------------------------------
// Reference levels: each checked against the vocabulary and sampled data.

// -sum p ln p of a count histogram.
double PlugInEntropy(const std::vector<double>& counts) {
  double n = 0, h = 0;
  for (double c : counts) n += c;
  for (double c : counts) h -= c > 0 ? c / n * std::log(c / n) : 0.0;
  return h;
}

double MaxShare(const std::vector<double>& counts) {
  double n = 0;
  for (double c : counts) n += c;
  return *std::max_element(counts.begin(), counts.end()) / n;
}

void ExpectNotApplicable(std::initializer_list<double> values) {
  for (double v : values) EXPECT_TRUE(std::isnan(v)) << v;
}

TEST(TaskReference, WordOrderFromTheVocabularyAndSamples) {
  const TaskReference r = GetTaskReference(TaskKind::kWordOrder);
  EXPECT_EQ(r.task, TaskKind::kWordOrder);
  // The classes are the people of the vocabulary.
  const Vocab v = TaskVocab(TaskKind::kWordOrder);
  int people = 0;
  for (int32_t k = 0; !ClassName(TaskKind::kWordOrder, k).empty(); ++k) {
    people += v.Id(ClassName(TaskKind::kWordOrder, k)) != kUnkToken;
  }
  EXPECT_EQ(people, 12);
  EXPECT_DOUBLE_EQ(r.chance_accuracy, 1.0 / people);
  EXPECT_NEAR(r.chance_loss, std::log(static_cast<double>(people)), 1e-12);
  // Sampled: labels uniform; the multiset of tokens decides between two.
  // The multiset classifier is fitted on even examples and scored on odd
  // ones (fitted and scored on the same data, its accuracy is biased up).
  std::vector<double> labels(people, 0);
  std::map<std::vector<int32_t>, std::vector<double>> fit, held_out;
  const int n = 200000;
  int i = 0;
  for (const Example& ex : SampleBatch(TaskKind::kWordOrder, 0, n, 71)) {
    ++labels[ex.label];
    std::vector<int32_t> bag = ex.tokens;
    std::sort(bag.begin(), bag.end());
    std::vector<double>& c = (i++ % 2 ? held_out : fit)[bag];
    c.resize(people, 0);
    ++c[ex.label];
  }
  EXPECT_NEAR(MaxShare(labels), r.chance_accuracy, 0.003);
  EXPECT_NEAR(PlugInEntropy(labels), r.chance_loss, 0.002);
  double bag_correct = 0, bag_loss = 0;
  for (const auto& [bag, c] : held_out) {
    const std::vector<double>& f = fit[bag];
    ASSERT_EQ(f.size(), c.size());
    bag_correct += c[std::max_element(f.begin(), f.end()) - f.begin()];
    double m = 0;
    for (double x : c) m += x;
    bag_loss += PlugInEntropy(c) * m;
  }
  bag_correct /= n / 2;
  bag_loss /= n / 2;
  std::printf(
      "word-order reference: order-free accuracy %.4f (sampled %.4f)"
      ", loss %.4f (sampled %.4f)\n",
      r.order_free_accuracy, bag_correct, r.order_free_loss, bag_loss);
  EXPECT_NEAR(bag_correct, r.order_free_accuracy, 0.01);
  EXPECT_NEAR(bag_loss, r.order_free_loss, 0.01);
  // With positions the subject is the token at position 1: no uncertainty.
  EXPECT_EQ(r.best_accuracy, 1.0);
  EXPECT_EQ(r.best_loss, 0.0);
  ExpectNotApplicable({r.entropy_rate, r.bigram_entropy, r.unigram_entropy});
}

TEST(TaskReference, RetrievalFromTheVocabularyAndSamples) {
  const TaskReference r = GetTaskReference(TaskKind::kRetrieval);
  EXPECT_EQ(r.task, TaskKind::kRetrieval);
  const Vocab v = TaskVocab(TaskKind::kRetrieval);
  int values = 0;
  for (size_t id = 0; id < v.size(); ++id) {
    values += v.Word(static_cast<int32_t>(id))[0] == 'v';
  }
  EXPECT_EQ(values, 16);
  EXPECT_DOUBLE_EQ(r.chance_accuracy, 1.0 / values);
  EXPECT_NEAR(r.chance_loss, std::log(static_cast<double>(values)), 1e-12);
  // Every target is a value token, uniform; CheckRetrieval asserts that each
  // has exactly one pair with its key in the context (best accuracy 1).
  std::vector<double> targets(values, 0);
  for (const Example& ex : SampleBatch(TaskKind::kRetrieval, 64, 8000, 72)) {
    CheckRetrieval(ex);
    for (int32_t t : ex.targets) {
      if (t < 0) continue;
      ASSERT_TRUE(IsValue(t)) << t;
      ++targets[t - kValue0];
    }
  }
  EXPECT_NEAR(MaxShare(targets), r.chance_accuracy, 0.005);
  EXPECT_NEAR(PlugInEntropy(targets), r.chance_loss, 0.002);
  EXPECT_EQ(r.best_accuracy, 1.0);
  EXPECT_EQ(r.best_loss, 0.0);
  ExpectNotApplicable({r.entropy_rate, r.bigram_entropy, r.unigram_entropy,
                       r.order_free_accuracy, r.order_free_loss});
}

TEST(TaskReference, LanguageFromSamples) {
  const TaskReference r = GetTaskReference(TaskKind::kLanguage);
  EXPECT_EQ(r.task, TaskKind::kLanguage);
  // The entropies are the generator's (checked against samples above).
  EXPECT_EQ(r.entropy_rate, LanguageEntropyRate());
  EXPECT_EQ(r.bigram_entropy, LanguageBigramEntropy());
  EXPECT_EQ(r.unigram_entropy, LanguageUnigramEntropy());
  EXPECT_EQ(r.best_loss, r.entropy_rate);
  EXPECT_EQ(r.chance_loss, r.unigram_entropy);
  // Accuracies: always the most frequent token; the argmax of the true
  // next-token distribution (from LanguageNextTokenProbs) in each context.
  const LanguageStats s = CollectLanguage(1024, 400, 73);
  double hits = 0, total = 0;
  for (int ab = 0; ab < kLangN * kLangN; ++ab) {
    const std::vector<double> p = LanguageNextTokenProbs(
        kLangFirst + ab / kLangN, kLangFirst + ab % kLangN);
    const int best = static_cast<int>(std::max_element(p.begin(), p.end()) -
                                      p.begin() - kLangFirst);
    hits += s.tri[ab][best];
    for (double c : s.tri[ab]) total += c;
  }
  std::printf(
      "language reference: chance accuracy %.4f (sampled %.4f), best "
      "accuracy %.4f (sampled %.4f)\n",
      r.chance_accuracy, MaxShare(s.unigram), r.best_accuracy, hits / total);
  EXPECT_NEAR(MaxShare(s.unigram), r.chance_accuracy, 0.003);
  EXPECT_NEAR(hits / total, r.best_accuracy, 0.005);
  EXPECT_GT(r.chance_accuracy, 1.0 / kLangN);
  ExpectNotApplicable({r.order_free_accuracy, r.order_free_loss});
}

}  // namespace
}  // namespace posenc
