// Per-target row kernels (Highway): the attention softmax row, forward and
// backward, and LayerNorm. See rows.h for the arithmetic and the summation
// order; each line matches a line of the scalar references in rows.cc.
// 128-bit vectors on every target: a group of 8 floats is two vectors of 4,
// whose float64 promotions are the four 2-lane partial-sum vectors.
#if defined(POSENC_MODEL_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef POSENC_MODEL_ROWS_INL_H_
#undef POSENC_MODEL_ROWS_INL_H_
#else
#define POSENC_MODEL_ROWS_INL_H_
#endif

#include <cmath>
#include <cstddef>

#include "hwy/highway.h"
#include "model/activations.h"
#include "model/exp-inl.h"
#include "model/rows.h"

#if HWY_TARGET == HWY_WASM
#include <wasm_simd128.h>
#endif

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET != HWY_SCALAR

using DF = hn::Full128<float>;  // 4 floats
using VF = hn::Vec<DF>;

// Two float64 lanes. Highway 1.0.3 has no float64 vectors in wasm, whose
// SIMD has them (f64x2): there, intrinsics on the vector's raw value. Only
// the functions below may touch a VD: Highway's generic Add or Mul accept a
// raw v128_t too, and would add its lanes as integers.
#if HWY_TARGET == HWY_WASM
using VD = v128_t;
HWY_INLINE VD ZeroD() { return wasm_f64x2_splat(0.0); }
HWY_INLINE VD SetD(double x) { return wasm_f64x2_splat(x); }
HWY_INLINE VD AddD(VD a, VD b) { return wasm_f64x2_add(a, b); }
HWY_INLINE VD SubD(VD a, VD b) { return wasm_f64x2_sub(a, b); }
HWY_INLINE VD MulD(VD a, VD b) { return wasm_f64x2_mul(a, b); }
HWY_INLINE void StoreD(VD v, double* p) { wasm_v128_store(p, v); }
// The float64 values of a's lanes 0, 1 (lower) and 2, 3 (upper).
HWY_INLINE VD PromoteLower(VF a) { return wasm_f64x2_promote_low_f32x4(a.raw); }
HWY_INLINE VD PromoteUpper(VF a) {
  return wasm_f64x2_promote_low_f32x4(
      wasm_i32x4_shuffle(a.raw, a.raw, 2, 3, 0, 1));
}
#else
using DD = hn::Full128<double>;
using VD = hn::Vec<DD>;
HWY_INLINE VD ZeroD() { return hn::Zero(DD()); }
HWY_INLINE VD SetD(double x) { return hn::Set(DD(), x); }
HWY_INLINE VD AddD(VD a, VD b) { return hn::Add(a, b); }
HWY_INLINE VD SubD(VD a, VD b) { return hn::Sub(a, b); }
HWY_INLINE VD MulD(VD a, VD b) { return hn::Mul(a, b); }
HWY_INLINE void StoreD(VD v, double* p) { hn::StoreU(v, DD(), p); }
HWY_INLINE VD PromoteLower(VF a) {
  return hn::PromoteTo(DD(), hn::LowerHalf(a));
}
HWY_INLINE VD PromoteUpper(VF a) {
  return hn::PromoteTo(DD(), hn::UpperHalf(hn::Half<DF>(), a));
}
#endif

// Sum8's eight partial sums: s[0] holds partials 0 and 1, s[1] 2 and 3, ...
struct Partials {
  VD s[4];
};

HWY_INLINE Partials ZeroPartials() {
  return Partials{{ZeroD(), ZeroD(), ZeroD(), ZeroD()}};
}

// Adds the terms of a group of 8, a (terms 0-3) and b (4-7), as float64.
HWY_INLINE void AddGroup(VF a, VF b, Partials* p) {
  p->s[0] = AddD(p->s[0], PromoteLower(a));
  p->s[1] = AddD(p->s[1], PromoteUpper(a));
  p->s[2] = AddD(p->s[2], PromoteLower(b));
  p->s[3] = AddD(p->s[3], PromoteUpper(b));
}

