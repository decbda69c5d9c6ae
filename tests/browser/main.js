// Loaded by tests/ts/browser.test.ts in Debian's Chromium under a strict CSP
// (script-src 'self' 'wasm-unsafe-eval'): both binaries through the browser
// entry of the built package, and the error for a .wasm URL serving HTML.
import { init } from '/dist/index.js';

const result = { runs: [] };
try {
  for (const simd of [true, false]) {
    const pe = await init({ simd });
    const bias = pe.alibiBias({ heads: 4, queryLength: 5, keyLength: 5, variant: 'simple' });
    const d = 64;
    const q = Float32Array.from({ length: d }, (_, i) => Math.sin(i + 1));
    const k = Float32Array.from({ length: d }, (_, i) => Math.cos(3 * i));
    const rot = (v, p) => pe.applyRope(v, { heads: 1, seqLen: 1, headDim: d, layout: 'half', offset: p });
    const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
    result.runs.push({
      simd: pe.simd,
      target: pe.target,
      row: Array.from(bias.subarray(20, 25)),
      relDiff: Math.abs(dot(rot(q, 3), rot(k, 10)) - dot(rot(q, 10), rot(k, 17))),
    });
  }
  try {
    await init({ wasmUrl: '/tests/browser/index.html' });
    result.badUrl = 'no error';
  } catch (e) {
    result.badUrl = String(e.message);
  }
} catch (e) {
  result.error = String(e && e.stack ? e.stack : e);
}
window.__posenc = result;
document.getElementById('out').textContent = JSON.stringify(result, null, 2);
