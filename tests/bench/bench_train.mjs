// Training speed, this build against a baseline commit: optimiser steps per
// second of the language and retrieval tasks (RoPE, batch 16 x 64 tokens,
// d=64, 2 layers, 4 heads, MLP 128) natively (the posenc_train_one CLI) and
// in wasm SIMD and scalar (the package's train()), each pair timed
// alternately A B A B A B (best of each side), so machine noise hits both
// alike. GFLOP/s counts a step as 3x its forward pass's multiply-adds
// (dense layers, the head, and causal attention's QK^T and PV); the wasm
// SIMD ceiling is the package's mul+add probe (benchHooks().peak).
//   npm run bench:train -- --baseline <git ref>            print the table
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

import { root, run } from '../../tools/common.mjs';
import { buildBaseline } from './common.mjs';

const argv = process.argv.slice(2);
const ref = argv.includes('--baseline') ? argv[argv.indexOf('--baseline') + 1] : undefined;
if (!ref) {
  console.error('usage: npm run bench:train -- --baseline <git ref>');
  process.exit(2);
}
const { sha, dir } = buildBaseline(ref);
// The baseline's native CLI, beside its wasm build.
const baseNative = join(dir, 'build/native');
if (!existsSync(join(baseNative, 'build.ninja'))) {
  run('cmake', ['-S', dir, '-B', baseNative, '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release']);
}
run('ninja', ['-C', baseNative, 'posenc_train_one']);
const current = await import(pathToFileURL(join(root, 'dist/node.js')).href);
const baseline = await import(pathToFileURL(join(dir, 'dist/node.js')).href);
const { benchHooks } = await import(pathToFileURL(join(root, 'dist/internal.js')).href);

const TASKS = ['language', 'retrieval'];
const T = 64, B = 16, C = 64, F = 128, L = 2, H = 4;
const WASM_STEPS = 8, NATIVE_STEPS = 60, ROUNDS = 3;

/** Floating-point operations of one optimiser step (3x the forward's 2 x multiply-adds). */
function stepFlops(vocab) {
  const dense = T * (4 * C * C + 2 * C * F);
  const attention = 2 * H * (C / H) * (T * (T + 1)) / 2;
  const forward = 2 * (L * (dense + attention) + T * C * vocab);
  return 3 * B * forward;
}

/** Steps/s of the CLI binary: it prints "(x steps/s)". */
function nativeRate(bin, task) {
  const out = execFileSync(bin, [task, 'rope', String(NATIVE_STEPS), String(T)], { encoding: 'utf8' });
  return Number(/\(([0-9.]+) steps\/s\)/.exec(out)[1]);
}

async function wasmRate(pe, task) {
  const cfg = { task, encoding: 'rope', steps: WASM_STEPS, seqLen: T, batch: B };
  const t0 = performance.now();
  const m = await pe.train(cfg, { chunk: WASM_STEPS });
  const rate = WASM_STEPS / ((performance.now() - t0) / 1000);
  const vocab = m.config.vocab;
  m.delete();
  return { rate, vocab };
}

const rows = [];
const vocabs = {};
let peak = 0;
for (const task of TASKS) {
  // Native.
  const nat = [0, 0];
  for (let r = 0; r < ROUNDS; r++) {
    nat[0] = Math.max(nat[0], nativeRate(join(baseNative, 'posenc_train_one'), task));
    nat[1] = Math.max(nat[1], nativeRate(join(root, 'build/native/posenc_train_one'), task));
  }
  rows.push([task, 'native', ...nat]);
  for (const simd of [true, false]) {
    const sides = [await baseline.init({ simd }), await current.init({ simd })];
    const best = [0, 0];
    for (let s = 0; s < 2; s++) await wasmRate(sides[s], task);  // warm-up: compile tiers
    for (let r = 0; r < ROUNDS; r++) {
      for (let s = 0; s < 2; s++) {
        const { rate, vocab } = await wasmRate(sides[s], task);
        best[s] = Math.max(best[s], rate);
        vocabs[task] = vocab;
      }
    }
    if (simd && peak === 0) {
      const hooks = benchHooks(sides[1]);
      hooks.peak(1e6);
      for (let r = 0; r < 3; r++) {
        const t0 = performance.now();
        const flops = hooks.peak(2e7);
        peak = Math.max(peak, flops / ((performance.now() - t0) / 1000));
      }
    }
    rows.push([task, simd ? 'wasm SIMD' : 'wasm scalar', ...best]);
  }
}

const gf = (task, rate) => (stepFlops(vocabs[task]) * rate) / 1e9;
const lines = [
  `| task | build | baseline ${sha} (steps/s) | this build (steps/s) | speed-up | this build GFLOP/s |`,
  '|---|---|---:|---:|---:|---:|',
  ...rows.map(([task, build, a, b]) => {
    const g = gf(task, b);
    const share = build === 'wasm SIMD' ? ` (${((100 * g * 1e9) / peak).toFixed(0)}% of the ${(peak / 1e9).toFixed(1)} GFLOP/s ceiling)` : '';
    return `| ${task} | ${build} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${(b / a).toFixed(2)}x | ${g.toFixed(1)}${share} |`;
  }),
  '',
  `Measured by \`npm run bench:train -- --baseline ${ref}\` on ${cpus()[0].model.replace(/\s+/g, ' ').trim()}, Node ${process.version}: RoPE, batch ${B} x ${T} tokens, d=${C}, ${L} layers, ${H} heads, MLP ${F}; best of ${ROUNDS} alternating runs (native ${NATIVE_STEPS} steps, wasm ${WASM_STEPS}). A step counts ${(stepFlops(vocabs.language) / 1e6).toFixed(0)} MFLOP (language) / ${(stepFlops(vocabs.retrieval) / 1e6).toFixed(0)} MFLOP (retrieval).`,
];
const table = lines.join('\n');
console.log(table);
