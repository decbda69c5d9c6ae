// M-RoPE (Qwen2-VL and later): three position rows, each frequency pair
// turning by one of them. Checked against a float64 rotation whose pair ->
// row map is built the way Hugging Face builds it (chunks of the doubled
// cos width for Qwen2-VL, strided slices for Qwen3-VL), and three equal rows
// against plain RoPE, bit for bit, in rotation, cos/sin tables and attention.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/attention.h"
#include "ops/rope_apply.h"
#include "reference/rope.h"
#include "test_util.h"

namespace posenc {
namespace {

using test::Rng;

class Mrope : public test::PerTarget {};

// The row of each of the h pairs, as transformers derives it.
// Qwen2-VL: cos [.., r] = cat(freqs, freqs) is split into chunks of
// mrope_section * 2 (six chunks), chunk k taken from row k % 3.
// Qwen3-VL: row 0 everywhere, then slices [1 : 3 s1 : 3] from row 1 and
// [2 : 3 s2 : 3] from row 2.
std::vector<int> HfRows(const std::vector<int>& sec, bool interleaved, int h) {
  std::vector<int> row(h, 0);
  if (interleaved) {
    for (int j = 1; j < 3 * sec[1] && j < h; j += 3) row[j] = 1;
    for (int j = 2; j < 3 * sec[2] && j < h; j += 3) row[j] = 2;
    return row;
  }
  std::vector<int> chunks;
  for (int k = 0; k < 6; ++k) chunks.push_back(sec[k % 3]);
  int c = 0;
  for (int k = 0; k < 6; ++k) {
    for (int n = 0; n < chunks[k]; ++n, ++c) {
      if (c < h) row[c] = k % 3;
    }
  }
  return row;
}

// x: [H, T, d] rotated in float64, pair i of token t at positions
// pos[row[i] * T + t], frequencies rounded to float32 as stored.
std::vector<double> Reference(RopeLayout layout, const std::vector<float>& x,
                              size_t H, size_t T, size_t d,
                              const std::vector<int32_t>& pos,
                              const std::vector<double>& inv,
                              const std::vector<int>& row) {
  const size_t h = inv.size();
  std::vector<double> out(x.begin(), x.end());
  for (size_t hd = 0; hd < H; ++hd) {
    for (size_t t = 0; t < T; ++t) {
      for (size_t i = 0; i < h; ++i) {
        const double ang = double(pos[row[i] * T + t]) * double(float(inv[i]));
        const size_t base = (hd * T + t) * d;
        const size_t ia = base + (layout == RopeLayout::kHalf ? i : 2 * i);
        const size_t ib =
            base + (layout == RopeLayout::kHalf ? i + h : 2 * i + 1);
        const double a = x[ia], b = x[ib];
        out[ia] = a * std::cos(ang) - b * std::sin(ang);
        out[ib] = b * std::cos(ang) + a * std::sin(ang);
      }
    }
  }
  return out;
}

struct Case {
  int d, r;
  std::vector<int> sec;
  bool interleaved;
  RopeLayout layout;
};

TEST_P(Mrope, RowsFollowTransformersAndEqualRowsArePlainRope) {
  Rng rng(31);
  const size_t H = 2, T = 7;
  // Qwen2-VL (head 128: [16, 24, 24]), Qwen3-VL ([24, 20, 20]), Qwen3.5's
  // partial rotary (64 of 256 dims: [11, 11, 10]), GLM-4.1V's adjacent pairs
  // over half the head ([8, 12, 12]).
  for (const Case& c :
       {Case{128, 128, {16, 24, 24}, false, RopeLayout::kHalf},
        Case{128, 128, {24, 20, 20}, true, RopeLayout::kHalf},
        Case{256, 64, {11, 11, 10}, true, RopeLayout::kHalf},
        Case{128, 64, {8, 12, 12}, false, RopeLayout::kInterleaved}}) {
    const size_t d = c.d, h = c.r / 2;
    RopeApplyOptions o;
    o.freq.head_dim = c.d;
    o.freq.rotary_dim = c.r;
    o.freq.base = 1e6;
    o.freq.mrope_section.assign(c.sec.begin(), c.sec.end());
    o.freq.mrope_interleaved = c.interleaved;
    o.layout = c.layout;
    o.heads = H;
    o.seq_len = T;
    const std::vector<float> x = rng.Vector(H * T * d);
    // Rows that differ: a temporal row, then height and width rows.
    std::vector<int32_t> pos(3 * T);
    for (size_t t = 0; t < T; ++t) {
      pos[t] = int32_t(3 + t / 4);
      pos[T + t] = int32_t(3 + (t % 4) / 2);
      pos[2 * T + t] = int32_t(1000 + 7 * t);
    }
    o.positions = pos.data();
    std::vector<float> got(x.size());
    Status s = RopeApplyChecked(o, x.data(), x.size(), got.data());
    ASSERT_TRUE(s.ok()) << s.message();
    for (size_t i = 0; i < h; ++i) {
      EXPECT_EQ(MropeAxis(o.freq, int(i)), HfRows(c.sec, c.interleaved, h)[i])
          << "pair " << i;
    }
    std::vector<double> inv;
    double factor = 0;
    ASSERT_TRUE(RopeFrequencies(o.freq, 0, &inv, &factor).ok());
    EXPECT_TRUE(test::AllClose(got,
                               Reference(c.layout, x, H, T, d, pos, inv,
                                         HfRows(c.sec, c.interleaved, h)),
                               2e-6, 2e-6));

    // Three equal rows: plain RoPE's bits, table and rotation.
    for (size_t t = 0; t < T; ++t) pos[T + t] = pos[2 * T + t] = pos[t];
    s = RopeApplyChecked(o, x.data(), x.size(), got.data());
    ASSERT_TRUE(s.ok()) << s.message();
    RopeApplyOptions plain = o;
    plain.freq.mrope_section.clear();
    plain.freq.mrope_interleaved = false;
    std::vector<float> want(x.size());
    ASSERT_TRUE(RopeApplyChecked(plain, x.data(), x.size(), want.data()).ok());
    EXPECT_EQ(got, want);
    std::vector<float> c1(T * h), s1(T * h), c2(T * h), s2(T * h);
    ASSERT_TRUE(RopeTableChecked(o, c1.data(), s1.data()).ok());
    ASSERT_TRUE(RopeTableChecked(plain, c2.data(), s2.data()).ok());
    EXPECT_EQ(c1, c2);
    EXPECT_EQ(s1, s2);
  }
}

// Attention with M-RoPE rotates q and k by their three rows: the same as
// rotating them first and attending without RoPE; equal rows are plain RoPE.
TEST_P(Mrope, AttentionRotatesByTheThreeRows) {
  Rng rng(32);
  const size_t H = 2, T = 6, D = 32;
  const std::vector<float> q = rng.Vector(H * T * D), k = rng.Vector(H * T * D),
                           v = rng.Vector(H * T * D);
  std::vector<int32_t> pos(3 * T);
  for (size_t t = 0; t < T; ++t) {
    pos[t] = int32_t(t < 2 ? t : 2);
    pos[T + t] = int32_t(t < 2 ? t : 2 + (t - 2) / 2);
    pos[2 * T + t] = int32_t(t < 2 ? t : 2 + (t - 2) % 2);
  }
  AttentionOptions o;
  o.H = o.Hkv = H;
  o.Tq = o.Tk = T;
  o.D = D;
  o.rope.enabled = true;
  o.rope.freq.head_dim = D;
  o.rope.freq.mrope_section = {4, 6, 6};
  o.rope.q_positions = pos.data();
  o.rope.k_positions = pos.data();
  std::vector<float> out(H * T * D);
  Status s = Attention(o, q.data(), k.data(), v.data(), out.data());
  ASSERT_TRUE(s.ok()) << s.message();
  RopeApplyOptions r;
  r.freq = o.rope.freq;
  r.heads = H;
  r.seq_len = T;
  r.positions = pos.data();
  std::vector<float> qr(q.size()), kr(k.size()), want(out.size());
  ASSERT_TRUE(RopeApplyChecked(r, q.data(), q.size(), qr.data()).ok());
  ASSERT_TRUE(RopeApplyChecked(r, k.data(), k.size(), kr.data()).ok());
  AttentionOptions plain = o;
  plain.rope = AttentionRope();
  ASSERT_TRUE(
      Attention(plain, qr.data(), kr.data(), v.data(), want.data()).ok());
  EXPECT_EQ(out, want);
  // Default positions (none given) are text: every row 0..T-1, as plain RoPE.
  o.rope.q_positions = o.rope.k_positions = nullptr;
  ASSERT_TRUE(Attention(o, q.data(), k.data(), v.data(), out.data()).ok());
  AttentionOptions one = o;
  one.rope.freq.mrope_section.clear();
  ASSERT_TRUE(Attention(one, q.data(), k.data(), v.data(), want.data()).ok());
  EXPECT_EQ(out, want);
}

TEST(MropeValidation, ErrorsNameTheSplit) {
  RopeFrequencyConfig c;
  c.head_dim = 16;
  auto message = [&]() { return ValidateRopeConfig(c).message(); };
  c.mrope_section = {2, 3};
  EXPECT_NE(message().find("mropeSection must have 3 values"),
            std::string::npos)
      << message();
  c.mrope_section = {2, 3, 2};
  EXPECT_NE(message().find(
                "mropeSection (2, 3, 2) must sum to rotaryDim / 2 = 8, got 7"),
            std::string::npos)
      << message();
  c.mrope_section = {2, 3.5, 2.5};
  EXPECT_NE(message().find("mropeSection[1] must be an integer >= 0, got 3.5"),
            std::string::npos)
      << message();
  c.mrope_section = {2, 3, 3};
  EXPECT_TRUE(ValidateRopeConfig(c).ok());
  c.mrope_section.clear();
  c.mrope_interleaved = true;
  EXPECT_NE(message().find("mropeInterleaved is set without mropeSection"),
            std::string::npos)
      << message();
  // xPos with M-RoPE, and a KV cache with M-RoPE, are refused.
  RopeApplyOptions o;
  o.freq.head_dim = 16;
  o.freq.mrope_section = {2, 3, 3};
  o.heads = 1;
  o.seq_len = 1;
  o.xpos = true;
  EXPECT_NE(
      ValidateRopeApply(o, 16).message().find("xpos does not go with M-RoPE"),
      std::string::npos);
}

POSENC_INSTANTIATE_PER_TARGET(Mrope);

}  // namespace
}  // namespace posenc
