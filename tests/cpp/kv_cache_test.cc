// KV cache: token-by-token (and chunked) decoding equals the full causal pass
// for every encoding; dynamic NTK behaves as documented; shifting the cache
// is a pure rotation.
#include "ops/kv_cache.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/alibi.h"
#include "test_util.h"

namespace posenc {
namespace {

using test::Rng;

class KvCacheTest : public test::PerTarget {};

// Rows [t0, t1) of x: [heads, T, D] as [heads, t1 - t0, D].
std::vector<float> Slice(const std::vector<float>& x, size_t heads, size_t T,
                         size_t D, size_t t0, size_t t1) {
  std::vector<float> out(heads * (t1 - t0) * D);
  for (size_t h = 0; h < heads; ++h) {
    std::copy(x.begin() + (h * T + t0) * D, x.begin() + (h * T + t1) * D,
              out.begin() + h * (t1 - t0) * D);
  }
  return out;
}

struct EncodingSetup {
  AttentionOptions o;
  std::vector<float> slopes, t5, shaw_k, shaw_v;
};

EncodingSetup MakeSetup(int enc, size_t H, size_t Hkv, size_t T, size_t D,
                        Rng& rng) {
  EncodingSetup s;
  AttentionOptions& o = s.o;
  o.H = H;
  o.Hkv = Hkv;
  o.Tq = o.Tk = T;
  o.D = D;
  o.causal = true;
  switch (enc) {
    case 1:
      o.rope.enabled = true;
      o.rope.freq.head_dim = int(D);
      break;
    case 2:
      o.rope.enabled = true;
      o.rope.freq.head_dim = int(D);
      o.rope.freq.rotary_dim = int(D / 2);
      o.rope.layout = RopeLayout::kInterleaved;
      o.rope.freq.scaling.type = RopeScalingType::kYarn;
      o.rope.freq.scaling.factor = 4;
      o.rope.freq.scaling.original_max_position_embeddings = 8;
      break;
    case 3:
      s.slopes.resize(H);
      AlibiSlopeValues(H, AlibiSlopes::kPaper, s.slopes.data());
      o.alibi_slopes = s.slopes.data();
      break;
    case 4:
      s.t5 = rng.Vector(32 * H);
      o.t5_table = s.t5.data();
      o.scale = 1.0f;
      break;
    case 5:
      s.shaw_k = rng.Vector(5 * D);
      s.shaw_v = rng.Vector(5 * D);
      o.shaw_k = s.shaw_k.data();
      o.shaw_v = s.shaw_v.data();
      o.shaw_clip = 2;
      break;
    case 6:
      o.rope.enabled = true;
      o.rope.freq.head_dim = int(D);
      o.rope.layout = RopeLayout::kInterleaved;
      o.rope.xpos = true;
      o.rope.xpos_scale_base = 32;
      break;
  }
  return s;
}

TEST_P(KvCacheTest, DecodingEqualsFullPassForEveryEncoding) {
  Rng rng(31);
  const size_t H = 4, Hkv = 2, T = 21, D = 16;
  for (int enc = 0; enc <= 6; ++enc) {
    EncodingSetup s = MakeSetup(enc, H, Hkv, T, D, rng);
    const std::vector<float> q = rng.Vector(H * T * D),
                             k = rng.Vector(Hkv * T * D),
                             v = rng.Vector(Hkv * T * D);
    std::vector<float> full(H * T * D);
    ASSERT_TRUE(Attention(s.o, q.data(), k.data(), v.data(), full.data()).ok());
    for (size_t prefill : {size_t(0), size_t(9)}) {
      KvCache cache(Hkv, D, s.o.rope);
      size_t t = 0;
      while (t < T) {
        const size_t t1 = (t == 0 && prefill) ? prefill : t + 1;
        const std::vector<float> kt = Slice(k, Hkv, T, D, t, t1),
                                 vt = Slice(v, Hkv, T, D, t, t1),
                                 qt = Slice(q, H, T, D, t, t1);
        ASSERT_TRUE(cache.Append(kt.data(), vt.data(), t1 - t, nullptr).ok());
        AttentionOptions step = s.o;
        step.Tq = t1 - t;
        std::vector<float> out(H * (t1 - t) * D);
        const Status st = cache.Attend(step, qt.data(), nullptr, out.data());
        ASSERT_TRUE(st.ok()) << st.message();
        const std::vector<float> want = Slice(full, H, T, D, t, t1);
        for (size_t e = 0; e < out.size(); ++e) {
          ASSERT_NEAR(out[e], want[e], 2e-6)
              << "enc " << enc << " prefill " << prefill << " t " << t;
        }
        t = t1;
      }
      EXPECT_EQ(cache.length(), T);
      EXPECT_EQ(cache.positions().back(), int32_t(T - 1));
    }
  }
}

// One head, one kv head: appends token t and attends its query, for every
// t; returns the largest difference from row t of `full` ([T, D]).
double DecodeOneByOne(KvCache* cache, const AttentionOptions& o,
                      const std::vector<float>& q, const std::vector<float>& k,
                      const std::vector<float>& v, size_t T, size_t D,
                      const std::vector<float>& full) {
  double worst = 0;
  for (size_t t = 0; t < T; ++t) {
    const std::vector<float> kt = Slice(k, 1, T, D, t, t + 1),
                             vt = Slice(v, 1, T, D, t, t + 1),
                             qt = Slice(q, 1, T, D, t, t + 1);
    EXPECT_TRUE(cache->Append(kt.data(), vt.data(), 1, nullptr).ok());
    AttentionOptions step = o;
    step.Tq = 1;
    std::vector<float> out(D);
    EXPECT_TRUE(cache->Attend(step, qt.data(), nullptr, out.data()).ok());
    for (size_t e = 0; e < D; ++e) {
      worst = std::max(worst, double(std::abs(out[e] - full[t * D + e])));
    }
  }
  return worst;
}

TEST_P(KvCacheTest, DynamicNtkMatchesFullPassOnlyUpToItsThreshold) {
  // Documented behaviour (as Hugging Face): keys keep the frequencies of the
  // step that appended them. Below M cached == uncached; past M they differ.
  Rng rng(32);
  const size_t H = 1, D = 16;
  for (size_t T : {size_t(8), size_t(20)}) {
    EncodingSetup s = MakeSetup(1, H, 1, T, D, rng);
    s.o.rope.freq.scaling.type = RopeScalingType::kDynamic;
    s.o.rope.freq.scaling.factor = 2;
    s.o.rope.freq.scaling.max_position_embeddings = 8;
    const std::vector<float> q = rng.Vector(T * D), k = rng.Vector(T * D),
                             v = rng.Vector(T * D);
    std::vector<float> full(T * D);
    ASSERT_TRUE(Attention(s.o, q.data(), k.data(), v.data(), full.data()).ok());
    KvCache cache(1, D, s.o.rope);
    const double worst = DecodeOneByOne(&cache, s.o, q, k, v, T, D, full);
    if (T <= 8) {
      EXPECT_LT(worst, 2e-6);
    } else {
      EXPECT_GT(worst, 1e-4);
    }
  }
}

TEST_P(KvCacheTest, AnExplicitContextLengthGivesEveryStepTheSameFrequencies) {
  // With rope.context_length set, every rotation (the full pass, each
  // appended key, each query) sees the same dynamic NTK frequencies, so
  // cached decoding equals the full pass past the threshold too; a
  // different context length gives other outputs.
  Rng rng(33);
  const size_t H = 1, D = 16, T = 20;
  EncodingSetup s = MakeSetup(1, H, 1, T, D, rng);
  s.o.rope.freq.scaling.type = RopeScalingType::kDynamic;
  s.o.rope.freq.scaling.factor = 2;
  s.o.rope.freq.scaling.max_position_embeddings = 8;
  s.o.rope.context_length = 32;
  const std::vector<float> q = rng.Vector(T * D), k = rng.Vector(T * D),
                           v = rng.Vector(T * D);
  std::vector<float> full(T * D), derived(T * D);
  ASSERT_TRUE(Attention(s.o, q.data(), k.data(), v.data(), full.data()).ok());
  AttentionOptions plain = s.o;
  plain.rope.context_length = -1;
  ASSERT_TRUE(
      Attention(plain, q.data(), k.data(), v.data(), derived.data()).ok());
  double apart = 0;
  for (size_t e = 0; e < T * D; ++e) {
    apart = std::max(apart, double(std::abs(full[e] - derived[e])));
  }
  EXPECT_GT(apart, 1e-4) << "context 32 and context 20 give other outputs";
  KvCache cache(1, D, s.o.rope);
  EXPECT_LT(DecodeOneByOne(&cache, s.o, q, k, v, T, D, full), 2e-6);
}

TEST_P(KvCacheTest, ConsistentModeDecodesAsTheUncachedPassAtEveryLength) {
  // Consistent mode: at every step t the cached output equals the uncached
  // causal pass over the first t + 1 tokens (whose context length is t + 1),
  // below, at and past the threshold, for dynamic NTK (new frequencies at
  // every length past M = 8) and LongRoPE (one switch past L = 8).
  Rng rng(34);
  const size_t H = 2, Hkv = 1, D = 16, T = 20;
  for (RopeScalingType type :
       {RopeScalingType::kDynamic, RopeScalingType::kLongrope}) {
    EncodingSetup s = MakeSetup(1, H, Hkv, T, D, rng);
    RopeScaling& sc = s.o.rope.freq.scaling;
    sc.type = type;
    sc.factor = 2;
    sc.max_position_embeddings = 8;
    sc.original_max_position_embeddings = 8;
    for (int i = 0; i < int(D / 2); ++i) {
      sc.short_factor.push_back(1.0 + 0.1 * i);
      sc.long_factor.push_back(1.0 + i);
    }
    const std::vector<float> q = rng.Vector(H * T * D),
                             k = rng.Vector(Hkv * T * D),
                             v = rng.Vector(Hkv * T * D);
    KvCache cache(Hkv, D, s.o.rope, /*consistent=*/true);
    ASSERT_TRUE(cache.rerotates());
    KvCache plain(Hkv, D, s.o.rope);
    double worst = 0, worst_plain = 0;
    for (size_t t = 0; t < T; ++t) {
      // The uncached pass over tokens 0..t; its last row is step t.
      AttentionOptions prefix = s.o;
      prefix.Tq = prefix.Tk = t + 1;
      const std::vector<float> qp = Slice(q, H, T, D, 0, t + 1),
                               kp = Slice(k, Hkv, T, D, 0, t + 1),
                               vp = Slice(v, Hkv, T, D, 0, t + 1);
      std::vector<float> full(H * (t + 1) * D);
      ASSERT_TRUE(
          Attention(prefix, qp.data(), kp.data(), vp.data(), full.data()).ok());
      const std::vector<float> kt = Slice(k, Hkv, T, D, t, t + 1),
                               vt = Slice(v, Hkv, T, D, t, t + 1),
                               qt = Slice(q, H, T, D, t, t + 1);
      AttentionOptions step = s.o;
      step.Tq = 1;
      std::vector<float> out(H * D), out_plain(H * D);
      ASSERT_TRUE(cache.Append(kt.data(), vt.data(), 1, nullptr).ok());
      ASSERT_TRUE(cache.Attend(step, qt.data(), nullptr, out.data()).ok());
      ASSERT_TRUE(plain.Append(kt.data(), vt.data(), 1, nullptr).ok());
      ASSERT_TRUE(
          plain.Attend(step, qt.data(), nullptr, out_plain.data()).ok());
      double err = 0, err_plain = 0;
      for (size_t h = 0; h < H; ++h) {
        for (size_t e = 0; e < D; ++e) {
          const float want = full[(h * (t + 1) + t) * D + e];
          err = std::max(err, double(std::abs(out[h * D + e] - want)));
          err_plain = std::max(err_plain,
                               double(std::abs(out_plain[h * D + e] - want)));
        }
      }
      EXPECT_LT(err, 2e-6) << "length " << t + 1;
      worst = std::max(worst, err);
      worst_plain = std::max(worst_plain, err_plain);
    }
    EXPECT_LT(worst, 2e-6);
    // The default (Hugging Face's) mode differs past the threshold.
    EXPECT_GT(worst_plain, 1e-4) << RopeScalingTypeName(type);
  }
}

TEST_P(KvCacheTest, ShiftIsAPureRotation) {
  Rng rng(33);
  const size_t D = 16, T = 6;
  AttentionRope rope;
  rope.enabled = true;
  rope.freq.head_dim = int(D);
  rope.freq.scaling.type = RopeScalingType::kYarn;  // attention factor != 1
  rope.freq.scaling.factor = 8;
  rope.freq.scaling.original_max_position_embeddings = 16;
  const std::vector<float> k = rng.Vector(T * D), v = rng.Vector(T * D),
                           q = rng.Vector(D);
  KvCache shifted(1, D, rope), direct(1, D, rope);
  ASSERT_TRUE(shifted.Append(k.data(), v.data(), T, nullptr).ok());
  ASSERT_TRUE(shifted.Shift(40).ok());
  std::vector<int32_t> pos(T);
  for (size_t t = 0; t < T; ++t) pos[t] = int32_t(t + 40);
  ASSERT_TRUE(direct.Append(k.data(), v.data(), T, pos.data()).ok());
  EXPECT_EQ(shifted.positions(), direct.positions());
  AttentionOptions o;
  o.H = 1;
  o.Tq = 1;
  o.causal = true;
  std::vector<float> a(D), b(D);
  ASSERT_TRUE(shifted.Attend(o, q.data(), nullptr, a.data()).ok());
  ASSERT_TRUE(direct.Attend(o, q.data(), nullptr, b.data()).ok());
  for (size_t e = 0; e < D; ++e) EXPECT_NEAR(a[e], b[e], 2e-6);
}

// Queries placed past the cached tokens (query offset beyond the cache) sit
// at positions that go on from the last cached key's: slot s -> last + s -
// length + 1 (src/ops/attention.h), with default and with explicit key
// positions. Checked against the same call given those positions.
TEST_P(KvCacheTest, QueriesPastTheCacheContinueFromTheLastKey) {
  Rng rng(47);
  const size_t D = 8, T = 5, Tq = 2;
  AttentionRope rope;
  rope.enabled = true;
  rope.freq.head_dim = int(D);
  const std::vector<float> k = rng.Vector(T * D), v = rng.Vector(T * D),
                           q = rng.Vector(Tq * D);
  for (const bool explicit_keys : {false, true}) {
    KvCache cache(1, D, rope);
    std::vector<int32_t> kpos(T);
    for (size_t t = 0; t < T; ++t)
      kpos[t] = int32_t(explicit_keys ? 10 + t : t);
    ASSERT_TRUE(cache.Append(k.data(), v.data(), T, kpos.data()).ok());
    AttentionOptions o;
    o.H = 1;
    o.Tq = Tq;
    o.causal = false;
    o.query_offset = 7;  // slots 7 and 8: past the 5 cached tokens
    // The documented positions, worked by hand: last key + slot - T + 1.
    const int32_t last = kpos[T - 1];
    const std::vector<int32_t> want = {last + 3, last + 4};
    std::vector<float> derived(Tq * D), given(Tq * D);
    ASSERT_TRUE(cache.Attend(o, q.data(), nullptr, derived.data()).ok());
    ASSERT_TRUE(cache.Attend(o, q.data(), want.data(), given.data()).ok());
    for (size_t e = 0; e < Tq * D; ++e) {
      EXPECT_FLOAT_EQ(derived[e], given[e])
          << "explicit keys " << explicit_keys;
    }
    // An off-by-one in the rule would change the output.
    const std::vector<int32_t> off = {last + 2, last + 3};
    std::vector<float> shifted(Tq * D);
    ASSERT_TRUE(cache.Attend(o, q.data(), off.data(), shifted.data()).ok());
    double diff = 0.0;
    for (size_t e = 0; e < Tq * D; ++e)
      diff += std::fabs(derived[e] - shifted[e]);
    EXPECT_GT(diff, 1e-4);
  }
}

TEST(KvCacheValidation, Errors) {
  AttentionRope rope;
  EXPECT_FALSE(KvCache::Validate(0, 8, rope).ok());
  rope.enabled = true;
  rope.freq.head_dim = 7;
  EXPECT_NE(KvCache::Validate(1, 8, rope)
                .message()
                .find("rope headDim (7) must equal headDim (8)"),
            std::string::npos);
  rope.freq.head_dim = 8;
  rope.freq.scaling.type = RopeScalingType::kDynamic;
  rope.freq.scaling.factor = 2;
  rope.freq.scaling.max_position_embeddings = 4;
  ASSERT_TRUE(KvCache::Validate(1, 8, rope).ok());
  KvCache c(1, 8, rope);
  EXPECT_NE(c.Shift(3).message().find("shift needs fixed frequencies"),
            std::string::npos);
}

POSENC_INSTANTIATE_PER_TARGET(KvCacheTest);

}  // namespace
}  // namespace posenc
