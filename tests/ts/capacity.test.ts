/**
 * Output capacities: every raw binding that writes into a caller's buffer
 * takes the buffer's capacity and checks it in C++ before writing. Called
 * through the raw modules (bypassing the TypeScript layer) with an output
 * one element too small, each returns an error naming the buffer and both
 * sizes, and leaves the buffer and the bytes past it untouched. Both wasm
 * flavours, both modules.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type * as Internal from '../../bindings/ts/internal.js';
import type { RawCommon, RawModels, RawModule, RawTinyModel } from '../../bindings/ts/raw.js';
import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const { rawModels, rawModule } = (await import(pathToFileURL(join(root, 'dist/internal.js')).href)) as typeof Internal;
const shipped = (name: string): Uint8Array => readFileSync(join(root, 'web/models', `${name}.safetensors`));

/** Bytes checked past each output buffer. */
const GUARD = 64;
const FILL = 0xab;

/** A buffer of `bytes` followed by GUARD bytes, all set to FILL, in m's heap; freed by the caller's `free`. */
class Buffers {
  readonly #m: RawCommon;
  readonly #live: Array<[number, number]> = [];
  constructor(m: RawCommon) {
    this.#m = m;
  }
  /** An output buffer of `bytes`, guarded. */
  out(bytes: number): number {
    const p = this.#m._malloc(bytes + GUARD);
    this.#m.HEAPU8.fill(FILL, p, p + bytes + GUARD);
    this.#live.push([p, bytes + GUARD]);
    return p;
  }
  /** An input of float32 values (or int32 when `ints`). */
  input(values: ArrayLike<number>, ints = false): number {
    const p = this.#m._malloc(values.length * 4 + 8);
    if (ints) this.#m.HEAP32.set(values, p >>> 2);
    else this.#m.HEAPF32.set(values, p >>> 2);
    return p;
  }
  /** True when every output buffer still holds only FILL. */
  untouched(): boolean {
    return this.#live.every(([p, n]) => this.#m.HEAPU8.subarray(p, p + n).every((b) => b === FILL));
  }
  free(): void {
    for (const [p] of this.#live) this.#m._free(p);
  }
}

/** A raw call with outputs one element short: its message names the buffer, what it needs and what it got. */
function refuses(m: RawCommon, call: (b: Buffers) => string, message: RegExp): void {
  const b = new Buffers(m);
  try {
    const err = call(b);
    assert.match(err, message);
    assert.ok(b.untouched(), 'nothing is written into the buffer or past it');
  } finally {
    b.free();
  }
}

/** The core module's defaults of a rotation for a head of `headDim`. */
function rotation(m: RawModule, headDim: number, seqLen: number) {
  const d = m.defaultRopeApply();
  return { ...d, freq: { ...d.freq, headDim, rotaryDim: headDim, scaling: { ...d.freq.scaling }, mropeSection: [] }, heads: 1, seqLen };
}

for (const [flavour, ready] of flavours) {
  describe(`output capacities are checked in C++ (${flavour})`, () => {
    it('core module: RoPE, the encodings, attention and the KV cache', async () => {
      const m = rawModule(await ready);
      const x = Array.from({ length: 2 * 3 * 4 }, (_, i) => i / 10);
      refuses(m, (b) => m.ropeApply({ ...rotation(m, 4, 3), heads: 2 }, b.input(x), 24, b.out(23 * 4), 23),
        /^out must hold 24 floats, got a buffer of 23$/);
      refuses(m, (b) => m.ropeCache(rotation(m, 4, 3), b.out(5 * 4), b.out(5 * 4), 5),
        /^cos and sin must each hold seqLen \* rotaryDim \/ 2 = 3 \* 2 = 6 floats, got buffers of 5$/);
      refuses(m, (b) => m.ropeFrequencies(rotation(m, 8, 1).freq, 0, b.out(3 * 4), 3, b.out(8)),
        /^invFreq must hold 4 floats, got a buffer of 3$/);
      refuses(m, (b) => m.sinusoidal(3, 4, 10000, 0, b.out(11 * 4), 11), /^out must hold 12 floats, got a buffer of 11$/);
      refuses(m, (b) => m.alibiSlopes(4, 0, b.out(3 * 4), 3), /^out must hold 4 floats, got a buffer of 3$/);
      refuses(m, (b) => m.alibiBias(2, 0, 3, 3, true, b.out(17 * 4), 17), /^out must hold 18 floats, got a buffer of 17$/);
      refuses(m, (b) => m.t5Buckets(3, 3, 0, m.t5NumBuckets, m.t5MaxDistance, true, b.out(8 * 4), 8),
        /^out must hold 9 ints, got a buffer of 8$/);
      const table = new Array(m.t5NumBuckets * 2).fill(0.5);
      refuses(m, (b) => m.t5Bias(b.input(table), 2, 3, 3, 0, m.t5NumBuckets, m.t5MaxDistance, true, b.out(17 * 4), 17),
        /^out must hold 18 floats, got a buffer of 17$/);
      refuses(m, (b) => m.shawIndices(3, 3, 1, b.out(8 * 4), 8), /^out must hold 9 ints, got a buffer of 8$/);
      const q = b3x4();
      refuses(m, (b) => m.shawLogits(b.input(q), b.input(q), b.input(q), 3, 3, 4, 1, 0.5, b.out(8 * 4), 8),
        /^out must hold 9 floats, got a buffer of 8$/);
      refuses(m, (b) => m.shawValues(b.input(q.slice(0, 9)), b.input(q), b.input(q), 3, 3, 4, 1, b.out(11 * 4), 11),
        /^out must hold 12 floats, got a buffer of 11$/);
      refuses(m, (b) => m.learnedPositions(b.input(q), 3, 4, b.input([0, 1, 2], true), 3, b.out(11 * 4), 11),
        /^out must hold 12 floats, got a buffer of 11$/);
      refuses(m, (b) => m.xposScales(b.input([0, 1, 2], true), 3, 4, m.xposScaleBase, 0, false, b.out(5 * 4), 5),
        /^out must hold 6 floats, got a buffer of 5$/);
      const shape = { ...m.defaultAttention(), heads: 1, kvHeads: 1, queryLength: 3, keyLength: 3, headDim: 4 };
      refuses(m, (b) => m.attention(shape, b.input(q), b.input(q), b.input(q), b.out(11 * 4), 11, 0),
        /^out must hold 12 floats, got a buffer of 11$/);
      refuses(m, (b) => {
        const weights = b.out(8 * 4);
        return m.attention({ ...shape, weights }, b.input(q), b.input(q), b.input(q), b.out(12 * 4), 12, 8);
      }, /^weights must hold 9 floats, got a buffer of 8$/);
      const cache = new m.KvCache(1, 4, m.defaultAttention().rope, false);
      try {
        const b = new Buffers(m);
        try {
          assert.equal(cache.append(b.input(q), b.input(q), 3, 0), '');
        } finally {
          b.free();
        }
        refuses(m, (b) => cache.attend({ ...shape, queryLength: 2 }, b.input(q), 0, b.out(7 * 4), 7, 0),
          /^out must hold 8 floats, got a buffer of 7$/);
      } finally {
        cache.delete();
      }
    });

    it('models module: forward, generate, evaluate, save, training steps and task references', async () => {
      const mm: RawModels = await rawModels(await ready);
      const bytes = shipped('language-rope');
      const pb = mm._malloc(bytes.length);
      mm.HEAPU8.set(bytes, pb);
      const model = new mm.TinyModel(pb, bytes.length);
      mm._free(pb);
      try {
        assert.equal(model.error(), '');
        const V = model.config().vocab;
        const L = model.config().layers;
        const H = model.config().heads;
        const spec = rawModule(await ready).defaultRopeConfig();
        refuses(mm, (b) => model.forward(b.input([1, 5, 6], true), 3, b.out((3 * V - 1) * 4), 3 * V - 1, 0, 0, 0, spec, 'none'),
          new RegExp(`^logits must hold ${3 * V} floats, got a buffer of ${3 * V - 1}$`));
        const maps = L * H * 9;
        refuses(mm, (b) => model.forward(b.input([1, 5, 6], true), 3, b.out(3 * V * 4), 3 * V, b.out((maps - 1) * 4), maps - 1, 0, spec, 'none'),
          new RegExp(`^attentionMaps must hold ${maps} floats, got a buffer of ${maps - 1}$`));
        refuses(mm, (b) => model.generate(b.input([1, 5], true), 2, 4, 0, 1, 0, spec, 'none', true, b.out(3 * 4), 3),
          /^out must hold 4 ints, got a buffer of 3$/);
        refuses(mm, (b) => model.evaluate(8, 1, 1, 0, spec, 'none', 0, b.out(10 * 8), 10), /^out must hold 11 doubles, got a buffer of 10$/);
        const n = model.saveSize();
        refuses(mm, (b) => model.saveInto(b.out(n - 1), n - 1), new RegExp(`^the save buffer must hold ${n} bytes, got a buffer of ${n - 1}$`));
        refuses(mm, (b) => mm.taskReference('language', b.out(8 * 8), 8), /^out must hold 9 doubles, got a buffer of 8$/);
        const trainer = new mm.Trainer({ ...mm.defaultTrainRequest(), steps: 4, dModel: 16, heads: 2, dFf: 16, seqLen: 16, batch: 2 });
        try {
          assert.equal(trainer.error(), '');
          refuses(mm, (b) => trainer.step(2, b.out(7 * 8), 7), /^out must hold 8 doubles, got a buffer of 7$/);
          // The data-parallel calls: a gradient has one float per weight (counted from the saved file's tensors).
          const P = weightCount(mm, trainer.model());
          assert.equal(trainer.beginStep(), '');
          refuses(mm, (b) => trainer.blockGradient(0, 1, b.out((P - 1) * 4), P - 1, b.out(8), 1),
            new RegExp(`^grad must hold ${P} floats, got a buffer of ${P - 1}$`));
          refuses(mm, (b) => trainer.blockGradient(0, 1, b.out(P * 4), P, b.out(0), 0), /^loss must hold 1 doubles, got a buffer of 0$/);
          // A block past the batch's micro-batches (batch 2: one).
          refuses(mm, (b) => trainer.blockGradient(0, 2, b.out(P * 4), P, b.out(8), 1), /^micro-batches \[0, 2\) must be integers in \[0, 1\) and not empty$/);
          refuses(mm, (b) => trainer.applyGradient(b.input(new Float32Array(P)), P, 0, b.out(3 * 8), 3), /^out must hold 4 doubles, got a buffer of 3$/);
          // Rows of P floats, at most one per micro-batch (here one): not P - 1, 0 or 2 · P.
          for (const n of [P - 1, 0, 2 * P]) {
            refuses(mm, (b) => trainer.applyGradient(b.input(new Float32Array(Math.max(n, 1))), n, 0, b.out(4 * 8), 4),
              new RegExp(`^grad must have k · ${P} floats \\(k gradients, 1 <= k <= 1\\), got ${n}$`));
          }
        } finally {
          trainer.delete();
        }
      } finally {
        model.delete();
      }
    });
  });
}

/** The weights of a raw model (freed here): the element counts of its safetensors file's tensors. */
function weightCount(mm: RawModels, model: RawTinyModel): number {
  try {
    const n = model.saveSize();
    const p = mm._malloc(n);
    try {
      assert.equal(model.saveInto(p, n), '');
      const bytes = mm.HEAPU8.slice(p, p + n);
      const len = Number(new DataView(bytes.buffer).getBigUint64(0, true));
      const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + len))) as Record<string, { shape?: number[] }>;
      return Object.entries(header).filter(([k]) => k !== '__metadata__')
        .reduce((s, [, t]) => s + (t.shape ?? []).reduce((a, d) => a * d, 1), 0);
    } finally {
      mm._free(p);
    }
  } finally {
    model.delete();
  }
}

/** 12 floats: a [3, 4] tensor. */
function b3x4(): number[] {
  return Array.from({ length: 12 }, (_, i) => (i % 5) / 5 - 0.4);
}
