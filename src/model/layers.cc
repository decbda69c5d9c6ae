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

void LinearBackwardT(const float* x, const float* dy, size_t T, size_t In,
                     size_t Out, const float* wt, float* dx, float* dw,
                     float* db, DxMode dx_mode) {
  if (db) {
    for (size_t t = 0; t < T; ++t) {
      const float* dyr = dy + t * Out;
      for (size_t o = 0; o < Out; ++o) db[o] += dyr[o];
    }
  }
  // dx += dy w^T, through w^T [Out, In] so that the kernel streams rows.
  if (dx && dx_mode == DxMode::kOverwrite) {
    MatMul(dy, Out, 1, T, Out, wt, In, In, dx, In);
  } else if (dx) {
    MatMulAcc(dy, Out, 1, T, Out, wt, In, In, dx, In);
  }
  // dw += x^T dy: A = x^T is x read with swapped strides.
  if (dw) MatMulAcc(x, 1, In, In, T, dy, Out, Out, dw, Out);
}

void TransposeInto(const float* w, size_t In, size_t Out, float* wt) {
  for (size_t i = 0; i < In; ++i) {
    for (size_t o = 0; o < Out; ++o) wt[o * In + i] = w[i * Out + o];
  }
}

void LinearBackward(const float* x, const float* dy, size_t T, size_t In,
                    size_t Out, const float* w, float* dx, float* dw,
                    float* db) {
  // The buffer is kept between calls: no allocation once it has grown.
  thread_local std::vector<float> wt;
  if (dx) {
    if (wt.size() < In * Out) wt.resize(In * Out);
    TransposeInto(w, In, Out, wt.data());
  }
  LinearBackwardT(x, dy, T, In, Out, wt.data(), dx, dw, db);
}

// LayerNormForward and LayerNormBackward: rows.cc.
// GeluForward and GeluBackward: activations.cc.

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
