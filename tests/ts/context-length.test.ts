/**
 * `contextLength` of applyRope / rerotateRope, both wasm flavours. For
 * `dynamic` (dynamic NTK) and `longrope` the frequencies depend on the context
 * length. Rotating q and k in separate calls with the same `contextLength`
 * keeps q.k a function of the distance (and equal to a float64 reference
 * written from the formulas); leaving it out derives it per call, so the two
 * calls get different frequencies (the trap, asserted as such).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { Posenc, RopeScaling } from 'posenc';

import { flavours } from './flavours.js';
import { assertClose, defaultInvFreq, randomVector, refRope } from './reference.js';

const D = 16;  // head dim = rotary dim
const BASE = 10000;
const CTX = 128;

const dot = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** float64 frequencies and attention factor of a scaling at context length `ctx` (docs/formulas.md#rope-scaling). */
type Reference = (ctx: number) => { freq: number[]; factor: number };

const DYNAMIC = { type: 'dynamic', factor: 4, maxPositionEmbeddings: 64 } as const;
const refDynamic: Reference = (ctx) => {
  const { factor: s, maxPositionEmbeddings: M } = DYNAMIC;
  const T = Math.max(ctx, M);
  const base = BASE * Math.pow((s * T) / M - (s - 1), D / (D - 2));
  return { freq: defaultInvFreq(D, base), factor: 1 };
};

const SHORT = Array.from({ length: D / 2 }, (_, i) => 1 + 0.1 * i);
const LONG = Array.from({ length: D / 2 }, (_, i) => 1 + i);
const LONGROPE = { type: 'longrope', factor: 4, originalMaxPositionEmbeddings: 64, shortFactor: SHORT, longFactor: LONG } as const;
const refLongrope: Reference = (ctx) => {
  const { factor: s, originalMaxPositionEmbeddings: L } = LONGROPE;
  const ext = ctx > L ? LONG : SHORT;
  const freq = defaultInvFreq(D, BASE).map((f, i) => f / ext[i]!);
  return { freq, factor: Math.sqrt(1 + Math.log(s) / Math.log(L)) };
};

const CASES: Array<[string, RopeScaling, Reference]> = [
  ['dynamic', DYNAMIC, refDynamic],
  ['longrope', LONGROPE, refLongrope],
];

/** q.k in float64 with q rotated for context ctxQ at m, k for ctxK at n. */
function refScore(q: Float32Array, k: Float32Array, m: number, n: number, ctxQ: number, ctxK: number, ref: Reference): number {
  const a = ref(ctxQ);
  const b = ref(ctxK);
  return dot(refRope(q, 1, 1, D, D, 'half', [m], a.freq, a.factor), refRope(k, 1, 1, D, D, 'half', [n], b.freq, b.factor));
}

