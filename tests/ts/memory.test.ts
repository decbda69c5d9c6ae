/**
 * Memory: 100,000 mixed calls (a tenth of them failing) leave the heap in use
 * and the count of live wasm-owned objects where they started; a request too
 * big for the 4 GiB wasm memory fails with a clear out-of-memory RangeError
 * and the module keeps working; typed arrays that view the module's own
 * memory are safe to pass back in, even when the call grows (and so
 * detaches) that memory. Both wasm flavours. Prints its figures as
 * `RELIABILITY key=value` lines (tools/reliability.mjs collects them).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { init, type MemoryStats, type Posenc, type TinyModel } from 'posenc';

import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const shipped = (name: string): Uint8Array => readFileSync(join(root, 'web/models', `${name}.safetensors`));
const SOAK_CALLS = 100_000;
/** Allowed growth of the heap in use over the soak (allocator slack, not leaks). */
const SOAK_BOUND = 64 * 1024;

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One of the mixed calls; `i % 10 === 9` calls fail on purpose (throwing, or rejecting for the async loadModel). */
async function mixedCall(pe: Posenc, i: number, rnd: () => number, model: TinyModel): Promise<void> {
  const x = Float32Array.from({ length: 2 * 8 * 16 }, () => rnd() - 0.5);
  switch (i % 10) {
    case 0:
      pe.applyRope(x, { heads: 2, seqLen: 8, headDim: 16, layout: i % 20 ? 'half' : 'interleaved', offset: i % 1000 });
      break;
    case 1:
      pe.attention({ q: x, k: x, v: x, heads: 2, queryLength: 8, keyLength: 8, headDim: 16, causal: true, alibi: true, returnWeights: i % 3 === 0 });
      break;
    case 2:
      pe.attention({ q: x, k: x, v: x, heads: 2, queryLength: 8, keyLength: 8, headDim: 16, rope: { layout: 'half', scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 4 } } });
      break;
    case 3:
      pe.alibiBias({ heads: 4, queryLength: 8, keyLength: 8 });
      pe.t5Buckets({ queryLength: 8, keyLength: 8 });
      break;
    case 4:
      pe.sinusoidal({ length: 16, dim: 16 });
      pe.ropeFrequencies({ headDim: 16, scaling: { type: 'llama3', factor: 8, originalMaxPositionEmbeddings: 64, lowFreqFactor: 1, highFreqFactor: 4 } });
      break;
    case 5: {
      const c = new pe.KvCache({ kvHeads: 2, headDim: 16, rope: { layout: 'half' } });
      try {
        c.append(x, x);
        c.attend(x.subarray(0, 2 * 16), { heads: 2, queryLength: 1 });
      } finally {
        c.delete();
      }
      break;
    }
    case 6:
      if (i % 100 === 6) model.forward(Int32Array.from({ length: 16 }, (_, t) => t % 30));
      else pe.t5Bias({ table: new Float32Array(32 * 2), heads: 2, queryLength: 4, keyLength: 4 });
      break;
    case 7:
      if (i % 2000 === 7) model.generate(Int32Array.of(0, 5), { maxNewTokens: 8 });
      else pe.shawIndices({ queryLength: 4, keyLength: 4, clip: 2 });
      break;
    case 8:
      if (i % 5000 === 8) {
        const m = await pe.loadModel(shipped('word-order-rope'));
        m.delete();
      } else {
        pe.xposScales({ positions: Int32Array.of(0, 1, 2), rotaryDim: 16 });
      }
      break;
    default: {
      // Failing calls: validation in TypeScript, validation in C++, lifetime.
      const kinds: Array<() => unknown> = [
        () => pe.attention({ q: x, k: x, v: x, heads: 3, queryLength: 8, keyLength: 8, headDim: 16 }),
        () => pe.applyRope(x, { heads: 2, seqLen: 8, headDim: 16, layout: 'half', scaling: { type: 'linear', factor: -1 } }),
        () => model.forward(Int32Array.of(0, 999)),
        () => pe.loadModel(new Uint8Array(64)), // async: rejects
        () => {
          const c = new pe.KvCache({ kvHeads: 1, headDim: 16 });
          c.delete();
          c.delete();
        },
      ];
      const k = Math.floor(i / 10) % kinds.length;
      if (k === 3) await assert.rejects(kinds[k]!() as Promise<unknown>);
      else assert.throws(kinds[k]!);
    }
  }
}

