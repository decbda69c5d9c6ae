// RoPE apply throughput, one run, one table: wasm SIMD and wasm scalar
// (same Node process) and the native build on each Highway target this CPU
// has (build/native/posenc_bench_rope). GB/s counts bytes read + written
// (2 * H * T * d * 4) with the cos/sin table precomputed, i.e. the kernel
// a model runs per layer.
//   npm run bench:rope                 print the table
//   npm run bench:rope -- --readme     also rewrite the table in README.md
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { init } from 'posenc';

import { root } from '../../tools/common.mjs';

const SHAPES = [[8, 1024, 64], [32, 4096, 128]];
const LAYOUTS = ['half', 'interleaved'];

/** GB/s of `pass` moving 2 * H * T * d * 4 bytes, best of 7 batches of >= 50 ms. */
function measure(pass, [H, T, d]) {
  // Warm-up: repeated JS -> wasm calls so V8 swaps Liftoff code for TurboFan.
  for (let i = 0; i < 20; i++) pass();
  let best = Infinity;
  for (let rep = 0; rep < 7; rep++) {
    let iters = 0;
    const t0 = performance.now();
    let el = 0;
    do {
      pass();
      iters++;
      el = performance.now() - t0;
    } while (el < 50);
    best = Math.min(best, el / 1000 / iters);
  }
  return (2 * H * T * d * 4) / best / 1e9;
}

function measureWasm(pe, [H, T, d], layout) {
  return measure(() => pe.benchRope(H, T, d, layout, 1), [H, T, d]);
}

const results = {}; // results[row][shape/layout] = GB/s
const col = (s, l) => `[${s.join(', ')}] ${l}`;
const put = (row, key, v) => ((results[row] ??= {})[key] = v);

const simd = await init({ simd: true });
const scalar = await init({ simd: false });
for (const s of SHAPES) {
  for (const l of LAYOUTS) {
    put('wasm SIMD (Highway WASM)', col(s, l), measureWasm(simd, s, l));
    put('wasm scalar (Highway SCALAR)', col(s, l), measureWasm(scalar, s, l));
  }
  // The bandwidth ceiling: memcpy of the same bytes inside the SIMD module.
  const copy = measure(() => simd.benchCopy(1), s);
  for (const l of LAYOUTS) put('wasm memcpy (bandwidth ceiling)', col(s, l), copy);
}
const native = execFileSync(join(root, 'build/native/posenc_bench_rope'), { encoding: 'utf8' })
  .trim().split('\n').map((line) => JSON.parse(line));
for (const r of native) {
  const name = r.target === 'memcpy' ? 'native memcpy (bandwidth ceiling)' : `native ${r.target}`;
  put(name, col([r.H, r.T, r.d], r.layout), r.gbps);
}

const keys = SHAPES.flatMap((s) => LAYOUTS.map((l) => col(s, l)));
const rows = Object.keys(results);
const lines = [];
lines.push(`| RoPE apply, GB/s | ${keys.join(' | ')} |`);
lines.push(`|---|${keys.map(() => '---:').join('|')}|`);
for (const r of rows) lines.push(`| ${r} | ${keys.map((k) => (results[r][k] ?? NaN).toFixed(2)).join(' | ')} |`);
const simdRow = results['wasm SIMD (Highway WASM)'];
const ratio = (a, b) => keys.map((k) => a[k] / b[k]);
const ratios = [
  ['wasm SIMD / wasm scalar (target >= 3x)', ratio(simdRow, results['wasm scalar (Highway SCALAR)']), 3],
  ['wasm SIMD / native SSE4 (target >= 0.70)', ratio(simdRow, results['native SSE4'] ?? {}), 0.7],
];
for (const [name, vals, target] of ratios) {
  lines.push(`| ${name} | ${vals.map((v) => `${v.toFixed(2)} ${v >= target ? 'ok' : 'MISSED'}`).join(' | ')} |`);
}
const ceiling = ratio(simdRow, results['wasm memcpy (bandwidth ceiling)']);
const scalarCeiling = ratio(results['wasm scalar (Highway SCALAR)'], results['wasm memcpy (bandwidth ceiling)']);
lines.push(`| wasm SIMD / wasm memcpy (fraction of the ceiling) | ${ceiling.map((v) => v.toFixed(2)).join(' | ')} |`);
lines.push(`| wasm scalar / wasm memcpy | ${scalarCeiling.map((v) => v.toFixed(2)).join(' | ')} |`);
const table = lines.join('\n');
const note = `Measured by \`npm run bench:rope\` on ${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}.`;
console.log(`${table}\n\n${note}`);

if (process.argv.includes('--readme')) {
  const path = join(root, 'README.md');
  const readme = readFileSync(path, 'utf8');
  const begin = '<!-- bench:rope begin -->';
  const end = '<!-- bench:rope end -->';
  const a = readme.indexOf(begin);
  const b = readme.indexOf(end);
  if (a < 0 || b < 0) throw new Error('README.md has no bench:rope markers');
  writeFileSync(path, `${readme.slice(0, a + begin.length)}\n${table}\n\n${note}\n${readme.slice(b)}`);
  console.log('README.md updated');
}
