// Differential cases of T5: buckets and the gathered bias for any bucket
// settings and query offset, against reference/t5.h.
#include "ops/t5.h"

#include <vector>

#include "differential/harness.h"
#include "reference/t5.h"

namespace posenc {
namespace diff {

::testing::AssertionResult T5Case(Draw& dr, std::ostream& desc) {
  const bool bidir = dr.OneIn(2);
  const int32_t B = static_cast<int32_t>(dr.Int(bidir ? 4 : 2, 64));
  const int32_t per = bidir ? B / 2 : B;
  const int32_t maxd = static_cast<int32_t>(dr.Int(per / 2 + 1, 1000));
  const size_t Q = dr.Length(120), K = dr.Length(200);
  const int64_t qoff = dr.Int(0, 400);
  const size_t H = static_cast<size_t>(dr.Int(1, 8));
  desc << "t5 B=" << B << " maxd=" << maxd << " bidir=" << bidir << " Q=" << Q
       << " K=" << K << " qoff=" << qoff << " H=" << H;
  DIFF_EXPECT(StatusOk(ValidateT5Buckets(B, maxd, bidir)));
  DIFF_EXPECT(StatusOk(ValidateT5Shape(int64_t(Q), int64_t(K), qoff)));
  std::vector<int32_t> buckets(Q * K, -1);
  T5Buckets(Q, K, qoff, B, maxd, bidir, buckets.data());
  const std::vector<float> table = dr.Vector(size_t(B) * H);
  std::vector<float> bias(H * Q * K);
  T5Bias(table.data(), H, buckets.data(), Q, K, bias.data());
  for (size_t i = 0; i < Q; ++i) {
    for (size_t j = 0; j < K; ++j) {
      const int64_t rel = int64_t(j) - (qoff + int64_t(i));
      const ref::T5BucketRange want = ref::T5Bucket(rel, B, maxd, bidir);
      const int32_t got = buckets[i * K + j];
      if (got < want.lo || got > want.hi) {
        return ::testing::AssertionFailure()
               << "bucket(rel " << rel << ") = " << got << ", want " << want.lo
               << ".." << want.hi;
      }
      for (size_t h = 0; h < H; ++h) {
        if (bias[(h * Q + i) * K + j] != table[size_t(got) * H + h]) {
          return ::testing::AssertionFailure()
                 << "bias[" << h << ", " << i << ", " << j << "] != table";
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TEST_P(DifferentialTest, T5) { Run("t5"); }

}  // namespace diff
}  // namespace posenc
