// The attention kernel against the float64 reference of
// reference/attention.h (every logit materialised), for combinations of
// encodings, masks, head grouping and shapes; permutation equivariance; weights
// output; edge cases.
#include "ops/attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "ops/alibi.h"
#include "reference/attention.h"
#include "test_util.h"

namespace posenc {
namespace {

using test::Rng;

struct Case {
  const char* name;
  size_t H, Hkv, Tq, Tk, D;
  bool causal = true;
  int64_t window = 0;
  bool key_mask = false;
  int encoding = 0;  // 0 none, 1 rope half, 2 rope interleaved partial+yarn,
                     // 3 alibi, 4 t5, 5 shaw, 6 bias, 7 xpos, 8 rope from mask
};

class AttentionKernelTest : public test::PerTarget {};

void RunCase(const Case& cs, uint64_t seed) {
  Rng rng(seed);
  AttentionOptions o;
  o.H = cs.H;
  o.Hkv = cs.Hkv;
  o.Tq = cs.Tq;
  o.Tk = cs.Tk;
  o.D = cs.D;
  o.causal = cs.causal;
  o.window = cs.window;
  const std::vector<float> q = rng.Vector(cs.H * cs.Tq * cs.D);
  const std::vector<float> k = rng.Vector(cs.Hkv * cs.Tk * cs.D);
  const std::vector<float> v = rng.Vector(cs.Hkv * cs.Tk * cs.D);
  std::vector<uint8_t> mask(cs.Tk, 1);
  if (cs.key_mask) {  // left padding: the first Tk/4 slots are pads
    for (size_t j = 0; j < cs.Tk / 4; ++j) mask[j] = 0;
    if (cs.Tk > 5) mask[cs.Tk / 2] = 0;
    o.key_mask = mask.data();
  }
  std::vector<float> slopes(cs.H), t5(32 * cs.H), table_k, table_v, bias;
  switch (cs.encoding) {
    case 1:
      o.rope.enabled = true;
      o.rope.freq.head_dim = int(cs.D);
      break;
    case 2:
      o.rope.enabled = true;
      o.rope.freq.head_dim = int(cs.D);
      o.rope.freq.rotary_dim = int(cs.D / 2) & ~1;
      o.rope.layout = RopeLayout::kInterleaved;
      o.rope.freq.scaling.type = RopeScalingType::kYarn;
      o.rope.freq.scaling.factor = 4;
      o.rope.freq.scaling.original_max_position_embeddings = 16;
      break;
    case 3:
      AlibiSlopeValues(cs.H, AlibiSlopes::kPaper, slopes.data());
      o.alibi_slopes = slopes.data();
      break;
    case 4:
      t5 = rng.Vector(32 * cs.H);
      o.t5_table = t5.data();
      o.t5_bidirectional = !cs.causal;
      o.scale = 1.0f;
      break;
    case 5:
      o.shaw_clip = 3;
      table_k = rng.Vector(7 * cs.D);
      table_v = rng.Vector(7 * cs.D);
      o.shaw_k = table_k.data();
      o.shaw_v = table_v.data();
      break;
    case 6:
      bias = rng.Vector(cs.H * cs.Tq * cs.Tk);
      o.bias = bias.data();
      break;
    case 7:
      o.rope.enabled = true;
      o.rope.freq.head_dim = int(cs.D);
      o.rope.layout = RopeLayout::kInterleaved;
      o.rope.xpos = true;
      o.rope.xpos_scale_base = 64;
      break;
    case 8:
      o.rope.enabled = true;
      o.rope.freq.head_dim = int(cs.D);
      o.rope.positions_from_mask = true;
      break;
  }
  std::vector<float> weights(cs.H * cs.Tq * cs.Tk, -1.0f);
  o.weights = weights.data();
  std::vector<float> out(cs.H * cs.Tq * cs.D, -1.0f);
  const Status s = Attention(o, q.data(), k.data(), v.data(), out.data());
  ASSERT_TRUE(s.ok()) << s.message();
  // The reference derives the positions from the options itself.
  const ref::AttentionResult want = ref::Attention(o, q, k, v);
  EXPECT_TRUE(test::AllClose(out, want.out, 2e-5, 1e-4)) << cs.name;
  EXPECT_TRUE(test::AllClose(weights, want.weights, 2e-6, 1e-4)) << cs.name;
  // Without weights requested, the output is the same (one pass).
  o.weights = nullptr;
  std::vector<float> out2(out.size());
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out2.data()).ok());
  EXPECT_EQ(out, out2) << cs.name;
}

