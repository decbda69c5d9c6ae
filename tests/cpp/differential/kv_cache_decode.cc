// Differential cases of the KV cache: keys appended in chunks (rotated at
// their positions), then a decode step (or a few queries) attends over the
// cache; against reference/attention.h with the cache's positions.
#include <algorithm>
#include <vector>

#include "differential/harness.h"
#include "ops/kv_cache.h"
#include "reference/alibi.h"
#include "reference/attention.h"

namespace posenc {
namespace diff {

::testing::AssertionResult KvCacheCase(Draw& dr, std::ostream& desc) {
  const size_t Hkv = static_cast<size_t>(dr.Int(1, 3));
  const size_t H = Hkv * static_cast<size_t>(dr.Int(1, 3));
  const size_t D = dr.OneIn(4) ? 64 : 2 * static_cast<size_t>(dr.Int(1, 24));
  const size_t T = dr.Length(120);
  desc << "kvcache H=" << H << " Hkv=" << Hkv << " D=" << D << " T=" << T;
  AttentionRope rope;
  if (!dr.OneIn(4)) {
    rope.enabled = true;
    rope.layout = dr.OneIn(2) ? RopeLayout::kHalf : RopeLayout::kInterleaved;
    desc << " rope(" << LayoutName(rope.layout);
    rope.freq = RandomFreq(dr, D, true, desc);
    rope.xpos = dr.OneIn(5);
    if (rope.xpos) rope.xpos_scale_base = double(dr.Int(256, 1024));
    desc << " xpos " << rope.xpos << ")";
  }
  DIFF_EXPECT(StatusOk(KvCache::Validate(Hkv, D, rope)));
  KvCache cache(Hkv, D, rope);
  const std::vector<float> k = dr.Vector(Hkv * T * D),
                           v = dr.Vector(Hkv * T * D);
  // Explicit positions (increasing with gaps) or implicit ones.
  const bool explicit_pos = dr.OneIn(3);
  std::vector<int32_t> pos(T);
  int64_t p = explicit_pos ? dr.Int(0, 200) : 0;
  for (size_t t = 0; t < T; ++t) {
    pos[t] = int32_t(p);
    p += explicit_pos ? dr.Int(1, 3) : 1;
  }
  desc << " positions=" << (explicit_pos ? "explicit" : "implicit")
       << " chunks=";
  for (size_t t0 = 0; t0 < T;) {
    const size_t n = std::min(T - t0, size_t(dr.OneIn(2) ? 1 : dr.Int(1, 40)));
    std::vector<float> kc(Hkv * n * D), vc(Hkv * n * D);
    for (size_t g = 0; g < Hkv; ++g) {
      std::copy_n(k.data() + (g * T + t0) * D, n * D, kc.data() + g * n * D);
      std::copy_n(v.data() + (g * T + t0) * D, n * D, vc.data() + g * n * D);
    }
    DIFF_EXPECT(StatusOk(cache.Append(
        kc.data(), vc.data(), n, explicit_pos ? pos.data() + t0 : nullptr)));
    desc << n << ",";
    t0 += n;
  }
  AttentionOptions o;
  o.H = H;
  o.Tq = dr.OneIn(2) ? 1 : std::min(T, dr.Length(8));
  o.causal = !dr.OneIn(4);
  if (dr.OneIn(4)) o.window = dr.Int(1, 16);
  std::vector<float> slopes;
  if (dr.OneIn(3)) {
    for (double s : ref::AlibiSlopes(H)) slopes.push_back(float(s));
    o.alibi_slopes = slopes.data();
  }
  std::vector<uint8_t> mask(T, 1);
  if (dr.OneIn(4)) {
    for (size_t j = 0; j < T; ++j) mask[j] = !dr.OneIn(3);
    o.key_mask = mask.data();
  }
  desc << " Tq=" << o.Tq << " causal=" << o.causal << " window=" << o.window
       << " alibi=" << !!o.alibi_slopes << " mask=" << !!o.key_mask;
  const std::vector<float> q = dr.Vector(H * o.Tq * D);
  std::vector<float> out(H * o.Tq * D, -7.0f);
  Announce(desc);
  DIFF_EXPECT(StatusOk(cache.Attend(o, q.data(), nullptr, out.data())));
  // Reference: one attention call over every token, the keys at the
  // positions they were appended at (the running count when implicit).
  o.Hkv = Hkv;
  o.Tk = T;
  o.D = D;
  o.rope = rope;
  o.rope.k_positions = explicit_pos ? pos.data() : nullptr;
  const ref::AttentionResult want = ref::Attention(o, q, k, v);
  return Close("out", out, want.out, AttentionTolerances(o, want).out);
}

TEST_P(DifferentialTest, KvCacheDecode) { Run("kv_cache_decode"); }

}  // namespace diff
}  // namespace posenc
