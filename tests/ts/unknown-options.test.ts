/**
 * A misspelt option is an error, never ignored: every options object the API takes (each method of
 * `init()`'s object, the KV cache, the tiny models, training, `init` and `compileWasm`, the pool, and
 * the objects nested in them) refuses a key it does not know with a TypeError naming the object, the
 * key and the known key it is probably a typo of (else the known keys), and the same instance then
 * runs the call with the right key. The pool refuses them before it posts anything to a Worker.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

import { compileWasm, init, type AttentionOptions, type KvCache, type Posenc, type PosencPool, type TinyModel, type TrainConfig } from 'posenc';
import { createPool } from 'posenc/pool';

import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const shipped = (name: string): Uint8Array => readFileSync(join(root, 'web/models', `${name}.safetensors`));

/**
 * Options with a key added: the typo in the call that must fail, the right key in the call that must work
 * (typed `never` so that it spreads into any options type).
 */
type Extra = Record<string, never>;

/**
 * One options object of the API: what the error names it, the misspelt key, the key meant and a value
 * for it, and a call that puts `extra` into that object (and cleans up what it made).
 */
interface Case {
  entry: string;
  object: string;
  typo: string;
  key: string;
  value: unknown;
  call: (extra: Extra) => unknown;
}

const f32 = (n: number): Float32Array => Float32Array.from({ length: n }, (_, i) => Math.sin(i + 1));
const i32 = (...v: number[]): Int32Array => Int32Array.from(v);
const option = (entry: string, object: string, typo: string, key: string, value: unknown, call: (extra: Extra) => unknown): Case =>
  ({ entry, object, typo, key, value, call });

