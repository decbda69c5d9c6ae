/**
 * The Worker pool (Node worker threads), both wasm flavours: `pool.attention`
 * equals `pe.attention` bit for bit for 1 to 4 workers, with every mask,
 * bias and RoPE option and grouped-query heads; a bad call throws what
 * `pe.attention` throws and the pool keeps working; a call too small to split
 * runs on the calling thread with the same result; `terminate()` stops it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { AttentionOptions, PosencPool } from 'posenc';
import { createPool, startPoolWorker } from 'posenc/pool';

import { flavours } from './flavours.js';

/** Deterministic values in about [-1, 1] (a different phase per array). */
function wave(n: number, phase: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => Math.sin(0.731 * i + phase) * Math.cos(0.0173 * i));
}

const bytes = (x: Float32Array | undefined): Buffer => (x === undefined ? Buffer.alloc(0) : Buffer.from(x.buffer, x.byteOffset, x.byteLength));

/** Calls large enough to split (8 query heads, 128 x 128 or more), one per option. */
function cases(): Array<[string, AttentionOptions]> {
  const H = 8, T = 128, D = 32;
  const base = (o: { heads?: number; kvHeads?: number; Tq?: number; Tk?: number } = {}): AttentionOptions => {
    const heads = o.heads ?? H, kv = o.kvHeads ?? heads, Tq = o.Tq ?? T, Tk = o.Tk ?? T;
    return { q: wave(heads * Tq * D, 1), k: wave(kv * Tk * D, 2), v: wave(kv * Tk * D, 3), heads, kvHeads: kv, queryLength: Tq, keyLength: Tk, headDim: D };
  };
  const pad = Uint8Array.from({ length: T }, (_, j) => (j < 5 ? 0 : 1));
  const clip = 4;
  return [
    ['causal', base()],
    ['grouped-query (4 groups), full attention, key padding', { ...base({ kvHeads: 4 }), causal: false, keyPadding: pad }],
    ['multi-query (1 group)', base({ kvHeads: 1 })],
    ['grouped-query (2 groups: cut within a group on 3-4 Workers)', base({ kvHeads: 2 })],
    ['multi-query, ALiBi, additive bias and the weights', { ...base({ kvHeads: 1 }), alibi: true, bias: wave(H * T * T, 8), returnWeights: true }],
    ['ALiBi, paper slopes', { ...base(), alibi: true }],
    ['ALiBi, variant', { ...base({ heads: 12 }), alibi: { variant: 'simple' } }],
    ['ALiBi, explicit slopes, bidirectional', { ...base(), causal: false, alibi: { slopes: Float32Array.from({ length: H }, (_, h) => 0.5 / (h + 1)) } }],
    ['T5 table', { ...base(), scale: 1, t5: { table: wave(32 * H, 4), numBuckets: 32, maxDistance: 64 } }],
    ['Shaw keys and values', { ...base(), shaw: { tableK: wave((2 * clip + 1) * D, 5), tableV: wave((2 * clip + 1) * D, 6), clip } }],
    ['additive bias and the weights', { ...base(), bias: wave(H * T * T, 7), returnWeights: true }],
    ['RoPE half, partial, YaRN, positions', {
      ...base(), rope: { layout: 'half', rotaryDim: 16, base: 500000, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 },
        queryPositions: Int32Array.from({ length: T }, (_, i) => 3 * i), keyPositions: Int32Array.from({ length: T }, (_, i) => 3 * i) },
    }],
    ['RoPE interleaved with xPos, window, query offset', { ...base({ Tq: 64, Tk: 192 }), window: 40, queryOffset: 100, rope: { layout: 'interleaved', xpos: {} } }],
    ['RoPE positions from padding, dynamic NTK', { ...base(), keyPadding: pad, rope: { layout: 'half', positionsFromPadding: true, scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 64 } } }],
    ['M-RoPE', { ...base(), rope: { layout: 'half', mrope: { section: [4, 6, 6] },
      queryPositions: Int32Array.from({ length: 3 * T }, (_, i) => (i % T) >> (i < T ? 0 : 2)),
      keyPositions: Int32Array.from({ length: 3 * T }, (_, i) => (i % T) >> (i < T ? 0 : 2)) } }],
  ];
}

