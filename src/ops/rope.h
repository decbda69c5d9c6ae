// RoPE kernels: the cos/sin table and the rotation of q or k. Plain API
// (pointers and sizes, no Highway types); SIMD bodies live in rope-inl.h and
// are dispatched once per call in rope.cc.
//
// Shapes: T = tokens, H = heads, d = head dim, r = rotary dim (even, <= d),
// h = r/2 pairs.
//
// Rotation of pair (a, b) by angle theta: a' = a cos - b sin,
// b' = b cos + a sin (Su et al. 2021, eq. 13). Which elements form a pair is
// the layout:
//   kHalf        (GPT-NeoX, HF Llama `rotate_half`): (x[i], x[i + h])
//   kInterleaved (GPT-J, Meta Llama, ggml "normal"): (x[2i], x[2i + 1])
// Elements r..d-1 pass through untouched (partial rotary).
#ifndef POSENC_OPS_ROPE_H_
#define POSENC_OPS_ROPE_H_

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace posenc {

enum class RopeLayout : int { kHalf = 0, kInterleaved = 1 };
constexpr int kNumRopeLayouts = 2;
// "half", "interleaved" ("invalid" out of range).
const char* RopeLayoutName(RopeLayout layout);

// cos, sin: [T, h] = magnitude * cos/sin(positions[t] * inv_freq[i]), with
// inv_freq: [h] in double (RoPE passes its float32 frequencies widened).
// The angle is formed and reduced to [-pi, pi] in double, so any int32
// position keeps an absolute angle error below 1e-6; cos/sin of the reduced
// angle are float32 SIMD (Highway contrib/math, a few ulp).
void RopeCosSin(const int32_t* positions, size_t T, const double* inv_freq,
                size_t h, float magnitude, float* cos, float* sin);

// out: [H, T, d] = rotation of x: [H, T, d] by the table cos, sin: [T, h].
// out may equal x (in place): each pair is loaded before either half is
// stored.
void ApplyRope(RopeLayout layout, const float* x, size_t H, size_t T, size_t d,
               size_t r, const float* cos, const float* sin, float* out);

// Scalar references of the two kernels above (same contracts; cos/sin via
// std::cos/std::sin of the double angle).
void RopeCosSinScalar(const int32_t* positions, size_t T,
                      const double* inv_freq, size_t h, float magnitude,
                      float* cos, float* sin);
void ApplyRopeScalar(RopeLayout layout, const float* x, size_t H, size_t T,
                     size_t d, size_t r, const float* cos, const float* sin,
                     float* out);
// The same rotation, element for element, over heads and tokens found
// through strides: head h, token t of x starts at x[h * head_stride +
// t * token_stride] (out alike). ApplyRopeScalar is head_stride = T d,
// token_stride = d; the token-major layout [T, H, d] (a projection's output
// before the heads are split) is head_stride = d, token_stride = H d.
void ApplyRopeScalarStrided(RopeLayout layout, const float* x, size_t H,
                            size_t T, size_t d, size_t r, const float* cos,
                            const float* sin, float* out, size_t head_stride,
                            size_t token_stride);

// Reduces theta = p * f (computed in double) to [-pi, pi].
inline double ReducedAngle(int64_t p, double f) {
  constexpr double kTwoPi = 6.283185307179586476925;
  const double theta = static_cast<double>(p) * f;
  return theta - std::nearbyint(theta * (1.0 / kTwoPi)) * kTwoPi;
}

}  // namespace posenc

#endif  // POSENC_OPS_ROPE_H_
