/**
 * pe.attention and pe.KvCache against the float64 reference of reference.ts, for
 * both wasm flavours: encodings, masks, grouped-query heads, weights,
 * permutation equivariance, cached decoding, lifetime.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AttentionOptions } from 'posenc';

import { flavours } from './flavours.js';
import { assertClose, randomVector, refAttention } from './reference.js';

/** Attention tolerances: 2e-5 absolute + 1e-4 relative unless given. */
function close(got: ArrayLike<number>, want: ArrayLike<number>, what: string, atol = 2e-5, rtol = 1e-4): void {
  assertClose(got, want, atol, rtol, what);
}

for (const [name, loading] of flavours) {
  describe(`attention (${name})`, () => {
    it('matches the float64 reference across encodings, masks and head groupings', async () => {
      const pe = await loading;
      let seed = 1;
      for (const [H, Hkv] of [[4, 4], [4, 2], [4, 1]] as const) {
        for (const [Tq, Tk] of [[1, 1], [7, 7], [3, 70], [70, 70]] as const) {
          for (const causal of [true, false]) {
            const D = 16;
            const base = {
              q: randomVector(H * Tq * D, seed++), k: randomVector(Hkv * Tk * D, seed++), v: randomVector(Hkv * Tk * D, seed++),
              heads: H, kvHeads: Hkv, queryLength: Tq, keyLength: Tk, headDim: D, causal, returnWeights: true,
            };
            const padding = Uint8Array.from({ length: Tk }, (_, j) => (j < Tk / 4 ? 0 : 1));
            const variants: Array<[string, Partial<AttentionOptions>]> = [
              ['nope', {}],
              ['rope half', { rope: { layout: 'half' } }],
              ['rope interleaved partial', { rope: { layout: 'interleaved', rotaryDim: 8, base: 500 } }],
              ['alibi', { alibi: true }],
              ['t5', { t5: { table: randomVector(32 * H, seed++), maxDistance: 100 }, scale: 1 }],
              ['bias', { bias: randomVector(H * Tq * Tk, seed++) }],
              ['padding + rope from padding', { keyPadding: padding, rope: { layout: 'half', positionsFromPadding: true } }],
              ['window', { window: 5, alibi: true }],
            ];
            for (const [label, extra] of variants) {
              const o = { ...base, ...extra } as AttentionOptions;
              const got = pe.attention(o);
              const want = refAttention(o);
              const what = `${label} H=${H}/${Hkv} Tq=${Tq} Tk=${Tk} causal=${causal}`;
              close(got.out, want.out, `${what} out`);
              close(got.weights!, want.weights, `${what} weights`, 2e-6);
            }
          }
        }
      }
    });

    it('is exactly permutation-equivariant without position or mask, and not otherwise', async () => {
      const pe = await loading;
      const H = 2, T = 13, D = 8;
      const q = randomVector(H * T * D, 91), k = randomVector(H * T * D, 92), v = randomVector(H * T * D, 93);
      const perm = [12, 0, 5, 3, 9, 1, 11, 2, 7, 4, 10, 6, 8];
      const permute = (x: Float32Array) => {
        const y = new Float32Array(x.length);
        for (let h = 0; h < H; h++) for (let t = 0; t < T; t++) y.set(x.subarray((h * T + perm[t]!) * D, (h * T + perm[t]! + 1) * D), (h * T + t) * D);
        return y;
      };
      const gap = (extra: Partial<AttentionOptions>) => {
        const o = { q, k, v, heads: H, queryLength: T, keyLength: T, headDim: D, ...extra };
        const a = permute(pe.attention(o).out);
        const b = pe.attention({ ...o, q: permute(q), k: permute(k), v: permute(v) }).out;
        return Math.max(...a.map((x, i) => Math.abs(x - b[i]!)));
      };
      assert.ok(gap({ causal: false }) < 1e-6, 'NoPE bidirectional: rows permute exactly');
      assert.ok(gap({ causal: true }) > 1e-2, 'the causal mask leaks order');
      assert.ok(gap({ causal: false, rope: { layout: 'half' } }) > 1e-2, 'RoPE breaks equivariance');
      assert.ok(gap({ causal: false, alibi: true }) > 1e-2, 'ALiBi breaks equivariance');
    });

    it('KvCache: token-by-token decoding equals the full pass', async () => {
      const pe = await loading;
      const H = 4, Hkv = 2, T = 19, D = 16;
      const q = randomVector(H * T * D, 71), k = randomVector(Hkv * T * D, 72), v = randomVector(Hkv * T * D, 73);
      const slice = (x: Float32Array, heads: number, t0: number, t1: number) => {
        const y = new Float32Array(heads * (t1 - t0) * D);
        for (let h = 0; h < heads; h++) y.set(x.subarray((h * T + t0) * D, (h * T + t1) * D), h * (t1 - t0) * D);
        return y;
      };
      for (const enc of [{}, { alibi: true }, { rope: { layout: 'interleaved' as const } }]) {
        const full = pe.attention({ q, k, v, heads: H, kvHeads: Hkv, queryLength: T, keyLength: T, headDim: D, ...enc }).out;
        using cache = new pe.KvCache({ kvHeads: Hkv, headDim: D, ...('rope' in enc ? { rope: enc.rope } : {}) });
        for (let t = 0; t < T; t++) {
          cache.append(slice(k, Hkv, t, t + 1), slice(v, Hkv, t, t + 1));
          const step = cache.attend(slice(q, H, t, t + 1), { heads: H, queryLength: 1, ...('alibi' in enc ? { alibi: true } : {}) });
          close(step.out, slice(full, H, t, t + 1), `decode step ${t} ${JSON.stringify(enc)}`, 2e-6, 1e-5);
        }
        assert.equal(cache.length, T);
      }
    });

    it('KvCache lifetime: delete frees, later use and a second delete throw, dispose is idempotent', async () => {
      const pe = await loading;
      const cache = new pe.KvCache({ kvHeads: 1, headDim: 4 });
      cache.append(new Float32Array(8), new Float32Array(8));
      assert.equal(cache.length, 2);
      cache.delete();
      assert.throws(() => cache.length, { name: 'TypeError', message: /KvCache.length: this cache has been deleted/ });
      assert.throws(() => cache.append(new Float32Array(4), new Float32Array(4)), { name: 'TypeError' });
      assert.throws(() => cache.delete(), { name: 'TypeError', message: /KvCache.delete\(\): this cache has been deleted/ });
      cache[Symbol.dispose]();
      const heap = pe.heapBytes();
      for (let i = 0; i < 200; i++) {
        using c = new pe.KvCache({ kvHeads: 2, headDim: 8 });
        c.append(new Float32Array(2 * 50 * 8), new Float32Array(2 * 50 * 8));
      }
      assert.equal(pe.heapBytes(), heap, '200 created and disposed caches leave the heap where it was');
    });
  });
}