TEST_P(AttentionKernelTest, MatchesFloat64ReferenceAcrossCombinations) {
  uint64_t seed = 100;
  for (int enc = 0; enc <= 8; ++enc) {
    for (bool causal : {true, false}) {
      for (auto [H, Hkv] :
           std::vector<std::pair<size_t, size_t>>{{4, 4}, {4, 2}, {4, 1}}) {
        for (auto [Tq, Tk] : std::vector<std::pair<size_t, size_t>>{
                 {1, 1}, {5, 5}, {3, 9}, {17, 17}, {70, 70}, {1, 67}}) {
          for (size_t D : {8, 6, 64}) {
            for (int variant = 0; variant < 3; ++variant) {
              if (enc == 8 && variant != 1) continue;
              Case cs{"combo", H, Hkv, Tq, Tk, D};
              cs.causal = causal;
              cs.encoding = enc;
              cs.key_mask = variant == 1;
              cs.window = variant == 2 ? 4 : 0;
              SCOPED_TRACE(testing::Message()
                           << "enc " << enc << " causal " << causal << " H "
                           << H << "/" << Hkv << " Tq " << Tq << " Tk " << Tk
                           << " D " << D << " variant " << variant);
              RunCase(cs, seed++);
              if (HasFatalFailure()) return;
            }
          }
        }
      }
    }
  }
}

TEST_P(AttentionKernelTest, LongSequenceRowsMatchReference) {
  // T = 8192, causal, ALiBi: a sample of rows checked against float64.
  Rng rng(7);
  AttentionOptions o;
  o.H = 2;
  o.Hkv = 1;
  o.Tq = o.Tk = 8192;
  o.D = 16;
  std::vector<float> slopes(2);
  AlibiSlopeValues(2, AlibiSlopes::kPaper, slopes.data());
  o.alibi_slopes = slopes.data();
  const std::vector<float> q = rng.Vector(o.H * o.Tq * o.D);
  const std::vector<float> k = rng.Vector(o.Tk * o.D),
                           v = rng.Vector(o.Tk * o.D);
  std::vector<float> out(q.size());
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  const std::vector<size_t> rows = {0, 1, 63, 64, 65, 1000, 4097, 8190, 8191};
  const ref::AttentionResult want =
      ref::Attention(o, q, k, v, &rows, /*with_weights=*/false);
  for (size_t h = 0; h < o.H; ++h) {
    for (size_t i : rows) {
      EXPECT_TRUE(test::AllClose(out.data() + (h * o.Tq + i) * o.D,
                                 want.out.data() + (h * o.Tq + i) * o.D, o.D,
                                 2e-5, 1e-4))
          << "row " << i;
    }
  }
}

TEST_P(AttentionKernelTest, PermutationEquivariantOnlyWithoutPositionOrMask) {
  Rng rng(8);
  const size_t H = 2, T = 23, D = 16;
  const std::vector<float> q = rng.Vector(H * T * D), k = rng.Vector(H * T * D),
                           v = rng.Vector(H * T * D);
  std::vector<size_t> perm(T);
  std::iota(perm.begin(), perm.end(), 0);
  std::reverse(perm.begin(), perm.begin() + 11);
  std::swap(perm[15], perm[20]);
  auto permute = [&](const std::vector<float>& x) {
    std::vector<float> y(x.size());
    for (size_t h = 0; h < H; ++h) {
      for (size_t t = 0; t < T; ++t) {
        std::copy_n(x.data() + (h * T + perm[t]) * D, D,
                    y.data() + (h * T + t) * D);
      }
    }
    return y;
  };
  // max |out(permuted input) - permute(out(input))|
  auto gap = [&](AttentionOptions o) {
    std::vector<float> a(q.size()), b(q.size());
    EXPECT_TRUE(Attention(o, q.data(), k.data(), v.data(), a.data()).ok());
    const std::vector<float> qp = permute(q), kp = permute(k), vp = permute(v);
    EXPECT_TRUE(Attention(o, qp.data(), kp.data(), vp.data(), b.data()).ok());
    const std::vector<float> ap = permute(a);
    double worst = 0;
    for (size_t e = 0; e < a.size(); ++e) {
      worst = std::max(worst, double(std::abs(ap[e] - b[e])));
    }
    return worst;
  };
  AttentionOptions o;
  o.H = o.Hkv = H;
  o.Tq = o.Tk = T;
  o.D = D;
  o.causal = false;
  EXPECT_LT(gap(o), 1e-6) << "NoPE, no mask: exactly equivariant";
  AttentionOptions causal = o;
  causal.causal = true;
  EXPECT_GT(gap(causal), 1e-2) << "a causal mask leaks order";
  AttentionOptions rope = o;
  rope.rope.enabled = true;
  rope.rope.freq.head_dim = int(D);
  EXPECT_GT(gap(rope), 1e-2) << "RoPE breaks equivariance";
  std::vector<float> slopes(H);
  AlibiSlopeValues(H, AlibiSlopes::kPaper, slopes.data());
  AttentionOptions alibi = o;
  alibi.alibi_slopes = slopes.data();
  EXPECT_GT(gap(alibi), 1e-2) << "ALiBi breaks equivariance";
}