// Adds the float64 products of a group of 8: double(a) double(b).
HWY_INLINE void AddGroupProducts(VF a0, VF a1, VF b0, VF b1, Partials* p) {
  p->s[0] = AddD(p->s[0], MulD(PromoteLower(a0), PromoteLower(b0)));
  p->s[1] = AddD(p->s[1], MulD(PromoteUpper(a0), PromoteUpper(b0)));
  p->s[2] = AddD(p->s[2], MulD(PromoteLower(a1), PromoteLower(b1)));
  p->s[3] = AddD(p->s[3], MulD(PromoteUpper(a1), PromoteUpper(b1)));
}

// The partials as eight doubles (for a scalar tail) ...
HWY_INLINE void StorePartials(const Partials& p, double* s) {
  for (size_t i = 0; i < 4; ++i) StoreD(p.s[i], s + 2 * i);
}
// ... and Sum8's combination of them.
HWY_INLINE double Combine(const double* s) {
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

// Lanes i < count of a kept, the rest +0 (count may be <= 0 or >= 4).
HWY_INLINE VF KeepFirst(ptrdiff_t count, VF a) {
  const DF d;
  if (count >= 4) return a;
  return hn::IfThenElseZero(
      hn::FirstN(d, count > 0 ? static_cast<size_t>(count) : 0), a);
}

// The end of the groups of 8 the kernels touch: 8 ceil(n / 8), at most T.
HWY_INLINE size_t PaddedEnd(size_t n, size_t T) {
  const size_t p = (n + 7) / 8 * 8;
  return p < T ? p : T;
}

#endif  // HWY_TARGET != HWY_SCALAR

// x: [T]; bias: [n] or null (rows.h).
HWY_NOINLINE void SoftmaxRowKernel(float* HWY_RESTRICT x,
                                   const float* HWY_RESTRICT bias, size_t n,
                                   size_t T, float scale) {
#if HWY_TARGET == HWY_SCALAR
  SoftmaxRowScalar(x, bias, n, T, scale);
#else
  const DF d;
  // Scale (and bias), and the maximum: lanes start from x[0]'s value, as
  // the reference's partial maxima do (a NaN there stays; later NaNs are
  // skipped by the comparison, as there).
  const VF vs = hn::Set(d, scale);
  float first = x[0] * scale;
  if (bias) first += bias[0];
  VF vmax = hn::Set(d, first);
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    VF v = hn::Mul(hn::LoadU(d, x + j), vs);
    if (bias) v = hn::Add(v, hn::LoadU(d, bias + j));
    hn::StoreU(v, d, x + j);
    vmax = hn::IfThenElse(hn::Gt(v, vmax), v, vmax);
  }
  float lanes[4];
  hn::StoreU(vmax, d, lanes);
  float mx = lanes[0];
  for (size_t l = 1; l < 4; ++l) mx = lanes[l] > mx ? lanes[l] : mx;
  for (; j < n; ++j) {
    float v = x[j] * scale;
    if (bias) v += bias[j];
    x[j] = v;
    mx = v > mx ? v : mx;
  }
  // Numerators and their float64 sum; lanes past n become +0.
  const size_t end = PaddedEnd(n, T);
  const VF vmx = hn::Set(d, mx);
  Partials p = ZeroPartials();
  j = 0;
  for (; j + 8 <= end; j += 8) {
    VF e0 = ExpVec(d, hn::Sub(hn::LoadU(d, x + j), vmx));
    VF e1 = ExpVec(d, hn::Sub(hn::LoadU(d, x + j + 4), vmx));
    if (j + 8 > n) {
      const ptrdiff_t left = static_cast<ptrdiff_t>(n - j);
      e0 = KeepFirst(left, e0);
      e1 = KeepFirst(left - 4, e1);
    }
    hn::StoreU(e0, d, x + j);
    hn::StoreU(e1, d, x + j + 4);
    AddGroup(e0, e1, &p);
  }
  double s[8];
  StorePartials(p, s);
  for (size_t k = 0; j < n; ++j, ++k) {
    x[j] = Exp(x[j] - mx);
    s[k] += x[j];
  }
  const float inv = static_cast<float>(1.0 / Combine(s));
  const VF vinv = hn::Set(d, inv);
  j = 0;
  for (; j + 4 <= n; j += 4) {
    hn::StoreU(hn::Mul(hn::LoadU(d, x + j), vinv), d, x + j);
  }
  for (; j < n; ++j) x[j] *= inv;
  for (j = n; j < T; ++j) x[j] = 0.0f;
#endif
}