/** A one-query, one-head attention call with `over` merged in. */
const attentionOptions = (over: Record<string, unknown>): AttentionOptions =>
  ({ q: f32(8), k: f32(8), v: f32(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, ...over }) as AttentionOptions;

/** The calls of `init()`'s object (synchronous ones, and the KV cache). */
function coreCases(pe: Posenc): Case[] {
  const x = f32(1 * 2 * 8);
  const rope = { heads: 1, seqLen: 2, headDim: 8, layout: 'half' as const };
  const withCache = (fn: (c: KvCache) => unknown): unknown => {
    const c = new pe.KvCache({ kvHeads: 1, headDim: 8 });
    try {
      c.append(f32(8), f32(8));
      return fn(c);
    } finally {
      c.delete();
    }
  };
  return [
    option('ropeFrequencies', 'ropeFrequencies options', 'rotarydim', 'rotaryDim', 4, (e) => pe.ropeFrequencies({ headDim: 8, ...e })),
    option('ropeFrequencies scaling (yarn)', 'scaling', 'betafast', 'betaFast', 32,
      (e) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'yarn', factor: 2, originalMaxPositionEmbeddings: 16, ...e } })),
    option('applyRope', 'applyRope options', 'ofset', 'offset', 3, (e) => pe.applyRope(x, { ...rope, ...e })),
    option('applyRope scaling (dynamic)', 'scaling', 'maxPositionEmbedding', 'maxPositionEmbeddings', 16,
      (e) => pe.applyRope(x, { ...rope, scaling: { type: 'dynamic', factor: 2, ...e } as never })),
    option('applyRope mrope', 'mrope', 'interleave', 'interleaved', true,
      (e) => pe.applyRope(x, { ...rope, mrope: { section: [2, 1, 1], ...e }, positions: i32(0, 1, 0, 1, 0, 1) })),
    option('applyRope xpos', 'xpos', 'scalebase', 'scaleBase', 512, (e) => pe.applyRope(x, { ...rope, xpos: { key: false, ...e } })),
    option('rerotateRope', 'rerotateRope options', 'rotary_dim', 'rotaryDim', 8, (e) => pe.rerotateRope(x, { ...rope, delta: 1, ...e })),
    option('ropeCache', 'ropeCache options', 'formt', 'format', 'half', (e) => pe.ropeCache({ headDim: 8, layout: 'half', seqLen: 2, ...e })),
    option('ropeFromConfig', 'ropeFromConfig options', 'Layout', 'layout', 'half',
      (e) => pe.ropeFromConfig({ model_type: 'llama', num_hidden_layers: 2, head_dim: 64 }, { ...e })),
    option('queryScale', 'queryScaling', 'layer', 'layers', [0],
      (e) => pe.queryScale(i32(0, 1), { source: 'llama4', beta: 0.1, length: 8, shift: 1, ...e } as never)),
    option('mropePositionIds', 'mropePositionIds options', 'batches', 'batch', 1,
      (e) => pe.mropePositionIds({ inputIds: i32(1, 2, 3), spatialMergeSize: 2, imageTokenId: 100, videoTokenId: 101, visionStartTokenId: 102, ...e })),
    option('sinusoidal', 'sinusoidal options', 'Base', 'base', 10000, (e) => pe.sinusoidal({ length: 4, dim: 8, ...e })),
    option('alibiSlopes', 'alibiSlopes options', 'varient', 'variant', 'simple', (e) => pe.alibiSlopes(4, { ...e })),
    option('alibiBias', 'alibiBias options', 'casual', 'causal', false, (e) => pe.alibiBias({ heads: 2, queryLength: 3, keyLength: 3, ...e })),
    option('t5Buckets', 't5Buckets options', 'bidirectonal', 'bidirectional', false, (e) => pe.t5Buckets({ queryLength: 3, keyLength: 3, ...e })),
    option('t5Bias', 't5Bias options', 'numbuckets', 'numBuckets', 32,
      (e) => pe.t5Bias({ queryLength: 3, keyLength: 3, heads: 2, table: f32(64), ...e })),
    option('shawIndices', 'shawIndices options', 'clipp', 'clip', 1, (e) => pe.shawIndices({ queryLength: 2, keyLength: 3, ...e } as never)),
    option('shawLogits', 'shawLogits options', 'Scale', 'scale', 0.5,
      (e) => pe.shawLogits({ q: f32(8), k: f32(12), tableK: f32(12), queryLength: 2, keyLength: 3, headDim: 4, clip: 1, ...e })),
    option('shawValues', 'shawValues options', 'headdim', 'headDim', 4,
      (e) => pe.shawValues({ probs: f32(6), v: f32(12), tableV: f32(12), queryLength: 2, keyLength: 3, clip: 1, ...e } as never)),
    option('learnedPositions', 'learnedPositions options', 'position', 'positions', i32(0, 1),
      (e) => pe.learnedPositions({ table: f32(8), maxLength: 4, dim: 2, ...e } as never)),
    option('xposScales', 'xposScales options', 'keys', 'key', true, (e) => pe.xposScales({ positions: i32(0, 1), rotaryDim: 4, ...e })),
    option('attention', 'attention options', 'casual', 'causal', true, (e) => pe.attention(attentionOptions(e))),
    option('attention rope', 'rope', 'contextlength', 'contextLength', 4, (e) => pe.attention(attentionOptions({ rope: { layout: 'half', ...e } }))),
    option('attention rope.scaling', 'rope.scaling', 'Factor', 'factor', 2,
      (e) => pe.attention(attentionOptions({ rope: { layout: 'half', scaling: { type: 'linear', ...e } } }))),
    option('attention rope.xpos', 'rope.xpos', 'scale_base', 'scaleBase', 512,
      (e) => pe.attention(attentionOptions({ rope: { layout: 'half', xpos: { ...e } } }))),
    option('attention rope.mrope', 'rope.mrope', 'Interleaved', 'interleaved', false,
      (e) => pe.attention(attentionOptions({ rope: { layout: 'half', mrope: { section: [2, 1, 1], ...e } } }))),
    option('attention alibi', 'alibi', 'varaint', 'variant', 'paper', (e) => pe.attention(attentionOptions({ alibi: { ...e } }))),
    option('attention t5', 't5', 'maxdistance', 'maxDistance', 128, (e) => pe.attention(attentionOptions({ t5: { table: f32(32), ...e } }))),
    option('attention shaw', 'shaw', 'tablev', 'tableV', f32(24), (e) => pe.attention(attentionOptions({ shaw: { tableK: f32(24), clip: 1, ...e } }))),
    option('new KvCache', 'KvCache options', 'consistant', 'consistent', false, (e) => new pe.KvCache({ kvHeads: 1, headDim: 8, ...e }).delete()),
    option('new KvCache rope', 'rope', 'Base', 'base', 10000,
      (e) => new pe.KvCache({ kvHeads: 1, headDim: 8, rope: { layout: 'half', ...e } }).delete()),
    option('new KvCache rope.xpos', 'rope.xpos', 'scaleBas', 'scaleBase', 512,
      (e) => new pe.KvCache({ kvHeads: 1, headDim: 8, rope: { layout: 'half', xpos: { ...e } } }).delete()),
    option('KvCache.append', 'append options', 'position', 'positions', i32(1), (e) => withCache((c) => c.append(f32(8), f32(8), { ...e }))),
    option('KvCache.attend', 'attend options', 'returnweights', 'returnWeights', true,
      (e) => withCache((c) => c.attend(f32(8), { heads: 1, queryLength: 1, ...e }))),
    option('KvCache.attend alibi', 'alibi', 'slope', 'slopes', f32(1),
      (e) => withCache((c) => c.attend(f32(8), { heads: 1, queryLength: 1, alibi: { ...e } }))),
  ];
}

