// Differential cases of the sinusoidal table, both layouts, against
// reference/sinusoidal.h.
#include "ops/sinusoidal.h"

#include <vector>

#include "differential/harness.h"
#include "reference/sinusoidal.h"

namespace posenc {
namespace diff {

::testing::AssertionResult SinusoidalCase(Draw& dr, std::ostream& desc) {
  const bool concat = dr.OneIn(2);
  const size_t L = dr.OneIn(10) ? size_t(dr.Int(1000, 5000)) : dr.Length(200);
  const size_t D = 2 * static_cast<size_t>(dr.Int(concat ? 2 : 1, 64));
  const double base = dr.OneIn(2) ? 10000.0 : dr.Real(1.5, 1e5);
  desc << "sinusoidal L=" << L << " D=" << D << " base=" << base
       << " layout=" << (concat ? "concat" : "interleaved");
  const SinusoidalLayout layout =
      concat ? SinusoidalLayout::kConcat : SinusoidalLayout::kInterleaved;
  DIFF_EXPECT(
      StatusOk(ValidateSinusoidal(int64_t(L), int64_t(D), base, layout)));
  std::vector<float> out(L * D, 7.0f);
  SinusoidalTable(L, D, base, layout, out.data());
  const std::vector<double> want = ref::SinusoidalTable(L, D, base, concat);
  return Close("table", out.data(), want,
               [](size_t) { return kSinusoidalAbs; });
}

TEST_P(DifferentialTest, Sinusoidal) { Run("sinusoidal"); }

}  // namespace diff
}  // namespace posenc
