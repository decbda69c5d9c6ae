/**
 * Batched RoPE and position ids from a mask, both flavours:
 * - a batch equals one applyRope call per row, in both axis orders;
 * - per-row positions from pe.positionIds(mask) make a left-padded row's
 *   tokens rotate exactly as the same tokens unpadded;
 * - dynamic NTK sees one context length for the whole batch (the longest
 *   position + 1), as Hugging Face derives it from position_ids.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { RopeScaling } from 'posenc';

import { flavours } from './flavours.js';
import { randomVector } from './reference.js';

const B = 3;
const H = 2;
const T = 5;
const D = 8;

/** [B, H, T, D] -> [B, T, H, D]. */
function toBshd(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      for (let t = 0; t < T; t++) {
        out.set(x.subarray(((b * H + h) * T + t) * D, ((b * H + h) * T + t + 1) * D), ((b * T + t) * H + h) * D);
      }
    }
  }
  return out;
}

for (const [flavour, ready] of flavours) {
  describe(`batched RoPE (${flavour})`, () => {
    const x = randomVector(B * H * T * D, 5);
    const row = (b: number): Float32Array => x.subarray(b * H * T * D, (b + 1) * H * T * D);

    it('positionIds: cumsum - 1, and 1 at padded slots (transformers)', async () => {
      const pe = await ready;
      const mask = Uint8Array.from([0, 0, 1, 1, 1, /**/ 1, 1, 1, 1, 1, /**/ 1, 1, 1, 0, 0]);
      assert.deepEqual(Array.from(pe.positionIds(mask, T)), [1, 1, 0, 1, 2, /**/ 0, 1, 2, 3, 4, /**/ 0, 1, 2, 1, 1]);
      assert.throws(() => pe.positionIds(Uint8Array.of(1, 2), 2), { name: 'RangeError', message: /mask\[1\] must be 0 or 1, got 2/ });
      assert.throws(() => pe.positionIds(new Uint8Array(5), 2), { name: 'RangeError', message: /mask must have batch \* seqLen elements \(seqLen = 2\), got 5/ });
      assert.throws(() => pe.positionIds([1, 1] as unknown as Uint8Array, 2), { name: 'TypeError', message: /mask must be a Uint8Array or an Int32Array/ });
    });

    it('a batch equals one call per row, per-row positions included, in both axis orders', async () => {
      const pe = await ready;
      const positions = Int32Array.from({ length: B * T }, (_, e) => 3 * e + 1);
      const opts = { heads: H, seqLen: T, headDim: D, layout: 'interleaved' } as const;
      const batch = pe.applyRope(x, { ...opts, batch: B, positions });
      const seq = pe.applyRope(toBshd(x), { ...opts, batch: B, positions, axes: 'bshd' });
      for (let b = 0; b < B; b++) {
        const one = pe.applyRope(row(b), { ...opts, positions: positions.subarray(b * T, (b + 1) * T) });
        assert.deepEqual(batch.subarray(b * H * T * D, (b + 1) * H * T * D), one, `row ${b}`);
      }
      assert.deepEqual(seq, toBshd(batch), 'bshd = bhsd transposed');
      // Shared positions [seqLen] and offsets work for every row.
      const shared = pe.applyRope(x, { ...opts, batch: B, offset: 7 });
      for (let b = 0; b < B; b++) assert.deepEqual(shared.subarray(b * H * T * D, (b + 1) * H * T * D), pe.applyRope(row(b), { ...opts, offset: 7 }));
      // rerotateRope: a batch moves every row by delta.
      const moved = pe.rerotateRope(batch, { ...opts, batch: B, delta: 4 });
      const direct = pe.applyRope(x, { ...opts, batch: B, positions: positions.map((p) => p + 4) });
      for (let e = 0; e < moved.length; e++) assert.ok(Math.abs(moved[e]! - direct[e]!) < 1e-5, `rerotate ${e}`);
    });

    it('left padding: with positionIds the real tokens rotate as if unpadded', async () => {
      const pe = await ready;
      const mask = Uint8Array.from([0, 0, 1, 1, 1, /**/ 1, 1, 1, 1, 1, /**/ 0, 1, 1, 1, 1]);
      const opts = { heads: H, seqLen: T, headDim: D, layout: 'half' } as const;
      const got = pe.applyRope(x, { ...opts, batch: B, positions: pe.positionIds(mask, T) });
      const pads = [2, 0, 1];
      for (let b = 0; b < B; b++) {
        const n = T - pads[b]!;
        // The same tokens without padding: [H, n, D] at positions 0..n-1.
        const tokens = new Float32Array(H * n * D);
        for (let h = 0; h < H; h++) tokens.set(row(b).subarray((h * T + pads[b]!) * D, (h + 1) * T * D), h * n * D);
        const alone = pe.applyRope(tokens, { ...opts, seqLen: n });
        for (let h = 0; h < H; h++) {
          const a = got.subarray(((b * H + h) * T + pads[b]!) * D, ((b * H + h) * T + T) * D);
          assert.deepEqual(a, alone.subarray(h * n * D, (h + 1) * n * D), `row ${b}, head ${h}`);
        }
      }
    });

    it('dynamic NTK: one context length for the batch, the longest position + 1', async () => {
      const pe = await ready;
      const scaling: RopeScaling = { type: 'dynamic', factor: 2, maxPositionEmbeddings: 4 };
      const positions = Int32Array.from([0, 1, 2, 3, 4, /**/ 0, 1, 2, 3, 20, /**/ 5, 6, 7, 8, 9]);
      const opts = { heads: H, seqLen: T, headDim: D, layout: 'half', scaling } as const;
      const batch = pe.applyRope(x, { ...opts, batch: B, positions });
      for (let b = 0; b < B; b++) {
        const p = positions.subarray(b * T, (b + 1) * T);
        assert.deepEqual(batch.subarray(b * H * T * D, (b + 1) * H * T * D), pe.applyRope(row(b), { ...opts, positions: p, contextLength: 21 }), `row ${b}`);
      }
      // Row 0 alone would derive 5, and so rotate differently.
      const alone = pe.applyRope(row(0), { ...opts, positions: positions.subarray(0, T) });
      assert.ok(alone.some((v, e) => Math.abs(v - batch[e]!) > 1e-4));
    });

    it('bad input', async () => {
      const pe = await ready;
      const opts = { heads: H, seqLen: T, headDim: D, layout: 'half' } as const;
      assert.throws(() => pe.applyRope(new Float32Array(7), { ...opts, batch: B }),
        { name: 'RangeError', message: /x must have batch \* heads \* seqLen \* headDim = 3 \* 2 \* 5 \* 8 = 240 elements, got 7/ });
      assert.throws(() => pe.applyRope(x, { ...opts, batch: B, positions: new Int32Array(7) }),
        { name: 'RangeError', message: /positions must have seqLen = 5 or batch \* seqLen = 15 elements, got 7/ });
      assert.throws(() => pe.applyRope(x, { ...opts, batch: 0 }), { name: 'RangeError', message: /batch must be an integer in \[1, 16777216\], got 0/ });
      assert.throws(() => pe.applyRope(x, { ...opts, batch: B, axes: 'sbhd' as never }), { name: 'RangeError', message: /axes must be one of 'bhsd', 'bshd', got 'sbhd'/ });
    });
  });
}