/** A tiny training config (one step, freed by the caller). */
const tinyTrain: TrainConfig = { task: 'language', encoding: 'rope', steps: 1, batch: 4, seqLen: 8, dModel: 8, heads: 2, layers: 1, dFf: 8 };
const free = (m: TinyModel): void => m.delete();

/** The model calls (asynchronous ones reject), on a shipped RoPE model. */
function modelCases(pe: Posenc, m: TinyModel): Case[] {
  const tokens = m.tokenize('the');
  return [
    option('sampleTask', 'sampleTask options', 'sed', 'seed', 2, (e) => pe.sampleTask({ task: 'language', length: 8, ...e })),
    option('train config', 'train config', 'warmUp', 'warmup', 0, async (e) => free(await pe.train({ ...tinyTrain, ...e }))),
    option('train options', 'train options', 'chunks', 'chunk', 1, async (e) => free(await pe.train(tinyTrain, { ...e }))),
    option('continueTraining config', 'continueTraining config', 'seqlen', 'seqLen', 64, async (e) => free(await pe.continueTraining(m, { steps: 0, ...e }))),
    option('continueTraining options', 'continueTraining options', 'onprogress', 'onProgress', () => undefined,
      async (e) => free(await pe.continueTraining(m, { steps: 0 }, { ...e }))),
    option('continueTraining scaling', 'scaling', 'facotr', 'factor', 2,
      async (e) => free(await pe.continueTraining(m, { steps: 0, scaling: { type: 'linear', ...e } as never }))),
    option('TinyModel.tokenize', 'tokenize options', 'BOS', 'bos', false, (e) => m.tokenize('the', { ...e })),
    option('TinyModel.forward', 'forward options', 'attentionMap', 'attentionMaps', false, (e) => m.forward(tokens, { ...e })),
    option('TinyModel.forward scaling', 'scaling', 'factors', 'factor', 2, (e) => m.forward(tokens, { scaling: { type: 'ntk', ...e } as never })),
    option('TinyModel.generate', 'generate options', 'temprature', 'temperature', 0, (e) => m.generate(tokens, { maxNewTokens: 1, ...e })),
    option('TinyModel.evaluate', 'evaluate options', 'windw', 'window', 4, (e) => m.evaluate({ lengths: [8], examples: 1, ...e })),
  ];
}

