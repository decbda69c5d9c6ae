#include "model/layers.h"

#include <cmath>
#include <vector>

#include "model/matmul.h"

namespace posenc {

void LinearForward(const float* x, size_t T, size_t In, size_t Out,
                   const float* w, const float* b, float* y) {
  for (size_t t = 0; t < T; ++t) {
    float* yr = y + t * Out;
    for (size_t o = 0; o < Out; ++o) yr[o] = b ? b[o] : 0.0f;
  }
  MatMulAcc(x, In, 1, T, In, w, Out, Out, y, Out);
}

void LinearBackward(const float* x, const float* dy, size_t T, size_t In,
                    size_t Out, const float* w, float* dx, float* dw,
                    float* db) {
  if (db) {
    for (size_t t = 0; t < T; ++t) {
      const float* dyr = dy + t * Out;
      for (size_t o = 0; o < Out; ++o) db[o] += dyr[o];
    }
  }
  if (dx) {
    // dx += dy w^T, through w^T [Out, In] so that the kernel streams rows.
    // The buffer is kept between calls: no allocation once it has grown.
    thread_local std::vector<float> wt;
    if (wt.size() < In * Out) wt.resize(In * Out);
    for (size_t i = 0; i < In; ++i) {
      for (size_t o = 0; o < Out; ++o) wt[o * In + i] = w[i * Out + o];
    }
    MatMulAcc(dy, Out, 1, T, Out, wt.data(), In, In, dx, In);
  }
  // dw += x^T dy: A = x^T is x read with swapped strides.
  if (dw) MatMulAcc(x, 1, In, In, T, dy, Out, Out, dw, Out);
}

void LayerNormForward(const float* x, size_t T, size_t C, const float* g,
                      const float* b, float* y, float* mean, float* rstd) {
  constexpr double kEps = 1e-5;
  for (size_t t = 0; t < T; ++t) {
    const float* xr = x + t * C;
    double m = 0.0;
    for (size_t c = 0; c < C; ++c) m += xr[c];
    m /= static_cast<double>(C);
    double v = 0.0;
    for (size_t c = 0; c < C; ++c) v += (xr[c] - m) * (xr[c] - m);
    v /= static_cast<double>(C);
    const float rs = static_cast<float>(1.0 / std::sqrt(v + kEps));
    const float mf = static_cast<float>(m);
    mean[t] = mf;
    rstd[t] = rs;
    for (size_t c = 0; c < C; ++c) {
      y[t * C + c] = (xr[c] - mf) * rs * g[c] + b[c];
    }
  }
}

void LayerNormBackward(const float* x, const float* dy, const float* mean,
                       const float* rstd, size_t T, size_t C, const float* g,
                       float* dx, float* dg, float* db) {
  for (size_t t = 0; t < T; ++t) {
    const float* xr = x + t * C;
    const float* dyr = dy + t * C;
    // xhat = (x - mean) rstd; dxhat = dy g;
    // dx = rstd (dxhat - mean(dxhat) - xhat mean(dxhat xhat)).
    double sum_d = 0.0, sum_dx = 0.0;
    for (size_t c = 0; c < C; ++c) {
      const float xhat = (xr[c] - mean[t]) * rstd[t];
      const float dxhat = dyr[c] * g[c];
      sum_d += dxhat;
      sum_dx += static_cast<double>(dxhat) * xhat;
      dg[c] += dyr[c] * xhat;
      db[c] += dyr[c];
    }
    const float md = static_cast<float>(sum_d / static_cast<double>(C));
    const float mdx = static_cast<float>(sum_dx / static_cast<double>(C));
    for (size_t c = 0; c < C; ++c) {
      const float xhat = (xr[c] - mean[t]) * rstd[t];
      dx[t * C + c] += rstd[t] * (dyr[c] * g[c] - md - xhat * mdx);
    }
  }
}

namespace {
constexpr float kGeluA = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kGeluB = 0.044715f;

// tanh(z) = 1 - 2 / (exp(2z) + 1): one expf instead of tanhf (which costs
// an expm1f and more); absolute error ~1e-7, saturating cleanly at +-1.
inline float Tanh(float z) { return 1.0f - 2.0f / (std::exp(2.0f * z) + 1.0f); }
}  // namespace

void GeluForward(const float* x, size_t n, float* y) {
  for (size_t i = 0; i < n; ++i) {
    const float u = x[i];
    y[i] = 0.5f * u * (1.0f + Tanh(kGeluA * (u + kGeluB * u * u * u)));
  }
}

void GeluBackward(const float* x, const float* dy, size_t n, float* dx) {
  for (size_t i = 0; i < n; ++i) {
    const float u = x[i];
    const float th = Tanh(kGeluA * (u + kGeluB * u * u * u));
    const float dth =
        (1.0f - th * th) * kGeluA * (1.0f + 3.0f * kGeluB * u * u);
    dx[i] += dy[i] * (0.5f * (1.0f + th) + 0.5f * u * dth);
  }
}

double SoftmaxCrossEntropy(const float* logits, size_t R, size_t V,
                           const int32_t* targets, float scale, float* dlogits,
                           size_t* scored, size_t* correct) {
  double loss = 0.0;
  for (size_t r = 0; r < R; ++r) {
    const float* z = logits + r * V;
    float* dz = dlogits ? dlogits + r * V : nullptr;
    if (targets[r] < 0) {
      if (dz) {
        for (size_t v = 0; v < V; ++v) dz[v] = 0.0f;
      }
      continue;
    }
    size_t arg = 0;
    for (size_t v = 1; v < V; ++v) arg = z[v] > z[arg] ? v : arg;
    const float mx = z[arg];
    double sum = 0.0;
    for (size_t v = 0; v < V; ++v)
      sum += std::exp(static_cast<double>(z[v] - mx));
    const size_t y = static_cast<size_t>(targets[r]);
    loss += std::log(sum) - static_cast<double>(z[y] - mx);
    if (scored) ++*scored;
    if (correct && arg == y) ++*correct;
    if (dz) {
      for (size_t v = 0; v < V; ++v) {
        const double p = std::exp(static_cast<double>(z[v] - mx)) / sum;
        dz[v] = static_cast<float>((p - (v == y ? 1.0 : 0.0)) * scale);
      }
    }
  }
  return loss;
}

}  // namespace posenc