for (const [flavour, ready] of flavours) {
  describe(`pool (${flavour})`, () => {
    const pools: PosencPool[] = [];
    before(async () => {
      for (const workers of [1, 2, 3, 4]) pools.push(await createPool({ workers, simd: flavour === 'simd', minSplitWork: 0 }));
    });
    after(async () => {
      for (const p of pools) await p.terminate();
    });

    it('attention equals pe.attention bit for bit, every option, 1-4 workers', async () => {
      const pe = await ready;
      for (const [name, o] of cases()) {
        const want = pe.attention(o);
        for (const pool of pools) {
          assert.equal(pool.simd, flavour === 'simd');
          const got = await pool.attention(o);
          assert.ok(bytes(got.out).equals(bytes(want.out)), `${name}, ${pool.workers} workers: out`);
          assert.ok(bytes(got.weights).equals(bytes(want.weights)), `${name}, ${pool.workers} workers: weights`);
        }
      }
    });

    it('leaves the caller\'s arrays as they were (copied into the Workers, never detached)', async () => {
      const [, o] = cases().find(([name]) => name === 'additive bias and the weights')!;
      const q = o.q.slice(), bias = o.bias!.slice();
      await pools[1]!.attention(o);
      assert.deepEqual(o.q, q);
      assert.deepEqual(o.bias, bias);
    });

    it('runs calls in parallel and in any order', async () => {
      const pe = await ready;
      const all = cases();
      const got = await Promise.all(all.map(([, o]) => pools[1]!.attention(o)));
      all.forEach(([name, o], i) => assert.ok(bytes(got[i]!.out).equals(bytes(pe.attention(o).out)), name));
    });

    it('a bad call throws what pe.attention throws, and the pool keeps working', async () => {
      const pe = await ready;
      const [, good] = cases()[0]!;
      const bad: AttentionOptions[] = [
        { ...good, headDim: 3 },
        { ...good, kvHeads: 3 },
        { ...good, alibi: { slopes: new Float32Array(3) } },
        { ...good, alibi: { variant: 'simpel' as never } },
        { ...good, alibi: { variant: 1 as never } },
        { ...good, alibi: { slopes: new Float32Array(good.heads), variant: 'simple' } },
        { ...good, t5: { table: new Float32Array(8 * 32), numBuckets: 33 } },
        { ...good, rope: { layout: 'half', base: 0.5 } },
        { ...good, window: 0 },
        null as unknown as AttentionOptions,
      ];
      for (const o of bad) {
        let expected: Error | undefined;
        try {
          pe.attention(o);
        } catch (e) {
          expected = e as Error;
        }
        assert.ok(expected, 'pe.attention refuses it');
        for (const pool of pools) {
          await assert.rejects(pool.attention(o), (e: Error) => e.constructor === expected!.constructor && e.message === expected!.message);
        }
      }
      for (const pool of pools) assert.ok(bytes((await pool.attention(good)).out).equals(bytes(pe.attention(good).out)));
    });

    it('refuses an unknown key as pe.attention does, also one it could not send (a function, a symbol), and stays usable', async () => {
      const pe = await ready;
      const [, o] = cases()[0]!;
      const odd: Array<[Record<string, unknown>, RegExp]> = [
        [{ ...o, onDone: () => undefined }, /^attention options: unknown key 'onDone'; the known keys are 'heads', /],
        [{ ...o, rope: { layout: 'half', base: 10000, extra: Symbol('x') } }, /^rope: unknown key 'extra'; the known keys are 'layout', /],
      ];
      for (const [options, message] of odd) {
        assert.throws(() => pe.attention(options as unknown as AttentionOptions), { name: 'TypeError', message });
        for (const pool of pools) {
          await assert.rejects(pool.attention(options as unknown as AttentionOptions), { name: 'TypeError', message }, `${pool.workers} workers`);
        }
      }
      assert.ok(bytes((await pools[1]!.attention(o)).out).equals(bytes(pe.attention(o).out)));
    });

    it('a call too small to split gives the same result', async () => {
      const pe = await ready;
      const o: AttentionOptions = { q: wave(2 * 4 * 8, 1), k: wave(2 * 4 * 8, 2), v: wave(2 * 4 * 8, 3), heads: 2, queryLength: 4, keyLength: 4, headDim: 8 };
      assert.ok(bytes((await pools[1]!.attention(o)).out).equals(bytes(pe.attention(o).out)));
    });
  });
}

describe('pool lifetime and options', () => {
  it('terminate() stops every Worker; later calls reject; await using terminates', async () => {
    const pool = await createPool({ workers: 2, minSplitWork: 0 });
    assert.equal(pool.workers, 2);
    const [, o] = cases()[0]!;
    // A call in the Workers when the pool stops: it rejects (it cannot finish before terminate() was called).
    const waiting = pool.attention(o).then(() => 'finished', (e: Error) => e.message);
    await pool.terminate();
    assert.equal(pool.workers, 0);
    assert.equal(await waiting, 'posenc pool: this pool has been terminated');
    await assert.rejects(pool.attention(o), /posenc pool: this pool has been terminated/);
    await pool.terminate();
    let held: PosencPool | undefined;
    {
      await using p = await createPool({ workers: 1 });
      held = p;
      assert.equal(p.workers, 1);
    }
    assert.equal(held.workers, 0);
  });

  it('refuses bad options, naming them', async () => {
    await assert.rejects(createPool({ workers: 0 }), { name: 'RangeError', message: 'workers must be an integer in [1, 64], got 0' });
    await assert.rejects(createPool({ workers: 2.5 }), { name: 'RangeError', message: 'workers must be an integer in [1, 64], got 2.5' });
    await assert.rejects(createPool({ workers: '2' as unknown as number }), { name: 'TypeError', message: 'workers must be an integer in [1, 64], got string "2"' });
    await assert.rejects(createPool({ workers: null as unknown as number }), { name: 'TypeError', message: 'workers must be an integer in [1, 64], got object' });
    await assert.rejects(createPool(7 as unknown as object), { name: 'TypeError', message: 'pool options must be an object, got number' });
    await assert.rejects(createPool({ wasmUrl: 'x.wasm', module: {} as WebAssembly.Module }), { name: 'TypeError', message: 'pass module or wasmUrl to createPool(), not both' });
    await assert.rejects(createPool({ minSplitWork: -1 }), { name: 'RangeError', message: 'minSplitWork must be a number >= 0, got -1' });
    await assert.rejects(createPool({ minSplitWork: Number.NaN }), { name: 'RangeError', message: 'minSplitWork must be a number >= 0, got NaN' });
    await assert.rejects(createPool({ minSplitWork: 'x' as never }), { name: 'TypeError', message: 'minSplitWork must be a number >= 0, got string' });
    // Node starts its own worker threads: a page's connect() has no meaning here.
    await assert.rejects(createPool({ connect: () => new MessageChannel().port1 }), { name: 'TypeError', message: /connect is for the browser entry/ });
    assert.throws(() => startPoolWorker(new MessageChannel().port1), { name: 'TypeError', message: /startPoolWorker is for the browser entry/ });
  });
});