/** Views over the module's own memory, through the raw module (the package never hands one out). */
async function rawModule(simd: boolean): Promise<{ pe: Posenc; heapF32: () => Float32Array; malloc: (n: number) => number; free: (p: number) => void }> {
  const flavour = simd ? 'simd' : 'scalar';
  const factory = (await import(pathToFileURL(join(root, `dist/wasm/posenc-${flavour}.mjs`)).href)) as {
    default: (o: { wasmBinary: Uint8Array }) => Promise<{ HEAPF32: Float32Array; _malloc: (n: number) => number; _free: (p: number) => void }>;
  };
  const core = (await import(pathToFileURL(join(root, 'dist/core.js')).href)) as {
    createPosenc: (m: unknown, simd: boolean, instantiateModels: () => Promise<never>) => Posenc;
  };
  const m = await factory.default({ wasmBinary: readFileSync(join(root, `dist/wasm/posenc-${flavour}.wasm`)) });
  // Core calls only: no models module.
  const noModels = (): Promise<never> => Promise.reject(new Error('no models module in this test'));
  return { pe: core.createPosenc(m, simd, noModels), heapF32: () => m.HEAPF32, malloc: (n) => m._malloc(n), free: (p) => m._free(p) };
}

for (const [flavour, ready] of flavours) {
  describe(`memory (${flavour})`, () => {
    it(`${SOAK_CALLS} mixed calls, a tenth failing, leak neither heap nor handles`, async () => {
      const pe = await ready;
      const model = await pe.loadModel(shipped('language-rope'));
      try {
        const rnd = lcg(11);
        for (let i = 0; i < 1000; i++) await mixedCall(pe, i, rnd, model); // warm-up: the allocator's pools
        const before: MemoryStats = pe.memoryStats();
        assert.equal(before.modelsLoaded, true, 'both heaps are counted over the soak');
        let failed = 0;
        for (let i = 0; i < SOAK_CALLS; i++) {
          await mixedCall(pe, i, rnd, model);
          if (i % 10 === 9) failed++;
        }
        const after = pe.memoryStats();
        const delta = after.inUseBytes - before.inUseBytes;
        console.log(`RELIABILITY soak.${flavour}.calls=${SOAK_CALLS} soak.${flavour}.failing=${failed} soak.${flavour}.inUseDelta=${delta} soak.${flavour}.heapBytes=${before.heapBytes}->${after.heapBytes}`);
        assert.ok(Math.abs(delta) <= SOAK_BOUND, `heap in use moved by ${delta} bytes`);
        assert.deepEqual([after.kvCaches, after.models, after.trainers], [before.kvCaches, before.models, before.trainers], 'no handle leaks');
        assert.equal(after.models, before.models);
      } finally {
        model.delete();
      }
      assert.equal(pe.memoryStats().models, 0, 'the soak model is gone');
    });

    it('counts live handles: create, delete, and a dropped train() leave nothing', async () => {
      const pe = await ready;
      await pe.loadModels(); // so that s0 counts the models module's heap too
      const s0 = pe.memoryStats();
      const c = new pe.KvCache({ kvHeads: 1, headDim: 8 });
      const m = await pe.loadModel(shipped('word-order-nope'));
      assert.deepEqual([pe.memoryStats().kvCaches, pe.memoryStats().models], [s0.kvCaches + 1, s0.models + 1]);
      c.delete();
      m.delete();
      const ctl = new AbortController();
      const run = pe.train({ task: 'word-order', encoding: 'nope', steps: 50, dModel: 8, dFf: 8 }, { chunk: 5, signal: ctl.signal, onProgress: () => ctl.abort() });
      await assert.rejects(run);
      const s1 = pe.memoryStats();
      assert.deepEqual([s1.kvCaches, s1.models, s1.trainers], [s0.kvCaches, s0.models, s0.trainers]);
      assert.ok(Math.abs(s1.inUseBytes - s0.inUseBytes) <= SOAK_BOUND, `${s1.inUseBytes - s0.inUseBytes}`);
    });

    it('a request too big for wasm memory is a clear RangeError, and the module keeps working', async () => {
      const pe = await ready;
      await pe.loadModels(); // so that s0 counts the models module's heap too
      const s0 = pe.memoryStats();
      // About 2.7e9 parameters: 10.7 GB of float32, more than the 4 GiB a wasm32 memory can hold.
      await assert.rejects(
        pe.train({ task: 'language', encoding: 'rope', steps: 1, dModel: 2048, layers: 32, dFf: 16384, batch: 1, seqLen: 8 }),
        (e: Error) => e instanceof RangeError && /^out of memory: the wasm core could not allocate .* the module is still usable$/.test(e.message),
      );
      const s1 = pe.memoryStats();
      assert.deepEqual([s1.trainers, s1.models], [s0.trainers, s0.models]);
      assert.ok(Math.abs(s1.inUseBytes - s0.inUseBytes) <= SOAK_BOUND, `the failed call freed what it held: ${s1.inUseBytes - s0.inUseBytes}`);
      assert.deepEqual(Array.from(pe.alibiSlopes(2, { variant: 'simple' })), [1, 0.5]);
      console.log(`RELIABILITY oom.${flavour}=RangeError`);
    });

    it('the models module is loaded on first use (or by loadModels), and counted from then on', async () => {
      const pe = await init({ simd: flavour === 'simd' }); // fresh: the shared instance may have loaded it already
      const s0 = pe.memoryStats();
      assert.equal(s0.modelsLoaded, false, 'no model call yet');
      assert.deepEqual(Object.keys(s0).sort(), ['heapBytes', 'inUseBytes', 'kvCaches', 'models', 'modelsLoaded', 'trainers']);
      await pe.loadModels();
      const s1 = pe.memoryStats();
      assert.equal(s1.modelsLoaded, true);
      assert.deepEqual([s1.models, s1.trainers], [0, 0]);
      assert.ok(s1.heapBytes > s0.heapBytes, `heapBytes counts the models module's memory too (${s0.heapBytes} -> ${s1.heapBytes})`);
      assert.equal(pe.heapBytes(), s1.heapBytes);
      await pe.loadModels(); // loaded once: a second call changes nothing
      assert.equal(pe.heapBytes(), s1.heapBytes);
    });

    it('typed arrays viewing the module\'s own memory are copied before the call can grow it', async () => {
      const { pe, heapF32, malloc, free } = await rawModule(flavour === 'simd');
      const H = 8, T = 8192, D = 64, n = H * T * D; // 16 MiB
      const p = malloc(n * 4);
      try {
        const view = new Float32Array(heapF32().buffer, p, n);
        const rnd = lcg(5);
        for (let e = 0; e < n; e++) view[e] = rnd() - 0.5;
        const copy = view.slice();
        const heap0 = pe.heapBytes();
        // The input copy and the output need 2 * 16 MiB more: the call grows the memory, detaching `view`.
        const opts = { heads: H, seqLen: T, headDim: D, layout: 'half', offset: 7 } as const;
        const got = pe.applyRope(view, opts);
        assert.ok(pe.heapBytes() > heap0, `the call grew the memory (${heap0} -> ${pe.heapBytes()})`);
        assert.equal(view.length, 0, 'so the view was detached during the call');
        assert.deepEqual(got, pe.applyRope(copy, opts));
        const x = new Float32Array(heapF32().buffer, p, 2 * 4 * 16);
        x.set(copy.subarray(0, x.length));
        const attn = { heads: 2, queryLength: 4, keyLength: 4, headDim: 16, causal: true } as const;
        assert.deepEqual(pe.attention({ q: x, k: x, v: x, ...attn }).out, pe.attention({ q: x.slice(), k: x.slice(), v: x.slice(), ...attn }).out);
        // The same for the model and the cache entry points that take arrays.
        const v2 = new Float32Array(heapF32().buffer, p, 2 * 16);
        v2.set(copy.subarray(0, 32));
        const c = new pe.KvCache({ kvHeads: 1, headDim: 16 });
        try {
          c.append(v2, v2);
          assert.equal(c.length, 2);
        } finally {
          c.delete();
        }
      } finally {
        free(p);
      }
    });
  });
}
