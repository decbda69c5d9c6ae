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
#include <vector>

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

// One row, interleaved layout, with the table expanded per element:
// ce = [c0 c0 c1 c1 ...], se = [-s0 s0 -s1 s1 ...], so that
// out = x * ce + swap_pairs(x) * se.
HWY_INLINE void RotateInterleavedRow(const float* x, size_t r,
                                     const float* HWY_RESTRICT ce,
                                     const float* HWY_RESTRICT se, float* out) {
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::ScalableTag<float> d;
  const size_t N = hn::Lanes(d);
  for (; i + N <= r; i += N) {
    const hn::Vec<decltype(d)> v = hn::LoadU(d, x + i);
    const hn::Vec<decltype(d)> swapped = hn::Reverse2(d, v);
    hn::StoreU(hn::MulAdd(v, hn::LoadU(d, ce + i),
                          hn::Mul(swapped, hn::LoadU(d, se + i))),
               d, out + i);
  }
#endif
  for (; i < r; i += 2) {
    const float a = x[i], b = x[i + 1];
    out[i] = a * ce[i] + b * se[i];
    out[i + 1] = b * ce[i + 1] + a * se[i + 1];
  }
}

// See ApplyRope in rope.h.
HWY_NOINLINE void ApplyRopeKernel(RopeLayout layout, const float* x, size_t H,
                                  size_t T, size_t dim, size_t r,
                                  const float* HWY_RESTRICT cos,
                                  const float* HWY_RESTRICT sin, float* out) {
  const size_t h = r / 2;
  std::vector<float> ce, se;
  if (layout == RopeLayout::kInterleaved) {
    ce.resize(r);
    se.resize(r);
  }
  for (size_t t = 0; t < T; ++t) {
    const float* c = cos + t * h;
    const float* s = sin + t * h;
    if (layout == RopeLayout::kInterleaved) {
      for (size_t i = 0; i < h; ++i) {
        ce[2 * i] = ce[2 * i + 1] = c[i];
        se[2 * i] = -s[i];
        se[2 * i + 1] = s[i];
      }
    }
    for (size_t head = 0; head < H; ++head) {
      const size_t off = (head * T + t) * dim;
      if (layout == RopeLayout::kHalf) {
        RotateHalfRow(x + off, h, c, s, out + off);
      } else {
        RotateInterleavedRow(x + off, r, ce.data(), se.data(), out + off);
      }
      if (out != x) {
        for (size_t j = r; j < dim; ++j) out[off + j] = x[off + j];
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_OPS_ROPE_INL_H_
