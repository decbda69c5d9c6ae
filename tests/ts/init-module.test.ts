/**
 * init({ module }): a binary compiled once by compileWasm() instantiates here
 * and in a worker thread it is posted to; wrong values are clear TypeErrors.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

import { compileWasm, init, type Posenc } from 'posenc';
import { createPool } from 'posenc/pool';

const root = join(fileURLToPath(import.meta.url), '../../../../..');

/** ALiBi slopes of 8 heads from the formula: 2^(-8 (h + 1) / 8). */
const slopes8 = Array.from({ length: 8 }, (_, h) => 2 ** (-(h + 1)));

/** The first row of causal attention over 3 tokens, 1 head of dim 2, from the float64 math. */
function checkAttention(pe: Posenc): void {
  const q = new Float32Array([1, 0, 0, 1, 1, 1]);
  const k = new Float32Array([1, 0, 0, 1, 1, 1]);
  const v = new Float32Array([1, 2, 3, 4, 5, 6]);
  const out = pe.attention({ q, k, v, heads: 1, queryLength: 3, keyLength: 3, headDim: 2, causal: true }).out;
  // Row 1 sees keys 0 and 1: scores (q1 . k) / sqrt(2) = [0, 1/sqrt 2].
  const s = [0, 1 / Math.SQRT2].map(Math.exp);
  const w = s.map((x) => x / (s[0]! + s[1]!));
  assert.ok(Math.abs(out[2]! - (w[0]! * 1 + w[1]! * 3)) < 1e-5);
  assert.ok(Math.abs(out[3]! - (w[0]! * 2 + w[1]! * 4)) < 1e-5);
  assert.deepEqual([out[0], out[1]], [1, 2]);
}