// p, d: [T]; ds: [n] or null (rows.h).
HWY_NOINLINE void SoftmaxRowBackwardKernel(const float* HWY_RESTRICT p,
                                           float* HWY_RESTRICT d, size_t n,
                                           size_t T, float scale,
                                           float* HWY_RESTRICT ds) {
#if HWY_TARGET == HWY_SCALAR
  SoftmaxRowBackwardScalar(p, d, n, T, scale, ds);
#else
  const DF df;
  // dot = sum p d in float64; lanes past n add +0.
  const size_t end = PaddedEnd(n, T);
  Partials acc = ZeroPartials();
  size_t j = 0;
  for (; j + 8 <= end; j += 8) {
    VF p0 = hn::LoadU(df, p + j), p1 = hn::LoadU(df, p + j + 4);
    VF d0 = hn::LoadU(df, d + j), d1 = hn::LoadU(df, d + j + 4);
    if (j + 8 > n) {
      const ptrdiff_t left = static_cast<ptrdiff_t>(n - j);
      p0 = KeepFirst(left, p0);
      d0 = KeepFirst(left, d0);
      p1 = KeepFirst(left - 4, p1);
      d1 = KeepFirst(left - 4, d1);
    }
    AddGroupProducts(p0, p1, d0, d1, &acc);
  }
  double s[8];
  StorePartials(acc, s);
  for (size_t k = 0; j < n; ++j, ++k) s[k] += static_cast<double>(p[j]) * d[j];
  const float dot = static_cast<float>(Combine(s));
  const VF vdot = hn::Set(df, dot), vs = hn::Set(df, scale);
  j = 0;
  for (; j + 4 <= n; j += 4) {
    const VF g =
        hn::Mul(hn::LoadU(df, p + j), hn::Sub(hn::LoadU(df, d + j), vdot));
    if (ds) hn::StoreU(g, df, ds + j);
    hn::StoreU(hn::Mul(g, vs), df, d + j);
  }
  for (; j < n; ++j) {
    const float g = p[j] * (d[j] - dot);
    if (ds) ds[j] = g;
    d[j] = g * scale;
  }
  for (j = n; j < T; ++j) d[j] = 0.0f;
#endif
}

// x, y: [T, C]; g, b: [C]; mean, rstd: [T] (rows.h).
HWY_NOINLINE void LayerNormForwardKernel(const float* HWY_RESTRICT x, size_t T,
                                         size_t C, const float* HWY_RESTRICT g,
                                         const float* HWY_RESTRICT b,
                                         float* HWY_RESTRICT y,
                                         float* HWY_RESTRICT mean,
                                         float* HWY_RESTRICT rstd) {
#if HWY_TARGET == HWY_SCALAR
  LayerNormForwardScalar(x, T, C, g, b, y, mean, rstd);
#else
  constexpr double kEps = 1e-5;
  const DF df;
  const size_t C8 = C / 8 * 8;
  for (size_t t = 0; t < T; ++t) {
    const float* xr = x + t * C;
    float* yr = y + t * C;
    Partials acc = ZeroPartials();
    for (size_t c = 0; c < C8; c += 8) {
      AddGroup(hn::LoadU(df, xr + c), hn::LoadU(df, xr + c + 4), &acc);
    }
    double s[8];
    StorePartials(acc, s);
    for (size_t c = C8, k = 0; c < C; ++c, ++k) s[k] += xr[c];
    const double m = Combine(s) / static_cast<double>(C);
    // sum (x - m)^2, each term in float64.
    const VD vm = SetD(m);
    acc = ZeroPartials();
    for (size_t c = 0; c < C8; c += 8) {
      const VF a = hn::LoadU(df, xr + c), bb = hn::LoadU(df, xr + c + 4);
      const VD e[4] = {SubD(PromoteLower(a), vm), SubD(PromoteUpper(a), vm),
                       SubD(PromoteLower(bb), vm), SubD(PromoteUpper(bb), vm)};
      for (size_t i = 0; i < 4; ++i)
        acc.s[i] = AddD(acc.s[i], MulD(e[i], e[i]));
    }
    StorePartials(acc, s);
    for (size_t c = C8, k = 0; c < C; ++c, ++k) {
      const double e = xr[c] - m;
      s[k] += e * e;
    }
    const double v = Combine(s) / static_cast<double>(C);
    const float rs = static_cast<float>(1.0 / std::sqrt(v + kEps));
    const float mf = static_cast<float>(m);
    mean[t] = mf;
    rstd[t] = rs;
    const VF vmf = hn::Set(df, mf), vrs = hn::Set(df, rs);
    size_t c = 0;
    for (; c + 4 <= C; c += 4) {
      const VF xh = hn::Mul(hn::Sub(hn::LoadU(df, xr + c), vmf), vrs);
      hn::StoreU(
          hn::Add(hn::Mul(xh, hn::LoadU(df, g + c)), hn::LoadU(df, b + c)), df,
          yr + c);
    }
    for (; c < C; ++c) yr[c] = (xr[c] - mf) * rs * g[c] + b[c];
  }
#endif
}

