// Tiny-model speed: training steps/s (native CLI vs wasm SIMD vs wasm
// scalar, the same seeded run) and generation tokens/s with and without the
// KV cache (wasm, the shipped language-rope model).
//   npm run bench:models                 print the table
//   npm run bench:models -- --docs     also rewrite it in docs/
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { init } from 'posenc';

import { root } from '../../tools/common.mjs';
import { headlines, rewriteDocs, rewriteReadme } from './common.mjs';

const STEPS = 40;
const cfg = { task: 'language', encoding: 'rope', steps: STEPS, seqLen: 64, batch: 16 };

// Native: the same run through the CLI (it prints steps/s).
const nativeOut = execFileSync(join(root, 'build/native/posenc_train_one'), ['language', 'rope', String(STEPS), '64'], { encoding: 'utf8' });
const nativeSps = Number(/\(([0-9.]+) steps\/s\)/.exec(nativeOut)[1]);

const rows = [];
const flavours = [['wasm SIMD', await init({ simd: true })], ['wasm scalar', await init({ simd: false })]];
const train = {};
for (const [name, pe] of flavours) {
  // One warm-up run (V8 compiles the hot functions a second time, optimised,
  // during the first), then the best of three.
  train[name] = 0;
  for (let r = 0; r < 4; r++) {
    const t0 = performance.now();
    const m = await pe.train(cfg, { chunk: STEPS });
    if (r > 0) train[name] = Math.max(train[name], STEPS / ((performance.now() - t0) / 1000));
    m.delete();
  }
}
rows.push(`| training steps/s (language, RoPE, batch 16 x 64 tokens, d=64, 2 layers) | ${nativeSps.toFixed(1)} | ${train['wasm SIMD'].toFixed(1)} | ${train['wasm scalar'].toFixed(1)} |`);

// Generation: 64-token prompt, 192 new tokens.
const PROMPT = 64;
const NEW = 192;
const gen = {};
const full = {};
for (const [name, pe] of flavours) {
  const m = await pe.loadModel(readFileSync(join(root, 'web/models/language-rope.safetensors')));
  const prompt = m.tokenize(Array.from({ length: PROMPT - 1 }, (_, i) => `w${(i * 7) % 32}`).join(' '));
  m.generate(prompt, { maxNewTokens: 8 });  // warm-up
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    m.generate(prompt, { maxNewTokens: NEW });
    best = Math.min(best, performance.now() - t0);
  }
  gen[name] = NEW / (best / 1000);
  // Without a cache: one full forward per new token over the whole prefix.
  const seq = Array.from(prompt);
  const t0 = performance.now();
  for (let i = 0; i < NEW; i++) {
    const { logits } = m.forward(Int32Array.from(seq));
    const V = m.config.vocab;
    let arg = 0;
    for (let v = 1; v < V; v++) if (logits[(seq.length - 1) * V + v] > logits[(seq.length - 1) * V + arg]) arg = v;
    seq.push(arg);
  }
  full[name] = NEW / ((performance.now() - t0) / 1000);
  m.delete();
}
rows.push(`| generation tokens/s with the KV cache (${PROMPT}-token prompt, ${NEW} new) | | ${gen['wasm SIMD'].toFixed(0)} | ${gen['wasm scalar'].toFixed(0)} |`);
rows.push(`| generation tokens/s, full forward per token (no cache) | | ${full['wasm SIMD'].toFixed(0)} | ${full['wasm scalar'].toFixed(0)} |`);

const text = [
  '| tiny-model speed | native | wasm SIMD | wasm scalar |',
  '|---|---:|---:|---:|',
  ...rows,
  '',
  `Measured by \`npm run bench:models\` on ${cpus()[0].model.replace(/\s+/g, ' ').trim()}, Node ${process.version}. Training: ${STEPS} steps, best of 3 after a warm-up run; it runs the model layer's products through \`MatMul\` / \`MatMulAcc\` (Highway); generation runs the attention kernel.`,
].join('\n');
console.log(text);
if (process.argv.includes('--docs')) {
  rewriteDocs('bench:models', text);
  rewriteReadme('bench:models', headlines.models({ simd: train['wasm SIMD'], native: nativeSps }));
}
