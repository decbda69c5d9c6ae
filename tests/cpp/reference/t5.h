// float64 reference of the T5 relative-position bucket
// (docs/formulas.md#t5-relative-bias).
#ifndef POSENC_TESTS_CPP_REFERENCE_T5_H_
#define POSENC_TESTS_CPP_REFERENCE_T5_H_

#include <cstdint>

namespace posenc {
namespace ref {

// Bucket of rel = key - query for B buckets and max distance maxd: the first
// half of a side's buckets is exact, the rest logarithmic up to maxd.
// Reference implementations round the log term in float32; where the float64
// value lies within 1e-6 of an integer either neighbour can come out, so
// both candidates are returned: lo <= hi, and hi is the value of the exact
// real-number formula (equal to lo away from such edges).
struct T5BucketRange {
  int32_t lo, hi;
  bool edge() const { return lo != hi; }
};
T5BucketRange T5Bucket(int64_t rel, int32_t B, int32_t maxd,
                       bool bidirectional);

}  // namespace ref
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_REFERENCE_T5_H_
