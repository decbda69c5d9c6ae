/**
 * M-RoPE through the package: a Qwen2.5-VL / Qwen3-VL / Qwen3.5 layer from
 * ropeFromConfig, the prompt's rows from mropePositionIds, and applyRope,
 * ropeCache and attention with positions [3, seqLen] ([batch, 3, seqLen]):
 * against a float64 rotation whose pair -> row map is built as transformers
 * builds it; three equal rows give plain RoPE bit for bit; bad rows are
 * errors naming them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { MropeOptions, Posenc, RopeLayerOptions } from 'posenc';

import { flavours } from './flavours.js';
import { LAYER_FIXTURES } from './hf-layer-configs.js';
import { hfMropeRows } from './hf-reference.js';
import { assertClose, randomVector } from './reference.js';

/** x [H, T, d] rotated in float64: pair j of token t at position rows[axis[j] * T + t] (float32 frequencies). */
function reference(x: Float32Array, H: number, T: number, layer: RopeLayerOptions, invFreq: Float32Array, rows: Int32Array): Float64Array {
  const d = layer.headDim;
  const h = layer.rotaryDim / 2;
  const mr = layer.mrope!;
  const axis = hfMropeRows(mr.section, mr.interleaved ?? false, h);
  const out = Float64Array.from(x);
  for (let hd = 0; hd < H; hd++) {
    for (let t = 0; t < T; t++) {
      for (let j = 0; j < h; j++) {
        const angle = rows[axis[j]! * T + t]! * invFreq[j]!;
        const base = (hd * T + t) * d;
        const ia = base + (layer.layout === 'half' ? j : 2 * j);
        const ib = base + (layer.layout === 'half' ? j + h : 2 * j + 1);
        const a = x[ia]!;
        const b = x[ib]!;
        out[ia] = a * Math.cos(angle) - b * Math.sin(angle);
        out[ib] = b * Math.cos(angle) + a * Math.sin(angle);
      }
    }
  }
  return out;
}

/** The first RoPE layer of a published config (tests/ts/hf-layer-configs.ts). */
function layerOf(pe: Posenc, name: string): RopeLayerOptions {
  const f = LAYER_FIXTURES.find((x) => x.name.startsWith(name));
  assert.ok(f, name);
  const layer = pe.ropeFromConfig(f.config).layers.find((l) => l !== null);
  assert.ok(layer?.mrope, `${name} has M-RoPE`);
  return layer;
}

const TXT = 5;
const START = 151652;
const IMG = 151655;

