/**
 * The bug zoo through the public API, both wasm flavours: the `bug` option of
 * forward, evaluate and generate reaches the core (each bug's consequence on
 * a shipped model), and bad values throw TypeError / RangeError naming `bug`.
 * The per-bug numerics are tested in tests/cpp/model_bugs_test.cc.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import type { PositionBug, TinyModel } from 'posenc';

import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const shipped = (name: string): Uint8Array => readFileSync(join(root, 'web/public/models', `${name}.safetensors`));

const maxDiff = (a: Float32Array, b: Float32Array): number => {
  assert.equal(a.length, b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
};

const loss = (m: TinyModel, bug?: PositionBug): number =>
  m.evaluate({ lengths: [64], examples: 8, seed: 3, ...(bug === undefined ? {} : { bug }) })[0]!.loss;

const BUGS = [
  'none', 'restart-positions', 'rotate-v', 'only-q', 'layout-mismatch', 'left-padding-in-positions', 'wrong-base',
  'partial-rotary-freq-over-head-dim', 'yarn-magnitude-twice',
];

for (const [flavour, ready] of flavours) {
  describe(`bug zoo (${flavour})`, () => {
    it('evaluate: the RoPE bugs raise the loss of language-rope at its training length', async () => {
      const pe = await ready;
      using m = pe.loadModel(shipped('language-rope'));
      const plain = loss(m);
      assert.equal(loss(m, 'none'), plain);
      for (const bug of ['restart-positions', 'rotate-v', 'only-q', 'layout-mismatch', 'wrong-base'] as const) {
        const l = loss(m, bug);
        assert.ok(l > plain + 0.1, `${bug}: ${l} vs ${plain}`);
      }
      using partial = pe.loadModel(shipped('language-rope-partial'));
      assert.equal(partial.config.rotaryDim, 8);
      assert.ok(loss(partial, 'partial-rotary-freq-over-head-dim') > loss(partial) + 0.1);
    });

    it('forward: left padding in positions is invisible to RoPE, not to sinusoidal', async () => {
      const pe = await ready;
      for (const [name, visible] of [['language-rope', false], ['language-sinusoidal', true]] as const) {
        using m = pe.loadModel(shipped(name));
        const tokens = m.tokenize('w1 w5 w9 w2 w7 w3 w8 w4 w6 w1 w2 w3');
        const plain = m.forward(tokens).logits;
        const d = maxDiff(m.forward(tokens, { bug: 'left-padding-in-positions' }).logits, plain);
        if (visible) assert.ok(d > 0.05, `${name}: ${d}`);
        else assert.ok(d < 1e-3, `${name}: ${d}`);
      }
    });

    it('forward: yarn-magnitude-twice changes the logits of a yarn run, and needs yarn', async () => {
      const pe = await ready;
      using m = pe.loadModel(shipped('language-rope'));
      const tokens = m.tokenize('w1 w5 w9 w2 w7 w3 w8 w4 w6 w1 w2 w3');
      const scaling = { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64 } as const;
      const once = m.forward(tokens, { scaling }).logits;
      assert.ok(maxDiff(m.forward(tokens, { scaling, bug: 'yarn-magnitude-twice' }).logits, once) > 0.05);
      assert.throws(() => m.forward(tokens, { bug: 'yarn-magnitude-twice' }), {
        name: 'RangeError',
        message: "bug 'yarn-magnitude-twice' needs a yarn scaling; the scaling is 'default'",
      });
    });

    it('generate: restarting positions in the cache changes the text; none is the default', async () => {
      const pe = await ready;
      using m = pe.loadModel(shipped('language-rope'));
      const prompt = m.tokenize('w3 w7 w1 w4 w9 w2');
      const plain = m.generate(prompt, { maxNewTokens: 24 });
      assert.deepEqual(m.generate(prompt, { maxNewTokens: 24, bug: 'none' }), plain);
      const restarted = m.generate(prompt, { maxNewTokens: 24, bug: 'restart-positions' });
      assert.equal(restarted.length, 24);
      assert.notDeepEqual(restarted, plain);
    });

    it('bad bug values throw, naming bug and the options', async () => {
      const pe = await ready;
      using m = pe.loadModel(shipped('language-rope'));
      const tokens = m.tokenize('w1 w2');
      const list = BUGS.map((b) => `'${b}'`).join(', ');
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
      using alibi = pe.loadModel(shipped('language-alibi'));
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
      // Still usable.
      assert.equal(m.forward(tokens, { bug: 'only-q' }).logits.length, tokens.length * m.config.vocab);
    });
  });
}