TEST_P(AttentionKernelTest, FullyMaskedRowsAreZeroAndHugeLogitsDoNotOverflow) {
  Rng rng(9);
  AttentionOptions o;
  o.H = o.Hkv = 1;
  o.Tq = o.Tk = 6;
  o.D = 8;
  std::vector<uint8_t> mask = {0, 0, 1, 1, 1, 1};  // rows 0, 1 see nothing
  o.key_mask = mask.data();
  std::vector<float> q = rng.Vector(48), k = rng.Vector(48), v = rng.Vector(48);
  std::vector<float> out(48, 7.0f), w(36, 7.0f);
  o.weights = w.data();
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  for (size_t e = 0; e < 16; ++e) EXPECT_EQ(out[e], 0.0f);
  for (size_t e = 0; e < 12; ++e) EXPECT_EQ(w[e], 0.0f);
  for (float x : out) EXPECT_TRUE(std::isfinite(x));
  // Logits of 1e4: the max-subtraction keeps exp finite.
  for (float& x : q) x *= 1e4f / std::sqrt(8.0f);
  o.key_mask = nullptr;
  o.weights = nullptr;
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  for (float x : out) EXPECT_TRUE(std::isfinite(x));
}

// 0 * inf = NaN leaked from the values of masked keys into rows that see
// no key at all.
TEST_P(AttentionKernelTest, FullyMaskedRowsAreZeroWhateverMaskedValuesHold) {
  AttentionOptions o;
  o.H = o.Hkv = 1;
  o.Tq = o.Tk = 4;
  o.D = 8;
  std::vector<uint8_t> mask = {0, 1, 1, 1};  // row 0 sees nothing
  o.key_mask = mask.data();
  Rng rng(11);
  std::vector<float> q = rng.Vector(32), k = rng.Vector(32), v = rng.Vector(32);
  for (size_t e = 0; e < 8; ++e) {
    v[e] = e % 2 ? std::numeric_limits<float>::infinity()
                 : std::numeric_limits<float>::quiet_NaN();
  }
  std::vector<float> out(32, 7.0f);
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  for (size_t e = 0; e < 8; ++e) EXPECT_EQ(out[e], 0.0f) << e;
}

// Found by attention_fuzz: Shaw with a key table and no value table read the
// null value table (values are optional, attention.h).
TEST_P(AttentionKernelTest, ShawKeysWithoutValuesEqualsAZeroValueTable) {
  Rng rng(12);
  AttentionOptions o;
  o.H = o.Hkv = 2;
  o.Tq = o.Tk = 5;
  o.D = 8;
  o.shaw_clip = 2;
  const std::vector<float> ak = rng.Vector(5 * 8), zero(5 * 8, 0.0f);
  o.shaw_k = ak.data();
  std::vector<float> q = rng.Vector(80), k = rng.Vector(80), v = rng.Vector(80);
  std::vector<float> keys_only(80), with_zero(80);
  ASSERT_TRUE(
      Attention(o, q.data(), k.data(), v.data(), keys_only.data()).ok());
  o.shaw_v = zero.data();
  ASSERT_TRUE(
      Attention(o, q.data(), k.data(), v.data(), with_zero.data()).ok());
  EXPECT_EQ(keys_only, with_zero);
}

// Found by attention_fuzz: a sliding window whose queries lie past the keys
// (query offset >= keyLength + window) zeroed the weights up to the window's
// start, past the end of the row and of the weights buffer.
TEST_P(AttentionKernelTest, WindowBeyondTheKeysWritesOnlyItsWeightsRows) {
  Rng rng(13);
  AttentionOptions o;
  o.H = o.Hkv = 1;
  o.Tk = 4;
  o.Tq = 2;
  o.D = 4;
  o.query_offset = 10;  // queries at slots 10, 11; keys 0..3
  o.window = 2;         // each sees slots 9..11 at most: no key at all
  std::vector<float> w(o.Tq * o.Tk + 16, 7.0f);  // 16 guard entries
  o.weights = w.data();
  std::vector<float> q = rng.Vector(8), k = rng.Vector(16), v = rng.Vector(16);
  std::vector<float> out(8, 7.0f);
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  for (size_t e = 0; e < 8; ++e) EXPECT_EQ(w[e], 0.0f) << e;
  for (size_t e = 8; e < w.size(); ++e) EXPECT_EQ(w[e], 7.0f) << "guard " << e;
  for (float x : out) EXPECT_EQ(x, 0.0f);
}