/** `init()` and `compileWasm()` (new instances each time; the scalar build, which every engine runs). */
function loaderCases(modelsModule: () => Promise<WebAssembly.Module>): Case[] {
  return [
    option('init', 'init options', 'Simd', 'simd', false, (e) => init({ ...e })),
    option('init models', 'models', 'modul', 'module', 'the compiled models module', async (e) => {
      // The key given (right or misspelt) holds the compiled models module.
      const models: Record<string, WebAssembly.Module> = {};
      for (const k of Object.keys(e)) models[k] = await modelsModule();
      return (await init({ simd: false, models })).loadModels();
    }),
    option('compileWasm', 'compileWasm options', 'prt', 'part', 'models', (e) => compileWasm({ simd: false, ...e })),
  ];
}

/** The expected message: the object, the key and the suggestion. */
const message = (c: Case): string => `${c.object}: unknown key '${c.typo}'; did you mean '${c.key}'?`;

/** Runs the call with the typo (a TypeError with that message, thrown or rejected), then with the right key (works). */
async function check(c: Case): Promise<void> {
  await assert.rejects(async () => c.call({ [c.typo]: c.value } as Extra), { name: 'TypeError', message: message(c) }, c.entry);
  await c.call({ [c.key]: c.value } as Extra);
}

for (const [flavour, ready] of flavours) {
  describe(`unknown option keys (${flavour})`, () => {
    let pe: Posenc;
    let model: TinyModel;
    before(async () => {
      pe = await ready;
      model = await pe.loadModel(shipped('language-rope'));
    });
    after(() => model.delete());

    it('every call of init()\'s object and the KV cache: names the object and the key, suggests the near key; the next call works', async () => {
      for (const c of coreCases(pe)) await check(c);
    });

    it('the tiny models, tasks and training: the same, and the instance keeps working', async () => {
      for (const c of modelCases(pe, model)) await check(c);
      assert.equal(pe.memoryStats().trainers, 0);
    });

    it('without a near key, the message lists the known keys', () => {
      const x = f32(16);
      assert.throws(() => pe.applyRope(x, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', wavelength: 5e5 } as never), {
        name: 'TypeError',
        message: "applyRope options: unknown key 'wavelength'; the known keys are 'heads', 'seqLen', 'headDim', 'rotaryDim', 'layout', 'base', " +
          "'scaling', 'mrope', 'contextLength', 'positions', 'batch', 'axes', 'offset', 'xpos'",
      });
      // A key of another scaling type is unknown to this one.
      assert.throws(() => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'linear', factor: 2, betaFast: 32 } as never }), {
        name: 'TypeError', message: "scaling: unknown key 'betaFast'; the known keys are 'type', 'factor'",
      });
      assert.throws(() => pe.attention(attentionOptions({ heads: 1, headz: 2 })), { name: 'TypeError', message: /unknown key 'headz'; did you mean 'heads'\?$/ });
    });

    it('other libraries\' names suggest posenc\'s (a Hugging Face scaling object\'s rope_type, ropeTheta)', () => {
      const x = f32(16);
      const rope = { heads: 1, seqLen: 2, headDim: 8, layout: 'half' as const };
      for (const k of ['ropeTheta', 'rope_theta', 'theta']) {
        assert.throws(() => pe.applyRope(x, { ...rope, [k]: 5e5 } as never), { name: 'TypeError', message: `applyRope options: unknown key '${k}'; did you mean 'base'?` });
      }
      // Before the type's own check (which would only say the type is missing).
      assert.throws(() => pe.applyRope(x, { ...rope, scaling: { rope_type: 'linear', factor: 2 } as never }), {
        name: 'TypeError', message: "scaling: unknown key 'rope_type'; did you mean 'type'?",
      });
      assert.throws(() => pe.attention(attentionOptions({ rope: { layout: 'half', scaling: { rope_type: 'linear', factor: 2 } } })), {
        name: 'TypeError', message: "rope.scaling: unknown key 'rope_type'; did you mean 'type'?",
      });
      assert.throws(() => pe.attention(attentionOptions({ is_causal: true })), { name: 'TypeError', message: /unknown key 'is_causal'; did you mean 'causal'\?$/ });
      assert.deepEqual(pe.applyRope(x, { ...rope, scaling: { type: 'linear', factor: 2 } }).length, 16);
    });

    it('a training signal that is not an AbortSignal is a TypeError (cancelling would do nothing)', async () => {
      const config = { task: 'retrieval', encoding: 'rope', steps: 2 } as const;
      const ctl = new AbortController();
      await assert.rejects(pe.train(config, { signal: ctl as never }), { name: 'TypeError', message: 'signal must be an AbortSignal, got an AbortController (pass its .signal)' });
      await assert.rejects(pe.train(config, { signal: {} as never }), { name: 'TypeError', message: 'signal must be an AbortSignal, got an object that is not one' });
      await assert.rejects(pe.train(config, { signal: 'x' as never }), { name: 'TypeError', message: 'signal must be an AbortSignal, got string' });
      const m = await pe.train(config, { signal: ctl.signal });
      m.delete();
    });

    it('a key whose value is undefined is accepted (it cannot change the call)', () => {
      const want = pe.attention(attentionOptions({}));
      const got = pe.attention(attentionOptions({ casual: undefined, rope: undefined }));
      assert.deepEqual(got.out, want.out);
    });

    it('the documented spread of a ropeFromConfig result still works (its other fields are accepted)', () => {
      const rc = pe.ropeFromConfig({ model_type: 'llama', num_hidden_layers: 2, head_dim: 8, rope_theta: 50000 });
      assert.ok(rc.uniform);
      const layer = rc.layers[0]!;
      const x = f32(16);
      const want = pe.applyRope(x, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', base: 50000, offset: 3 });
      assert.deepEqual(pe.applyRope(x, { heads: 1, seqLen: 2, ...rc, offset: 3 }), want);
      assert.deepEqual(pe.applyRope(x, { heads: 1, seqLen: 2, ...layer, offset: 3 }), want);
      assert.equal(pe.ropeCache({ ...layer, seqLen: 2 }).width, 8);
      assert.equal(pe.ropeFrequencies({ ...layer, seqLen: 2 }).invFreq.length, 4);
      const a = pe.attention(attentionOptions({ rope: { ...layer } }));
      assert.deepEqual(a.out, pe.attention(attentionOptions({ rope: { layout: 'half', base: 50000 } })).out);
      new pe.KvCache({ kvHeads: 1, headDim: 8, rope: { ...layer } }).delete();
    });
  });
}

