/**
 * Bad input: each call throws the documented TypeError/RangeError naming the
 * parameter and values, and the module keeps working afterwards.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { init, type Posenc } from 'posenc';

import { flavours } from './flavours.js';

type Case = [string, (pe: Posenc) => unknown, 'TypeError' | 'RangeError', RegExp];

const x16 = new Float32Array(16);

const cases: Case[] = [
  ['wrong x length', (pe) => pe.applyRope(new Float32Array(10), { heads: 1, seqLen: 2, headDim: 8, layout: 'half' }),
    'RangeError', /x must have heads \* seqLen \* headDim = 1 \* 2 \* 8 = 16 elements, got 10/],
  ['x not a Float32Array', (pe) => pe.applyRope([1, 2] as unknown as Float32Array, { heads: 1, seqLen: 1, headDim: 2, layout: 'half' }),
    'TypeError', /x must be a Float32Array, got an Array of length 2/],
  ['odd head dim', (pe) => pe.applyRope(new Float32Array(14), { heads: 1, seqLen: 2, headDim: 7, layout: 'half' }),
    'RangeError', /headDim must be even when rotaryDim is not given .* got 7/],
  ['odd rotary dim', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, rotaryDim: 5, layout: 'half' }),
    'RangeError', /rotaryDim must be even \(RoPE rotates pairs\), got 5/],
  ['rotary > head', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, rotaryDim: 10, layout: 'half' }),
    'RangeError', /rotaryDim \(10\) must not exceed headDim \(8\)/],
  ['unknown layout', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'neox' as 'half' }),
    'RangeError', /layout must be one of 'half', 'interleaved', got 'neox'/],
  ['unknown scaling', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'ntk-aware' } as never }),
    'RangeError', /scaling.type must be one of .* got 'ntk-aware'/],
  ['missing yarn L', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'yarn', factor: 4 } as never }),
    'TypeError', /scaling.originalMaxPositionEmbeddings is required for scaling type 'yarn'/],
  ['missing factor', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'linear' } as never }),
    'TypeError', /scaling.factor is required for scaling type 'linear'/],
  ['NaN factor', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'linear', factor: NaN } }),
    'RangeError', /scaling.factor must be a finite number, got NaN/],
  ['longrope list length', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'longrope', factor: 4, originalMaxPositionEmbeddings: 10, shortFactor: [1], longFactor: [1, 1, 1, 1] } }),
    'RangeError', /scaling.shortFactor must have rotaryDim\/2 = 4 values, got 1/],
  ['llama3 equal factors', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'llama3', factor: 8, originalMaxPositionEmbeddings: 10, lowFreqFactor: 2, highFreqFactor: 2 } }),
    'RangeError', /highFreqFactor \(2\) must be greater than scaling.lowFreqFactor \(2\)/],
  ['negative heads', (pe) => pe.alibiBias({ heads: -1, queryLength: 2, keyLength: 2 }),
    'RangeError', /heads must be an integer in \[1, 65536\], got -1/],
  ['fractional length', (pe) => pe.sinusoidal({ length: 2.5, dim: 8 }),
    'RangeError', /length must be an integer in \[0, 2147483647\], got 2.5/],
  ['string size', (pe) => pe.sinusoidal({ length: '4' as unknown as number, dim: 8 }),
    'TypeError', /length must be a number, got '4'/],
  ['Infinity base', (pe) => pe.sinusoidal({ length: 4, dim: 8, base: Infinity }),
    'RangeError', /base must be a finite number, got Infinity/],
  ['huge product', (pe) => pe.sinusoidal({ length: 2 ** 30, dim: 1024 }),
    'RangeError', /length \(1073741824\) \* dim \(1024\) = .* more than the 2 GiB/],
  ['q > k', (pe) => pe.alibiBias({ heads: 2, queryLength: 6, keyLength: 5 }),
    'RangeError', /queryLength \(6\) must not exceed keyLength \(5\)/],
  ['t5 too few buckets', (pe) => pe.t5Buckets({ queryLength: 2, keyLength: 2, numBuckets: 2 }),
    'RangeError', /numBuckets must be an integer in \[4, 65536\], got 2/],
  ['t5 table length', (pe) => pe.t5Bias({ table: new Float32Array(3), heads: 2, queryLength: 2, keyLength: 2 }),
    'RangeError', /table must have numBuckets \* heads = 32 \* 2 = 64 elements, got 3/],
  ['positions length', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', positions: new Int32Array(3) }),
    'RangeError', /positions must have seqLen = 2 elements, got 3/],
  ['positions and offset', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', positions: new Int32Array(2), offset: 1 }),
    'TypeError', /pass either positions or offset, not both/],
  ['offset overflow', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', offset: 2147483647 }),
    'RangeError', /offset must be an integer in \[-2147483648, 2147483646\], got 2147483647/],
  ['options missing', (pe) => pe.sinusoidal(undefined as never), 'TypeError', /options must be an options object, got undefined/],
  ['variant', (pe) => pe.alibiSlopes(4, { variant: 'half' as never }), 'RangeError', /variant must be one of 'paper', 'simple', got 'half'/],
  ['detached x', (pe) => {
    const x = new Float32Array(16);
    structuredClone(x.buffer, { transfer: [x.buffer] });
    return pe.applyRope(x, { heads: 1, seqLen: 2, headDim: 8, layout: 'half' });
  }, 'RangeError', /got 0 \(is its buffer detached\?\)/],
  ['shaw q length', (pe) => pe.shawLogits({ q: new Float32Array(3), k: new Float32Array(8), tableK: new Float32Array(12), queryLength: 2, keyLength: 2, headDim: 4, clip: 1 }),
    'RangeError', /q must have queryLength \* headDim = 2 \* 4 = 8 elements, got 3/],
  ['shaw table rows', (pe) => pe.shawValues({ probs: new Float32Array(4), v: new Float32Array(8), tableV: new Float32Array(8), queryLength: 2, keyLength: 2, headDim: 4, clip: 1 }),
    'RangeError', /tableV must have \(2 \* clip \+ 1\) \* headDim = 3 \* 4 = 12 elements, got 8/],
  ['attention kvHeads', (pe) => pe.attention({ q: new Float32Array(32), k: new Float32Array(24), v: new Float32Array(24), heads: 4, kvHeads: 3, queryLength: 1, keyLength: 1, headDim: 8 }),
    'RangeError', /kvHeads \(3\) must divide heads \(4\)/],
  ['attention q length', (pe) => pe.attention({ q: new Float32Array(5), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8 }),
    'RangeError', /q must have heads \* queryLength \* headDim = 1 \* 1 \* 8 = 8 elements, got 5/],
  ['attention q > k', (pe) => pe.attention({ q: new Float32Array(16), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 2, keyLength: 1, headDim: 8 }),
    'RangeError', /queryLength \(2\) must not exceed keyLength \(1\) unless queryOffset is given/],
  ['keyPadding type', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, keyPadding: [1] as unknown as Uint8Array }),
    'TypeError', /keyPadding must be a Uint8Array/],
  ['window zero', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, window: 0 }),
    'RangeError', /window must be an integer in \[1, 16777216\], got 0/],
  ['positionsFromPadding alone', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, rope: { layout: 'half', positionsFromPadding: true } }),
    'TypeError', /rope.positionsFromPadding needs keyPadding/],
  ['alibi NaN slope', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, alibi: { slopes: Float32Array.from([NaN]) } }),
    'RangeError', /alibi.slopes\[0\] must be a finite number, got NaN/],
  ['shaw table', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, shaw: { tableK: new Float32Array(8), clip: 1 } }),
    'RangeError', /shaw.tableK must have \(2 \* clip \+ 1\) \* headDim = 3 \* 8 = 24 elements, got 8/],
  ['cache rope odd', (pe) => new pe.KvCache({ kvHeads: 1, headDim: 8, rope: { layout: 'half', rotaryDim: 3 } }),
    'RangeError', /rotaryDim must be even \(RoPE rotates pairs\), got 3/],
  ['cache append length', (pe) => { const c = new pe.KvCache({ kvHeads: 2, headDim: 4 }); try { c.append(new Float32Array(6), new Float32Array(6)); } finally { c.delete(); } },
    'RangeError', /k must have kvHeads \* n \* headDim = 2 \* n \* 4 elements, got 6/],
  ['learned past table', (pe) => pe.learnedPositions({ table: new Float32Array(8), maxLength: 4, dim: 2, positions: Int32Array.from([0, 9]) }),
    'RangeError', /positions\[1\] = 9 is outside the learned table \[0, 4\)/],
  ['xpos key missing', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', xpos: {} as never }),
    'TypeError', /xpos.key must be a boolean/],
];

for (const [name, loading] of flavours) {
  describe(`bad input (${name})`, () => {
    for (const [what, fn, type, msg] of cases) {
      it(what, async () => {
        const pe = await loading;
        assert.throws(() => fn(pe), (e: unknown) => {
          assert.ok(e instanceof Error);
          assert.equal(e.name, type, `${what}: ${e.message}`);
          assert.match(e.message, msg);
          return true;
        });
      });
    }

    it('keeps working after 1000 bad calls, without leaking heap', async () => {
      const pe = await loading;
      const good = () => pe.applyRope(Float32Array.from({ length: 16 }, (_, i) => i), { heads: 1, seqLen: 2, headDim: 8, layout: 'half', offset: 3 });
      const before = good();
      pe.sinusoidal({ length: 64, dim: 64 });
      const heap = pe.heapBytes();
      for (let i = 0; i < 1000; i++) {
        const [, fn] = cases[i % cases.length]!;
        assert.throws(() => fn(pe));
      }
      assert.deepEqual(good(), before);
      assert.equal(pe.heapBytes(), heap, 'failing calls must not grow the heap');
    });
  });
}

describe('init', () => {
  it('rejects bad options and bytes that are not wasm', async () => {
    await assert.rejects(init({ simd: 'yes' as unknown as boolean }), { name: 'TypeError', message: /simd must be a boolean/ });
    await assert.rejects(
      init({ wasmBinary: new TextEncoder().encode('<!DOCTYPE html><html>') }),
      /wasmBinary is not a WebAssembly binary \(expected magic word 00 61 73 6d, found 3c 21 44 4f\)/,
    );
    await assert.rejects(init({ wasmUrl: './missing.wasm' }), /could not read file:.*missing\.wasm/);
  });
});
