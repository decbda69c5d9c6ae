// Differential tests: thousands of seeded random cases (shapes, encodings,
// masks, values) per run, each compared with a float64 reference of
// tests/cpp/reference/ (written from docs/formulas.md, never by calling the
// code under test). Runs per Highway target natively and in both wasm builds,
// so every flavour is checked against the same references on the same cases.
//
// This harness holds the tolerances, the seed and case selection, the
// deterministic draws, the comparisons and the runner; each op's cases live
// in their own file (attention.cc, rope_apply.cc, ...) next to it.
//
// Seed: kDefaultSeed, or POSENC_DIFF_SEED. Every case has a global index and
// its own generator derived from (seed, index), so one case replays alone:
//   POSENC_DIFF_SEED=<seed> POSENC_DIFF_CASE=<index> posenc_tests \
//     --gtest_filter='*Differential*'
// POSENC_DIFF_VERBOSE=1 prints each case index before it runs.
#ifndef POSENC_TESTS_CPP_DIFFERENTIAL_HARNESS_H_
#define POSENC_TESTS_CPP_DIFFERENTIAL_HARNESS_H_

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "ops/attention.h"
#include "ops/rope_apply.h"
#include "reference/attention.h"
#include "test_util.h"

namespace posenc {
namespace diff {

// ---------------------------------------------------------------------------
// Tolerances. Each is the float32 error budget of the kernel, stated so that a
// wrong formula (an O(1) error) cannot hide in it.

// RoPE: the contract keeps the angle error below 1e-6 rad for any int32
// position and cos/sin are float32 SIMD (a few ulp), so a rotated pair is off
// by at most ~1.3e-6 * (|a| + |b|) * magnitude; 2e-6 leaves rounding room.
constexpr double kRopeAbs = 2e-6;
// Relative rounding of the products (magnitude, xPos scale, a cos - b sin).
constexpr double kRopeRel = 1e-6;
// Attention logits: float32 dot products of rotated q and k (FMA order
// differs per target), the float32 scale folded into q and float32 biases:
// at most ~4e-6 of the row's logit magnitude M = scale * sum |q_e k_e| +
// |biases|. Softmax turns a logit error delta into at most 2 delta relative
// error per probability and 2 delta * max|v| on the output.
constexpr double kLogitRel = 4e-6;
// The softmax sum and p * v accumulation in float32 (polynomial exp, 1.9e-7)
// over <= a few hundred keys, relative to max|v| (outputs can cancel).
constexpr double kOutAbs = 2e-5;
constexpr double kOutRel = 1e-4;
// Probabilities: absolute floor for tiny weights, relative otherwise.
constexpr double kWeightAbs = 2e-6;
constexpr double kWeightRel = 1e-4;
// Sinusoidal table: a double angle reduced, then float32 SIMD cos/sin.
constexpr double kSinusoidalAbs = 2e-6;
// Float32 sums of n terms (Shaw logits and values): the classic bound
// n * 2^-24 of the sum of magnitudes, plus one rounding.
constexpr double kUlp = 1.0 / (1 << 24);

// Per-element tolerances of an attention call from the reference's row
// statistics: out: [H, Tq, D], weights: [H, Tq, Tk]. Rows without a visible
// key must be exactly zero.
struct AttentionTolerance {
  std::vector<double> out, weights;
};
AttentionTolerance AttentionTolerances(const AttentionOptions& o,
                                       const ref::AttentionResult& want);

// ---------------------------------------------------------------------------
// Environment, seed and case selection.

// The variable's value (Node's process.env under Emscripten).
bool GetEnv(const char* name, std::string* value);

// Deterministic draws (integer arithmetic only, so native and wasm generate
// bit-identical cases), one generator per (seed, case index).
class Draw {
 public:
  Draw(uint64_t seed, int64_t index);
  // Uniform integer in [lo, hi].
  int64_t Int(int64_t lo, int64_t hi);
  bool OneIn(int n) { return Int(0, n - 1) == 0; }
  // Uniform in [lo, hi).
  double Real(double lo, double hi);
  // n values uniform in [-magnitude, magnitude).
  std::vector<float> Vector(size_t n, float magnitude = 1.0f);
  // Sequence lengths: T = 1 often, short, around lane multiples, longer.
  size_t Length(size_t max);

 private:
  test::Rng rng_;
};

// ---------------------------------------------------------------------------
// Comparison.

// |got - want| <= tol (per element); NaN fails; names the first bad index.
::testing::AssertionResult Close(const char* what, const float* got,
                                 const std::vector<double>& want,
                                 const std::function<double(size_t)>& tol);
::testing::AssertionResult Close(const char* what, const std::vector<float>& g,
                                 const std::vector<double>& want,
                                 const std::vector<double>& tol);

#define DIFF_EXPECT(cond) \
  do {                    \
    auto _r = (cond);     \
    if (!_r) return _r;   \
  } while (0)

::testing::AssertionResult StatusOk(const Status& s);

// ---------------------------------------------------------------------------
// Random configurations.

const char* LayoutName(RopeLayout l);

// A valid RoPE frequency config for head dim d (rotary dim even, <= d).
// `fixed`: only scalings whose frequencies do not depend on the context.
RopeFrequencyConfig RandomFreq(Draw& dr, size_t d, bool fixed,
                               std::ostream& desc);

// Positions of T tokens: offsets small or large, explicit increasing with
// gaps, random (including negative), near int32 max; within [lo, hi].
std::vector<int64_t> RandomPositions(Draw& dr, size_t T, int64_t lo_allowed,
                                     int64_t hi_allowed);

// ---------------------------------------------------------------------------
// Cases. Each draws its parameters, writes them to desc, runs the code under
// test and compares. Defined in the op files.

using CaseFn = ::testing::AssertionResult (*)(Draw&, std::ostream&);

::testing::AssertionResult AttentionCase(Draw& dr, std::ostream& desc);
::testing::AssertionResult RopeCase(Draw& dr, std::ostream& desc);
::testing::AssertionResult XposCase(Draw& dr, std::ostream& desc);
::testing::AssertionResult AlibiCase(Draw& dr, std::ostream& desc);
::testing::AssertionResult T5Case(Draw& dr, std::ostream& desc);
::testing::AssertionResult ShawCase(Draw& dr, std::ostream& desc);
::testing::AssertionResult SinusoidalCase(Draw& dr, std::ostream& desc);
::testing::AssertionResult KvCacheCase(Draw& dr, std::ostream& desc);

// RoPE apply cases (rope_apply.cc); xPos cases (xpos.cc) force xPos on.
::testing::AssertionResult RopeCaseImpl(Draw& dr, std::ostream& desc,
                                        bool force_xpos);

// With POSENC_DIFF_VERBOSE, prints the case's parameters before it calls the
// code under test, so a crash names its case.
void Announce(const std::ostream& desc);

// ---------------------------------------------------------------------------
// The runner: every kind owns a fixed range of global case indices (the
// order of kinds in harness.cc), so a case index replays across files.
class DifferentialTest : public test::PerTarget {
 protected:
  void Run(const char* kind);
};

}  // namespace diff
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_DIFFERENTIAL_HARNESS_H_
