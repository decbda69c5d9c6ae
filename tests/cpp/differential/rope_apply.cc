// Differential cases of RopeApplyChecked(): any layout, partial rotary,
// scaling, positions, re-rotation, xPos, in place, against reference/rope.h.
#include "ops/rope_apply.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "differential/harness.h"
#include "ops/xpos.h"
#include "reference/rope.h"

namespace posenc {
namespace diff {

::testing::AssertionResult RopeCaseImpl(Draw& dr, std::ostream& desc,
                                        bool force_xpos) {
  RopeApplyOptions o;
  const size_t H = static_cast<size_t>(dr.Int(1, 6));
  const size_t T = dr.Length(100);
  const int dmode = static_cast<int>(dr.Int(0, 7));
  const size_t d = dmode == 0   ? 64
                   : dmode == 1 ? 128
                                : static_cast<size_t>(dr.Int(2, 96));
  o.heads = int64_t(H);
  o.seq_len = int64_t(T);
  o.layout = dr.OneIn(2) ? RopeLayout::kHalf : RopeLayout::kInterleaved;
  desc << (force_xpos ? "xpos" : "rope") << " H=" << H << " T=" << T
       << " d=" << d << " layout=" << LayoutName(o.layout);
  o.freq = RandomFreq(dr, d, false, desc);
  o.pure_rotation = dr.OneIn(6);
  o.xpos = force_xpos || dr.OneIn(8);
  int64_t lo = std::numeric_limits<int32_t>::min();
  int64_t hi = std::numeric_limits<int32_t>::max();
  if (o.xpos) {
    o.xpos_scale_base = static_cast<double>(dr.Int(16, 1024));
    o.xpos_center = dr.Int(-500, 500);
    o.xpos_key = dr.OneIn(2);
    lo = o.xpos_center - int64_t(4 * o.xpos_scale_base);
    hi = o.xpos_center + int64_t(4 * o.xpos_scale_base);
    desc << " xpos(base " << o.xpos_scale_base << ", center " << o.xpos_center
         << ", key " << o.xpos_key << ")";
  }
  std::vector<int64_t> pos = RandomPositions(dr, T, lo, hi - int64_t(T));
  std::vector<int32_t> pos32(pos.begin(), pos.end());
  bool consecutive = !pos.empty();
  for (size_t t = 1; t < T; ++t) consecutive &= pos[t] == pos[t - 1] + 1;
  const bool explicit_pos = dr.OneIn(2) || !consecutive;
  if (explicit_pos) {
    o.positions = pos32.data();
  } else {
    o.offset = pos.front();
  }
  desc << " pure=" << o.pure_rotation
       << " positions=" << (explicit_pos ? "explicit" : "offset") << " p=";
  for (size_t t = 0; t < std::min<size_t>(T, 6); ++t) desc << pos[t] << ",";
  const std::vector<float> x = dr.Vector(H * T * d);
  const bool in_place = dr.OneIn(3);
  std::vector<float> out = x;
  desc << " in_place=" << in_place;
  if (in_place) {
    DIFF_EXPECT(
        StatusOk(RopeApplyChecked(o, out.data(), out.size(), out.data())));
  } else {
    std::fill(out.begin(), out.end(), -7.0f);
    DIFF_EXPECT(StatusOk(RopeApplyChecked(o, x.data(), x.size(), out.data())));
  }
  int64_t ctx = 0;
  for (int64_t p : pos) ctx = std::max(ctx, p + 1);
  ref::RopeSpec spec;
  spec.freq = o.freq;
  spec.layout = o.layout;
  spec.pure = o.pure_rotation;
  spec.xpos = o.xpos;
  spec.xpos_scale_base = o.xpos_scale_base;
  spec.xpos_center = o.xpos_center;
  spec.xpos_key = o.xpos_key;
  std::vector<double> mag;
  const std::vector<double> want = ref::Rope(spec, x, H, T, pos, ctx, &mag);
  std::vector<double> tol(want.size());
  for (size_t e = 0; e < tol.size(); ++e) {
    tol[e] = kRopeAbs * mag[e] + kRopeRel * std::abs(want[e]);
  }
  DIFF_EXPECT(Close("out", out, want, tol));
  if (o.xpos) {  // the scale table itself
    const size_t r = size_t(EffectiveRotaryDim(o.freq)), h = r / 2;
    std::vector<float> sc(T * h);
    const Status scaled = XposScales(pos32.data(), T, r, o.xpos_scale_base,
                                     o.xpos_center, o.xpos_key, sc.data());
    if (!scaled.ok()) return ::testing::AssertionFailure() << scaled.message();
    std::vector<double> ws(T * h);
    for (size_t t = 0; t < T; ++t) {
      for (size_t i = 0; i < h; ++i) {
        ws[t * h + i] = ref::XposScale(i, r, pos[t], o.xpos_center,
                                       o.xpos_scale_base, o.xpos_key);
      }
    }
    DIFF_EXPECT(Close("xpos scales", sc.data(), ws,
                      [&](size_t e) { return 1e-6 * ws[e]; }));
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult RopeCase(Draw& dr, std::ostream& desc) {
  return RopeCaseImpl(dr, desc, false);
}

TEST_P(DifferentialTest, RopeApply) { Run("rope_apply"); }

}  // namespace diff
}  // namespace posenc
