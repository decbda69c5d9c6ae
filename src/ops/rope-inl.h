// Per-target RoPE kernels (Highway). Included by rope.cc once per target;
// see rope.h for the contracts.
#if defined(POSENC_OPS_ROPE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POSENC_OPS_ROPE_INL_H_
#undef POSENC_OPS_ROPE_INL_H_
#else
#define POSENC_OPS_ROPE_INL_H_
#endif

#include <cstddef>
#include <cstdint>
#include <vector>  // angle buffer of RopeCosSinKernel

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "ops/rope.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// cos, sin: [n] = magnitude * cos/sin(angles[n]); angles in [-pi, pi].
// Highway's Cos/Sin are accurate to a few ulp on [-39000, 39000].
HWY_INLINE void CosSinOfAngles(const float* HWY_RESTRICT angles, size_t n,
                               float magnitude, float* HWY_RESTRICT cos,
                               float* HWY_RESTRICT sin) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  const hn::Vec<decltype(d)> m = hn::Set(d, magnitude);
  size_t i = 0;
  for (; i + N <= n; i += N) {
    const hn::Vec<decltype(d)> a = hn::LoadU(d, angles + i);
    hn::StoreU(hn::Mul(hn::Cos(d, a), m), d, cos + i);
    hn::StoreU(hn::Mul(hn::Sin(d, a), m), d, sin + i);
  }
  if (i < n) {  // Remainder through a padded buffer: same math as the body.
    HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
    HWY_ALIGN float c[hn::MaxLanes(d)];
    HWY_ALIGN float s[hn::MaxLanes(d)];
    for (size_t j = i; j < n; ++j) buf[j - i] = angles[j];
    const hn::Vec<decltype(d)> a = hn::Load(d, buf);
    hn::Store(hn::Mul(hn::Cos(d, a), m), d, c);
    hn::Store(hn::Mul(hn::Sin(d, a), m), d, s);
    for (size_t j = i; j < n; ++j) {
      cos[j] = c[j - i];
      sin[j] = s[j - i];
    }
  }
}

// See RopeCosSin in rope.h.
HWY_NOINLINE void RopeCosSinKernel(const int32_t* HWY_RESTRICT positions,
                                   size_t T,
                                   const double* HWY_RESTRICT inv_freq,
                                   size_t h, float magnitude,
                                   float* HWY_RESTRICT cos,
                                   float* HWY_RESTRICT sin) {
  std::vector<float> angles(h);
  for (size_t t = 0; t < T; ++t) {
    for (size_t i = 0; i < h; ++i) {
      angles[i] = static_cast<float>(ReducedAngle(positions[t], inv_freq[i]));
    }
    CosSinOfAngles(angles.data(), h, magnitude, cos + t * h, sin + t * h);
  }
}

// One row, half layout: a = x[0:h], b = x[h:2h].
HWY_INLINE void RotateHalfRow(const float* x, size_t h,
                              const float* HWY_RESTRICT c,
                              const float* HWY_RESTRICT s, float* out) {
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  size_t i = 0;
  for (; i + N <= h; i += N) {
    const hn::Vec<decltype(d)> vc = hn::LoadU(d, c + i);
    const hn::Vec<decltype(d)> vs = hn::LoadU(d, s + i);
    const hn::Vec<decltype(d)> a = hn::LoadU(d, x + i);
    const hn::Vec<decltype(d)> b = hn::LoadU(d, x + h + i);
    hn::StoreU(hn::MulSub(a, vc, hn::Mul(b, vs)), d, out + i);
    hn::StoreU(hn::MulAdd(b, vc, hn::Mul(a, vs)), d, out + h + i);
  }
  for (; i < h; ++i) {
    const float a = x[i], b = x[h + i];
    out[i] = a * c[i] - b * s[i];
    out[h + i] = b * c[i] + a * s[i];
  }
}

// One row, interleaved layout: pairs (x[2i], x[2i+1]). Works on 128-bit
// vectors on every SIMD target (the Interleave ops act within 128-bit
// blocks): 4 table entries [c0 c1 c2 c3] become [c0 c0 c1 c1] and
// [c2 c2 c3 c3]; with p = x * c and q = swap_pairs(x) * s, even lanes take
// p - q (a c - b s) and odd lanes p + q (b c + a s).
HWY_INLINE void RotateInterleavedRow(const float* x, size_t h,
                                     const float* HWY_RESTRICT c,
                                     const float* HWY_RESTRICT s, float* out) {
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::Full128<float> d;
  for (; i + 4 <= h; i += 4) {
    const hn::Vec<decltype(d)> vc = hn::LoadU(d, c + i);
    const hn::Vec<decltype(d)> vs = hn::LoadU(d, s + i);
    const hn::Vec<decltype(d)> x0 = hn::LoadU(d, x + 2 * i);
    const hn::Vec<decltype(d)> x1 = hn::LoadU(d, x + 2 * i + 4);
    const hn::Vec<decltype(d)> p0 = hn::Mul(x0, hn::InterleaveLower(d, vc, vc));
    const hn::Vec<decltype(d)> q0 =
        hn::Mul(hn::Reverse2(d, x0), hn::InterleaveLower(d, vs, vs));
    const hn::Vec<decltype(d)> p1 = hn::Mul(x1, hn::InterleaveUpper(d, vc, vc));
    const hn::Vec<decltype(d)> q1 =
        hn::Mul(hn::Reverse2(d, x1), hn::InterleaveUpper(d, vs, vs));
    hn::StoreU(hn::OddEven(hn::Add(p0, q0), hn::Sub(p0, q0)), d, out + 2 * i);
    hn::StoreU(hn::OddEven(hn::Add(p1, q1), hn::Sub(p1, q1)), d,
               out + 2 * i + 4);
  }
#endif
  for (; i < h; ++i) {
    const float a = x[2 * i], b = x[2 * i + 1];
    out[2 * i] = a * c[i] - b * s[i];
    out[2 * i + 1] = b * c[i] + a * s[i];
  }
}

// See ApplyRope in rope.h. Heads outer, tokens inner: x and out stream
// sequentially and the [T, h] table, reused by every head, stays in cache.
// No allocation: out may equal x.
HWY_NOINLINE void ApplyRopeKernel(RopeLayout layout, const float* x, size_t H,
                                  size_t T, size_t dim, size_t r,
                                  const float* HWY_RESTRICT cos,
                                  const float* HWY_RESTRICT sin, float* out) {
  const size_t h = r / 2;
  for (size_t head = 0; head < H; ++head) {
    for (size_t t = 0; t < T; ++t) {
      const size_t off = (head * T + t) * dim;
      if (layout == RopeLayout::kHalf) {
        RotateHalfRow(x + off, h, cos + t * h, sin + t * h, out + off);
      } else {
        RotateInterleavedRow(x + off, h, cos + t * h, sin + t * h, out + off);
      }
      if (out != x) {  // partial rotary: the tail passes through
        for (size_t j = r; j < dim; ++j) out[off + j] = x[off + j];
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_OPS_ROPE_INL_H_
