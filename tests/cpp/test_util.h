// Shared test helpers: run a suite once per Highway target (natively every
// target this CPU supports; in wasm the single static target), float64
// reference helpers and a deterministic RNG.
#ifndef POSENC_TESTS_CPP_TEST_UTIL_H_
#define POSENC_TESTS_CPP_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/targets.h"
#include "hwy/targets.h"

namespace posenc {
namespace test {

inline std::vector<int64_t> TestTargets() {
#if defined(POSENC_WASM)
  return {HWY_STATIC_TARGET};
#else
  hwy::SetSupportedTargetsForTest(0);
  return hwy::SupportedAndGeneratedTargets();
#endif
}

// Base fixture: forces the dispatcher onto GetParam() for the test body.
class PerTarget : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
#if !defined(POSENC_WASM)
    hwy::SetSupportedTargetsForTest(GetParam());
#endif
    ASSERT_EQ(DispatchedTarget(), GetParam())
        << "dispatch did not switch to " << hwy::TargetName(GetParam());
  }
  void TearDown() override {
#if !defined(POSENC_WASM)
    hwy::SetSupportedTargetsForTest(0);
#endif
  }
};

#define POSENC_INSTANTIATE_PER_TARGET(Suite)                                   \
  INSTANTIATE_TEST_SUITE_P(Targets, Suite,                                     \
                           ::testing::ValuesIn(::posenc::test::TestTargets()), \
                           [](const ::testing::TestParamInfo<int64_t>& info) { \
                             return std::string(hwy::TargetName(info.param));  \
                           })

// xorshift64*: deterministic across native and wasm.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t Next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 0x2545F4914F6CDD1Dull;
  }
  // Uniform in [-1, 1).
  float Uniform() {
    return static_cast<float>((Next() >> 40) * (1.0 / (1ull << 24)) * 2.0 -
                              1.0);
  }
  std::vector<float> Vector(size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = Uniform();
    return v;
  }

 private:
  uint64_t s_;
};

// |a - b| <= atol + rtol * |b|, with a message naming the index.
inline ::testing::AssertionResult AllClose(const float* a, const double* b,
                                           size_t n, double atol, double rtol) {
  double worst = 0.0;
  for (size_t i = 0; i < n; ++i) {
    const double err = std::abs(static_cast<double>(a[i]) - b[i]);
    if (!(err <= atol + rtol * std::abs(b[i]))) {
      return ::testing::AssertionFailure()
             << "index " << i << ": got " << a[i] << ", want " << b[i]
             << " (err " << err << ")";
    }
    worst = std::max(worst, err);
  }
  return ::testing::AssertionSuccess() << "max err " << worst;
}

inline ::testing::AssertionResult AllClose(const std::vector<float>& a,
                                           const std::vector<double>& b,
                                           double atol, double rtol) {
  if (a.size() != b.size()) {
    return ::testing::AssertionFailure()
           << "size " << a.size() << " vs " << b.size();
  }
  return AllClose(a.data(), b.data(), a.size(), atol, rtol);
}

constexpr double kPi = 3.14159265358979323846;

}  // namespace test
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_TEST_UTIL_H_
