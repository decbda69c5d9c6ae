// A/B of every kernel the package exposes against the package as it was at
// another commit, in one Node process: the kernels of the core module
// (attention at head dims 64 and 32, one decode step, RoPE, ALiBi, T5,
// sinusoidal, KV-cache attention) and of the models (forward, greedy decoding
// through the KV cache, evaluation, training steps), both flavours.
//   npm run bench:ab -- --baseline <git ref>            print the table
// The baseline is built once in build/baseline/<sha> (wasm modules + dist/).
// Each case is timed A B A B A B (the best of each side's batches), so machine
// noise hits both sides alike; the ratio is this build's time over the
// baseline's (below 1: faster).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { root } from '../../tools/common.mjs';
import { bestSeconds, buildBaseline } from './common.mjs';

const argv = process.argv.slice(2);
const ref = argv.includes('--baseline') ? argv[argv.indexOf('--baseline') + 1] : undefined;
if (!ref) {
  console.error('usage: npm run bench:ab -- --baseline <git ref>');
  process.exit(2);
}
const { sha, dir } = buildBaseline(ref);
const current = (await import(pathToFileURL(join(root, 'dist/node.js')).href));
const baseline = (await import(pathToFileURL(join(dir, 'dist/node.js')).href));

let seed = 1;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
const floats = (n) => Float32Array.from({ length: n }, rnd);
const model = (name) => readFileSync(join(root, 'web/models', `${name}.safetensors`));

/**
 * The cases: each gets an initialised package and returns the call to time
 * (awaited when it returns a promise). Model calls await, so the same code
 * runs on a package whose loadModel is synchronous.
 */
const CASES = [
  ['attention, causal, 8 heads x 512 x 64', (pe) => {
    const [q, k, v] = [floats(8 * 512 * 64), floats(8 * 512 * 64), floats(8 * 512 * 64)];
    return () => pe.attention({ q, k, v, heads: 8, queryLength: 512, keyLength: 512, headDim: 64, causal: true });
  }],
  ['attention, causal, 8 heads x 256 x 32 (runtime head dim)', (pe) => {
    const [q, k, v] = [floats(8 * 256 * 32), floats(8 * 256 * 32), floats(8 * 256 * 32)];
    return () => pe.attention({ q, k, v, heads: 8, queryLength: 256, keyLength: 256, headDim: 32, causal: true });
  }],
  ['attention, 1 query over 2048 keys, 8 heads x 128', (pe) => {
    const q = floats(8 * 128), k = floats(8 * 2048 * 128), v = floats(8 * 2048 * 128);
    return () => pe.attention({ q, k, v, heads: 8, queryLength: 1, keyLength: 2048, headDim: 128, causal: true });
  }],
  ['attention + RoPE + ALiBi options, 4 heads x 256 x 64', (pe) => {
    const [q, k, v] = [floats(4 * 256 * 64), floats(4 * 256 * 64), floats(4 * 256 * 64)];
    return () => pe.attention({ q, k, v, heads: 4, queryLength: 256, keyLength: 256, headDim: 64, causal: true, rope: { layout: 'half' }, alibi: true });
  }],
  ['KV cache: attend 1 query over 1024 cached tokens (8 heads x 64, RoPE)', (pe) => {
    const cache = new pe.KvCache({ kvHeads: 8, headDim: 64, rope: { layout: 'half' } });
    cache.append(floats(8 * 1024 * 64), floats(8 * 1024 * 64));
    const q = floats(8 * 64);
    return () => cache.attend(q, { heads: 8, queryLength: 1 });
  }],
  ['applyRope, half, 8 heads x 512 x 128', (pe) => {
    const x = floats(8 * 512 * 128);
    return () => pe.applyRope(x, { heads: 8, seqLen: 512, headDim: 128, layout: 'half' });
  }],
  ['alibiBias, 8 heads x 512 x 512', (pe) => () => pe.alibiBias({ heads: 8, queryLength: 512, keyLength: 512 })],
  ['t5Bias, 8 heads x 256 x 256', (pe) => {
    const table = floats(32 * 8);
    return () => pe.t5Bias({ table, heads: 8, queryLength: 256, keyLength: 256 });
  }],
  ['sinusoidal, 1024 x 256', (pe) => () => pe.sinusoidal({ length: 1024, dim: 256 })],
  ['model forward, language-rope, 64 tokens', async (pe) => {
    const m = await pe.loadModel(model('language-rope'));
    const tokens = (await pe.sampleTask({ task: 'language', length: 64, seed: 3 })).tokens;
    return () => m.forward(tokens);
  }],
  ['model generate, language-alibi, 32 tokens (KV cache)', async (pe) => {
    const m = await pe.loadModel(model('language-alibi'));
    const prompt = (await pe.sampleTask({ task: 'language', length: 16, seed: 3 })).tokens;
    return () => m.generate(prompt, { maxNewTokens: 32 });
  }],
  ['model evaluate, retrieval-rope, 8 x 256 tokens', async (pe) => {
    const m = await pe.loadModel(model('retrieval-rope'));
    return () => m.evaluate({ lengths: [256], examples: 8 });
  }],
  ['training, language, RoPE, 5 steps (batch 16 x 64)', (pe) => () => pe.train({ task: 'language', encoding: 'rope', steps: 5, seed: 1 }, { chunk: 5 }).then((m) => m.delete())],
];

// --only <regex>: the cases whose name matches (to re-measure a few).
const only = argv.includes('--only') ? new RegExp(argv[argv.indexOf('--only') + 1]) : undefined;
const ROUNDS = 3;
const rows = [];
for (const simd of [true, false]) {
  const sides = [await baseline.init({ simd }), await current.init({ simd })];
  for (const [name, make] of CASES) {
    if (only && !only.test(name)) continue;
    const fns = await Promise.all(sides.map((pe) => make(pe)));
    const best = [Infinity, Infinity];
    // A B A B A B: each side's best over the rounds.
    for (let round = 0; round < ROUNDS; round++) {
      for (let s = 0; s < 2; s++) best[s] = Math.min(best[s], await bestSeconds(fns[s], { budgetMs: 250 }));
    }
    const row = { flavour: simd ? 'SIMD' : 'scalar', name, a: best[0] * 1000, b: best[1] * 1000 };
    rows.push(row);
    console.error(`${row.flavour} ${name}: ${row.a.toFixed(3)} ms -> ${row.b.toFixed(3)} ms`);
  }
}

const fmt = (ms) => (ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const lines = [
  `| call | flavour | baseline ${sha} (ms) | this build (ms) | this / baseline |`,
  '|---|---|---:|---:|---:|',
  ...rows.map((r) => `| ${r.name} | ${r.flavour} | ${fmt(r.a)} | ${fmt(r.b)} | ${(r.b / r.a).toFixed(2)} |`),
];
const table = lines.join('\n');
console.log(table);