// x, dy, dx: [T, C]; mean, rstd: [T]; g, dg, db: [C] (rows.h).
HWY_NOINLINE void LayerNormBackwardKernel(
    const float* HWY_RESTRICT x, const float* HWY_RESTRICT dy,
    const float* HWY_RESTRICT mean, const float* HWY_RESTRICT rstd, size_t T,
    size_t C, const float* HWY_RESTRICT g, float* HWY_RESTRICT dx,
    float* HWY_RESTRICT dg, float* HWY_RESTRICT db) {
#if HWY_TARGET == HWY_SCALAR
  LayerNormBackwardScalar(x, dy, mean, rstd, T, C, g, dx, dg, db);
#else
  const DF df;
  const size_t C8 = C / 8 * 8;
  for (size_t t = 0; t < T; ++t) {
    const float* xr = x + t * C;
    const float* dyr = dy + t * C;
    float* dxr = dx + t * C;
    const float mu = mean[t], rs = rstd[t];
    const VF vmu = hn::Set(df, mu), vrs = hn::Set(df, rs);
    // dg, db, and the sums of e = dy g and e xhat, a group of 8 at a time.
    Partials se = ZeroPartials(), sex = ZeroPartials();
    for (size_t c = 0; c < C8; c += 8) {
      VF e[2], xh[2];
      for (size_t h = 0; h < 2; ++h) {
        const size_t o = c + 4 * h;
        const VF dv = hn::LoadU(df, dyr + o);
        xh[h] = hn::Mul(hn::Sub(hn::LoadU(df, xr + o), vmu), vrs);
        hn::StoreU(hn::Add(hn::LoadU(df, dg + o), hn::Mul(dv, xh[h])), df,
                   dg + o);
        hn::StoreU(hn::Add(hn::LoadU(df, db + o), dv), df, db + o);
        e[h] = hn::Mul(dv, hn::LoadU(df, g + o));
      }
      AddGroup(e[0], e[1], &se);
      AddGroupProducts(e[0], e[1], xh[0], xh[1], &sex);
    }
    double s_e[8], s_ex[8];
    StorePartials(se, s_e);
    StorePartials(sex, s_ex);
    for (size_t c = C8, k = 0; c < C; ++c, ++k) {
      const float xhat = (xr[c] - mu) * rs;
      dg[c] += dyr[c] * xhat;
      db[c] += dyr[c];
      const float e = dyr[c] * g[c];
      s_e[k] += e;
      s_ex[k] += static_cast<double>(e) * xhat;
    }
    const float md = static_cast<float>(Combine(s_e) / static_cast<double>(C));
    const float mdx =
        static_cast<float>(Combine(s_ex) / static_cast<double>(C));
    const VF vmd = hn::Set(df, md), vmdx = hn::Set(df, mdx);
    size_t c = 0;
    for (; c + 4 <= C; c += 4) {
      const VF xh = hn::Mul(hn::Sub(hn::LoadU(df, xr + c), vmu), vrs);
      const VF e = hn::Mul(hn::LoadU(df, dyr + c), hn::LoadU(df, g + c));
      const VF r = hn::Mul(vrs, hn::Sub(hn::Sub(e, vmd), hn::Mul(xh, vmdx)));
      hn::StoreU(hn::Add(hn::LoadU(df, dxr + c), r), df, dxr + c);
    }
    for (; c < C; ++c) {
      const float xhat = (xr[c] - mu) * rs;
      dxr[c] += rs * (dyr[c] * g[c] - md - xhat * mdx);
    }
  }
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#endif  // POSENC_MODEL_ROWS_INL_H_
