// Loaded by tests/ts/browser.test.ts in Debian's Chromium under a strict CSP
// (script-src 'self' 'wasm-unsafe-eval'): both binaries through the browser
// entry of the built package, and the error for a .wasm URL serving HTML.
import { init } from '/dist/index.js';
import { createPool } from '/dist/pool-browser.js';

const result = { runs: [] };

/** The Worker pool (module Workers under the same CSP): pool.attention against pe.attention, byte for byte. */
async function poolMatches(pe, simd) {
  const H = 8, T = 128, D = 32;
  const wave = (n, p) => Float32Array.from({ length: n }, (_, i) => Math.sin(0.731 * i + p));
  const base = { q: wave(H * T * D, 1), k: wave(H * T * D, 2), v: wave(H * T * D, 3), heads: H, queryLength: T, keyLength: T, headDim: D };
  const calls = [
    { ...base, alibi: true, returnWeights: true },
    { ...base, kvHeads: 2, k: wave(2 * T * D, 2), v: wave(2 * T * D, 3), rope: { layout: 'half', scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 32 } } },
  ];
  const same = (a, b) => a === b || (a && b && a.length === b.length && new Uint8Array(a.buffer).every((x, i) => x === new Uint8Array(b.buffer)[i]));
  const pool = await createPool({ workers: 2, simd });
  try {
    const out = [];
    for (const c of calls) {
      const want = pe.attention(c);
      const got = await pool.attention(c);
      out.push(same(got.out, want.out) && same(got.weights, want.weights));
    }
    return { workers: pool.workers, simd: pool.simd, same: out };
  } finally {
    await pool.terminate();
  }
}
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
      pool: await poolMatches(pe, simd),
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
