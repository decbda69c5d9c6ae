// Differential cases of ALiBi: slopes for any head count and bias rows of any
// length, against reference/alibi.h.
#include "ops/alibi.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "differential/harness.h"
#include "reference/alibi.h"

namespace posenc {
namespace diff {

::testing::AssertionResult AlibiCase(Draw& dr, std::ostream& desc) {
  const size_t H = static_cast<size_t>(dr.Int(1, 80));
  const size_t K = dr.Length(300);
  const size_t Q = std::min(K, dr.Length(K));
  const bool causal = !dr.OneIn(3);
  const bool simple = dr.OneIn(4);
  desc << "alibi H=" << H << " Q=" << Q << " K=" << K << " causal=" << causal
       << " variant=" << (simple ? "simple" : "paper");
  std::vector<float> slopes(H);
  AlibiSlopeValues(H, simple ? AlibiSlopes::kSimple : AlibiSlopes::kPaper,
                   slopes.data());
  const std::vector<double> want_slopes =
      simple ? ref::AlibiSimpleSlopes(H) : ref::AlibiSlopes(H);
  // Rounded once from double: within half an ulp.
  DIFF_EXPECT(Close("slopes", slopes.data(), want_slopes,
                    [&](size_t e) { return 0.5 * kUlp * 2 * want_slopes[e]; }));
  std::vector<float> out(H * Q * K, 7.0f);
  DIFF_EXPECT(StatusOk(ValidateAlibiBias(int64_t(H), int64_t(Q), int64_t(K))));
  AlibiBias(slopes.data(), H, Q, K, causal, out.data());
  const std::vector<double> want = ref::AlibiBias(slopes, Q, K, causal);
  return Close("bias", out.data(), want,
               [&](size_t e) { return kUlp * std::abs(want[e]); });
}

TEST_P(DifferentialTest, Alibi) { Run("alibi"); }

}  // namespace diff
}  // namespace posenc
