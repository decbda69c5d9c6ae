// The checked RoPE entry point: scaling folded in, offsets vs explicit
// positions, re-rotation, xPos, and validation messages.
#include "ops/rope_apply.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "test_util.h"

namespace posenc {
namespace {

using test::Rng;

class RopeApply : public test::PerTarget {};

RopeApplyOptions Options(size_t H, size_t T, size_t d) {
  RopeApplyOptions o;
  o.freq.head_dim = static_cast<int>(d);
  o.heads = static_cast<int64_t>(H);
  o.seq_len = static_cast<int64_t>(T);
  return o;
}

std::vector<float> Apply(const RopeApplyOptions& o,
                         const std::vector<float>& x) {
  std::vector<float> out(x.size());
  const Status s = RopeApplyChecked(o, x.data(), x.size(), out.data());
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

TEST_P(RopeApply, OffsetEqualsExplicitPositions) {
  Rng rng(10);
  const size_t H = 2, T = 13, d = 32;
  const std::vector<float> x = rng.Vector(H * T * d);
  for (RopeLayout layout : {RopeLayout::kHalf, RopeLayout::kInterleaved}) {
    RopeApplyOptions a = Options(H, T, d);
    a.layout = layout;
    a.offset = 4093;
    std::vector<int32_t> pos(T);
    for (size_t t = 0; t < T; ++t) pos[t] = int32_t(4093 + t);
    RopeApplyOptions b = a;
    b.offset = 0;
    b.positions = pos.data();
    EXPECT_EQ(Apply(a, x), Apply(b, x));  // bitwise
  }
}

TEST_P(RopeApply, AttentionFactorScalesNormAndRerotationIsPure) {
  Rng rng(11);
  const size_t H = 1, T = 5, d = 64;
  const std::vector<float> x = rng.Vector(H * T * d);
  RopeApplyOptions o = Options(H, T, d);
  o.freq.scaling.type = RopeScalingType::kYarn;
  o.freq.scaling.factor = 8.0;
  o.freq.scaling.original_max_position_embeddings = 256;
  const double mag = 1.0 + 0.1 * std::log(8.0);
  o.offset = 20;
  const std::vector<float> at_p = Apply(o, x);
  for (size_t t = 0; t < T; ++t) {
    double nx = 0, ny = 0;
    for (size_t j = 0; j < d; ++j) {
      nx += double(x[t * d + j]) * x[t * d + j];
      ny += double(at_p[t * d + j]) * at_p[t * d + j];
    }
    EXPECT_NEAR(std::sqrt(ny), mag * std::sqrt(nx), 1e-5);
  }
  // Re-rotating cached keys by delta = 300 equals rotating at p + 300; the
  // magnitude is not applied a second time.
  RopeApplyOptions shift = o;
  std::vector<int32_t> delta(T, 300);
  shift.positions = delta.data();
  shift.pure_rotation = true;
  const std::vector<float> rerot = Apply(shift, at_p);
  RopeApplyOptions direct = o;
  direct.offset = 320;
  const std::vector<float> want = Apply(direct, x);
  for (size_t e = 0; e < x.size(); ++e) EXPECT_NEAR(rerot[e], want[e], 3e-6);
}

TEST_P(RopeApply, DynamicAndLongropeSeeTheLongestPosition) {
  Rng rng(12);
  const size_t H = 1, T = 4, d = 16;
  const std::vector<float> x = rng.Vector(H * T * d);
  RopeApplyOptions o = Options(H, T, d);
  o.freq.scaling.type = RopeScalingType::kDynamic;
  o.freq.scaling.factor = 2.0;
  o.freq.scaling.max_position_embeddings = 64;
  EXPECT_EQ(RopeContextLength(o), 4);
  RopeApplyOptions plain = Options(H, T, d);
  EXPECT_EQ(Apply(o, x), Apply(plain, x));  // below M: default frequencies
  o.offset = 100;
  plain.offset = 100;
  EXPECT_EQ(RopeContextLength(o), 104);
  EXPECT_NE(Apply(o, x), Apply(plain, x));  // past M: rescaled base
}

TEST_P(RopeApply, XposDecayDependsOnlyOnDistance) {
  Rng rng(13);
  const size_t d = 32;
  const std::vector<float> q = rng.Vector(d), k = rng.Vector(d);
  auto score = [&](int m, int n, int64_t center) {
    RopeApplyOptions oq = Options(1, 1, d);
    oq.layout = RopeLayout::kInterleaved;
    oq.xpos = true;
    oq.xpos_center = center;
    oq.offset = m;
    RopeApplyOptions ok = oq;
    ok.offset = n;
    ok.xpos_key = true;
    const std::vector<float> a = Apply(oq, q), b = Apply(ok, k);
    double s = 0;
    for (size_t j = 0; j < d; ++j) s += double(a[j]) * b[j];
    return s;
  };
  EXPECT_NEAR(score(10, 3, 0), score(17, 10, 0), 1e-4);
  EXPECT_NEAR(score(10, 3, 0), score(10, 3, 64), 1e-4);  // any centre
  EXPECT_NEAR(score(900, 400, 0), score(1900, 1400, 1000), 1e-3);
}

void ExpectError(const RopeApplyOptions& o, size_t n,
                 const std::string& needle) {
  std::vector<float> x(n), out(n);
  const Status s = RopeApplyChecked(o, x.data(), n, out.data());
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
}

TEST(RopeApplyValidation, ErrorsNameParameterAndValues) {
  RopeApplyOptions o = Options(8, 64, 64);
  ExpectError(o, 100,
              "x must have heads * seqLen * headDim = 8 * 64 * 64 = 32768 "
              "floats, got 100");
  o.layout = static_cast<RopeLayout>(7);
  ExpectError(o, 8 * 64 * 64, "layout is not a valid enum value: 7");
  o = Options(0, 64, 64);
  ExpectError(o, 0, "heads must be an integer >= 1, got 0");
  o = Options(1 << 20, 1 << 20, 64);
  ExpectError(o, 0, "exceeds 2^31 elements");
  o = Options(1, 2, 8);
  o.offset = 2147483647;
  ExpectError(o, 16, "offset + seqLen - 1 must fit in int32");
  o = Options(1, 2, 8);
  o.xpos = true;
  o.xpos_scale_base = 0;
  ExpectError(o, 16, "xpos.scaleBase must be > 0, got 0");
}

POSENC_INSTANTIATE_PER_TARGET(RopeApply);

}  // namespace
}  // namespace posenc
