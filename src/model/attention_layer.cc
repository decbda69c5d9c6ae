#include "model/attention_layer.h"

#include <vector>

#include "model/matmul.h"
#include "model/rows.h"
#include "ops/alibi.h"

namespace posenc {
namespace {

// Scratch kept between calls (one set per thread): no allocation once the
// buffers have grown to the largest shape seen.
struct Scratch {
  std::vector<float> t;     // a transposed head or table: [Dh, T] / [Dh, R]
  std::vector<float> rows;  // [T, R]: q . aK, dO . aV, or probabilities by row
  std::vector<float> dp;    // [T, T]: dP, then dS scale
  std::vector<float> bias;  // [T]: one row's bias, or its unscaled dS
};
Scratch& Buffers() {
  thread_local Scratch s;
  return s;
}

float* Sized(std::vector<float>* v, size_t n) {
  if (v->size() < n) v->resize(n);
  return v->data();
}

// out [cols, rows] = the transpose of x's rows x cols block (row stride ld).
void Transpose(const float* x, size_t rows, size_t cols, size_t ld,
               float* out) {
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) out[c * rows + r] = x[r * ld + c];
  }
}

// out [T, R] = sum over j of m[i, j] into the Shaw row idx(i, j) (zeroed
// first): what a Shaw table row meets, per query.
void ByShawRow(const float* m, const int32_t* idx, size_t T, size_t R,
               float* out) {
  for (size_t e = 0; e < T * R; ++e) out[e] = 0.0f;
  for (size_t i = 0; i < T; ++i) {
    for (size_t j = 0; j < T; ++j) out[i * R + idx[i * T + j]] += m[i * T + j];
  }
}

// Causal attention touches only keys j <= i: the products below run over
// blocks of kBlock query rows [i0, i1) and the keys [0, i1) they can see
// (or, for the transposed products, key rows [j0, j1) and the queries
// [j0, T) that see them). Masked probabilities are exact zeros, so the sums
// skipped would add nothing.
constexpr size_t kBlock = 8;

}  // namespace

void AttentionForward(const AttentionLayerShape& s, const AttentionTerms& e,
                      const float* qr, const float* kr, const float* q,
                      const float* v, float* p, float* att) {
  const size_t T = s.T, H = s.H, Dh = s.Dh, C = H * Dh, R = e.shaw_rows;
  Scratch& b = Buffers();
  float* kt = Sized(&b.t, Dh * (T > R ? T : R));
  float* qa = Sized(&b.rows, T * (R ? R : 1));
  float* bias = Sized(&b.bias, T);
  for (size_t h = 0; h < H; ++h) {
    float* P = p + h * T * T;
    // S = Qr Kr^T (unscaled), through Kr^T [Dh, T].
    Transpose(kr + h * Dh, T, Dh, C, kt);
    // (Causal: the keys past a row block stay unwritten until the row loop
    // below sets them to 0.)
    for (size_t i0 = 0; i0 < T; i0 += s.causal ? kBlock : T) {
      const size_t i1 = s.causal && i0 + kBlock < T ? i0 + kBlock : T;
      MatMul(qr + i0 * C + h * Dh, C, 1, i1 - i0, Dh, kt, T, s.causal ? i1 : T,
             P + i0 * T, T);
    }
    if (e.shaw_k) {
      // qa [T, R] = q aK^T: every query against every table row.
      Transpose(e.shaw_k, R, Dh, Dh, kt);
      MatMul(q + h * Dh, C, 1, T, Dh, kt, R, R, qa, R);
    }
    const float slope = e.alibi_slopes ? e.alibi_slopes[h] : 0.0f;
    const bool biased = slope != 0.0f || e.shaw_k || e.t5_table;
    for (size_t i = 0; i < T; ++i) {
      // Causal: keys past i get probability 0 and take no part in the sums
      // (adding 0 would change nothing).
      const size_t n = s.causal ? i + 1 : T;
      // The row's bias: the ALiBi row, + scale q . aK (Shaw), + the T5
      // table entry, summed in that order (the models use one term; with
      // one, the logit gets exactly scale q . k + that term).
      bool written = false;  // bias holds a term already
      if (slope != 0.0f) {
        AlibiBiasRow(slope, static_cast<int64_t>(i), T, s.causal, bias);
        written = true;
      }
      if (e.shaw_k) {
        for (size_t j = 0; j < n; ++j) {
          const float b = s.scale * qa[i * R + e.shaw_idx[i * T + j]];
          bias[j] = written ? bias[j] + b : b;
        }
        written = true;
      }
      if (e.t5_table) {
        for (size_t j = 0; j < n; ++j) {
          const float b = e.t5_table[e.t5_bucket[i * T + j] * H + h];
          bias[j] = written ? bias[j] + b : b;
        }
      }
      // Exp(-inf) is 0: keys a bias masks get no weight.
      SoftmaxRow(P + i * T, biased ? bias : nullptr, n, T, s.scale);
    }
    // O = P V (+ P's mass per Shaw row times aV): each row block of head h's
    // columns is written once.
    for (size_t i0 = 0; i0 < T; i0 += s.causal ? kBlock : T) {
      const size_t i1 = s.causal && i0 + kBlock < T ? i0 + kBlock : T;
      MatMul(P + i0 * T, T, 1, i1 - i0, s.causal ? i1 : T, v + h * Dh, C, Dh,
             att + i0 * C + h * Dh, C);
    }
    if (e.shaw_v) {
      ByShawRow(P, e.shaw_idx, T, R, qa);
      MatMulAcc(qa, R, 1, T, R, e.shaw_v, Dh, Dh, att + h * Dh, C);
    }
  }
}

