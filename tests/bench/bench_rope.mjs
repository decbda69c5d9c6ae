// RoPE apply throughput, one run, one table: wasm SIMD and wasm scalar
// (same Node process) and the native build on each Highway target this CPU
// has (build/native/posenc_bench_rope). GB/s counts bytes read + written
// (2 * H * T * d * 4) with the cos/sin table precomputed, i.e. the kernel
// a model runs per layer.
//   npm run bench:rope                 print the table
//   npm run bench:rope -- --docs       also rewrite the table in docs/
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';

import { init } from 'posenc';

import { benchHooks } from '../../dist/internal.js';

import { bestSeconds, headlines, loadPeers, rewriteDocs, rewriteReadme } from './common.mjs';
import { rotaryEmbedding } from './onnx_graphs.mjs';

import { root } from '../../tools/common.mjs';

const SHAPES = [[8, 1024, 64], [32, 4096, 128]];
const LAYOUTS = ['half', 'interleaved'];

/** GB/s of `pass` moving 2 * H * T * d * 4 bytes, best of 7 batches of >= 50 ms. */
async function measure(pass, [H, T, d]) {
  const sec = await bestSeconds(pass, { budgetMs: 50, warmup: 20, reps: 7 });
  return (2 * H * T * d * 4) / sec / 1e9;
}

function measureWasm(pe, [H, T, d], layout) {
  const { rope } = benchHooks(pe);
  return measure(() => rope(H, T, d, layout, 1), [H, T, d]);
}

const results = {}; // results[row][shape/layout] = GB/s
const col = (s, l) => `[${s.join(', ')}] ${l}`;
const put = (row, key, v) => ((results[row] ??= {})[key] = v);

const simd = await init({ simd: true });
const scalar = await init({ simd: false });
for (const s of SHAPES) {
  for (const l of LAYOUTS) {
    put('wasm SIMD (Highway WASM)', col(s, l), await measureWasm(simd, s, l));
    put('wasm scalar (Highway SCALAR)', col(s, l), await measureWasm(scalar, s, l));
  }
  // The bandwidth ceiling: memcpy of the same bytes inside the SIMD module.
  const { copy: copyPass } = benchHooks(simd);
  const copy = await measure(() => copyPass(1), s);
  for (const l of LAYOUTS) put('wasm memcpy (bandwidth ceiling)', col(s, l), copy);
}
// ---- peers: onnxruntime-web's RotaryEmbedding op and tfjs ops (cos/sin
// tables precomputed for both, as for posenc).
const { ort, tf } = await loadPeers();

const measureAsync = measure;

for (const [H, T, d] of SHAPES) {
  const x = Float32Array.from({ length: H * T * d }, (_, i) => (i % 97) * 0.01 - 0.4);
  const cos = Float32Array.from({ length: T * d / 2 }, (_, e) => Math.cos(Math.floor(e / (d / 2)) * 10000 ** (-(2 * (e % (d / 2))) / d)));
  const sin = Float32Array.from({ length: T * d / 2 }, (_, e) => Math.sin(Math.floor(e / (d / 2)) * 10000 ** (-(2 * (e % (d / 2))) / d)));
  for (const l of LAYOUTS) {
    const name = 'onnxruntime-web RotaryEmbedding (opset 23)';
    try {
      const sess = await ort.InferenceSession.create(rotaryEmbedding(H, T, d, l === 'interleaved'), { executionProviders: ['wasm'] });
      const feeds = {
        X: new ort.Tensor('float32', x, [1, H, T, d]),
        cos: new ort.Tensor('float32', cos, [T, d / 2]),
        sin: new ort.Tensor('float32', sin, [T, d / 2]),
        pos: new ort.Tensor('int64', BigInt64Array.from({ length: T }, (_, t) => BigInt(t)), [1, T]),
      };
      put(name, col([H, T, d], l), await measureAsync(() => sess.run(feeds), [H, T, d]));
      await sess.release();
    } catch (e) {
      put(name, col([H, T, d], l), NaN);
      console.error(`${name}: ${String(e.message).split('\n')[0]}`);
    }
  }
  // posenc through its public API, like the peers: copies in and out of the
  // wasm heap and the cos/sin table built in the call.
  for (const l of LAYOUTS) {
    put('wasm SIMD via pe.applyRope (copies, table)', col([H, T, d], l),
      await measureAsync(() => simd.applyRope(x, { heads: H, seqLen: T, headDim: d, layout: l }), [H, T, d]));
  }
  // tfjs: half layout with slice / mul / concat (what a tfjs user writes).
  const xt = tf.tensor3d(x, [H, T, d]);
  const ct = tf.tensor2d(cos, [T, d / 2]);
  const st = tf.tensor2d(sin, [T, d / 2]);
  put('tfjs-backend-wasm (slice, mul, concat)', col([H, T, d], 'half'), await measureAsync(async () => {
    const y = tf.tidy(() => {
      const a = tf.slice(xt, [0, 0, 0], [H, T, d / 2]);
      const b = tf.slice(xt, [0, 0, d / 2], [H, T, d / 2]);
      return tf.concat([tf.sub(tf.mul(a, ct), tf.mul(b, st)), tf.add(tf.mul(b, ct), tf.mul(a, st))], 2);
    });
    await y.data();
    y.dispose();
  }, [H, T, d]));
  tf.dispose([xt, ct, st]);
}

