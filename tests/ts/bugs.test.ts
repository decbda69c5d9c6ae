/**
 * The bug zoo through the public API, both wasm flavours: the `bug` option of
 * forward, evaluate and generate reaches the core (each bug's consequence on
 * a shipped model), generate's `cache: false` (full passes) against the KV
 * cache, and bad values throw TypeError / RangeError naming `bug`.
 * The per-bug numerics are tested in tests/cpp/model_bugs_test.cc.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { POSITION_BUGS, type PositionBug, type TinyModel } from 'posenc';

import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const shipped = (name: string): Uint8Array => readFileSync(join(root, 'web/models', `${name}.safetensors`));

const maxDiff = (a: Float32Array, b: Float32Array): number => {
  assert.equal(a.length, b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
};

const loss = (m: TinyModel, bug?: PositionBug): number =>
  m.evaluate({ lengths: [64], examples: 8, seed: 3, ...(bug === undefined ? {} : { bug }) })[0]!.loss;


for (const [flavour, ready] of flavours) {
  describe(`bug zoo (${flavour})`, () => {
    it('evaluate: the RoPE bugs raise the loss of language-rope at its training length', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      const plain = loss(m);
      assert.equal(loss(m, 'none'), plain);
      for (const bug of [
        'restart-positions', 'rotate-v', 'only-q', 'layout-mismatch', 'wrong-base', 'rope-on-embeddings', 'qk-position-mismatch',
        'rotate-half-mismatch', 'short-cos-sin-cache', 'wrong-scaling',
      ] as const) {
        const l = loss(m, bug);
        assert.ok(l > plain + 0.1, `${bug}: ${l} vs ${plain}`);
      }
      using partial = await pe.loadModel(shipped('language-rope-partial'));
      assert.equal(partial.config.rotaryDim, 8);
      assert.ok(loss(partial, 'partial-rotary-freq-over-head-dim') > loss(partial) + 0.1);
    });

    it('forward: left padding in positions is invisible to RoPE, not to sinusoidal', async () => {
      const pe = await ready;
      for (const [name, visible] of [['language-rope', false], ['language-sinusoidal', true]] as const) {
        using m = await pe.loadModel(shipped(name));
        const tokens = m.tokenize('w1 w5 w9 w2 w7 w3 w8 w4 w6 w1 w2 w3');
        const plain = m.forward(tokens).logits;
        const d = maxDiff(m.forward(tokens, { bug: 'left-padding-in-positions' }).logits, plain);
        if (visible) assert.ok(d > 0.05, `${name}: ${d}`);
        else assert.ok(d < 1e-3, `${name}: ${d}`);
      }
    });

    it('forward: yarn-magnitude-twice changes the logits of a yarn run, and needs yarn', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      const tokens = m.tokenize('w1 w5 w9 w2 w7 w3 w8 w4 w6 w1 w2 w3');
      const scaling = { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 } as const;
      const once = m.forward(tokens, { scaling }).logits;
      assert.ok(maxDiff(m.forward(tokens, { scaling, bug: 'yarn-magnitude-twice' }).logits, once) > 0.05);
      assert.throws(() => m.forward(tokens, { bug: 'yarn-magnitude-twice' }), {
        name: 'RangeError',
        message: "bug 'yarn-magnitude-twice' needs a yarn scaling; the scaling is 'default'",
      });
    });

    it('evaluate: a short cos/sin cache changes nothing before position 32 and hurts after it', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      const opts = { lengths: [64], examples: 8, seed: 3 };
      const plain = m.evaluate(opts)[0]!.positionLoss;
      const bug = m.evaluate({ ...opts, bug: 'short-cos-sin-cache' })[0]!.positionLoss;
      let before = 0;
      let after = 0;
      let n = 0;
      for (let t = 0; t < 64; t++) {
        if (Number.isNaN(plain[t]!)) continue;
        if (t < 32) before = Math.max(before, Math.abs(bug[t]! - plain[t]!));
        if (t >= 40) {
          after += bug[t]! - plain[t]!;
          n++;
        }
      }
      assert.ok(before < 1e-4, `before 32: ${before}`);
      assert.ok(n > 0 && after / n > 0.3, `after 40: mean loss increase ${after / n}`);
    });

    it('forward: wrong-scaling is linear x4 and refuses a second scaling', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      const tokens = m.tokenize('w1 w5 w9 w2 w7 w3 w8 w4 w6 w1 w2 w3');
      const bug = m.forward(tokens, { bug: 'wrong-scaling' }).logits;
      assert.ok(maxDiff(bug, m.forward(tokens, { scaling: { type: 'linear', factor: 4 } }).logits) < 1e-6);
      assert.ok(maxDiff(bug, m.forward(tokens).logits) > 0.05);
      assert.throws(() => m.forward(tokens, { bug: 'wrong-scaling', scaling: { type: 'ntk', factor: 2 } }), {
        name: 'RangeError',
        message: "bug 'wrong-scaling' runs the model with another model's scaling (linear x4) and cannot be combined with the scaling 'ntk' passed as well",
      });
    });

    it('generate: cache false runs full passes and picks the tokens the cache does', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      const prompt = m.tokenize('w3 w7 w1 w4 w9 w2');
      const cached = m.generate(prompt, { maxNewTokens: 24 });
      assert.deepEqual(m.generate(prompt, { maxNewTokens: 24, cache: true }), cached);
      assert.deepEqual(m.generate(prompt, { maxNewTokens: 24, cache: false }), cached);
      const sampled = { maxNewTokens: 24, temperature: 0.8, seed: 9 };
      assert.deepEqual(m.generate(prompt, { ...sampled, cache: false }), m.generate(prompt, sampled));
      // A bug inside attention is the same either way; restart-positions needs a cache to exist.
      const mismatched = m.generate(prompt, { maxNewTokens: 24, bug: 'qk-position-mismatch' });
      assert.deepEqual(m.generate(prompt, { maxNewTokens: 24, bug: 'qk-position-mismatch', cache: false }), mismatched);
      const restartedCached = m.generate(prompt, { maxNewTokens: 24, bug: 'restart-positions' });
      const restartedUncached = m.generate(prompt, { maxNewTokens: 24, bug: 'restart-positions', cache: false });
      assert.notDeepEqual(restartedCached, restartedUncached);
      assert.deepEqual(restartedUncached, cached);
      assert.equal(m.generate(prompt, { maxNewTokens: 0, cache: false }).length, 0);
    });

    it('generate: restarting positions in the cache changes the text; none is the default', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      const prompt = m.tokenize('w3 w7 w1 w4 w9 w2');
      const plain = m.generate(prompt, { maxNewTokens: 24 });
      assert.deepEqual(m.generate(prompt, { maxNewTokens: 24, bug: 'none' }), plain);
      const restarted = m.generate(prompt, { maxNewTokens: 24, bug: 'restart-positions' });
      assert.equal(restarted.length, 24);
      assert.notDeepEqual(restarted, plain);
    });

    it('bad bug values throw, naming bug and the options', async () => {
      const pe = await ready;
      using m = await pe.loadModel(shipped('language-rope'));
      const tokens = m.tokenize('w1 w2');
      const list = POSITION_BUGS.map((b) => `'${b}'`).join(', ');
      assert.throws(() => m.forward(tokens, { bug: 'rotate-k' as PositionBug }), {
        name: 'RangeError',
        message: `bug must be one of ${list}, got 'rotate-k'`,
      });
      assert.throws(() => m.evaluate({ lengths: [64], bug: 3 as unknown as PositionBug }), {
        name: 'TypeError',
        message: `bug must be one of ${list}, got 3`,
      });
      assert.throws(() => m.generate(tokens, { maxNewTokens: 1, bug: null as unknown as PositionBug }), {
        name: 'TypeError',
        message: /^bug must be one of 'none', .*, got null$/,
      });
      using alibi = await pe.loadModel(shipped('language-alibi'));
      assert.throws(() => alibi.forward(tokens, { bug: 'rotate-v' }), {
        name: 'RangeError',
        message: "bug 'rotate-v' needs a RoPE or xPos model, this model uses alibi",
      });
      assert.throws(() => alibi.evaluate({ lengths: [64], bug: 'restart-positions' }), {
        name: 'RangeError',
        message: /bug 'restart-positions' needs a model with positions \(RoPE, xPos, sinusoidal or learned\), this model uses alibi/,
      });
      assert.throws(() => m.forward(tokens, { bug: 'partial-rotary-freq-over-head-dim' }), {
        name: 'RangeError',
        message: /needs partial rotary \(rotaryDim < headDim\)/,
      });
      assert.throws(() => m.forward(tokens, { bug: 'restart-positions', attentionMaps: true }), {
        name: 'RangeError',
        message: /attention maps are not available with bug 'restart-positions'/,
      });
      for (const bug of ['rope-on-embeddings', 'qk-position-mismatch', 'rotate-half-mismatch', 'short-cos-sin-cache', 'wrong-scaling'] as const) {
        assert.throws(() => alibi.forward(tokens, { bug }), {
          name: 'RangeError',
          message: `bug '${bug}' needs a RoPE or xPos model, this model uses alibi`,
        });
      }
      assert.throws(() => alibi.generate(tokens, { maxNewTokens: 2, bug: 'restart-positions', cache: false }), {
        name: 'RangeError',
        message: /bug 'restart-positions' needs a model with positions/,
      });
      // Still usable.
      assert.equal(m.forward(tokens, { bug: 'only-q' }).logits.length, tokens.length * m.config.vocab);
    });
  });
}