describe('init({ module })', () => {
  it('instantiates a module compiled by compileWasm(), twice, in both flavours', async () => {
    for (const simd of [true, false]) {
      const module = await compileWasm({ simd });
      assert.ok(module instanceof WebAssembly.Module);
      const a = await init({ module, simd });
      const b = await init({ module, simd });
      assert.equal(a.simd, simd);
      for (const pe of [a, b]) {
        Array.from(pe.alibiSlopes(8)).forEach((m, h) => assert.ok(Math.abs(m - slopes8[h]!) < 1e-7, `slope ${h}: ${m}`));
        checkAttention(pe);
      }
      // Two instances of one module have separate memories.
      assert.notEqual(a.heapBytes(), 0);
    }
  });

  it('refuses a module of the other flavour than simd names (pe.simd would be wrong), in init and createPool', async () => {
    const scalar = await compileWasm({ simd: false });
    const simdBuild = await compileWasm({ simd: true });
    await assert.rejects(init({ module: scalar, simd: true }), {
      name: 'TypeError', message: "module is posenc's scalar build (target SCALAR) but simd is true: pass simd: false with it",
    });
    await assert.rejects(init({ module: simdBuild, simd: false }), {
      name: 'TypeError', message: "module is posenc's SIMD build (target WASM) but simd is false: pass simd: true with it",
    });
    await assert.rejects(createPool({ workers: 1, module: scalar, simd: true }), { name: 'TypeError', message: /scalar build .* pass simd: false/ });
    // With the right flag both work, and report their flavour.
    assert.equal((await init({ module: scalar, simd: false })).target, 'SCALAR');
    await using pool = await createPool({ workers: 1, module: scalar, simd: false });
    assert.equal(pool.simd, false);
  });

  it('works in a worker thread the module is posted to', async () => {
    const module = await compileWasm();
    const entry = pathToFileURL(join(root, 'dist/node.js')).href;
    const code = `
      const { parentPort } = require('node:worker_threads');
      parentPort.once('message', async (module) => {
        try {
          const { init } = await import(${JSON.stringify(entry)});
          const pe = await init({ module });
          parentPort.postMessage({ isModule: module instanceof WebAssembly.Module, slopes: Array.from(pe.alibiSlopes(8)) });
        } catch (e) {
          parentPort.postMessage({ error: String(e) });
        }
      });`;
    const worker = new Worker(code, { eval: true });
    try {
      const reply = await new Promise<{ isModule?: boolean; slopes?: number[]; error?: string }>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
        worker.postMessage(module);
      });
      assert.equal(reply.error, undefined);
      assert.equal(reply.isModule, true);
      reply.slopes!.forEach((m, h) => assert.ok(Math.abs(m - slopes8[h]!) < 1e-7));
    } finally {
      await worker.terminate();
    }
  });

  it('rejects a module option that is not a WebAssembly.Module with a TypeError', async () => {
    const bytes = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    for (const bad of [bytes, bytes.buffer, {}, null, 'posenc-simd.wasm', Promise.resolve(1)]) {
      await assert.rejects(init({ module: bad as unknown as WebAssembly.Module }), {
        name: 'TypeError', message: /^module must be a WebAssembly\.Module \(from compileWasm\(\) or WebAssembly\.compile\(\)\), got /,
      });
    }
    await assert.rejects(init({ module: {} as WebAssembly.Module }), { message: /got an object \(\[object Object\]\)/ });
    await assert.rejects(init({ module: 'x' as unknown as WebAssembly.Module }), { message: /got a string$/ });
    const module = await compileWasm();
    await assert.rejects(init({ module, wasmBinary: bytes }), { name: 'TypeError', message: /not both/ });
    await assert.rejects(init({ module, wasmUrl: './posenc-simd.wasm' }), { name: 'TypeError', message: /not both/ });
  });

  it('rejects (does not hang on) a valid module that is not posenc', async () => {
    // The empty module: magic word and version only.
    const empty = await WebAssembly.compile(new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]));
    await assert.rejects(init({ module: empty }), /could not instantiate the module given to init\(\) \(is it a posenc binary\?\)/);
  });

  it('the models module: compiled once (part: models), given as models.module, loaded on first use', async () => {
    for (const simd of [true, false]) {
      const module = await compileWasm({ simd });
      const models = await compileWasm({ simd, part: 'models' });
      assert.ok(models instanceof WebAssembly.Module);
      // A models URL that does not exist: never used, since the compiled module is given.
      const pe = await init({ module, simd, models: { module: models } });
      assert.equal(pe.memoryStats().modelsLoaded, false, 'nothing loaded before a model call');
      const before = pe.heapBytes();
      const ref = await pe.taskReference('word-order');
      assert.equal(ref.chanceAccuracy, 1 / 12);
      assert.equal(pe.memoryStats().modelsLoaded, true);
      assert.ok(pe.heapBytes() > before, 'heapBytes counts the models module too');
      checkAttention(pe);
    }
  });

  it('a models module that cannot be loaded rejects the model call; the core keeps working and the next call tries again', async () => {
    const pe = await init({ models: { wasmUrl: './no-such-models.wasm' } });
    await assert.rejects(pe.loadModels(), /could not read .*no-such-models\.wasm/);
    await assert.rejects(pe.sampleTask({ task: 'language', length: 8 }), /no-such-models\.wasm/);
    assert.equal(pe.memoryStats().modelsLoaded, false);
    checkAttention(pe);
    // A core module given as the models module does not link: a clear error, not a hang.
    const core = await compileWasm();
    const wrong = await init({ models: { module: core } });
    await assert.rejects(wrong.loadModels(), /could not instantiate|not a posenc models module/);
  });

  it('checks the models option and compileWasm part', async () => {
    await assert.rejects(init({ models: 5 as never }), { name: 'TypeError', message: 'models must be an object, got number' });
    await assert.rejects(init({ models: { module: {} as WebAssembly.Module } }), {
      name: 'TypeError', message: /^models\.module must be a WebAssembly\.Module/,
    });
    const models = await compileWasm({ part: 'models' });
    await assert.rejects(init({ models: { module: models, wasmUrl: 'x.wasm' } }), {
      name: 'TypeError', message: 'pass models.module or models.wasmBinary / models.wasmUrl to init(), not both',
    });
    await assert.rejects(compileWasm({ part: 'all' as never }), { name: 'RangeError', message: `part must be 'core' or 'models', got "all"` });
    await assert.rejects(compileWasm({ part: 1 as never }), { name: 'TypeError', message: `part must be 'core' or 'models', got 1` });
    const pe = await init({ models: { wasmBinary: new TextEncoder().encode('<html>') } });
    await assert.rejects(pe.loadModels(), /models\.wasmBinary is not a WebAssembly binary/);
  });

  it('compileWasm() checks its options as init() does', async () => {
    await assert.rejects(compileWasm({ simd: 1 as unknown as boolean }), { name: 'TypeError', message: /simd must be a boolean/ });
    await assert.rejects(compileWasm({ wasmBinary: new TextEncoder().encode('<html>') }), /wasmBinary is not a WebAssembly binary/);
    await assert.rejects(compileWasm({ wasmBinary: [0, 97] as unknown as Uint8Array }), { name: 'TypeError', message: /wasmBinary must be/ });
  });
});
