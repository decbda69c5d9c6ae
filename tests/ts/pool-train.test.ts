/**
 * Data-parallel training in the Worker pool (Node worker threads):
 * `pool.train` and `pool.continueTraining` give the weights and the progress
 * rows of `pe.train` / `pe.continueTraining`, bit for bit, for 1 to 4
 * workers, on the language and retrieval tasks (50 steps; a batch of 16 is 4
 * micro-batches, one of 10 is 4 + 4 + 2); a bad call rejects as `pe.train`
 * does and a cancelled run rejects with the signal's reason, and the pool
 * keeps training afterwards; `terminate()` during a run rejects it; the
 * calling thread holds no trainer (it only sums), just the returned model.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { Posenc, PosencPool, TinyModel, TrainConfig, TrainOptions, TrainProgress } from 'posenc';
import { createPool } from 'posenc/pool';

import type * as Internal from '../../bindings/ts/internal.js';
import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const { poolTrainingInstance } = (await import(pathToFileURL(join(root, 'dist/internal.js')).href)) as typeof Internal;

const STEPS = 50;
/** Small models (the suite runs twice, per flavour); the batches cut into 4 and into 3 micro-batches. */
const CONFIGS: TrainConfig[] = [
  { task: 'language', encoding: 'rope', steps: STEPS, batch: 16, seqLen: 32, dModel: 32, heads: 4, layers: 2, dFf: 64, seed: 3 },
  { task: 'retrieval', encoding: 'alibi', steps: STEPS, batch: 10, seqLen: 32, dModel: 32, heads: 4, layers: 2, dFf: 64, seed: 4 },
];

/** Trains with `fn`, recording every progress row; returns the model's bytes and the rows. */
async function record(fn: (o: TrainOptions) => Promise<TinyModel>, chunk: number): Promise<{ bytes: Buffer; rows: TrainProgress[] }> {
  const rows: TrainProgress[] = [];
  const model = await fn({ chunk, onProgress: (p) => rows.push({ ...p }) });
  try {
    return { bytes: Buffer.from(model.save()), rows };
  } finally {
    model[Symbol.dispose]();
  }
}

/** What a rejected promise threw: its class name and message. */
async function thrown(p: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return { name: (e as Error).name, message: (e as Error).message };
  }
  assert.fail('expected a rejection');
}

