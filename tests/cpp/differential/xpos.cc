// Differential cases of xPos: RoPE apply cases with xPos always on (scale
// base, centre, query / key side), and the scale table.
#include "differential/harness.h"

namespace posenc {
namespace diff {

::testing::AssertionResult XposCase(Draw& dr, std::ostream& desc) {
  return RopeCaseImpl(dr, desc, true);
}

TEST_P(DifferentialTest, Xpos) { Run("xpos"); }

}  // namespace diff
}  // namespace posenc
