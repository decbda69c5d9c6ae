/**
 * web/src/data/seed-bands.json (written by `npm run seed-bands`) against the
 * shipped models: its seed-1 values are the shipped models' own, evaluated
 * again here in wasm with the evaluation the JSON records (data seed,
 * sequences per length), so the file cannot drift from the models; and it
 * holds at least three seeds for every entry.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { init } from 'posenc';

const root = join(fileURLToPath(import.meta.url), '../../../../..');

interface SeedBands {
  seeds: number[];
  metric: Record<string, 'loss' | 'accuracy'>;
  evaluation: { dataSeed: number; examples: { 'word-order': number; language: Record<string, number>; retrieval: number } };
  trainLen: number;
  data: Record<string, Record<string, Record<string, Array<number | null>>>>;
}
const J = JSON.parse(readFileSync(join(root, 'web/src/data/seed-bands.json'), 'utf8')) as SeedBands;

/** Lengths re-evaluated for every model (the longer ones cost seconds each in wasm; a retrained model changes every length). */
const CHECKED = new Set(['0', '64', '128']);

describe('seed bands (web/src/data/seed-bands.json)', () => {
  it('has at least three seeds, seed 1 first, for every task, encoding and length', () => {
    assert.ok(J.seeds.length >= 3 && J.seeds[0] === 1, `seeds ${J.seeds.join(', ')}`);
    for (const task of ['word-order', 'language', 'retrieval']) {
      const encs = Object.keys(J.data[task] ?? {});
      assert.ok(encs.length >= 7, `${task}: ${encs.join(', ')}`);
      for (const e of encs) {
        for (const [L, vs] of Object.entries(J.data[task]![e]!)) {
          assert.equal(vs.length, J.seeds.length, `${task}-${e} at ${L}`);
          // null only where the learned table ends, in every seed alike.
          if (vs.includes(null)) assert.ok(e === 'learned' && Number(L) > J.trainLen && vs.every((v) => v === null), `${task}-${e} at ${L}`);
        }
      }
    }
  });

  it('seed 1 is the shipped models: a fresh evaluation gives the same values', async () => {
    const pe = await init();
    let checked = 0;
    for (const [task, byEnc] of Object.entries(J.data)) {
      for (const [enc, byLen] of Object.entries(byEnc)) {
        using m = await pe.loadModel(readFileSync(join(root, 'web/models', `${task}-${enc}.safetensors`)));
        for (const [L, vs] of Object.entries(byLen)) {
          if (!CHECKED.has(L)) continue;
          const examples = task === 'word-order' ? J.evaluation.examples['word-order']
            : task === 'language' ? J.evaluation.examples.language[L]! : J.evaluation.examples.retrieval;
          // Word order ignores the length (the JSON's 0); the API wants one of at least 1.
          const lengths = [Math.max(1, Number(L))];
          if (vs[0] === null) {
            assert.throws(() => m.evaluate({ lengths, examples, seed: J.evaluation.dataSeed }), RangeError, `${task}-${enc} at ${L}`);
            continue;
          }
          const [r] = m.evaluate({ lengths, examples, seed: J.evaluation.dataSeed });
          const got = J.metric[task] === 'loss' ? r!.loss : r!.accuracy;
          // The JSON has the native evaluator's six decimals.
          assert.ok(Math.abs(got - vs[0]!) <= 2e-6, `${task}-${enc} at ${L}: JSON ${vs[0]}, now ${got}`);
          checked++;
        }
      }
    }
    assert.ok(checked >= 2 * 7 + 7, `checked ${checked}`);
  });
});
