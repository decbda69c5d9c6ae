// Loaded by tests/ts/browser.test.ts in Debian's Chromium under a strict CSP
// (script-src 'self' 'wasm-unsafe-eval'): both binaries through the browser
// entry of the built package, and the error for a .wasm URL serving HTML.
import { init } from '/dist/index.js';
import { createPool, startPoolWorker } from '/dist/pool-browser.js';

const result = { runs: [] };

/** The Worker pool (module Workers under the same CSP): pool.attention against pe.attention, byte for byte. */
async function poolMatches(pe, simd) {
  const H = 8, T = 128, D = 32;
  const wave = (n, p) => Float32Array.from({ length: n }, (_, i) => Math.sin(0.731 * i + p));
  const base = { q: wave(H * T * D, 1), k: wave(H * T * D, 2), v: wave(H * T * D, 3), heads: H, queryLength: T, keyLength: T, headDim: D };
  const calls = [
    { ...base, alibi: true, returnWeights: true },
    { ...base, kvHeads: 2, k: wave(2 * T * D, 2), v: wave(2 * T * D, 3), rope: { layout: 'half', scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 32 } } },
    // Multi-query: one group, its query heads cut over the two Workers.
    { ...base, kvHeads: 1, k: wave(T * D, 2), v: wave(T * D, 3), rope: { layout: 'interleaved' } },
  ];
  const same = (a, b) => a === b || (a && b && a.length === b.length && new Uint8Array(a.buffer).every((x, i) => x === new Uint8Array(b.buffer)[i]));
  const pool = await createPool({ workers: 2, simd, minSplitWork: 0 });
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
/**
 * A pool inside a Worker whose Workers the page starts (PoolOptions.connect and startPoolWorker), as
 * the interactive page runs it: see pool-in-worker.js.
 */
function connectMatches(simd) {
  return new Promise((resolve) => {
    const w = new Worker('/tests/browser/pool-in-worker.js', { type: 'module' });
    let started = 0;
    w.addEventListener('message', (e) => {
      if (e.data.poolPort) {
        started += 1;
        startPoolWorker(e.data.poolPort);
        return;
      }
      w.terminate();
      resolve({ ...e.data.result, started });
    });
    w.addEventListener('error', (e) => resolve({ error: `pool-in-worker.js: ${e.message}` }));
    w.postMessage({ simd });
  });
}
/**
 * Data-parallel training in the pool (1-4 module Workers): the weights after 50 steps against
 * pe.train's, byte for byte, for the language and retrieval tasks; a bad call rejects with pe.train's
 * message and the pool still trains.
 */
async function trainMatches(pe, simd) {
  const small = { steps: 50, seqLen: 32, dModel: 32, heads: 4, layers: 2, dFf: 64 };
  const configs = [
    { ...small, task: 'language', encoding: 'rope', batch: 16, seed: 3 },
    { ...small, task: 'retrieval', encoding: 'alibi', batch: 10, seed: 4 },
  ];
  const dispose = Symbol.dispose ?? Symbol.for('Symbol.dispose');
  const bytesOf = async (training) => {
    const m = await training;
    try {
      return m.save();
    } finally {
      m[dispose]();
    }
  };
  const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const message = (p) => p.then(() => 'no error', (e) => `${e.name}: ${e.message}`);
  const pools = [];
  try {
    for (const workers of [1, 2, 3, 4]) pools.push(await createPool({ workers, simd }));
    const same = [];
    for (const c of configs) {
      const want = await bytesOf(pe.train(c));
      const row = [];
      for (const p of pools) row.push(equal(await bytesOf(p.train(c)), want));
      same.push(row);
    }
    const bad = { ...configs[0], batch: 0 };
    const badSame = (await message(pools[1].train(bad))) === (await message(pe.train(bad)));
    const after = { ...configs[1], steps: 4 };
    const afterSame = equal(await bytesOf(pools[1].train(after)), await bytesOf(pe.train(after)));
    return { same, badSame, afterSame };
  } finally {
    for (const p of pools) await p.terminate();
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
      train: await trainMatches(pe, simd),
      connect: await connectMatches(simd),
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
