// `npm run tour`: a short tour in the terminal, printing real results
// from the wasm module (and two shipped models, from posenc-models).
import { readFile } from 'node:fs/promises';

import { init } from 'posenc';
import { modelUrl } from 'posenc-models';

const pe = await init();
const fmt = (v) => (v === -Infinity ? '-inf' : Number.isInteger(v) ? String(v) : v.toFixed(4)).padStart(8);
const row = (a) => Array.from(a, fmt).join('');

console.log(`posenc tour: ${pe.simd ? 'SIMD' : 'scalar'} wasm binary (Highway target ${pe.target}) loaded\n`);

console.log('1. ALiBi, 4 heads x 5 positions, causal: bias[h, i, j] = -m_h (i - j), -inf above the diagonal');
for (const variant of ['simple', 'paper']) {
  const slopes = pe.alibiSlopes(4, { variant });
  const bias = pe.alibiBias({ heads: 4, queryLength: 5, keyLength: 5, variant });
  console.log(`\n   ${variant === 'simple' ? "seed article's 1/2^h slopes" : "paper's 2^(-8(h+1)/n) slopes"}: ${row(slopes)}`);
  for (let h = 0; h < 4; h++) {
    console.log(`   head ${h}, last row:${row(bias.subarray(h * 25 + 20, h * 25 + 25))}`);
  }
}
const head0 = pe.alibiBias({ heads: 4, queryLength: 5, keyLength: 5, variant: 'simple' });
console.log('\n   head 0 (simple slopes), full matrix:');
for (let i = 0; i < 5; i++) console.log(`   ${row(head0.subarray(i * 5, i * 5 + 5))}`);

console.log('\n2. RoPE depends only on relative position: q.k at (m, n) equals q.k at (m+7, n+7)');
const d = 64;
let s = 12345;
const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
const q = Float32Array.from({ length: d }, rand);
const k = Float32Array.from({ length: d }, rand);
const rot = (v, p) => pe.applyRope(v, { heads: 1, seqLen: 1, headDim: d, layout: 'half', offset: p });
const dot = (a, b) => a.reduce((acc, x, i) => acc + x * b[i], 0);
for (const [m, n] of [[3, 10], [100, 40], [5000, 5123]]) {
  const a = dot(rot(q, m), rot(k, n));
  const b = dot(rot(q, m + 7), rot(k, n + 7));
  console.log(`   (m, n) = (${m}, ${n}): ${a.toFixed(6)}   (${m + 7}, ${n + 7}): ${b.toFixed(6)}   |diff| = ${Math.abs(a - b).toExponential(1)}`);
}

console.log('\n3. T5 relative buckets (32 buckets, max distance 128, bidirectional), query at position 8, keys 0..23:');
const buckets = pe.t5Buckets({ queryLength: 1, keyLength: 24, queryOffset: 8 });
console.log(`   key - query: ${Array.from({ length: 24 }, (_, j) => String(j - 8).padStart(3)).join('')}`);
console.log(`   bucket:      ${Array.from(buckets, (b) => String(b).padStart(3)).join('')}`);
console.log('\n4. Why attention needs position: permute 6 tokens, attend, un-permute the output rows');
{
  const H = 1, T = 6, D = 16;
  const x = Float32Array.from({ length: H * T * D }, rand);
  const perm = [3, 0, 5, 1, 4, 2];
  const permute = (a) => Float32Array.from({ length: a.length }, (_, e) => a[perm[Math.floor(e / D)] * D + (e % D)]);
  const gap = (extra) => {
    const o = { heads: H, queryLength: T, keyLength: T, headDim: D, ...extra };
    const a = permute(pe.attention({ ...o, q: x, k: x, v: x }).out);
    const b = pe.attention({ ...o, q: permute(x), k: permute(x), v: permute(x) }).out;
    return Math.max(...a.map((v, i) => Math.abs(v - b[i])));
  };
  console.log(`   no encoding, no mask : max |difference| = ${gap({ causal: false }).toExponential(1)}  (order is invisible)`);
  console.log(`   causal mask          : max |difference| = ${gap({ causal: true }).toFixed(3)}`);
  console.log(`   RoPE                 : max |difference| = ${gap({ causal: false, rope: { layout: 'half' } }).toFixed(3)}`);
  console.log(`   ALiBi (slope 1)      : max |difference| = ${gap({ causal: false, alibi: { variant: 'simple' } }).toFixed(3)}`);
}

console.log('\n5. Two shipped tiny models (posenc-models): who likes whom? Same words, swapped order');
for (const enc of ['nope', 'rope']) {
  const m = await pe.loadModel(await readFile(modelUrl(`word-order-${enc}`)));
  const who = (text) => {
    const l = m.forward(m.tokenize(text)).logits;
    return m.classes[l.indexOf(Math.max(...l))];
  };
  console.log(`   word-order-${enc.padEnd(5)}: 'Alice likes Bob' -> ${who('Alice likes Bob').padEnd(6)} 'Bob likes Alice' -> ${who('Bob likes Alice')}${enc === 'nope' ? '  (no position: one answer for both)' : ''}`);
  m.delete();
}
console.log('\nNext: npm test runs every suite; docs/api.md documents the API.');
