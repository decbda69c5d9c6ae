// Regressions for the bugs the differential cases found, each on one small
// case.
#include <string>
#include <vector>

#include "differential/harness.h"
#include "ops/attention.h"
#include "ops/rope_frequencies.h"
#include "reference/attention.h"

namespace posenc {
namespace diff {
namespace {

class DifferentialRegression : public test::PerTarget {};

// Attention with a Shaw key table and no value table read the (null) value
// table: a crash.
TEST_P(DifferentialRegression, ShawKeyTableWithoutValueTable) {
  Draw dr(1, 0);
  AttentionOptions o;
  o.H = o.Hkv = 2;
  o.Tq = o.Tk = 9;
  o.D = 5;
  o.shaw_clip = 2;
  const std::vector<float> table = dr.Vector(5 * o.D);
  o.shaw_k = table.data();
  const std::vector<float> q = dr.Vector(2 * 9 * 5), k = dr.Vector(2 * 9 * 5),
                           v = dr.Vector(2 * 9 * 5);
  std::vector<float> out(q.size());
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  const ref::AttentionResult want = ref::Attention(o, q, k, v);
  EXPECT_TRUE(Close("out", out, want.out, AttentionTolerances(o, want).out));
}

// Dynamic NTK inside one attention call: q and k were rotated with the
// frequencies of their own longest position, so a query at position 3 and
// keys up to 99 (past M = 16) used different bases and q.k lost the relative
// property. One context (the call's longest position) now serves both.
TEST_P(DifferentialRegression, DynamicRopeRotatesQueriesAndKeysAlike) {
  Draw dr(2, 0);
  AttentionOptions o;
  o.H = o.Hkv = 1;
  o.Tq = 1;
  o.Tk = 4;
  o.D = 8;
  o.causal = false;
  o.rope.enabled = true;
  o.rope.freq.head_dim = 8;
  o.rope.freq.scaling.type = RopeScalingType::kDynamic;
  o.rope.freq.scaling.factor = 4.0;
  o.rope.freq.scaling.max_position_embeddings = 16;
  const int32_t qpos[] = {3}, kpos[] = {0, 1, 2, 99};
  o.rope.q_positions = qpos;
  o.rope.k_positions = kpos;
  const std::vector<float> q = dr.Vector(8), k = dr.Vector(32),
                           v = dr.Vector(32);
  std::vector<float> out(8);
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  // The reference rotates both at the context of position 99.
  const ref::AttentionResult want = ref::Attention(o, q, k, v);
  EXPECT_TRUE(Close("out", out, want.out, AttentionTolerances(o, want).out));
}

// Queries past the keys (queryOffset > keyLength) with a sliding window see
// no key; the weights' zero fill ran from 0 to the aligned window start,
// past the end of the row (heap corruption). Rows are zeros, nothing else
// is written.
TEST_P(DifferentialRegression, WindowPastTheKeysWritesOnlyItsWeightsRow) {
  Draw dr(3, 0);
  AttentionOptions o;
  o.H = o.Hkv = 1;
  o.Tq = o.Tk = 37;
  o.D = 4;
  o.query_offset = 40;
  o.window = 2;
  const std::vector<float> q = dr.Vector(37 * 4), k = dr.Vector(37 * 4),
                           v = dr.Vector(37 * 4);
  const size_t n = 37 * 37, guard = 256;
  std::vector<float> weights(n + guard, 5.0f), out(37 * 4, 5.0f);
  o.weights = weights.data();
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  for (size_t e = 0; e < n; ++e) ASSERT_EQ(weights[e], 0.0f) << e;
  for (size_t e = n; e < n + guard; ++e) ASSERT_EQ(weights[e], 5.0f) << e;
  for (float x : out) EXPECT_EQ(x, 0.0f);
}

// LongRoPE's default attention factor sqrt(1 + ln s / ln L) is infinite for
// L = 1: such a config rotated everything to inf / NaN. It is rejected now.
TEST(DifferentialRegressionValidation, LongropeNeedsContextOfTwoForItsFactor) {
  RopeFrequencyConfig c;
  c.head_dim = 4;
  c.scaling.type = RopeScalingType::kLongrope;
  c.scaling.factor = 4.0;
  c.scaling.original_max_position_embeddings = 1;
  c.scaling.short_factor = c.scaling.long_factor = {1.0, 1.0};
  const Status s = ValidateRopeConfig(c);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("originalMaxPositionEmbeddings must be >= 2"),
            std::string::npos)
      << s.message();
  c.scaling.has_attention_factor = true;  // an explicit factor is fine
  EXPECT_TRUE(ValidateRopeConfig(c).ok());
}

POSENC_INSTANTIATE_PER_TARGET(DifferentialRegression);

}  // namespace
}  // namespace diff
}  // namespace posenc
