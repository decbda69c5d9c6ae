// float64 reference of RoPE (docs/formulas.md#rope, #rope-scaling, #xpos):
// inverse frequencies of every scaling type, the rotation of pairs in both
// layouts with partial rotary, and xPos scales. Written from the formulas,
// not from src/; shared by the GoogleTest suites and the fuzz targets (no
// gtest dependency).
#ifndef POSENC_TESTS_CPP_REFERENCE_ROPE_H_
#define POSENC_TESTS_CPP_REFERENCE_ROPE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ops/rope_apply.h"

namespace posenc {
namespace ref {

constexpr double kPi = 3.14159265358979323846;

// r: rotary_dim, or head_dim when rotary_dim is 0.
int RotaryDim(const RopeFrequencyConfig& c);

// The scaling's attention factor (docs/formulas.md#rope-scaling): YaRN's
// m(s) ratio or explicit value, LongRoPE's sqrt(1 + ln s / ln L) or explicit
// value, 1 for every other type.
double RopeAttentionFactor(const RopeScaling& s);

// inv_freq: [r / 2] for context length `ctx` (longest position + 1; only
// dynamic and longrope depend on it), and the attention factor.
struct RopeFreqs {
  std::vector<double> inv_freq;  // [r / 2]
  double attention_factor = 1.0;
};
RopeFreqs InvFreq(const RopeFrequencyConfig& c, int64_t ctx);

// xPos scale of pair i (of r rotary dims) at position pos:
// zeta_i^(+-(pos - center) / scale_base), zeta_i = (2i + 0.4 r) / (1.4 r);
// the exponent is negated for keys.
double XposScale(size_t i, size_t r, int64_t pos, int64_t center,
                 double scale_base, bool key);

// Rotates the first r = 2 * inv_freq.size() dims of every row of x at the
// row's position by angle pos * inv_freq[i] (float32 frequencies, as the
// kernels store them), pairs (i, i + r/2) (half) or (2i, 2i + 1)
// (interleaved); dims past r pass through.
//   x: [H, T, d]   pos: [T]   inv_freq: [r / 2]
//   scale: [T, r / 2] multiplier of each rotated pair, or empty (1)
// Returns [H, T, d]. mag (optional): [H, T, d], scale * (|a| + |b|) of each
// element's pair (|x| for pass-through elements), for tolerances.
std::vector<double> RotatePairs(RopeLayout layout, const std::vector<float>& x,
                                size_t H, size_t T, size_t d,
                                const std::vector<int64_t>& pos,
                                const std::vector<float>& inv_freq,
                                const std::vector<double>& scale,
                                std::vector<double>* mag);

// What one RoPE / xPos application rotates with.
struct RopeSpec {
  RopeFrequencyConfig freq;
  RopeLayout layout = RopeLayout::kHalf;
  bool pure = false;  // no attention factor (a re-rotation)
  bool xpos = false;
  double xpos_scale_base = 512.0;
  int64_t xpos_center = 0;
  bool xpos_key = false;
};

// x: [H, T, d] rotated at pos: [T] with the frequencies of context ctx, times
// the attention factor (unless pure) and the xPos scale. mag: as RotatePairs.
std::vector<double> Rope(const RopeSpec& spec, const std::vector<float>& x,
                         size_t H, size_t T, const std::vector<int64_t>& pos,
                         int64_t ctx, std::vector<double>* mag);

}  // namespace ref
}  // namespace posenc

#endif  // POSENC_TESTS_CPP_REFERENCE_ROPE_H_
