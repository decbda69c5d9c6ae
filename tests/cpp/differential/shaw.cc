// Differential cases of Shaw: relative key logits and value sums against
// reference/shaw.h.
#include "ops/shaw.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "differential/harness.h"
#include "reference/shaw.h"

namespace posenc {
namespace diff {

::testing::AssertionResult ShawCase(Draw& dr, std::ostream& desc) {
  const size_t K = dr.Length(90);
  const size_t Q = std::min(K, dr.Length(K));
  const size_t D = static_cast<size_t>(dr.Int(1, 64));
  const int32_t c = static_cast<int32_t>(dr.Int(0, 10));
  const float scale = float(dr.Real(0.05, 1.5));
  desc << "shaw Q=" << Q << " K=" << K << " D=" << D << " clip=" << c
       << " scale=" << scale;
  DIFF_EXPECT(StatusOk(ValidateShaw(int64_t(Q), int64_t(K), c)));
  const std::vector<float> q = dr.Vector(Q * D), k = dr.Vector(K * D),
                           v = dr.Vector(K * D),
                           tk = dr.Vector((2 * c + 1) * D),
                           tv = dr.Vector((2 * c + 1) * D);
  std::vector<float> probs = dr.Vector(Q * K);
  for (float& p : probs) p = std::abs(p);
  std::vector<float> logits(Q * K), out(Q * D);
  ShawLogits(q.data(), k.data(), tk.data(), Q, K, D, c, scale, logits.data());
  ShawValues(probs.data(), v.data(), tv.data(), Q, K, D, c, out.data());
  const ref::Sums want_l = ref::ShawLogits(q, k, tk, Q, K, D, c, scale);
  const ref::Sums want_o = ref::ShawValues(probs, v, tv, Q, K, D, c);
  // Float32 sums of D (logits) and K (values) terms.
  std::vector<double> tol_l(Q * K), tol_o(Q * D);
  for (size_t e = 0; e < tol_l.size(); ++e) {
    tol_l[e] = (D + 3) * kUlp * want_l.abs_sum[e];
  }
  for (size_t e = 0; e < tol_o.size(); ++e) {
    tol_o[e] = (K + 3) * kUlp * want_o.abs_sum[e];
  }
  DIFF_EXPECT(Close("logits", logits, want_l.value, tol_l));
  return Close("values", out, want_o.value, tol_o);
}

TEST_P(DifferentialTest, Shaw) { Run("shaw"); }

}  // namespace diff
}  // namespace posenc