describe('unknown option keys: init() and compileWasm()', () => {
  it('refuse a misspelt option, naming it; the right key works', async () => {
    let models: Promise<WebAssembly.Module> | undefined;
    for (const c of loaderCases(() => (models ??= compileWasm({ simd: false, part: 'models' })))) await check(c);
  });
});

describe('unknown option keys: the pool refuses them before posting anything to a Worker', () => {
  // Every request a pool sends its worker threads (the Node entry posts with Worker#postMessage).
  const posted: string[] = [];
  const postMessage = Worker.prototype.postMessage;
  let pool: PosencPool;
  let pe: Posenc;
  let model: TinyModel;
  before(async () => {
    Worker.prototype.postMessage = function (this: Worker, value: unknown, transfer?: readonly unknown[]) {
      posted.push(String((value as { op?: unknown }).op));
      return postMessage.call(this, value, transfer as never);
    };
    pe = await flavours[0]![1];
    model = await pe.loadModel(shipped('language-rope'));
  });
  after(async () => {
    Worker.prototype.postMessage = postMessage;
    await pool?.terminate();
    model.delete();
  });
  /** The requests sent while `fn` runs. */
  const sentDuring = async (fn: () => Promise<unknown>): Promise<string[]> => {
    const from = posted.length;
    await fn();
    return posted.slice(from);
  };
  const rejects = (p: () => Promise<unknown>, object: string, typo: string, key: string) =>
    sentDuring(() => assert.rejects(p, { name: 'TypeError', message: `${object}: unknown key '${typo}'; did you mean '${key}'?` }));

  it('createPool: no Worker is started for misspelt options; the right ones start the pool', async () => {
    assert.deepEqual(await rejects(() => createPool({ worker: 2, minSplitWork: 0 } as never), 'pool options', 'worker', 'workers'), []);
    assert.deepEqual(await rejects(() => createPool({ workers: 2, models: { wasmURL: 'x' } } as never), 'models', 'wasmURL', 'wasmUrl'), []);
    const started = await sentDuring(async () => (pool = await createPool({ workers: 2, simd: pe.simd, minSplitWork: 0 })));
    assert.deepEqual(started, ['init', 'init']);
  });

  it('pool.attention: a call that would split is refused before a part is sent; the next call splits and works', async () => {
    const big = { q: f32(2 * 16 * 8), k: f32(2 * 16 * 8), v: f32(2 * 16 * 8), heads: 2, queryLength: 16, keyLength: 16, headDim: 8 };
    assert.deepEqual(await rejects(() => pool.attention({ ...big, casual: false } as never), 'attention options', 'casual', 'causal'), []);
    assert.deepEqual(await rejects(() => pool.attention({ ...big, rope: { layout: 'half', scaling: { type: 'linear', factr: 2 } } } as never),
      'rope.scaling', 'factr', 'factor'), []);
    let out: Float32Array | undefined;
    const sent = await sentDuring(async () => (out = (await pool.attention({ ...big, causal: false })).out));
    assert.deepEqual(sent, ['attention', 'attention']);
    assert.deepEqual(out, pe.attention({ ...big, causal: false }).out);
  });

  it('pool.train, continueTraining and evaluate: refused before any request; the right keys train and evaluate', async () => {
    assert.deepEqual(await rejects(() => pool.train({ ...tinyTrain, sed: 2 } as never), 'train config', 'sed', 'seed'), []);
    assert.deepEqual(await rejects(() => pool.train(tinyTrain, { chunck: 1 } as never), 'train options', 'chunck', 'chunk'), []);
    await assert.rejects(pool.train(tinyTrain, { signal: new AbortController() as never }), { name: 'TypeError', message: 'signal must be an AbortSignal, got an AbortController (pass its .signal)' });
    assert.deepEqual(await rejects(() => pool.continueTraining(model, { steps: 1, bach: 4 } as never), 'continueTraining config', 'bach', 'batch'), []);
    assert.deepEqual(await rejects(() => pool.continueTraining(model, { steps: 1, scaling: { type: 'linear', factor: 2, Factor: 2 } } as never),
      'scaling', 'Factor', 'factor'), []);
    assert.deepEqual(await rejects(() => pool.evaluate(model, { lengths: [8], exampels: 1 } as never), 'evaluate options', 'exampels', 'examples'), []);
    const sent = await sentDuring(async () => {
      const trained = await pool.train({ ...tinyTrain, seed: 2 }, { chunk: 1 });
      const want = await pe.train({ ...tinyTrain, seed: 2 });
      assert.deepEqual(trained.save(), want.save());
      trained.delete();
      want.delete();
      const [r] = await pool.evaluate(model, { lengths: [8], examples: 1 });
      assert.deepEqual(r, model.evaluate({ lengths: [8], examples: 1 })[0]);
    });
    assert.ok(sent.includes('trainStart') && sent.includes('evaluate'), sent.join(' '));
  });
});
