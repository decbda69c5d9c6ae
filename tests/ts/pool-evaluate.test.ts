/**
 * Evaluation in the Worker pool (Node worker threads): `pool.evaluate(model, options)` gives
 * `model.evaluate(options)`'s results bit for bit for 1 to 4 workers, whichever Workers the lengths
 * land on (a shipped model, with a scaling, a position bug and a sliding window; a model from
 * another instance); overlapping calls each get their own answer; a bad call rejects with
 * `model.evaluate`'s own error and the pool keeps working; `models.module` is used as given.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { compileWasm, type EvaluateOptions, type EvaluateResult, type Posenc, type PosencPool, type TinyModel } from 'posenc';
import { createPool } from 'posenc/pool';

import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const shipped = (name: string): Uint8Array => new Uint8Array(readFileSync(join(root, 'web/models', `${name}.safetensors`)));

/** The calls compared (short lengths and few examples: the suite runs once per flavour and pool size). */
const CASES: Array<{ model: string; options: EvaluateOptions }> = [
  { model: 'language-rope', options: { lengths: [96, 16, 64, 32, 64], examples: 3 } },
  { model: 'language-rope', options: { lengths: [128, 48], examples: 2, seed: 7, scaling: { type: 'yarn', factor: 2, originalMaxPositionEmbeddings: 64 } } },
  { model: 'language-alibi', options: { lengths: [80, 40, 20], examples: 2, window: 16 } },
  { model: 'language-rope', options: { lengths: [72, 36], examples: 2, bug: 'restart-positions' } },
  { model: 'retrieval-t5', options: { lengths: [64, 128], examples: 4 } },
];

/** Every number of an evaluate result, as bits (NaN included). */
function bits(rs: EvaluateResult[]): string[] {
  const f = new Float64Array(1);
  const u = new BigUint64Array(f.buffer);
  const one = (x: number): string => {
    f[0] = x;
    return u[0]!.toString(16);
  };
  return rs.flatMap((r) => [String(r.length), one(r.loss), one(r.accuracy), one(r.scored), ...Array.from(r.positionLoss, one)]);
}

/** What a rejected promise or a throwing call threw: its class name and message. */
async function thrown(f: () => unknown): Promise<{ name: string; message: string }> {
  try {
    await f();
  } catch (e) {
    return { name: (e as Error).name, message: (e as Error).message };
  }
  assert.fail('expected an error');
}

for (const [flavour, ready] of flavours) {
  describe(`pool evaluation (${flavour})`, () => {
    let pe: Posenc;
    const pools: PosencPool[] = [];
    const models = new Map<string, TinyModel>();
    before(async () => {
      pe = await ready;
      for (const c of CASES) if (!models.has(c.model)) models.set(c.model, await pe.loadModel(shipped(c.model)));
      for (const workers of [1, 2, 3, 4]) pools.push(await createPool({ workers, simd: flavour === 'simd' }));
    });
    after(async () => {
      for (const p of pools) await p.terminate();
      for (const m of models.values()) m.delete();
    });

    it('equals model.evaluate bit for bit for 1-4 workers', async () => {
      for (const c of CASES) {
        const m = models.get(c.model)!;
        const want = bits(m.evaluate(c.options));
        for (const pool of pools) {
          const got = await pool.evaluate(m, c.options);
          assert.deepEqual(got.map((r) => r.length), c.options.lengths, `${c.model}: lengths in the caller's order`);
          assert.deepEqual(bits(got), want, `${c.model} ${JSON.stringify(c.options)} with ${pool.workers} workers`);
        }
      }
    });

    it('overlapping calls each get their own answer', async () => {
      const m = models.get('language-rope')!;
      const a: EvaluateOptions = { lengths: [64], examples: 2 };
      const b: EvaluateOptions = { lengths: [64], examples: 2, bug: 'restart-positions' };
      const pool = pools[1]!;
      const [ga, gb] = await Promise.all([pool.evaluate(m, a), pool.evaluate(m, b)]);
      assert.deepEqual(bits(ga), bits(m.evaluate(a)));
      assert.deepEqual(bits(gb), bits(m.evaluate(b)));
      assert.notDeepEqual(bits(ga), bits(gb), 'the bug changes the loss');
    });

    it('rejects a bad call as model.evaluate does, then keeps working', async () => {
      const m = models.get('language-rope')!;
      const pool = pools[1]!;
      const bad: unknown[] = [
        { lengths: [64, 0] },
        { lengths: [] },
        { lengths: [64, 32], examples: -1 },
        { lengths: [64, 32], bug: 'no-such-bug' },
        { lengths: [64, 32], window: 0 },
      ];
      for (const o of bad) {
        const want = await thrown(() => m.evaluate(o as EvaluateOptions));
        assert.deepEqual(await thrown(() => pool.evaluate(m, o as EvaluateOptions)), want, JSON.stringify(o));
      }
      assert.deepEqual(await thrown(() => pool.evaluate({} as TinyModel, { lengths: [8] })),
        { name: 'TypeError', message: 'model must be a TinyModel (from loadModel, train or continueTraining)' });
      const ok: EvaluateOptions = { lengths: [32, 16], examples: 2 };
      assert.deepEqual(bits(await pool.evaluate(m, ok)), bits(m.evaluate(ok)));
    });

    it('takes a model from another instance', async () => {
      const other = await createPool({ workers: 1, simd: flavour === 'simd' });
      try {
        const trained = await other.train({ task: 'language', encoding: 'rope', steps: 3, batch: 4, seqLen: 16, dModel: 16, heads: 2, layers: 1, dFf: 32 });
        const o: EvaluateOptions = { lengths: [16, 24], examples: 2 };
        assert.deepEqual(bits(await pools[1]!.evaluate(trained, o)), bits(trained.evaluate(o)));
        trained.delete();
      } finally {
        await other.terminate();
      }
    });
  });
}

describe('pool evaluation options', () => {
  it('uses a given models module, and refuses a bad one', async () => {
    const models = await compileWasm({ part: 'models' });
    const pool = await createPool({ workers: 2, models: { module: models } });
    try {
      const pe = await flavours[0]![1];
      const m = await pe.loadModel(shipped('language-rope'));
      const o: EvaluateOptions = { lengths: [48, 24], examples: 2 };
      assert.deepEqual(bits(await pool.evaluate(m, o)), bits(m.evaluate(o)));
      m.delete();
    } finally {
      await pool.terminate();
    }
    assert.deepEqual(await thrown(() => createPool({ models: 3 as unknown as { module: WebAssembly.Module } })),
      { name: 'TypeError', message: 'models must be an object, got number' });
    assert.deepEqual(await thrown(() => createPool({ models: { module: {} as WebAssembly.Module } })),
      { name: 'TypeError', message: "models.module must be a WebAssembly.Module (from compileWasm({ part: 'models' }))" });
  });
});