// With positions from the mask, a query past the keys took its position from
// the last key slot, which is 1 when that slot is padding; it must continue the
// count of real tokens.
TEST(AttentionPositions, QueriesPastTrailingPaddingContinueTheRealCount) {
  AttentionOptions o;
  o.H = o.Hkv = 1;
  o.Tk = 4;
  o.Tq = 2;
  o.D = 4;
  o.query_offset = 4;                        // both queries past the keys
  std::vector<uint8_t> mask = {1, 1, 1, 0};  // right padding
  o.key_mask = mask.data();
  o.rope.enabled = true;
  o.rope.positions_from_mask = true;
  std::vector<int32_t> qpos, kpos;
  AttentionPositions(o, &qpos, &kpos);
  EXPECT_EQ(kpos, (std::vector<int32_t>{0, 1, 2, 1}));
  EXPECT_EQ(qpos, (std::vector<int32_t>{3, 4}));
  // Without the mask positions are the slots; explicit keys continue.
  o.rope.positions_from_mask = false;
  AttentionPositions(o, &qpos, &kpos);
  EXPECT_EQ(qpos, (std::vector<int32_t>{4, 5}));
  std::vector<int32_t> kexp = {10, 11, 12, 20};
  o.rope.k_positions = kexp.data();
  AttentionPositions(o, &qpos, &kpos);
  EXPECT_EQ(qpos, (std::vector<int32_t>{21, 22}));
}

// The reference's own positions (reference/attention.h) on hand-worked
// cases of the documented rules, independent of AttentionPositions.
TEST(ReferencePositions, FollowTheDocumentedRules) {
  AttentionOptions o;
  o.H = o.Hkv = 1;
  o.Tk = 4;
  o.Tq = 2;
  o.D = 4;
  o.rope.enabled = true;
  ref::AttentionPositions p = ref::Positions(o);  // queries: slots 2, 3
  EXPECT_EQ(p.k, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(p.q, (std::vector<int64_t>{2, 3}));
  std::vector<uint8_t> left = {0, 0, 1, 1};  // left padding
  o.key_mask = left.data();
  o.rope.positions_from_mask = true;
  p = ref::Positions(o);
  EXPECT_EQ(p.k, (std::vector<int64_t>{1, 1, 0, 1}));
  EXPECT_EQ(p.q, (std::vector<int64_t>{0, 1}));
  std::vector<uint8_t> right = {1, 1, 1, 0};  // right padding
  o.key_mask = right.data();
  o.query_offset = 5;  // slot 4 lies between the keys and the queries
  p = ref::Positions(o);
  EXPECT_EQ(p.k, (std::vector<int64_t>{0, 1, 2, 1}));
  EXPECT_EQ(p.q, (std::vector<int64_t>{4, 5}));
  o.rope.positions_from_mask = false;
  p = ref::Positions(o);
  EXPECT_EQ(p.q, (std::vector<int64_t>{5, 6}));
  std::vector<int32_t> kexp = {10, 11, 12, 20}, qexp = {7, 9};
  o.rope.k_positions = kexp.data();
  p = ref::Positions(o);
  EXPECT_EQ(p.q, (std::vector<int64_t>{22, 23}));
  o.rope.q_positions = qexp.data();
  EXPECT_EQ(ref::Positions(o).q, (std::vector<int64_t>{7, 9}));
}

TEST(AttentionValidation, ErrorsNameTheParameter) {
  AttentionOptions o;
  o.H = 4;
  o.Hkv = 3;
  o.Tq = o.Tk = 2;
  o.D = 8;
  EXPECT_NE(
      ValidateAttention(o).message().find("kvHeads (3) must divide heads (4)"),
      std::string::npos);
  o.Hkv = 2;
  o.Tq = 3;
  EXPECT_NE(ValidateAttention(o).message().find(
                "queryLength (3) must not exceed keyLength (2)"),
            std::string::npos);
  o.Tq = 2;
  o.window = -1;
  EXPECT_FALSE(ValidateAttention(o).ok());
  o.window = 0;
  o.rope.enabled = true;
  o.rope.freq.head_dim = 16;
  EXPECT_NE(ValidateAttention(o).message().find(
                "rope headDim (16) must equal headDim (8)"),
            std::string::npos);
  o.rope.enabled = false;
  o.scale = NAN;
  EXPECT_FALSE(ValidateAttention(o).ok());
}

POSENC_INSTANTIATE_PER_TARGET(AttentionKernelTest);

}  // namespace
}  // namespace posenc
