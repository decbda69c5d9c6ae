/**
 * pe.ropeCache: cos / sin tables for other runtimes, both flavours.
 * - 'full' tables used the way Hugging Face's apply_rotary_pos_emb uses them
 *   (x * cos + rotate(x) * sin) give what pe.applyRope gives, for both
 *   layouts, partial rotary, a scaling with an attention factor and
 *   positions past 100,000;
 * - 'half' tables fed to onnxruntime-web's RotaryEmbedding operator (ONNX
 *   opset 23) give what pe.applyRope gives, for both layouts.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { RopeLayout, RopeScaling } from 'posenc';

import { flavours } from './flavours.js';
import { assertClose, randomVector } from './reference.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');

/** Hugging Face's rotation with full-width tables: x * cos + rotate(x) * sin on the first r dims of each row. */
function hfApply(x: Float32Array, rows: number, D: number, r: number, cos: Float32Array, sin: Float32Array, layout: RopeLayout): Float64Array {
  const out = Float64Array.from(x);
  for (let t = 0; t < rows; t++) {
    const xr = x.subarray(t * D, t * D + r);
    for (let i = 0; i < r; i++) {
      // rotate_half: [-x2, x1]; rotate_every_two: (-x[2i+1], x[2i]).
      const rot = layout === 'half' ? (i < r / 2 ? -xr[i + r / 2]! : xr[i - r / 2]!) : i % 2 === 0 ? -xr[i + 1]! : xr[i - 1]!;
      out[t * D + i] = xr[i]! * cos[t * r + i]! + rot * sin[t * r + i]!;
    }
  }
  return out;
}

const YARN: RopeScaling = { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4096 };

for (const [flavour, ready] of flavours) {
  describe(`ropeCache (${flavour})`, () => {
    for (const layout of ['half', 'interleaved'] as const) {
      it(`${layout}: full tables used as Hugging Face uses them rotate as applyRope does (partial rotary, yarn, positions past 100,000)`, async () => {
        const pe = await ready;
        const T = 6;
        const D = 32;
        const r = 24;
        const positions = Int32Array.from([0, 1, 4095, 4096, 100000, 123457]);
        const x = randomVector(T * D, 77);
        const { cos, sin, width } = pe.ropeCache({ headDim: D, rotaryDim: r, layout, scaling: YARN, positions });
        assert.equal(width, r);
        assert.equal(cos.length, T * r);
        const want = pe.applyRope(x, { heads: 1, seqLen: T, headDim: D, rotaryDim: r, layout, scaling: YARN, positions });
        assertClose(hfApply(x, T, D, r, cos, sin, layout), want, 2e-6, 2e-6, `${layout}: HF-style rotation with posenc's tables`);
        // The attention factor is in the tables: cos^2 + sin^2 = factor^2.
        const { attentionFactor } = pe.ropeFrequencies({ headDim: D, rotaryDim: r, scaling: YARN });
        assert.ok(attentionFactor > 1);
        for (let e = 0; e < cos.length; e++) {
          assert.ok(Math.abs(Math.hypot(cos[e]!, sin[e]!) - attentionFactor) < 1e-6, `|(cos, sin)| at ${e}`);
        }
      });

      it(`${layout}: 'half' tables are the full tables' one value per pair; offset / seqLen give the same rows as positions`, async () => {
        const pe = await ready;
        const full = pe.ropeCache({ headDim: 16, layout, offset: 99998, seqLen: 4 });
        const half = pe.ropeCache({ headDim: 16, layout, positions: Int32Array.from([99998, 99999, 100000, 100001]), format: 'half' });
        assert.equal(half.width, 8);
        for (let t = 0; t < 4; t++) {
          for (let i = 0; i < 8; i++) {
            const slot = layout === 'half' ? i : 2 * i;
            assert.equal(full.cos[t * 16 + slot], half.cos[t * 8 + i]);
            assert.equal(full.sin[t * 16 + slot], half.sin[t * 8 + i]);
            const other = layout === 'half' ? i + 8 : 2 * i + 1;
            assert.equal(full.cos[t * 16 + other], half.cos[t * 8 + i]);
          }
        }
      });
    }

    it('onnxruntime-web RotaryEmbedding fed with the half tables gives applyRope, both layouts, positions past 100,000', async () => {
      const pe = await ready;
      const ortDist = join(root, 'node_modules/onnxruntime-web/dist/');
      const ort = await import(pathToFileURL(join(ortDist, 'ort.wasm.min.mjs')).href);
      ort.env.wasm.numThreads = 1;
      ort.env.wasm.wasmPaths = ortDist;
      const { rotaryEmbedding } = await import(pathToFileURL(join(root, 'tests/bench/onnx_graphs.mjs')).href);
      const H = 2;
      const T = 5;
      const D = 64;
      const positions = Int32Array.from({ length: T }, (_, t) => 100000 + 37 * t);
      const x = randomVector(H * T * D, 99);
      for (const layout of ['half', 'interleaved'] as const) {
        const { cos, sin } = pe.ropeCache({ headDim: D, layout, positions, format: 'half', scaling: YARN });
        const session = await ort.InferenceSession.create(rotaryEmbedding(H, T, D, layout === 'interleaved'), { executionProviders: ['wasm'] });
        try {
          // Row t of the caches is position positions[t]: position_ids index the rows.
          const result = await session.run({
            X: new ort.Tensor('float32', x, [1, H, T, D]),
            cos: new ort.Tensor('float32', cos, [T, D / 2]),
            sin: new ort.Tensor('float32', sin, [T, D / 2]),
            pos: new ort.Tensor('int64', BigInt64Array.from({ length: T }, (_, t) => BigInt(t)), [1, T]),
          });
          const want = pe.applyRope(x, { heads: H, seqLen: T, headDim: D, layout, scaling: YARN, positions });
          assertClose(result.Y.data as Float32Array, want, 2e-6, 2e-6, `${layout}: onnxruntime-web with posenc's tables`);
        } finally {
          await session.release();
        }
      }
    });

    it('bad input', async () => {
      const pe = await ready;
      assert.throws(() => pe.ropeCache({ headDim: 8, layout: 'half', seqLen: 2, format: 'wide' as never }), { name: 'RangeError', message: /format must be one of 'full', 'half', got 'wide'/ });
      assert.throws(() => pe.ropeCache({ headDim: 8, layout: 'half', positions: new Int32Array(2), offset: 1 }), { name: 'TypeError', message: /either positions or offset/ });
      assert.throws(() => pe.ropeCache({ headDim: 7, layout: 'half', seqLen: 2 }), { name: 'RangeError', message: /headDim must be even when rotaryDim is not given/ });
      assert.throws(() => pe.ropeCache({ headDim: 8, layout: 'half' } as never), { name: 'TypeError', message: /seqLen must be a number, got undefined/ });
    });
  });
}
