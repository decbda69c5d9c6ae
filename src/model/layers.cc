#include "model/layers.h"

#include <cmath>
#include <vector>

namespace posenc {

void LinearForward(const float* x, size_t T, size_t In, size_t Out,
                   const float* w, const float* b, float* y) {
  for (size_t t = 0; t < T; ++t) {
    float* yr = y + t * Out;
    for (size_t o = 0; o < Out; ++o) yr[o] = b ? b[o] : 0.0f;
    const float* xr = x + t * In;
    // Rows of w stream (i-k-j order), four at a time so y is loaded and
    // stored once per four multiply-adds.
    size_t i = 0;
    for (; i + 4 <= In; i += 4) {
      const float x0 = xr[i], x1 = xr[i + 1], x2 = xr[i + 2], x3 = xr[i + 3];
      const float* w0 = w + i * Out;
      const float* w1 = w0 + Out;
      const float* w2 = w1 + Out;
      const float* w3 = w2 + Out;
      for (size_t o = 0; o < Out; ++o) {
        yr[o] += x0 * w0[o] + x1 * w1[o] + x2 * w2[o] + x3 * w3[o];
      }
    }
    for (; i < In; ++i) {
      const float xi = xr[i];
      const float* wr = w + i * Out;
      for (size_t o = 0; o < Out; ++o) yr[o] += xi * wr[o];
    }
  }
}

void LinearBackward(const float* x, const float* dy, size_t T, size_t In,
                    size_t Out, const float* w, float* dx, float* dw,
                    float* db) {
  // dx = dy w^T through w^T [Out, In], so every inner loop is an
  // unit-stride a * x + y the compiler vectorises (a dot product would be a
  // float reduction it may not reorder).
  std::vector<float> wt;
  if (dx) {
    wt.resize(In * Out);
    for (size_t i = 0; i < In; ++i) {
      for (size_t o = 0; o < Out; ++o) wt[o * In + i] = w[i * Out + o];
    }
  }
  for (size_t t = 0; t < T; ++t) {
    const float* dyr = dy + t * Out;
    if (db) {
      for (size_t o = 0; o < Out; ++o) db[o] += dyr[o];
    }
    if (dx) {
      float* dxr = dx + t * In;
      size_t o = 0;
      for (; o + 4 <= Out; o += 4) {
        const float g0 = dyr[o], g1 = dyr[o + 1], g2 = dyr[o + 2],
                    g3 = dyr[o + 3];
        const float* w0 = wt.data() + o * In;
        const float* w1 = w0 + In;
        const float* w2 = w1 + In;
        const float* w3 = w2 + In;
        for (size_t i = 0; i < In; ++i) {
          dxr[i] += g0 * w0[i] + g1 * w1[i] + g2 * w2[i] + g3 * w3[i];
        }
      }
      for (; o < Out; ++o) {
        const float g = dyr[o];
        const float* wr = wt.data() + o * In;
        for (size_t i = 0; i < In; ++i) dxr[i] += g * wr[i];
      }
    }
  }
  // dw += x^T dy, four tokens at a time: each row of dw is loaded and stored
  // once per four tokens instead of once per token.
  if (dw) {
    size_t t = 0;
    for (; t + 4 <= T; t += 4) {
      const float* d0 = dy + t * Out;
      const float* d1 = d0 + Out;
      const float* d2 = d1 + Out;
      const float* d3 = d2 + Out;
      for (size_t i = 0; i < In; ++i) {
        const float x0 = x[t * In + i], x1 = x[(t + 1) * In + i],
                    x2 = x[(t + 2) * In + i], x3 = x[(t + 3) * In + i];
        float* dwr = dw + i * Out;
        for (size_t o = 0; o < Out; ++o) {
          dwr[o] += x0 * d0[o] + x1 * d1[o] + x2 * d2[o] + x3 * d3[o];
        }
      }
    }
    for (; t < T; ++t) {
      const float* dyr = dy + t * Out;
      for (size_t i = 0; i < In; ++i) {
        const float xi = x[t * In + i];
        float* dwr = dw + i * Out;
        for (size_t o = 0; o < Out; ++o) dwr[o] += xi * dyr[o];
      }
    }
  }
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
