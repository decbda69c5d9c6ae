/**
 * The public API against float64 references, for both wasm flavours, plus
 * the RoPE properties and cross-flavour agreement.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { flavours } from './flavours.js';
import {
  assertClose,
  defaultInvFreq,
  randomVector,
  refAlibiSlopes,
  refRope,
  refSinusoidal,
  refT5Bucket,
} from './reference.js';

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

for (const [name, loading] of flavours) {
  describe(`posenc (${name})`, () => {
    it('loads the requested flavour', async () => {
      const pe = await loading;
      assert.equal(pe.simd, name === 'simd');
      assert.equal(pe.target, name === 'simd' ? 'WASM' : 'SCALAR');
    });

    it('ropeFrequencies: default, partial rotary, linear, ntk', async () => {
      const pe = await loading;
      const d = pe.ropeFrequencies({ headDim: 64 });
      assert.equal(d.attentionFactor, 1);
      assertClose(d.invFreq, defaultInvFreq(64).map((v) => Math.fround(v)), 0, 0, 'default');
      const p = pe.ropeFrequencies({ headDim: 128, rotaryDim: 32 });
      assert.equal(p.invFreq.length, 16);
      assertClose(p.invFreq, defaultInvFreq(32), 0, 1e-7, 'partial uses r');
      const l = pe.ropeFrequencies({ headDim: 64, scaling: { type: 'linear', factor: 4 } });
      assertClose(l.invFreq, defaultInvFreq(64).map((v) => v / 4), 0, 1e-7, 'linear');
      const n = pe.ropeFrequencies({ headDim: 64, scaling: { type: 'ntk', factor: 8 } });
      assert.equal(n.invFreq[0], 1);
      assertClose([n.invFreq[31]!], [defaultInvFreq(64)[31]! / 8], 0, 1e-6, 'ntk lowest = default / s');
    });

    it('ropeFrequencies: yarn, longrope, llama3, dynamic', async () => {
      const pe = await loading;
      const L = 4096;
      const y = pe.ropeFrequencies({ headDim: 128, scaling: { type: 'yarn', factor: 16, originalMaxPositionEmbeddings: L } });
      assert.ok(Math.abs(y.attentionFactor - (1 + 0.1 * Math.log(16))) < 1e-12);
      const base = defaultInvFreq(128);
      base.forEach((f, i) => {
        const rotations = (L * f) / (2 * Math.PI);
        if (rotations > 64) assert.ok(Math.abs(y.invFreq[i]! - f) <= 1e-7 * f, `yarn keeps fast pair ${i}`);
        if (rotations < 0.5) assert.ok(Math.abs(y.invFreq[i]! - f / 16) <= 1e-7 * f, `yarn interpolates slow pair ${i}`);
      });
      const ye = pe.ropeFrequencies({
        headDim: 64, scaling: { type: 'yarn', factor: 16, originalMaxPositionEmbeddings: L, mscale: 0.707, mscaleAllDim: 1 },
      });
      assert.ok(Math.abs(ye.attentionFactor - (1 + 0.0707 * Math.log(16)) / (1 + 0.1 * Math.log(16))) < 1e-12);
      const lr = { type: 'longrope' as const, factor: 32, originalMaxPositionEmbeddings: 4096, shortFactor: [1, 2], longFactor: [3, 4] };
      const short = pe.ropeFrequencies({ headDim: 4, scaling: lr, seqLen: 4096 });
      const long = pe.ropeFrequencies({ headDim: 4, scaling: lr, seqLen: 4097 });
      assertClose(short.invFreq, [1, 0.01 / 2], 0, 1e-7, 'longrope short');
      assertClose(long.invFreq, [1 / 3, 0.01 / 4], 0, 1e-7, 'longrope long');
      assert.ok(Math.abs(long.attentionFactor - Math.sqrt(1 + Math.log(32) / Math.log(4096))) < 1e-12);
      const l3 = pe.ropeFrequencies({
        headDim: 128, base: 500000,
        scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
      });
      defaultInvFreq(128, 500000).forEach((f, i) => {
        const wl = (2 * Math.PI) / f;
        const want = wl < 2048 ? f : wl > 8192 ? f / 8 : (() => {
          const t = (8192 / wl - 1) / 3;
          return f * (t + (1 - t) / 8);
        })();
        assert.ok(Math.abs(l3.invFreq[i]! - want) <= 1e-7 * want, `llama3 pair ${i}`);
      });
      const dyn = { type: 'dynamic' as const, factor: 2, maxPositionEmbeddings: 2048 };
      assertClose(pe.ropeFrequencies({ headDim: 64, scaling: dyn, seqLen: 100 }).invFreq, defaultInvFreq(64), 0, 1e-7, 'dynamic below M');
      const d2 = pe.ropeFrequencies({ headDim: 64, scaling: dyn, seqLen: 4096 });
      assertClose([d2.invFreq[31]!], [defaultInvFreq(64)[31]! / 3], 0, 1e-6, 'dynamic at 2M: effective factor 3');
    });

    it('applyRope matches the float64 reference (layouts, partial rotary, positions, offset)', async () => {
      const pe = await loading;
      let seed = 1;
      for (const layout of ['half', 'interleaved'] as const) {
        for (const [d, r] of [[64, 64], [64, 32], [10, 6], [130, 128], [2, 2]] as const) {
          for (const T of [1, 5, 17]) {
            const H = 2;
            const x = randomVector(H * T * d, seed++);
            const freq = Array.from(pe.ropeFrequencies({ headDim: d, rotaryDim: r }).invFreq);
            const positions = Int32Array.from({ length: T }, (_, t) => t * 1237 + 3);
            const got = pe.applyRope(x, { heads: H, seqLen: T, headDim: d, rotaryDim: r, layout, positions });
            assertClose(got, refRope(x, H, T, d, r, layout, positions, freq), 2e-6, 2e-6, `${layout} d=${d} r=${r} T=${T}`);
            const off = pe.applyRope(x, { heads: H, seqLen: T, headDim: d, rotaryDim: r, layout, offset: 999990 });
            const offPos = Array.from({ length: T }, (_, t) => 999990 + t);
            assertClose(off, refRope(x, H, T, d, r, layout, offPos, freq), 3e-6, 2e-6, `offset ${layout} d=${d}`);
            for (let h = 0; h < H; h++) {
              for (let t = 0; t < T; t++) {
                for (let j = r; j < d; j++) {
                  const e = (h * T + t) * d + j;
                  assert.equal(got[e], x[e], 'partial rotary tail passes through');
                }
              }
            }
          }
        }
      }
    });

    it('RoPE: relative invariance, norms, offset = positions, re-rotation is pure', async () => {
      const pe = await loading;
      const d = 64;
      const q = randomVector(d, 7);
      const k = randomVector(d, 8);
      const rot = (v: Float32Array, p: number) => pe.applyRope(v, { heads: 1, seqLen: 1, headDim: d, layout: 'half', offset: p });
      for (const [m, n] of [[3, 10], [1000, 7], [123456, 123470]] as const) {
        assert.ok(Math.abs(dot(rot(q, m), rot(k, n)) - dot(q, rot(k, n - m))) < 1e-4, `<R_m q, R_n k> at ${m},${n}`);
        assert.ok(Math.abs(dot(rot(q, m), rot(k, n)) - dot(rot(q, m + 7), rot(k, n + 7))) < 1e-4);
      }
      assert.ok(Math.abs(dot(rot(q, 77), rot(q, 77)) - dot(q, q)) < 1e-4, 'norm preserved');
      const scaling = { type: 'yarn' as const, factor: 8, originalMaxPositionEmbeddings: 128 };
      const x = randomVector(3 * d, 9);
      const at5 = pe.applyRope(x, { heads: 1, seqLen: 3, headDim: d, layout: 'interleaved', scaling, offset: 5 });
      const shifted = pe.rerotateRope(at5, { heads: 1, seqLen: 3, headDim: d, layout: 'interleaved', scaling, delta: 40 });
      const at45 = pe.applyRope(x, { heads: 1, seqLen: 3, headDim: d, layout: 'interleaved', scaling, offset: 45 });
      assertClose(shifted, at45, 5e-6, 1e-5, 're-rotation by delta = rotation at p + delta');
    });

    it('xPos: query/key scales invert and q.k depends only on distance', async () => {
      const pe = await loading;
      const positions = Int32Array.from([0, 512, 1024]);
      const sq = pe.xposScales({ positions, rotaryDim: 8 });
      const sk = pe.xposScales({ positions, rotaryDim: 8, key: true });
      for (let t = 0; t < 3; t++) {
        for (let i = 0; i < 4; i++) {
          const zeta = (2 * i + 0.4 * 8) / (1.4 * 8);
          assert.ok(Math.abs(sq[t * 4 + i]! - Math.pow(zeta, t)) < 1e-6);
          assert.ok(Math.abs(sq[t * 4 + i]! * sk[t * 4 + i]! - 1) < 1e-6);
        }
      }
      const d = 16;
      const q = randomVector(d, 3);
      const k = randomVector(d, 4);
      const s = (m: number, n: number) =>
        dot(
          pe.applyRope(q, { heads: 1, seqLen: 1, headDim: d, layout: 'interleaved', offset: m, xpos: { key: false } }),
          pe.applyRope(k, { heads: 1, seqLen: 1, headDim: d, layout: 'interleaved', offset: n, xpos: { key: true } }),
        );
      assert.ok(Math.abs(s(40, 10) - s(90, 60)) < 1e-4);
      // Far from 0, with the centre moved to the positions: the same scores
      // (q.k carries zeta^((m - n) / scaleBase) whatever the centre), where
      // centre 0 would overflow the key scale (an error, not zeros).
      const far = (m: number, n: number, center: number) =>
        dot(
          pe.applyRope(q, { heads: 1, seqLen: 1, headDim: d, layout: 'interleaved', offset: m, xpos: { key: false, center } }),
          pe.applyRope(k, { heads: 1, seqLen: 1, headDim: d, layout: 'interleaved', offset: n, xpos: { key: true, center } }),
        );
      const c = 100_000;
      assert.ok(Math.abs(far(c + 40, c + 10, c) - s(40, 10)) < 1e-3 * Math.max(1, Math.abs(s(40, 10))));
      assert.throws(() => far(c + 40, c + 10, 0), RangeError);
    });

    it('sinusoidal matches the reference in both layouts', async () => {
      const pe = await loading;
      for (const layout of ['interleaved', 'concat'] as const) {
        for (const [L, D] of [[1, 4], [50, 6], [1000, 128]] as const) {
          assertClose(pe.sinusoidal({ length: L, dim: D, layout }), refSinusoidal(L, D, 10000, layout), 1e-6, 0, `${layout} ${L}x${D}`);
        }
      }
      assertClose(pe.sinusoidal({ length: 9, dim: 8, base: 100 }), refSinusoidal(9, 8, 100, 'interleaved'), 1e-6, 0, 'base 100');
    });

    it('ALiBi slopes and bias', async () => {
      const pe = await loading;
      for (let n = 1; n <= 40; n++) assertClose(pe.alibiSlopes(n), refAlibiSlopes(n), 0, 1e-7, `slopes n=${n}`);
      assert.deepEqual(Array.from(pe.alibiSlopes(4, { variant: 'simple' })), [1, 0.5, 0.25, 0.125]);
      const b = pe.alibiBias({ heads: 4, queryLength: 5, keyLength: 5, variant: 'simple' });
      assert.deepEqual(Array.from(b.subarray(20, 25)), [-4, -3, -2, -1, 0]);
      assert.equal(b[1], -Infinity);
      const bi = pe.alibiBias({ heads: 2, queryLength: 3, keyLength: 7, causal: false });
      const m = refAlibiSlopes(2);
      for (let h = 0; h < 2; h++) {
        for (let i = 0; i < 3; i++) {
          for (let j = 0; j < 7; j++) {
            const want = -m[h]! * Math.abs(i + 4 - j);
            assert.ok(Math.abs(bi[(h * 3 + i) * 7 + j]! - want) <= 1e-6 * Math.abs(want));
          }
        }
      }
    });

    it('T5 buckets and bias', async () => {
      const pe = await loading;
      for (const bidirectional of [true, false]) {
        const got = pe.t5Buckets({ queryLength: 1, keyLength: 3001, queryOffset: 1500, bidirectional });
        for (let j = 0; j < 3001; j++) {
          const [lo, hi] = refT5Bucket(j - 1500, 32, 128, bidirectional);
          assert.ok(got[j]! >= lo && got[j]! <= hi, `rel ${j - 1500}: ${got[j]} not in ${lo}..${hi}`);
        }
      }
      const table = Float32Array.from({ length: 32 * 2 }, (_, i) => i);
      const bias = pe.t5Bias({ table, heads: 2, queryLength: 2, keyLength: 3 });
      const buckets = pe.t5Buckets({ queryLength: 2, keyLength: 3 });
      for (let h = 0; h < 2; h++) for (let e = 0; e < 6; e++) assert.equal(bias[h * 6 + e], table[buckets[e]! * 2 + h]);
    });

    it('Shaw logits and values match the definition', async () => {
      const pe = await loading;
      const [Q, K, D, c] = [3, 7, 5, 2];
      const q = randomVector(Q * D, 21);
      const k = randomVector(K * D, 22);
      const v = randomVector(K * D, 23);
      const tk = randomVector((2 * c + 1) * D, 24);
      const tv = randomVector((2 * c + 1) * D, 25);
      const probs = randomVector(Q * K, 26);
      const logits = pe.shawLogits({ q, k, tableK: tk, queryLength: Q, keyLength: K, headDim: D, clip: c });
      const out = pe.shawValues({ probs, v, tableV: tv, queryLength: Q, keyLength: K, headDim: D, clip: c });
      const wantL = new Float64Array(Q * K);
      const wantO = new Float64Array(Q * D);
      for (let i = 0; i < Q; i++) {
        for (let j = 0; j < K; j++) {
          const a = Math.max(-c, Math.min(c, j - (i + K - Q))) + c;
          let sum = 0;
          for (let e = 0; e < D; e++) {
            sum += q[i * D + e]! * (k[j * D + e]! + tk[a * D + e]!);
            wantO[i * D + e] += probs[i * K + j]! * (v[j * D + e]! + tv[a * D + e]!);
          }
          wantL[i * K + j] = sum / Math.sqrt(D);
        }
      }
      assertClose(logits, wantL, 1e-6, 1e-6, 'shaw logits');
      assertClose(out, wantO, 1e-6, 1e-6, 'shaw values');
    });

    it('Shaw indices and learned positions', async () => {
      const pe = await loading;
      assert.deepEqual(Array.from(pe.shawIndices({ queryLength: 1, keyLength: 6, clip: 2 })), [0, 0, 0, 0, 1, 2]);
      const table = Float32Array.from({ length: 8 }, (_, i) => i);
      assert.deepEqual(Array.from(pe.learnedPositions({ table, maxLength: 4, dim: 2, positions: Int32Array.from([3, 0]) })), [6, 7, 0, 1]);
      assert.throws(
        () => pe.learnedPositions({ table, maxLength: 4, dim: 2, positions: Int32Array.from([4]) }),
        { name: 'RangeError', message: /positions\[0\] = 4 is outside the learned table \[0, 4\)/ },
      );
    });
  });
}

describe('flavours agree', () => {
  it('SIMD and scalar give the same results within float rounding', async () => {
    const [simd, scalar] = await Promise.all(flavours.map(([, p]) => p));
    const x = randomVector(4 * 33 * 80, 11);
    for (const layout of ['half', 'interleaved'] as const) {
      const o = { heads: 4, seqLen: 33, headDim: 80, rotaryDim: 64, layout, offset: 70000 };
      assertClose(simd!.applyRope(x, o), scalar!.applyRope(x, o), 2e-6, 2e-6, `rope ${layout}`);
    }
    assertClose(simd!.sinusoidal({ length: 300, dim: 64 }), scalar!.sinusoidal({ length: 300, dim: 64 }), 2e-6, 0, 'sinusoidal');
    assert.deepEqual(simd!.alibiBias({ heads: 3, queryLength: 9, keyLength: 13 }), scalar!.alibiBias({ heads: 3, queryLength: 9, keyLength: 13 }));
  });
});