const native = execFileSync(join(root, 'build/native/posenc_bench_rope'), { encoding: 'utf8' })
  .trim().split('\n').map((line) => JSON.parse(line));
for (const r of native) {
  const name = r.target === 'memcpy' ? 'native memcpy (bandwidth ceiling)' : `native ${r.target}`;
  put(name, col([r.H, r.T, r.d], r.layout), r.gbps);
}

const keys = SHAPES.flatMap((s) => LAYOUTS.map((l) => col(s, l)));
const rows = Object.keys(results);
const peerRatios = [
  ['pe.applyRope / onnxruntime-web RotaryEmbedding', 'onnxruntime-web RotaryEmbedding (opset 23)'],
  ['pe.applyRope / tfjs-backend-wasm', 'tfjs-backend-wasm (slice, mul, concat)'],
];
const lines = [];
lines.push(`| RoPE apply, GB/s | ${keys.join(' | ')} |`);
lines.push(`|---|${keys.map(() => '---:').join('|')}|`);
for (const r of rows) lines.push(`| ${r} | ${keys.map((k) => (Number.isFinite(results[r][k]) ? results[r][k].toFixed(2) : '-')).join(' | ')} |`);
const simdRow = results['wasm SIMD (Highway WASM)'];
const ratio = (a, b) => keys.map((k) => a[k] / b[k]);
const ratios = [
  ['wasm SIMD / wasm scalar (target >= 3x)', ratio(simdRow, results['wasm scalar (Highway SCALAR)']), 3],
  ['wasm SIMD / native SSE4 (target >= 0.70)', ratio(simdRow, results['native SSE4'] ?? {}), 0.7],
];
for (const [name, vals, target] of ratios) {
  lines.push(`| ${name} | ${vals.map((v) => `${v.toFixed(2)} ${v >= target ? 'ok' : 'MISSED'}`).join(' | ')} |`);
}
const apiRow = results['wasm SIMD via pe.applyRope (copies, table)'];
for (const [label, other] of peerRatios) {
  lines.push(`| ${label} | ${ratio(apiRow, results[other] ?? {}).map((v) => (Number.isFinite(v) ? v.toFixed(2) : '-')).join(' | ')} |`);
}
const ceiling = ratio(simdRow, results['wasm memcpy (bandwidth ceiling)']);
const scalarCeiling = ratio(results['wasm scalar (Highway SCALAR)'], results['wasm memcpy (bandwidth ceiling)']);
lines.push(`| wasm SIMD / wasm memcpy (fraction of the ceiling) | ${ceiling.map((v) => v.toFixed(2)).join(' | ')} |`);
lines.push(`| wasm scalar / wasm memcpy | ${scalarCeiling.map((v) => v.toFixed(2)).join(' | ')} |`);
const table = lines.join('\n');
const note = `Measured by \`npm run bench:rope\` on ${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}.`;
console.log(`${table}\n\n${note}`);

if (process.argv.includes('--docs')) {
  rewriteDocs('bench:rope', `${table}\n\n${note}`);
  const inCache = col(SHAPES[0], 'half');
  rewriteReadme('bench:rope', headlines.rope({
    api: apiRow[inCache], peer: results['onnxruntime-web RotaryEmbedding (opset 23)']?.[inCache], kernel: simdRow[inCache],
  }));
}