for (const [flavour, ready] of flavours) {
  describe(`pool training (${flavour})`, () => {
    let pe: Posenc;
    const pools: PosencPool[] = [];
    before(async () => {
      pe = await ready;
      for (const workers of [1, 2, 3, 4]) pools.push(await createPool({ workers, simd: flavour === 'simd' }));
    });
    after(async () => {
      for (const p of pools) await p.terminate();
    });

    for (const config of CONFIGS) {
      it(`${config.task}: pool.train equals pe.train bit for bit after ${STEPS} steps, 1-4 workers`, async () => {
        const want = await record((o) => pe.train(config, o), 7);
        assert.equal(want.rows.length, Math.ceil(STEPS / 7));
        assert.equal(want.rows.at(-1)!.step, STEPS);
        for (const pool of pools) {
          const got = await record((o) => pool.train(config, o), 7);
          assert.ok(got.bytes.equals(want.bytes), `${pool.workers} workers: the weights differ from pe.train's`);
          assert.deepEqual(got.rows, want.rows, `${pool.workers} workers: progress`);
        }
      });
    }

    it('continueTraining equals pe.continueTraining bit for bit (a longer seqLen with a RoPE scaling)', async () => {
      using base = await pe.train({ ...CONFIGS[0]!, steps: 10 });
      const more = { steps: 12, seqLen: 64, batch: 6, scaling: { type: 'linear' as const, factor: 2 }, seed: 9 };
      const want = await record((o) => pe.continueTraining(base, more, o), 5);
      for (const pool of [pools[1]!, pools[2]!]) {
        const got = await record((o) => pool.continueTraining(base, more, o), 5);
        assert.ok(got.bytes.equals(want.bytes), `${pool.workers} workers: the weights differ`);
        assert.deepEqual(got.rows, want.rows);
      }
      // The model passed in is left alone.
      assert.equal(base.config.trainLen, 32);
    });

    it("pe.continueTraining takes pool.train's model (another instance's) and continues from its weights", async () => {
      const pool = pools[1]!;
      using fromPool = await pool.train({ ...CONFIGS[0]!, steps: 10 });
      using here = await pe.train({ ...CONFIGS[0]!, steps: 10 });
      assert.ok(Buffer.from(fromPool.save()).equals(Buffer.from(here.save())));
      const more = { steps: 6, seed: 5 };
      const want = await record((o) => pe.continueTraining(here, more, o), 3);
      const got = await record((o) => pe.continueTraining(fromPool, more, o), 3);
      assert.ok(got.bytes.equals(want.bytes), "continuing the pool's model differs from continuing the same weights here");
      assert.deepEqual(got.rows, want.rows);
      // Not deleted, and still the pool's weights.
      assert.ok(Buffer.from(fromPool.save()).equals(Buffer.from(here.save())));
    });

    it('a bad call rejects as pe.train does, and the pool keeps training', async () => {
      const pool = pools[1]!;
      const good = { ...CONFIGS[0]!, steps: 3 };
      const bad: Array<[unknown, unknown]> = [
        [{ ...good, task: 'poetry' }, undefined],
        [{ ...good, steps: 0 }, undefined],
        [{ ...good, batch: 5000 }, undefined],
        [{ ...good, steps: 4, warmup: 9 }, undefined],
        [{ ...good, dModel: 30 }, undefined],
        [{ ...good, lr: '0.1' }, undefined],
        [null, undefined],
        [good, { chunk: 0 }],
        [good, { onProgress: 5 }],
      ];
      for (const [config, options] of bad) {
        const want = await thrown(pe.train(config as TrainConfig, options as TrainOptions));
        const got = await thrown(pool.train(config as TrainConfig, options as TrainOptions));
        assert.deepEqual(got, want, JSON.stringify(config));
        assert.match(want.name, /^(RangeError|TypeError)$/);
      }
      await assert.rejects(pool.continueTraining({} as TinyModel, { steps: 1 }), { name: 'TypeError' });
      const want = await record((o) => pe.train(good, o), 10);
      const got = await record((o) => pool.train(good, o), 10);
      assert.ok(got.bytes.equals(want.bytes));
    });

    it('a cancelled run rejects with the signal\'s reason and leaves the pool training', async () => {
      const pool = pools[2]!;
      const ac = new AbortController();
      const reason = new Error('stop here');
      let seen = 0;
      await assert.rejects(
        pool.train({ ...CONFIGS[1]!, steps: 40 }, { chunk: 5, signal: ac.signal, onProgress: () => { if (++seen === 2) ac.abort(reason); } }),
        (e) => e === reason,
      );
      assert.equal(seen, 2);
      const aborted = AbortSignal.abort();
      await assert.rejects(pool.train(CONFIGS[0]!, { signal: aborted }), (e) => e === aborted.reason);
      const trainer = await poolTrainingInstance(pool);
      assert.equal(trainer?.memoryStats().trainers, 0, 'the cancelled runs\' trainers are freed');
      const good = { ...CONFIGS[1]!, steps: 6 };
      const want = await record((o) => pe.train(good, o), 10);
      const got = await record((o) => pool.train(good, o), 10);
      assert.ok(got.bytes.equals(want.bytes));
    });
  });
}

describe('pool training lifetime', () => {
  it('a finished run leaves only its model on the calling thread', async () => {
    const pool = await createPool({ workers: 2 });
    try {
      const m = await pool.train({ ...CONFIGS[0]!, steps: 3 });
      const here = (await poolTrainingInstance(pool))!;
      assert.deepEqual([here.memoryStats().trainers, here.memoryStats().models], [0, 1]);
      m.delete();
      assert.equal(here.memoryStats().models, 0);
    } finally {
      await pool.terminate();
    }
  });

  it('terminate() during a run rejects it and frees the trainer; later runs reject', async () => {
    const pool = await createPool({ workers: 2 });
    assert.equal(await poolTrainingInstance(pool), undefined);
    let started!: () => void;
    const first = new Promise<void>((resolve) => (started = resolve));
    const run = pool.train({ ...CONFIGS[0]!, steps: 1000 }, { chunk: 1, onProgress: () => started() })
      .then(() => 'finished', (e: Error) => e.message);
    await first;
    const trainer = (await poolTrainingInstance(pool))!;
    // The calling thread only sums gradients: the replica that checked the request is already freed.
    assert.deepEqual([trainer.memoryStats().trainers, trainer.memoryStats().models], [0, 0]);
    await pool.terminate();
    assert.equal(await run, 'posenc pool: this pool has been terminated');
    assert.equal(trainer.memoryStats().trainers, 0);
    assert.equal(trainer.memoryStats().models, 0);
    await assert.rejects(pool.train(CONFIGS[0]!), /posenc pool: this pool has been terminated/);
  });
});