for (const [flavour, ready] of flavours) {
  describe(`contextLength (${flavour})`, () => {
    const q = randomVector(D, 101);
    const k = randomVector(D, 202);
    /** x [1, 1, D] rotated at position p, with contextLength ctx unless undefined. */
    const rot = (pe: Posenc, x: Float32Array, p: number, scaling: RopeScaling, ctx?: number): Float32Array =>
      pe.applyRope(x, { heads: 1, seqLen: 1, headDim: D, layout: 'half', scaling, offset: p, ...(ctx === undefined ? {} : { contextLength: ctx }) });

    for (const [name, scaling, ref] of CASES) {
      it(`${name}: q and k rotated in separate calls with one contextLength give a shift-invariant q.k`, async () => {
        const pe = await ready;
        const near = dot(rot(pe, q, 12, scaling, CTX), rot(pe, k, 5, scaling, CTX));
        const far = dot(rot(pe, q, 112, scaling, CTX), rot(pe, k, 105, scaling, CTX));
        assert.ok(Math.abs(near - far) < 1e-4, `${name}: q.k at (12, 5) ${near} vs (112, 105) ${far}`);
        assert.ok(Math.abs(near - refScore(q, k, 12, 5, CTX, CTX, ref)) < 1e-4, `${name}: (12, 5) vs float64`);
        assert.ok(Math.abs(far - refScore(q, k, 112, 105, CTX, CTX, ref)) < 1e-4, `${name}: (112, 105) vs float64`);
      });

      it(`${name}: without contextLength each call derives its own (the trap)`, async () => {
        const pe = await ready;
        const near = dot(rot(pe, q, 12, scaling), rot(pe, k, 5, scaling));
        const far = dot(rot(pe, q, 112, scaling), rot(pe, k, 105, scaling));
        // What happens: q sees the context m + 1, k sees n + 1.
        assert.ok(Math.abs(near - refScore(q, k, 12, 5, 13, 6, ref)) < 1e-4, `${name}: derived (12, 5)`);
        assert.ok(Math.abs(far - refScore(q, k, 112, 105, 113, 106, ref)) < 1e-4, `${name}: derived (112, 105)`);
        // ... so the same distance no longer gives the same score.
        assert.ok(Math.abs(near - far) > 0.01, `${name}: expected the derived lengths to break shift invariance: ${near} vs ${far}`);
        // Omitted and -1 are the same thing.
        assert.deepEqual(rot(pe, q, 112, scaling, -1), rot(pe, q, 112, scaling));
      });
    }

    for (const [name, scaling] of CASES) {
      it(`${name}: attention's rope.contextLength equals q and k rotated apart with that contextLength`, async () => {
        const pe = await ready;
        const T = 8;
        const qs = randomVector(T * D, 303);
        const ks = randomVector(T * D, 404);
        const vs = randomVector(T * D, 505);
        // Positions 100..107: past both thresholds.
        const positions = Int32Array.from({ length: T }, (_, i) => 100 + i);
        // A context on the other side of longrope's switch (64) from the derived 108; dynamic: 128.
        const ctx = name === 'longrope' ? 64 : CTX;
        const base = { heads: 1, queryLength: T, keyLength: T, headDim: D, v: vs };
        const inside = pe.attention({ ...base, q: qs, k: ks, rope: { layout: 'half', scaling, queryPositions: positions, keyPositions: positions, contextLength: ctx } });
        const apart = (x: Float32Array): Float32Array =>
          pe.applyRope(x, { heads: 1, seqLen: T, headDim: D, layout: 'half', scaling, positions, contextLength: ctx });
        const outside = pe.attention({ ...base, q: apart(qs), k: apart(ks) });
        assertClose(inside.out, outside.out, 1e-6, 1e-5, `${name}: attention with contextLength ${ctx}`);
        // Left out, the call derives 108 instead: other frequencies, other outputs.
        const derived = pe.attention({ ...base, q: qs, k: ks, rope: { layout: 'half', scaling, queryPositions: positions, keyPositions: positions } });
        const gap = Math.max(...Array.from(derived.out, (v, i) => Math.abs(v - inside.out[i]!)));
        assert.ok(gap > 1e-4, `${name}: derived context gives other outputs (gap ${gap})`);
      });
    }

    it('dynamic: a KvCache with rope.contextLength decodes as the uncached pass past the threshold', async () => {
      const pe = await ready;
      const T = 80;  // past maxPositionEmbeddings = 64
      const qs = randomVector(T * D, 606);
      const ks = randomVector(T * D, 707);
      const vs = randomVector(T * D, 808);
      const rope = { layout: 'half', scaling: DYNAMIC, contextLength: CTX } as const;
      const full = pe.attention({ q: qs, k: ks, v: vs, heads: 1, queryLength: T, keyLength: T, headDim: D, rope }).out;
      const cache = new pe.KvCache({ kvHeads: 1, headDim: D, rope });
      let worst = 0;
      try {
        for (let t = 0; t < T; t++) {
          cache.append(ks.subarray(t * D, (t + 1) * D), vs.subarray(t * D, (t + 1) * D));
          const out = cache.attend(qs.subarray(t * D, (t + 1) * D), { heads: 1, queryLength: 1 }).out;
          for (let e = 0; e < D; e++) worst = Math.max(worst, Math.abs(out[e]! - full[t * D + e]!));
        }
      } finally {
        cache.delete();
      }
      assert.ok(worst < 2e-6, `cached vs uncached: max difference ${worst}`);
    });

    for (const [name, scaling] of CASES) {
      it(`${name}: a consistent KvCache decodes as the uncached pass over each prefix, below, at and past the threshold`, async () => {
        const pe = await ready;
        const T = 72;  // the thresholds are at 64
        const qs = randomVector(T * D, 909);
        const ks = randomVector(T * D, 1010);
        const vs = randomVector(T * D, 1111);
        const rope = { layout: 'half', scaling } as const;
        const consistent = new pe.KvCache({ kvHeads: 1, headDim: D, rope, consistent: true });
        const plain = new pe.KvCache({ kvHeads: 1, headDim: D, rope });
        let worst = 0;
        let worstPlain = 0;
        try {
          for (let t = 0; t < T; t++) {
            const row = (x: Float32Array): Float32Array => x.subarray(t * D, (t + 1) * D);
            for (const c of [consistent, plain]) c.append(row(ks), row(vs));
            const a = consistent.attend(row(qs), { heads: 1, queryLength: 1 }).out;
            const b = plain.attend(row(qs), { heads: 1, queryLength: 1 }).out;
            if (![1, 63, 64, 65, 72].includes(t + 1)) continue;
            // The uncached causal pass over tokens 0..t: its last row.
            const n = t + 1;
            const full = pe.attention({ q: qs.subarray(0, n * D), k: ks.subarray(0, n * D), v: vs.subarray(0, n * D),
              heads: 1, queryLength: n, keyLength: n, headDim: D, rope }).out.subarray(t * D);
            for (let e = 0; e < D; e++) {
              worst = Math.max(worst, Math.abs(a[e]! - full[e]!));
              worstPlain = Math.max(worstPlain, Math.abs(b[e]! - full[e]!));
            }
          }
        } finally {
          consistent.delete();
          plain.delete();
        }
        assert.ok(worst < 2e-6, `${name}: consistent cache vs uncached: ${worst}`);
        assert.ok(worstPlain > 1e-4, `${name}: the default cache differs past the threshold (${worstPlain})`);
      });
    }

    it('dynamic: rerotateRope with the same contextLength moves a cached key exactly', async () => {
      const pe = await ready;
      const at5 = rot(pe, k, 5, DYNAMIC, CTX);
      const opts = { heads: 1, seqLen: 1, headDim: D, layout: 'half', scaling: DYNAMIC, delta: 100 } as const;
      const moved = pe.rerotateRope(at5, { ...opts, contextLength: CTX });
      assertClose(moved, rot(pe, k, 105, DYNAMIC, CTX), 2e-6, 1e-5, 're-rotation by 100 = rotation at 105');
      const ref = refDynamic(CTX);
      assertClose(moved, refRope(k, 1, 1, D, D, 'half', [105], ref.freq), 2e-6, 1e-5, 're-rotation vs float64');
      // Derived from the delta alone (context 101), the frequencies are not the key's.
      const derived = pe.rerotateRope(at5, opts);
      const gap = Math.max(...Array.from(derived, (v, i) => Math.abs(v - moved[i]!)));
      assert.ok(gap > 1e-3, `derived context: max difference ${gap}`);
    });
  });
}