for (const [flavour, ready] of flavours) {
  describe(`M-RoPE (${flavour})`, () => {
    for (const name of ['Qwen2.5-VL', 'Qwen3-VL 8B', 'Qwen3.5']) {
      it(`${name}: a prompt with an image, from config to rotated q, as transformers rotates it`, async () => {
        const pe = await ready;
        const layer = layerOf(pe, name);
        // 3 text, <vision_start>, a (1, 4, 6) image = 2 x 3 tokens, 4 text.
        const inputIds = Int32Array.from([TXT, TXT, TXT, START, IMG, IMG, IMG, IMG, IMG, IMG, TXT, TXT, TXT, TXT]);
        const T = inputIds.length;
        const { positions } = pe.mropePositionIds({
          inputIds, imageGridThw: Int32Array.from([1, 4, 6]), spatialMergeSize: 2, imageTokenId: IMG, videoTokenId: 151656, visionStartTokenId: START,
        });
        assert.deepEqual([...positions.subarray(T, 2 * T)], [0, 1, 2, 3, 4, 4, 4, 5, 5, 5, 7, 8, 9, 10], 'the height row');
        const H = 2;
        const x = randomVector(H * T * layer.headDim, 7);
        const got = pe.applyRope(x, { ...layer, heads: H, seqLen: T, positions });
        const { invFreq } = pe.ropeFrequencies({ ...layer, seqLen: T });
        assertClose(got, reference(x, H, T, layer, invFreq, positions), 2e-6, 2e-6, name);
        // The cos / sin tables say the same: column j of row t is the angle of j's row.
        const { cos } = pe.ropeCache({ ...layer, positions, format: 'half' });
        const axis = hfMropeRows(layer.mrope!.section, layer.mrope!.interleaved ?? false, layer.rotaryDim / 2);
        for (let t = 0; t < T; t++) {
          for (let j = 0; j < axis.length; j++) {
            const want = Math.cos(positions[axis[j]! * T + t]! * invFreq[j]!);
            assert.ok(Math.abs(cos[t * axis.length + j]! - want) < 2e-6, `${name} cos t=${t} j=${j}`);
          }
        }
      });
    }

    it('three equal rows are plain RoPE, bit for bit: applyRope, batches, bshd, rerotateRope, ropeCache, attention', async () => {
      const pe = await ready;
      const layer = layerOf(pe, 'Qwen2.5-VL');
      const { mrope, ...plain } = layer;
      const H = 2;
      const T = 5;
      const B = 2;
      const D = layer.headDim;
      const p = Int32Array.from([0, 3, 4, 9, 100000]);
      const three = Int32Array.from([...p, ...p, ...p]);
      const x = randomVector(B * H * T * D, 11);
      const one = x.subarray(0, H * T * D);
      assert.deepEqual(pe.applyRope(one, { ...layer, heads: H, seqLen: T, positions: three }), pe.applyRope(one, { ...plain, heads: H, seqLen: T, positions: p }));
      assert.deepEqual(pe.applyRope(one, { ...layer, heads: H, seqLen: T, offset: 7 }), pe.applyRope(one, { ...plain, heads: H, seqLen: T, offset: 7 }));
      const q = Int32Array.from([...p, ...p.map((v) => v + 1)]);
      const batch3 = Int32Array.from([...p, ...p, ...p, ...q.subarray(T), ...q.subarray(T), ...q.subarray(T)]);
      for (const axes of ['bhsd', 'bshd'] as const) {
        assert.deepEqual(pe.applyRope(x, { ...layer, batch: B, axes, heads: H, seqLen: T, positions: batch3 }),
          pe.applyRope(x, { ...plain, batch: B, axes, heads: H, seqLen: T, positions: q }), axes);
      }
      assert.deepEqual(pe.rerotateRope(one, { ...layer, heads: H, seqLen: T, delta: -3 }), pe.rerotateRope(one, { ...plain, heads: H, seqLen: T, delta: -3 }));
      assert.deepEqual(pe.ropeCache({ ...layer, positions: three }), pe.ropeCache({ ...plain, positions: p }));
      const k = randomVector(H * T * D, 12);
      const v = randomVector(H * T * D, 13);
      const att = (rope: object): Float32Array => pe.attention({ q: one, k, v, heads: H, queryLength: T, keyLength: T, headDim: D, rope: rope as never }).out;
      assert.deepEqual(att({ ...layer, queryPositions: three, keyPositions: three }), att({ ...plain, queryPositions: p, keyPositions: p }));
      void mrope;
    });

    it('attention with three rows rotates q and k as applyRope does', async () => {
      const pe = await ready;
      const layer = layerOf(pe, 'Qwen3-VL 8B');
      const H = 2;
      const T = 6;
      const D = layer.headDim;
      const rows = Int32Array.from([0, 1, 2, 2, 2, 2, 0, 1, 2, 2, 3, 3, 0, 1, 2, 3, 2, 3]);
      const q = randomVector(H * T * D, 21);
      const k = randomVector(H * T * D, 22);
      const v = randomVector(H * T * D, 23);
      const got = pe.attention({ q, k, v, heads: H, queryLength: T, keyLength: T, headDim: D, rope: { ...layer, queryPositions: rows, keyPositions: rows } }).out;
      const qr = pe.applyRope(q, { ...layer, heads: H, seqLen: T, positions: rows });
      const kr = pe.applyRope(k, { ...layer, heads: H, seqLen: T, positions: rows });
      assert.deepEqual(got, pe.attention({ q: qr, k: kr, v, heads: H, queryLength: T, keyLength: T, headDim: D }).out);
    });

    it('bad rows and splits are errors naming them, and the next call works', async () => {
      const pe = await ready;
      const mrope: MropeOptions = { section: [2, 3, 3] };
      const x = new Float32Array(16 * 2);
      const cases: Array<[() => unknown, string, RegExp]> = [
        [() => pe.applyRope(x, { heads: 1, seqLen: 2, headDim: 16, layout: 'half', mrope, positions: new Int32Array(2) }), 'RangeError',
          /positions must have 3 \* seqLen \(mrope\) = 6 elements, got 2/],
        [() => pe.applyRope(x, { heads: 1, seqLen: 2, headDim: 16, layout: 'half', mrope: { section: [2, 3, 2] } }), 'RangeError',
          /mropeSection \(2, 3, 2\) must sum to rotaryDim \/ 2 = 8, got 7/],
        [() => pe.applyRope(x, { heads: 1, seqLen: 2, headDim: 16, layout: 'half', mrope: { section: 'x' as never } }), 'TypeError',
          /mrope.section must be an array of 3 integers/],
        [() => pe.applyRope(x, { heads: 1, seqLen: 2, headDim: 16, layout: 'half', mrope, xpos: { key: false } }), 'RangeError',
          /xpos does not go with M-RoPE/],
        [() => pe.applyRope(x, { batch: 2, heads: 1, seqLen: 1, headDim: 16, layout: 'half', mrope, positions: new Int32Array(4) }), 'RangeError',
          /positions must have 3 \* seqLen = 3 or batch \* 3 \* seqLen = 6 elements, got 4/],
        [() => pe.ropeCache({ headDim: 16, layout: 'half', mrope, positions: new Int32Array(4) }), 'RangeError',
          /positions must have 3 \* seqLen elements with mrope/],
        [() => pe.attention({ q: x, k: x, v: x, heads: 1, queryLength: 2, keyLength: 2, headDim: 16, rope: { layout: 'half', mrope, keyPositions: new Int32Array(2) } }),
          'RangeError', /rope.keyPositions must have 3 \* keyLength = 6 elements, got 2/],
        [() => new pe.KvCache({ kvHeads: 1, headDim: 16, rope: { layout: 'half', mrope } as never }), 'RangeError',
          /the KV cache takes one position row per token/],
      ];
      for (const [call, name, message] of cases) assert.throws(call, { name, message });
      assert.equal(pe.applyRope(x, { heads: 1, seqLen: 2, headDim: 16, layout: 'half', mrope, positions: new Int32Array(6) }).length, 32);
    });
  });
}