void AttentionBackward(const AttentionLayerShape& s, const AttentionTerms& e,
                       const float* qr, const float* kr, const float* q,
                       const float* v, const float* p, const float* datt,
                       const AttentionGrads& g) {
  const size_t T = s.T, H = s.H, Dh = s.Dh, C = H * Dh, R = e.shaw_rows;
  Scratch& b = Buffers();
  float* t = Sized(&b.t, Dh * (T > R ? T : R));
  float* rows = Sized(&b.rows, T * (R ? R : 1));
  float* dp = Sized(&b.dp, T * T);
  float* ds = Sized(&b.bias, T);
  const size_t step = s.causal ? kBlock : T;
  for (size_t h = 0; h < H; ++h) {
    const float* P = p + h * T * T;
    const float* dO = datt + h * Dh;
    // dP = dO V^T (+ dO aV^T by Shaw row).
    // (Causal: the keys past a row block stay unwritten; the dS loop below
    // reads only keys j <= i and sets the rest to 0.)
    Transpose(v + h * Dh, T, Dh, C, t);
    for (size_t i0 = 0; i0 < T; i0 += step) {
      const size_t i1 = s.causal && i0 + kBlock < T ? i0 + kBlock : T;
      MatMul(dO + i0 * C, C, 1, i1 - i0, Dh, t, T, s.causal ? i1 : T,
             dp + i0 * T, T);
    }
    if (e.shaw_v) {
      Transpose(e.shaw_v, R, Dh, Dh, t);
      MatMul(dO, C, 1, T, Dh, t, R, R, rows, R);
      for (size_t i = 0; i < T; ++i) {
        for (size_t j = 0; j < (s.causal ? i + 1 : T); ++j) {
          dp[i * T + j] += rows[i * R + e.shaw_idx[i * T + j]];
        }
      }
    }
    // dV += P^T dO; daV += (P by Shaw row)^T dO.
    for (size_t j0 = 0; j0 < T; j0 += step) {
      const size_t j1 = s.causal && j0 + kBlock < T ? j0 + kBlock : T;
      const size_t k0 = s.causal ? j0 : 0;  // the first query that sees j0
      MatMulAcc(P + k0 * T + j0, 1, T, j1 - j0, T - k0, dO + k0 * C, C, Dh,
                g.dv + j0 * C + h * Dh, C);
    }
    if (e.shaw_v) {
      ByShawRow(P, e.shaw_idx, T, R, rows);
      MatMulAcc(rows, 1, R, R, T, dO, C, Dh, g.d_shaw_v, Dh);
    }
    // dS_ij = P_ij (dP_ij - sum_j P_ij dP_ij); the logits' gradient is
    // dS scale (the biases take dS itself).
    // Causal: masked keys (P = 0) have dS = 0; the products below read
    // those zeros up to the end of the row block.
    for (size_t i = 0; i < T; ++i) {
      const size_t n = s.causal ? i + 1 : T;
      float* dr = dp + i * T;
      SoftmaxRowBackward(P + i * T, dr, n, T, s.scale, g.d_t5 ? ds : nullptr);
      if (g.d_t5) {
        for (size_t j = 0; j < n; ++j) {
          g.d_t5[e.t5_bucket[i * T + j] * H + h] += ds[j];
        }
      }
    }
    // dQr += G Kr; dKr += G^T Qr (G = dS scale).
    for (size_t i0 = 0; i0 < T; i0 += step) {
      const size_t i1 = s.causal && i0 + kBlock < T ? i0 + kBlock : T;
      MatMulAcc(dp + i0 * T, T, 1, i1 - i0, s.causal ? i1 : T, kr + h * Dh, C,
                Dh, g.dqr + i0 * C + h * Dh, C);
      const size_t k0 = s.causal ? i0 : 0;
      MatMulAcc(dp + k0 * T + i0, 1, T, i1 - i0, T - k0, qr + k0 * C + h * Dh,
                C, Dh, g.dkr + i0 * C + h * Dh, C);
    }
    if (e.shaw_k) {
      // dq += (G by Shaw row) aK; daK += (G by Shaw row)^T q.
      ByShawRow(dp, e.shaw_idx, T, R, rows);
      MatMulAcc(rows, R, 1, T, R, e.shaw_k, Dh, Dh, g.dq + h * Dh, C);
      MatMulAcc(rows, 1, R, R, T, q + h * Dh, C, Dh, g.d_shaw_k, Dh);
    }
  }
}

}  // namespace posenc
