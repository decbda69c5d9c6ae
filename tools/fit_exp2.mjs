// Fits the degree-5 polynomial for 2^f, f in [-0.5, 0.5], used by the
// attention kernel's softmax exp (src/ops/attention-inl.h, ExpNonPositive):
// p(f) = 1 + c1 f + ... + c5 f^5 with the least maximum relative error,
// found by Lawson's iteratively reweighted least squares on 2000 Chebyshev
// nodes. Prints the float32 coefficients (highest degree first) and the
// largest relative error of float32 Horner evaluation on a fine grid.
//   node tools/fit_exp2.mjs
const degree = 5;
const nodes = 2000;
const xs = Array.from({ length: nodes }, (_, i) => 0.5 * Math.cos((Math.PI * (i + 0.5)) / nodes));

/** Solves A x = b in place (Gaussian elimination, partial pivoting). */
function solve(A, b) {
  const n = A.length;
  for (let i = 0; i < n; i++) {
    let p = i;
    for (let r = i + 1; r < n; r++) if (Math.abs(A[r][i]) > Math.abs(A[p][i])) p = r;
    [A[i], A[p]] = [A[p], A[i]];
    [b[i], b[p]] = [b[p], b[i]];
    for (let r = i + 1; r < n; r++) {
      const f = A[r][i] / A[i][i];
      for (let c = i; c < n; c++) A[r][c] -= f * A[i][c];
      b[r] -= f * b[i];
    }
  }
  const x = new Array(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i];
    for (let c = i + 1; c < n; c++) s -= A[i][c] * x[c];
    x[i] = s / A[i][i];
  }
  return x;
}

const poly = (c, x) => c.reduce((acc, ck, k) => acc + ck * x ** (k + 1), 1);
let weights = xs.map(() => 1);
let c = [];
for (let iter = 0; iter < 300; iter++) {
  // Relative error (p - 2^x) / 2^x, with the constant term fixed at 1.
  const A = Array.from({ length: degree }, () => new Array(degree).fill(0));
  const b = new Array(degree).fill(0);
  xs.forEach((x, i) => {
    const y = 2 ** x;
    const w = weights[i] / (y * y);
    const phi = Array.from({ length: degree }, (_, k) => x ** (k + 1));
    for (let r = 0; r < degree; r++) {
      b[r] += w * phi[r] * (y - 1);
      for (let q = 0; q < degree; q++) A[r][q] += w * phi[r] * phi[q];
    }
  });
  c = solve(A, b);
  const err = xs.map((x) => Math.abs(poly(c, x) / 2 ** x - 1));
  const total = err.reduce((a, e, i) => a + weights[i] * e, 0);
  weights = weights.map((w, i) => (w * err[i] * nodes) / total);
}

const f = Math.fround;
const c32 = c.map(f);
let worst = 0;
for (let i = 0; i <= 200000; i++) {
  const x = f(-0.5 + i / 200000);
  let p = c32[degree - 1];
  for (let k = degree - 2; k >= 0; k--) p = f(f(p * x) + c32[k]);
  p = f(f(p * x) + 1);
  worst = Math.max(worst, Math.abs(p / 2 ** x - 1));
}
console.log(`coefficients, f^5 down to f^1: ${c32.map((v) => v.toPrecision(8)).reverse().join(', ')}`);
console.log(`largest relative error, float32 Horner: ${worst.toExponential(2)}`);
