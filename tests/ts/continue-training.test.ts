/**
 * Continued training after a RoPE context extension, both wasm flavours:
 * the shipped language-rope model (trained at 64) extended to 128 with a
 * scaling and trained a few steps there; the scaling the new model keeps
 * (the default of forward, generate and evaluate, replaced by a passed one,
 * saved in the file); progress, cancelling, and the input model untouched.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { init, type EvaluateOptions, type RopeScaling, type TinyModel } from 'posenc';

import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const shipped = (name: string): Uint8Array => readFileSync(join(root, 'web/models', `${name}.safetensors`));

const linear2: RopeScaling = { type: 'linear', factor: 2 };
const yarn2: RopeScaling = { type: 'yarn', factor: 2, originalMaxPositionEmbeddings: 64 };

/** Mean loss at positions [from, to) of 16 sequences of 128 tokens (fixed data). */
function rangeLoss(m: TinyModel, from: number, to: number, scaling?: RopeScaling): number {
  const o: EvaluateOptions = { lengths: [128], examples: 16, seed: 31 };
  if (scaling !== undefined) o.scaling = scaling;
  const loss = m.evaluate(o)[0]!.positionLoss;
  let sum = 0;
  let n = 0;
  for (let t = from; t < to; t++) {
    if (!Number.isNaN(loss[t])) {
      sum += loss[t]!;
      n++;
    }
  }
  return sum / n;
}

for (const [flavour, ready] of flavours) {
  describe(`continued training (${flavour})`, () => {
    it('0 steps: the model with its scaling stored, applied by forward, generate and evaluate, kept by save()', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      assert.equal(m.config.ropeScaling, undefined);
      const tokens = (await pe.sampleTask({ task: 'language', length: 128, seed: 4 })).tokens;
      for (const s of [linear2, yarn2]) {
        using c = await pe.continueTraining(m, { steps: 0, seqLen: 128, scaling: s });
        assert.equal(c.config.trainLen, 128);
        assert.equal(c.config.ropeScaling?.type, s.type);
        assert.equal(c.config.ropeScaling?.factor, 2);
        assert.ok(Object.isFrozen(c.config.ropeScaling));
        // The stored scaling is the default; a passed one replaces it.
        assert.deepEqual(c.forward(tokens).logits, m.forward(tokens, { scaling: s }).logits);
        assert.deepEqual(c.forward(tokens, { scaling: { type: 'default' } }).logits, m.forward(tokens).logits);
        assert.deepEqual(c.forward(tokens, { scaling: c.config.ropeScaling! }).logits, c.forward(tokens).logits);
        const prompt = tokens.subarray(0, 100);
        assert.deepEqual(c.generate(prompt, { maxNewTokens: 12 }), m.generate(prompt, { maxNewTokens: 12, scaling: s }));
        assert.equal(rangeLoss(c, 0, 128), rangeLoss(m, 0, 128, s));
        // Saved and loaded: the same config and logits.
        using back = await pe.loadModel(c.save());
        assert.deepEqual(back.config, c.config);
        assert.deepEqual(back.forward(tokens).logits, c.forward(tokens).logits);
      }
      // Without a scaling, at the model's own length: the same file.
      using same = await pe.continueTraining(m, { steps: 0 });
      assert.deepEqual(same.save(), m.save());
    });

    it('a few steps at 128 with linear x2 lower the loss at positions 64-127', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      const before = rangeLoss(m, 64, 128, linear2);
      const t0 = performance.now();
      const losses: number[] = [];
      using c = await pe.continueTraining(m, { steps: 8, seqLen: 128, scaling: linear2, batch: 8 }, {
        chunk: 4,
        onProgress: (p) => losses.push(p.loss),
      });
      const seconds = (performance.now() - t0) / 1000;
      const after = rangeLoss(c, 64, 128);
      console.log(`continueTraining (${flavour}): 8 steps of 8 x 128 tokens in ${seconds.toFixed(2)} s; positions 64-127 ${before.toFixed(3)} -> ${after.toFixed(3)}`);
      assert.equal(losses.length, 2);
      assert.ok(after < before - 0.3, `${before} -> ${after}`);
      // Seeded: the same run again gives the same model.
      using again = await pe.continueTraining(m, { steps: 8, seqLen: 128, scaling: linear2, batch: 8 }, { chunk: 8 });
      assert.deepEqual(again.save(), c.save());
    });

    it('reports progress, can be cancelled, and leaves the input model unchanged', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      const bytes = m.save();
      const seen: Array<[number, number, number]> = [];
      const ctl = new AbortController();
      await assert.rejects(
        pe.continueTraining(m, { steps: 100, seqLen: 96, scaling: yarn2, batch: 2, lr: 5e-4, warmup: 4 }, {
          chunk: 2,
          signal: ctl.signal,
          onProgress: (p) => {
            seen.push([p.step, p.steps, p.lr]);
            if (p.step >= 4) ctl.abort(new Error('stop here'));
          },
        }),
        /stop here/,
      );
      assert.deepEqual(seen.map(([s, n]) => [s, n]), [[2, 100], [4, 100]]);
      // Linear warmup over 4 steps to lr 5e-4: the last step of each chunk.
      assert.ok(Math.abs(seen[0]![2] - 2.5e-4) < 1e-9 && Math.abs(seen[1]![2] - 5e-4) < 1e-9, `${seen}`);
      assert.deepEqual(m.save(), bytes);
      assert.equal(m.config.ropeScaling, undefined);
      assert.deepEqual(pe.memoryStats().trainers, 0);
    });

    it('takes a model loaded while other first model calls were in flight (one TinyModel class per module)', async () => {
      // A fresh instance: the models module is not loaded yet, so the three calls all wait for it.
      const pe = await init({ simd: flavour === 'simd' });
      const [m] = await Promise.all([
        pe.loadModel(shipped('language-rope')),
        pe.taskReference('language'),
        pe.sampleTask({ task: 'language', length: 8, seed: 1 }),
      ]);
      using loaded = m;
      using ext = await pe.continueTraining(loaded, { steps: 0, seqLen: 128, scaling: linear2 });
      assert.equal(ext.config.ropeScaling?.type, 'linear');
      using again = await pe.loadModel(loaded.save());
      assert.deepEqual(again.config, loaded.config);
    });

    it("takes a model of another instance (the other flavour's) and continues from its weights, leaving it usable", async () => {
      const pe = await ready;
      const other = await flavours[flavour === 'simd' ? 1 : 0]![1];
      using theirs = await other.loadModel(shipped('language-rope'));
      using ours = await pe.loadModel(shipped('language-rope'));
      const more = { steps: 3, seqLen: 128, scaling: linear2 };
      const live = pe.memoryStats().models;
      using a = await pe.continueTraining(theirs, more);
      using b = await pe.continueTraining(ours, more);
      assert.deepEqual(a.save(), b.save());
      // a and b, nothing left of the copy of theirs.
      assert.equal(pe.memoryStats().models, live + 2);
      assert.deepEqual(theirs.save(), ours.save());
    });
  });
}
