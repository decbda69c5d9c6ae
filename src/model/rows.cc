#include "model/rows.h"

#include <cmath>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "model/rows.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "model/rows-inl.h"

#if HWY_ONCE
#include "model/activations.h"
#include "model/layers.h"
#include "model/sum.h"

namespace posenc {

HWY_EXPORT(SoftmaxRowKernel);
HWY_EXPORT(SoftmaxRowBackwardKernel);
HWY_EXPORT(LayerNormForwardKernel);
HWY_EXPORT(LayerNormBackwardKernel);

void SoftmaxRow(float* x, const float* bias, size_t n, size_t T, float scale) {
  HWY_DYNAMIC_DISPATCH(SoftmaxRowKernel)(x, bias, n, T, scale);
}

void SoftmaxRowBackward(const float* p, float* d, size_t n, size_t T,
                        float scale, float* ds) {
  HWY_DYNAMIC_DISPATCH(SoftmaxRowBackwardKernel)(p, d, n, T, scale, ds);
}

void LayerNormForward(const float* x, size_t T, size_t C, const float* g,
                      const float* b, float* y, float* mean, float* rstd) {
  HWY_DYNAMIC_DISPATCH(LayerNormForwardKernel)(x, T, C, g, b, y, mean, rstd);
}

void LayerNormBackward(const float* x, const float* dy, const float* mean,
                       const float* rstd, size_t T, size_t C, const float* g,
                       float* dx, float* dg, float* db) {
  HWY_DYNAMIC_DISPATCH(LayerNormBackwardKernel)
  (x, dy, mean, rstd, T, C, g, dx, dg, db);
}

void SoftmaxRowScalar(float* x, const float* bias, size_t n, size_t T,
                      float scale) {
  for (size_t j = 0; j < n; ++j) {
    x[j] *= scale;
    if (bias) x[j] += bias[j];
  }
  // The maximum through eight partial maxima (independent chains), each
  // starting from x[0]. Max is exact: the grouping can change only the sign
  // of a zero maximum, and x - (+0) and x - (-0) have the same Exp (Exp of
  // either zero is exactly 1), so the kernels' grouping gives these bits.
  float m[8];
  for (float& mj : m) mj = x[0];
  size_t c = 0;
  for (; c + 8 <= n; c += 8) {
    for (size_t j = 0; j < 8; ++j) m[j] = x[c + j] > m[j] ? x[c + j] : m[j];
  }
  for (; c < n; ++c) m[0] = x[c] > m[0] ? x[c] : m[0];
  float mx = m[0];
  for (size_t j = 1; j < 8; ++j) mx = m[j] > mx ? m[j] : mx;
  for (size_t j = 0; j < n; ++j) x[j] = Exp(x[j] - mx);
  const double sum = Sum8(n, [x](size_t j) { return double{x[j]}; });
  const float inv = static_cast<float>(1.0 / sum);
  for (size_t j = 0; j < n; ++j) x[j] *= inv;
  for (size_t j = n; j < T; ++j) x[j] = 0.0f;
}

void SoftmaxRowBackwardScalar(const float* p, float* d, size_t n, size_t T,
                              float scale, float* ds) {
  const float dot = static_cast<float>(
      Sum8(n, [p, d](size_t j) { return static_cast<double>(p[j]) * d[j]; }));
  for (size_t j = 0; j < n; ++j) {
    const float g = p[j] * (d[j] - dot);
    if (ds) ds[j] = g;
    d[j] = g * scale;
  }
  for (size_t j = n; j < T; ++j) d[j] = 0.0f;
}

void LayerNormForwardScalar(const float* x, size_t T, size_t C, const float* g,
                            const float* b, float* y, float* mean,
                            float* rstd) {
  constexpr double kEps = 1e-5;
  for (size_t t = 0; t < T; ++t) {
    const float* xr = x + t * C;
    const double m = Sum8(C, [xr](size_t c) { return double{xr[c]}; }) /
                     static_cast<double>(C);
    const double v = Sum8(C,
                          [xr, m](size_t c) {
                            const double e = xr[c] - m;
                            return e * e;
                          }) /
                     static_cast<double>(C);
    const float rs = static_cast<float>(1.0 / std::sqrt(v + kEps));
    const float mf = static_cast<float>(m);
    mean[t] = mf;
    rstd[t] = rs;
    for (size_t c = 0; c < C; ++c) {
      y[t * C + c] = (xr[c] - mf) * rs * g[c] + b[c];
    }
  }
}

void LayerNormBackwardScalar(const float* x, const float* dy, const float* mean,
                             const float* rstd, size_t T, size_t C,
                             const float* g, float* dx, float* dg, float* db) {
  for (size_t t = 0; t < T; ++t) {
    const float* xr = x + t * C;
    const float* dyr = dy + t * C;
    const float mu = mean[t], rs = rstd[t];
    // xhat = (x - mean) rstd; dxhat = dy g;
    // dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)).
    for (size_t c = 0; c < C; ++c) {
      const float xhat = (xr[c] - mu) * rs;
      dg[c] += dyr[c] * xhat;
      db[c] += dyr[c];
    }
    const double sum_d =
        Sum8(C, [dyr, g](size_t c) { return double{dyr[c] * g[c]}; });
    const double sum_dx = Sum8(C, [xr, dyr, g, mu, rs](size_t c) {
      const float xhat = (xr[c] - mu) * rs;
      return static_cast<double>(dyr[c] * g[c]) * xhat;
    });
    const float md = static_cast<float>(sum_d / static_cast<double>(C));
    const float mdx = static_cast<float>(sum_dx / static_cast<double>(C));
    for (size_t c = 0; c < C; ++c) {
      const float xhat = (xr[c] - mu) * rs;
      dx[t * C + c] += rs * (dyr[c] * g[c] - md - xhat * mdx);
    }
  }
}

}  // namespace posenc
#endif  // HWY_ONCE
