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

// One row, half layout: a = x[0:h], b = x[h:2h]. kH > 0 fixes h at compile
// time (the common head dims): the loop unrolls and every access becomes
// base + constant offset, which matters for V8's wasm code.
template <size_t kH>
HWY_INLINE void RotateHalfRow(const float* x, size_t h_runtime,
                              const float* HWY_RESTRICT c,
                              const float* HWY_RESTRICT s, float* out) {
  const size_t h = kH ? kH : h_runtime;
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
// vectors on every SIMD target (the shuffles act within 128-bit blocks):
// x0 = [a0 b0 a1 b1], x1 = [a2 b2 a3 b3] are split into a = [a0 a1 a2 a3]
// and b = [b0 b1 b2 b3] (ConcatEven / ConcatOdd), rotated exactly as in the
// half layout with the table loaded as is, and interleaved back.
template <size_t kH>
HWY_INLINE void RotateInterleavedRow(const float* x, size_t h_runtime,
                                     const float* HWY_RESTRICT c,
                                     const float* HWY_RESTRICT s, float* out) {
  const size_t h = kH ? kH : h_runtime;
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::Full128<float> d;
  for (; i + 4 <= h; i += 4) {
    const hn::Vec<decltype(d)> vc = hn::LoadU(d, c + i);
    const hn::Vec<decltype(d)> vs = hn::LoadU(d, s + i);
    const hn::Vec<decltype(d)> x0 = hn::LoadU(d, x + 2 * i);
    const hn::Vec<decltype(d)> x1 = hn::LoadU(d, x + 2 * i + 4);
    const hn::Vec<decltype(d)> a = hn::ConcatEven(d, x1, x0);
    const hn::Vec<decltype(d)> b = hn::ConcatOdd(d, x1, x0);
    const hn::Vec<decltype(d)> ra = hn::MulSub(a, vc, hn::Mul(b, vs));
    const hn::Vec<decltype(d)> rb = hn::MulAdd(b, vc, hn::Mul(a, vs));
    hn::StoreU(hn::InterleaveLower(d, ra, rb), d, out + 2 * i);
    hn::StoreU(hn::InterleaveUpper(d, ra, rb), d, out + 2 * i + 4);
  }
#endif
  for (; i < h; ++i) {
    const float a = x[2 * i], b = x[2 * i + 1];
    out[2 * i] = a * c[i] - b * s[i];
    out[2 * i + 1] = b * c[i] + a * s[i];
  }
}

// All rows of x: heads outer, tokens inner, so x and out stream
// sequentially and the [T, h] table, reused by every head, stays in cache.
template <size_t kH>
HWY_NOINLINE void RotateAllRows(RopeLayout layout, const float* x, size_t H,
                                size_t T, size_t dim, size_t r,
                                const float* HWY_RESTRICT cos,
                                const float* HWY_RESTRICT sin, float* out) {
  const size_t h = r / 2;
  for (size_t head = 0; head < H; ++head) {
    for (size_t t = 0; t < T; ++t) {
      const size_t off = (head * T + t) * dim;
      if (layout == RopeLayout::kHalf) {
        RotateHalfRow<kH>(x + off, h, cos + t * h, sin + t * h, out + off);
      } else {
        RotateInterleavedRow<kH>(x + off, h, cos + t * h, sin + t * h,
                                 out + off);
      }
      if (out != x) {  // partial rotary: the tail passes through
        for (size_t j = r; j < dim; ++j) out[off + j] = x[off + j];
      }
    }
  }
}

// See ApplyRope in rope.h. No allocation; out may equal x.
// The row length is picked through a table of function pointers: Binaryen
// (behind emcc) inlines every function with one call site, whatever its size,
// and the four RotateAllRows in one function made it large enough for V8 to
// compile it with its mid-tier register allocator (spills in the row loop,
// about 20% slower in wasm). An indirect call is never inlined.
HWY_NOINLINE void ApplyRopeKernel(RopeLayout layout, const float* x, size_t H,
                                  size_t T, size_t dim, size_t r,
                                  const float* HWY_RESTRICT cos,
                                  const float* HWY_RESTRICT sin, float* out) {
  using Fn = void (*)(RopeLayout, const float*, size_t, size_t, size_t, size_t,
                      const float*, const float*, float*);
  static constexpr Fn kRotate[4] = {&RotateAllRows<0>, &RotateAllRows<16>,
                                    &RotateAllRows<32>, &RotateAllRows<64>};
  const size_t h = r / 2;  // rotary dims 32, 64, 128 get unrolled rows
  const size_t which = h == 16 ? 1 : h == 32 ? 2 : h == 64 ? 3 : 0;
  kRotate[which](layout, x, H, T, dim, r, cos, sin, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_OPS_ROPE_INL_H_
