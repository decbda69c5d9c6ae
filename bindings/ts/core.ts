/**
 * The API object over one Emscripten instance. This file (with the loaders)
 * is the only code that touches the module's heap: every call allocates its
 * buffers, copies inputs in with one `set`, calls the core, copies outputs
 * out and frees, so no view over wasm memory ever escapes to the caller.
 */
import type {
  AlibiBiasOptions,
  AttentionOptions,
  AttentionResult,
  AttentionRopeOptions,
  KvCache,
  KvCacheAttendOptions,
  KvCacheOptions,
  MemoryStats,
  AlibiVariant,
  ApplyRopeOptions,
  LearnedOptions,
  Posenc,
  RerotateOptions,
  RopeFrequencies,
  RopeFrequencyOptions,
  RopeLayout,
  RopeScaling,
  ShawLogitsOptions,
  ShawOptions,
  ShawValuesOptions,
  SinusoidalOptions,
  T5BiasOptions,
  T5BucketOptions,
  XposScaleOptions,
} from './types.js';
import {
  checkElements,
  f32,
  i32,
  int,
  num,
  oneOf,
  optBool,
  optInt,
  optNum,
  requireObject,
} from './validate.js';
import { modelApi } from './model.js';
import type { RawTinyModel, RawTrainerClass } from './model.js';

/** The value object `RopeSpec` of bindings/embind.cc. */
interface RopeSpec {
  headDim: number;
  rotaryDim: number;
  base: number;
  scaling: string;
  factor: number;
  originalMaxPositionEmbeddings: number;
  maxPositionEmbeddings: number;
  betaFast: number;
  betaSlow: number;
  truncate: boolean;
  mscale: number;
  mscaleAllDim: number;
  attentionFactor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  shortFactor: number;
  longFactor: number;
  factorLength: number;
}

/** The value object `AttentionSpec` of bindings/embind.cc (addresses 0 = absent). */
interface AttentionSpec {
  heads: number;
  kvHeads: number;
  queryLength: number;
  keyLength: number;
  headDim: number;
  scale: number;
  causal: boolean;
  queryOffset: number;
  window: number;
  keyMask: number;
  alibiSlopes: number;
  t5Table: number;
  t5Buckets: number;
  t5MaxDistance: number;
  t5Bidirectional: boolean;
  shawK: number;
  shawV: number;
  shawClip: number;
  bias: number;
  rope: boolean;
  ropeLayout: number;
  qPositions: number;
  kPositions: number;
  positionsFromMask: boolean;
  xpos: boolean;
  xposScaleBase: number;
  weights: number;
}

/** The Embind `KvCache` handle. */
interface RawKvCache {
  error(): string;
  append(k: number, v: number, n: number, positions: number): string;
  attend(spec: AttentionSpec, q: number, qPositions: number, out: number): string;
  shift(delta: number): string;
  length(): number;
  delete(): void;
}

/** What the Emscripten module exposes (see bindings/embind.cc). */
export interface RawModule {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  ropeFrequencies(spec: RopeSpec, seqLen: number, outFreq: number, outFactor: number): string;
  ropeApply(
    spec: RopeSpec, layout: number, x: number, xLen: number, out: number, heads: number, seqLen: number,
    positions: number, offset: number, pureRotation: boolean, xpos: boolean, xposScaleBase: number,
    xposCenter: number, xposKey: boolean, contextLength: number,
  ): string;
  sinusoidal(length: number, dim: number, base: number, layout: number, out: number): string;
  alibiSlopes(heads: number, variant: number, out: number): string;
  alibiBias(heads: number, variant: number, q: number, k: number, causal: boolean, out: number): string;
  t5Buckets(q: number, k: number, qOffset: number, numBuckets: number, maxDistance: number, bidirectional: boolean, out: number): string;
  t5Bias(table: number, heads: number, q: number, k: number, qOffset: number, numBuckets: number, maxDistance: number, bidirectional: boolean, out: number): string;
  shawIndices(q: number, k: number, clip: number, out: number): string;
  shawLogits(q: number, k: number, tableK: number, Q: number, K: number, D: number, clip: number, scale: number, out: number): string;
  shawValues(probs: number, v: number, tableV: number, Q: number, K: number, D: number, clip: number, out: number): string;
  learnedPositions(table: number, maxLength: number, dim: number, positions: number, T: number, out: number): string;
  xposScales(positions: number, T: number, rotaryDim: number, scaleBase: number, center: number, key: boolean, out: number): string;
  attention(spec: AttentionSpec, rope: RopeSpec, q: number, k: number, v: number, out: number): string;
  KvCache: new (kvHeads: number, headDim: number, rope: boolean, spec: RopeSpec, layout: number, xpos: boolean, xposScaleBase: number) => RawKvCache;
  TinyModel: new (bytes: number, n: number) => RawTinyModel;
  Trainer: RawTrainerClass;
  sampleTask(task: string, length: number, seed: number, cap: number, tokens: number, targets: number, count: number): string;
  taskReference(task: string, out: number): string;
  target(): string;
  benchRope(H: number, T: number, d: number, layout: number, iters: number): void;
  benchCopy(iters: number): void;
  benchPeak(iters: number): number;
  memoryStats(): string;
}

const LAYOUTS: readonly RopeLayout[] = ['half', 'interleaved'];
const SCALINGS = ['default', 'linear', 'ntk', 'dynamic', 'yarn', 'longrope', 'llama3'] as const;
const ALIBI_VARIANTS: readonly AlibiVariant[] = ['paper', 'simple'];

/** Allocations of one call, freed together. */
export class Frame {
  private readonly ptrs: number[] = [];
  constructor(private readonly m: RawModule) {}

  alloc(bytes: number): number {
    const p = this.m._malloc(Math.max(bytes, 8));
    if (p === 0) {
      throw new RangeError(`out of memory: could not allocate ${bytes} bytes in the wasm heap (now ${this.m.HEAPU8.length} bytes)`);
    }
    this.ptrs.push(p);
    return p;
  }
  /** Allocates and copies a typed array in. */
  f32(a: Float32Array): number {
    const p = this.alloc(a.length * 4);
    this.m.HEAPF32.set(a, p >> 2);
    return p;
  }
  i32(a: Int32Array): number {
    const p = this.alloc(a.length * 4);
    this.m.HEAP32.set(a, p >> 2);
    return p;
  }
  f64(a: ArrayLike<number>): number {
    const p = this.alloc(a.length * 8);
    this.m.HEAPF64.set(a, p >> 3);
    return p;
  }
  free(): void {
    for (const p of this.ptrs) this.m._free(p);
    this.ptrs.length = 0;
  }
}

/** `contextLength`: an integer (its range is checked in C++); omitted = -1, derived. */
function optContextLength(v: unknown): number {
  if (v === undefined) return -1;
  const n = num('contextLength', v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`contextLength must be an integer, got ${n}`);
  return n;
}

/** The error a failed allocation inside the core becomes (see guardModule). */
function outOfMemory(m: RawModule): RangeError {
  return new RangeError(
    `out of memory: the wasm core could not allocate what this call needs (heap now ${m.HEAPU8.length} bytes, ` +
      'at most 4 GiB); the call was undone and the module is still usable',
  );
}

/**
 * A failed allocation in C++ throws std::bad_alloc, which unwinds (freeing
 * what the call held) out of wasm as a WebAssembly.Exception: every entry
 * point of the raw module, functions and class methods alike, turns it into
 * a RangeError here. (The core throws nothing else.)
 */
function guardModule(m: RawModule): void {
  // WebAssembly.Exception is not in TypeScript's DOM types yet.
  const WasmException = (WebAssembly as unknown as { Exception?: abstract new (...a: never[]) => object }).Exception;
  const isWasmException = (e: unknown): boolean => WasmException !== undefined && e instanceof WasmException;
  const wrap = <F extends (...a: never[]) => unknown>(f: F): F =>
    function (this: unknown, ...a: never[]) {
      try {
        return f.apply(this, a);
      } catch (e) {
        throw isWasmException(e) ? outOfMemory(m) : e;
      }
    } as F;
  const raw = m as unknown as Record<string, unknown>;
  for (const name of ['attention', 'ropeFrequencies', 'ropeApply', 'sinusoidal', 'alibiSlopes', 'alibiBias', 't5Buckets',
    't5Bias', 'shawIndices', 'shawLogits', 'shawValues', 'learnedPositions', 'xposScales', 'sampleTask', 'taskReference', 'benchRope', 'benchCopy',
    'benchPeak']) {
    if (typeof raw[name] === 'function') raw[name] = wrap(raw[name] as (...a: never[]) => unknown);
  }
  for (const name of ['KvCache', 'TinyModel', 'Trainer']) {
    const C = raw[name] as (new (...a: never[]) => object) | undefined;
    if (typeof C !== 'function') continue;
    const proto = C.prototype as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      if (key !== 'constructor' && d && typeof d.value === 'function') proto[key] = wrap(d.value as (...a: never[]) => unknown);
    }
    const Guarded = function (...a: never[]) {
      try {
        return new C(...a);
      } catch (e) {
        throw isWasmException(e) ? outOfMemory(m) : e;
      }
    };
    Guarded.prototype = C.prototype;
    raw[name] = Guarded;
  }
}

export function createPosenc(m: RawModule, simd: boolean): Posenc {
  guardModule(m);
  /**
   * Arrays that are views over this module's memory are copied first: the
   * allocations of the call may grow (and detach) that memory.
   */
  const own = <T extends Float32Array | Int32Array>(a: T): T =>
    (a.buffer === m.HEAPU8.buffer ? a.slice() : a) as T;

  /** A Float32Array input of the given named dims, copied if it views wasm memory. */
  const tensor = (name: string, v: unknown, dims: Array<[string, number]>): Float32Array => {
    const n = checkElements(name, dims, 4);
    const text = `${dims.map(([k]) => k).join(' * ')} = ${dims.map(([, d]) => d).join(' * ')}`;
    return own(f32(name, v, n, text));
  };

  const call = <T>(fn: (f: Frame) => T): T => {
    const frame = new Frame(m);
    try {
      return fn(frame);
    } finally {
      frame.free();
    }
  };
  const check = (err: string): void => {
    if (err !== '') throw new RangeError(err);
  };
  const readF32 = (p: number, n: number): Float32Array => m.HEAPF32.slice(p >> 2, (p >> 2) + n);
  const readI32 = (p: number, n: number): Int32Array => m.HEAP32.slice(p >> 2, (p >> 2) + n);

  /** Validates the frequency options and builds the RopeSpec (factor lists copied into `f`). */
  /** Default frequencies, not validated (callers check the dims). */
  function defaultRopeSpec(headDim: number, rotaryDim: number, base: number): RopeSpec {
    return {
      headDim, rotaryDim, base, scaling: 'default', factor: 1, originalMaxPositionEmbeddings: 0,
      maxPositionEmbeddings: 0, betaFast: 32, betaSlow: 1, truncate: true, mscale: 0, mscaleAllDim: 0,
      attentionFactor: NaN, lowFreqFactor: 1, highFreqFactor: 4, shortFactor: 0, longFactor: 0, factorLength: 0,
    };
  }

  function ropeSpec(f: Frame, o: Record<string, unknown>): { spec: RopeSpec; rotaryDim: number } {
    const headDim = int('headDim', o.headDim, 1);
    const rotaryDim = optInt('rotaryDim', o.rotaryDim, headDim, 2);
    if (rotaryDim > headDim) throw new RangeError(`rotaryDim (${rotaryDim}) must not exceed headDim (${headDim})`);
    if (rotaryDim % 2 !== 0) {
      throw new RangeError(
        o.rotaryDim === undefined
          ? `headDim must be even when rotaryDim is not given (RoPE rotates pairs), got ${headDim}; pass an even rotaryDim for partial rotary`
          : `rotaryDim must be even (RoPE rotates pairs), got ${rotaryDim}`,
      );
    }
    const spec = defaultRopeSpec(headDim, rotaryDim, optNum('base', o.base, 10000, { gt: 1 }));
    if (o.scaling === undefined) return { spec, rotaryDim };
    const s = requireObject('scaling', o.scaling);
    const type = oneOf('scaling.type', s.type, SCALINGS);
    spec.scaling = type;
    if (type === 'default') return { spec, rotaryDim };
    const required = (key: string): unknown => {
      if (s[key] === undefined) throw new TypeError(`scaling.${key} is required for scaling type '${type}'`);
      return s[key];
    };
    spec.factor = num('scaling.factor', required('factor'), { gt: 0 });
    if (type === 'dynamic') {
      spec.maxPositionEmbeddings = int('scaling.maxPositionEmbeddings', required('maxPositionEmbeddings'), 1);
    }
    if (type === 'yarn' || type === 'longrope' || type === 'llama3') {
      spec.originalMaxPositionEmbeddings = int(
        'scaling.originalMaxPositionEmbeddings', required('originalMaxPositionEmbeddings'), 1);
    }
    if (type === 'yarn') {
      spec.betaFast = optNum('scaling.betaFast', s.betaFast, 32, { gt: 0 });
      spec.betaSlow = optNum('scaling.betaSlow', s.betaSlow, 1, { gt: 0 });
      spec.truncate = optBool('scaling.truncate', s.truncate, true);
      spec.mscale = optNum('scaling.mscale', s.mscale, 0, { ge: 0 });
      spec.mscaleAllDim = optNum('scaling.mscaleAllDim', s.mscaleAllDim, 0, { ge: 0 });
    }
    if (type === 'yarn' || type === 'longrope') {
      spec.attentionFactor = optNum('scaling.attentionFactor', s.attentionFactor, NaN, { gt: 0 });
    }
    if (type === 'longrope') {
      const lists: Array<['shortFactor' | 'longFactor', unknown]> = [
        ['shortFactor', required('shortFactor')],
        ['longFactor', required('longFactor')],
      ];
      for (const [key, v] of lists) {
        if (typeof v !== 'object' || v === null || typeof (v as ArrayLike<number>).length !== 'number') {
          throw new TypeError(`scaling.${key} must be an array of numbers, got ${typeof v}`);
        }
        const a = v as ArrayLike<number>;
        if (a.length !== rotaryDim / 2) {
          throw new RangeError(`scaling.${key} must have rotaryDim/2 = ${rotaryDim / 2} values, got ${a.length}`);
        }
        for (let i = 0; i < a.length; i++) num(`scaling.${key}[${i}]`, a[i], { gt: 0 });
        spec[key] = f.f64(a);
      }
      spec.factorLength = rotaryDim / 2;
    }
    if (type === 'llama3') {
      spec.lowFreqFactor = num('scaling.lowFreqFactor', required('lowFreqFactor'), { gt: 0 });
      spec.highFreqFactor = num('scaling.highFreqFactor', required('highFreqFactor'), { gt: 0 });
      if (!(spec.highFreqFactor > spec.lowFreqFactor)) {
        throw new RangeError(
          `scaling.highFreqFactor (${spec.highFreqFactor}) must be greater than scaling.lowFreqFactor (${spec.lowFreqFactor})`);
      }
    }
    return { spec, rotaryDim };
  }

  function rope(xIn: unknown, options: unknown, pure: boolean): Float32Array {
    const o = requireObject('options', options);
    const heads = int('heads', o.heads, 1);
    const seqLen = int('seqLen', o.seqLen, 0);
    const layout = oneOf('layout', o.layout, LAYOUTS);
    const contextLength = optContextLength(o.contextLength);
    return call((f) => {
      const { spec } = ropeSpec(f, o);
      const x = tensor('x', xIn, [['heads', heads], ['seqLen', seqLen], ['headDim', spec.headDim]]);
      const n = x.length;
      let positions = 0;
      let offset = 0;
      let xpos = false;
      let xposScaleBase = 512;
      let xposCenter = 0;
      let xposKey = false;
      if (pure) {
        const delta = int('delta', o.delta, -2147483648, 2147483647);
        positions = f.i32(new Int32Array(seqLen).fill(delta));
      } else {
        if (o.positions !== undefined && o.offset !== undefined) {
          throw new TypeError('pass either positions or offset, not both');
        }
        if (o.positions !== undefined) {
          const p = own(i32('positions', o.positions, seqLen, 'seqLen'));
          positions = f.i32(p);
        }
        offset = optInt('offset', o.offset, 0, -2147483648, 2147483647 - Math.max(seqLen - 1, 0));
        if (o.xpos !== undefined) {
          const xo = requireObject('xpos', o.xpos);
          xpos = true;
          xposScaleBase = optNum('xpos.scaleBase', xo.scaleBase, 512, { gt: 0 });
          xposCenter = optInt('xpos.center', xo.center, 0, -2147483648);
          if (typeof xo.key !== 'boolean') throw new TypeError(`xpos.key must be a boolean, got ${String(xo.key)}`);
          xposKey = xo.key;
        }
      }
      const px = f.f32(x);
      const out = f.alloc(n * 4);
      check(m.ropeApply(spec, LAYOUTS.indexOf(layout), px, n, out, heads, seqLen, positions, offset, pure,
        xpos, xposScaleBase, xposCenter, xposKey, contextLength));
      return readF32(out, n);
    });
  }

  /** A RoPE spec from the options of an attention call (defaults when absent). */
  function attentionRope(f: Frame, r: unknown, headDim: number): { spec: RopeSpec; layout: number; xposBase: number; xpos: boolean } {
    // Without RoPE the core ignores the spec: any head dim (odd too) is fine.
    if (r === undefined) return { spec: defaultRopeSpec(headDim, headDim, 10000), layout: 0, xposBase: 512, xpos: false };
    const o = requireObject('rope', r);
    const layout = LAYOUTS.indexOf(oneOf('rope.layout', o.layout, LAYOUTS));
    const { spec } = ropeSpec(f, { headDim, rotaryDim: o.rotaryDim, base: o.base, scaling: o.scaling });
    let xposBase = 512;
    if (o.xpos !== undefined) xposBase = optNum('rope.xpos.scaleBase', requireObject('rope.xpos', o.xpos).scaleBase, 512, { gt: 0 });
    return { spec, layout, xposBase, xpos: o.xpos !== undefined };
  }

  /** Validates the masks and bias encodings of one call and copies their arrays in. */
  function attentionSpec(f: Frame, o: Record<string, unknown>, shape: {
    heads: number; kvHeads: number; queryLength: number; keyLength: number; headDim: number;
  }): { spec: AttentionSpec; weights: boolean } {
    const { heads, queryLength: Tq, keyLength: Tk, headDim: D } = shape;
    const causal = optBool('causal', o.causal, true);
    const spec: AttentionSpec = {
      ...shape, scale: optNum('scale', o.scale, 0, { gt: 0 }), causal,
      queryOffset: optInt('queryOffset', o.queryOffset, -1, 0, 1 << 24),
      window: optInt('window', o.window, 0, 1, 1 << 24),
      keyMask: 0, alibiSlopes: 0, t5Table: 0, t5Buckets: 32, t5MaxDistance: 128, t5Bidirectional: !causal,
      shawK: 0, shawV: 0, shawClip: 0, bias: 0, rope: false, ropeLayout: 0, qPositions: 0, kPositions: 0,
      positionsFromMask: false, xpos: false, xposScaleBase: 512, weights: 0,
    };
    if (o.queryOffset === undefined && Tq > Tk) {
      throw new RangeError(`queryLength (${Tq}) must not exceed keyLength (${Tk}) unless queryOffset is given`);
    }
    if (o.keyPadding !== undefined) {
      const m = o.keyPadding;
      if (!(m instanceof Uint8Array)) throw new TypeError(`keyPadding must be a Uint8Array, got ${typeof m}`);
      if (m.length !== Tk) throw new RangeError(`keyPadding must have keyLength = ${Tk} elements, got ${m.length}`);
      const p = f.alloc(Tk);
      m.buffer === rawHeap().buffer ? rawHeap().set(m.slice(), p) : rawHeap().set(m, p);
      spec.keyMask = p;
    }
    if (o.alibi !== undefined && o.alibi !== false) {
      if (o.alibi === true) {
        spec.alibiSlopes = f.alloc(heads * 4);
        check(m.alibiSlopes(heads, 0, spec.alibiSlopes));
      } else {
        const a = requireObject('alibi', o.alibi);
        if (a.slopes !== undefined) {
          const sl = tensor('alibi.slopes', a.slopes, [['heads', heads]]);
          for (let h = 0; h < heads; h++) num(`alibi.slopes[${h}]`, sl[h]);
          spec.alibiSlopes = f.f32(sl);
        } else {
          const variant = a.variant === undefined ? 'paper' : oneOf('alibi.variant', a.variant, ALIBI_VARIANTS);
          spec.alibiSlopes = f.alloc(heads * 4);
          check(m.alibiSlopes(heads, ALIBI_VARIANTS.indexOf(variant), spec.alibiSlopes));
        }
      }
    }
    if (o.t5 !== undefined) {
      const t = requireObject('t5', o.t5);
      const { nb, md, bidir } = t5Args({ queryLength: 0, keyLength: 0, numBuckets: t.numBuckets, maxDistance: t.maxDistance,
        bidirectional: t.bidirectional ?? !causal });
      spec.t5Table = f.f32(tensor('t5.table', t.table, [['numBuckets', nb], ['heads', heads]]));
      spec.t5Buckets = nb;
      spec.t5MaxDistance = md;
      spec.t5Bidirectional = bidir;
    }
    if (o.shaw !== undefined) {
      const sh = requireObject('shaw', o.shaw);
      const clip = int('shaw.clip', sh.clip, 0, 1 << 20);
      spec.shawClip = clip;
      spec.shawK = f.f32(tensor('shaw.tableK', sh.tableK, [['(2 * clip + 1)', 2 * clip + 1], ['headDim', D]]));
      if (sh.tableV !== undefined) {
        spec.shawV = f.f32(tensor('shaw.tableV', sh.tableV, [['(2 * clip + 1)', 2 * clip + 1], ['headDim', D]]));
      }
    }
    if (o.bias !== undefined) {
      spec.bias = f.f32(tensor('bias', o.bias, [['heads', heads], ['queryLength', Tq], ['keyLength', Tk]]));
    }
    const weights = optBool('returnWeights', o.returnWeights, false);
    if (weights) {
      checkElements('weights', [['heads', heads], ['queryLength', Tq], ['keyLength', Tk]], 4);
      spec.weights = f.alloc(heads * Tq * Tk * 4);
    }
    return { spec, weights };
  }
  const rawHeap = (): Uint8Array => m.HEAPU8;

  function finishAttention(spec: AttentionSpec, out: number, weights: boolean): AttentionResult {
    const res: AttentionResult = { out: readF32(out, spec.heads * spec.queryLength * spec.headDim) };
    if (weights) res.weights = readF32(spec.weights, spec.heads * spec.queryLength * spec.keyLength);
    return res;
  }

  const registry = typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry<RawKvCache>((h) => h.delete())
    : undefined;
  const dispose: symbol = (Symbol as unknown as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose');

  class KvCacheImpl implements KvCache {
    #h: RawKvCache | undefined;
    readonly #kvHeads: number;
    readonly #headDim: number;
    readonly #token = {};

    constructor(options: KvCacheOptions) {
      const o = requireObject('options', options);
      this.#kvHeads = int('kvHeads', o.kvHeads, 1, 65536);
      this.#headDim = int('headDim', o.headDim, 1, 65536);
      this.#h = call((f) => {
        const r = attentionRope(f, o.rope, this.#headDim);
        const h = new m.KvCache(this.#kvHeads, this.#headDim, o.rope !== undefined, r.spec, r.layout, r.xpos, r.xposBase);
        const err = h.error();
        if (err !== '') {
          h.delete();
          throw new RangeError(err);
        }
        return h;
      });
      registry?.register(this, this.#h, this.#token);
    }

    #handle(what: string): RawKvCache {
      if (this.#h === undefined) throw new TypeError(`KvCache.${what}: this cache has been deleted`);
      return this.#h;
    }

    get length(): number {
      return this.#handle('length').length();
    }

    append(k: Float32Array, v: Float32Array, options?: { positions?: Int32Array }): void {
      const h = this.#handle('append()');
      const o = options === undefined ? {} : requireObject('options', options);
      const ki = own(f32('k', k));
      if (ki.length === 0 && ki.buffer.byteLength === 0 && f32('v', v).length > 0) {
        throw new RangeError('k has 0 elements and v does not (is the buffer of k detached?)');
      }
      const n = ki.length / (this.#kvHeads * this.#headDim);
      if (!Number.isInteger(n)) {
        throw new RangeError(`k must have kvHeads * n * headDim = ${this.#kvHeads} * n * ${this.#headDim} elements, got ${ki.length}`);
      }
      const vi = tensor('v', v, [['kvHeads', this.#kvHeads], ['n', n], ['headDim', this.#headDim]]);
      call((f) => {
        const pos = o.positions === undefined ? 0 : f.i32(own(i32('positions', o.positions, n, 'n')));
        check(h.append(f.f32(ki), f.f32(vi), n, pos));
      });
    }

    attend(q: Float32Array, options: KvCacheAttendOptions): AttentionResult {
      const h = this.#handle('attend()');
      const o = requireObject('options', options);
      const heads = int('heads', o.heads, 1, 65536);
      if (heads % this.#kvHeads !== 0) throw new RangeError(`kvHeads (${this.#kvHeads}) must divide heads (${heads})`);
      const Tq = int('queryLength', o.queryLength, 0);
      const qi = tensor('q', q, [['heads', heads], ['queryLength', Tq], ['headDim', this.#headDim]]);
      return call((f) => {
        const { spec, weights } = attentionSpec(f, o, {
          heads, kvHeads: this.#kvHeads, queryLength: Tq, keyLength: h.length(), headDim: this.#headDim,
        });
        const qpos = o.queryPositions === undefined ? 0 : f.i32(own(i32('queryPositions', o.queryPositions, Tq, 'queryLength')));
        const out = f.alloc(qi.length * 4);
        check(h.attend(spec, f.f32(qi), qpos, out));
        return finishAttention(spec, out, weights);
      });
    }

    shift(delta: number): void {
      check(this.#handle('shift()').shift(int('delta', delta, -2147483648, 2147483647)));
    }

    delete(): void {
      const h = this.#handle('delete()');
      this.#h = undefined;
      registry?.unregister(this.#token);
      h.delete();
    }

    [Symbol.dispose](): void {
      if (this.#h !== undefined) this.delete();
    }
  }
  if (dispose !== Symbol.dispose) {
    Object.defineProperty(KvCacheImpl.prototype, dispose, { value: KvCacheImpl.prototype[Symbol.dispose] });
  }

  const models = modelApi({
    HEAPU8: () => m.HEAPU8,
    HEAP32: () => m.HEAP32,
    HEAPF32: () => m.HEAPF32,
    HEAPF64: () => m.HEAPF64,
    TinyModel: m.TinyModel,
    Trainer: m.Trainer,
    sampleTask: (...a) => m.sampleTask(...a),
    taskReference: (...a) => m.taskReference(...a),
    call,
    ropeSpec: (f, o) => ropeSpec(f, o).spec,
  });

  const api: Posenc = {
    simd,
    target: m.target(),
    heapBytes: () => m.HEAPU8.length,
    memoryStats(): MemoryStats {
      const [inUse, kvCaches, models, trainers] = m.memoryStats().split(' ').map(Number);
      return { heapBytes: m.HEAPU8.length, inUseBytes: inUse!, kvCaches: kvCaches!, models: models!, trainers: trainers! };
    },

    ropeFrequencies(options: RopeFrequencyOptions): RopeFrequencies {
      const o = requireObject('options', options);
      const seqLen = optInt('seqLen', o.seqLen, 0, 0);
      return call((f) => {
        const { spec, rotaryDim } = ropeSpec(f, o);
        const out = f.alloc((rotaryDim / 2) * 4);
        const factor = f.alloc(8);
        check(m.ropeFrequencies(spec, seqLen, out, factor));
        return { invFreq: readF32(out, rotaryDim / 2), attentionFactor: m.HEAPF64[factor >> 3] as number };
      });
    },

    applyRope: (x: Float32Array, options: ApplyRopeOptions) => rope(x, options, false),
    rerotateRope: (x: Float32Array, options: RerotateOptions) => rope(x, options, true),

    sinusoidal(options: SinusoidalOptions): Float32Array {
      const o = requireObject('options', options);
      const length = int('length', o.length, 0);
      const dim = int('dim', o.dim, 2);
      const base = optNum('base', o.base, 10000, { gt: 1 });
      const layout = o.layout === undefined ? 'interleaved' : oneOf('layout', o.layout, ['interleaved', 'concat'] as const);
      if (dim % 2 !== 0) throw new RangeError(`dim must be even, got ${dim}`);
      if (layout === 'concat' && dim < 4) throw new RangeError(`dim must be >= 4 for the 'concat' layout, got ${dim}`);
      const n = checkElements('sinusoidal table', [['length', length], ['dim', dim]], 4);
      return call((f) => {
        const out = f.alloc(n * 4);
        check(m.sinusoidal(length, dim, base, layout === 'interleaved' ? 0 : 1, out));
        return readF32(out, n);
      });
    },

    alibiSlopes(heads: number, options?: { variant?: AlibiVariant }): Float32Array {
      const h = int('heads', heads, 1, 65536);
      const o = options === undefined ? {} : requireObject('options', options);
      const variant = o.variant === undefined ? 'paper' : oneOf('variant', o.variant, ALIBI_VARIANTS);
      return call((f) => {
        const out = f.alloc(h * 4);
        check(m.alibiSlopes(h, ALIBI_VARIANTS.indexOf(variant), out));
        return readF32(out, h);
      });
    },

    alibiBias(options: AlibiBiasOptions): Float32Array {
      const o = requireObject('options', options);
      const heads = int('heads', o.heads, 1, 65536);
      const q = int('queryLength', o.queryLength, 0);
      const k = int('keyLength', o.keyLength, 0, 1 << 24);
      if (q > k) throw new RangeError(`queryLength (${q}) must not exceed keyLength (${k}): queries are the last positions`);
      const causal = optBool('causal', o.causal, true);
      const variant = o.variant === undefined ? 'paper' : oneOf('variant', o.variant, ALIBI_VARIANTS);
      const n = checkElements('alibi bias', [['heads', heads], ['queryLength', q], ['keyLength', k]], 4);
      return call((f) => {
        const out = f.alloc(n * 4);
        check(m.alibiBias(heads, ALIBI_VARIANTS.indexOf(variant), q, k, causal, out));
        return readF32(out, n);
      });
    },

    t5Buckets(options: T5BucketOptions): Int32Array {
      const o = requireObject('options', options);
      const { q, k, off, nb, md, bidir } = t5Args(o);
      const n = checkElements('t5 buckets', [['queryLength', q], ['keyLength', k]], 4);
      return call((f) => {
        const out = f.alloc(n * 4);
        check(m.t5Buckets(q, k, off, nb, md, bidir, out));
        return readI32(out, n);
      });
    },

    t5Bias(options: T5BiasOptions): Float32Array {
      const o = requireObject('options', options);
      const { q, k, off, nb, md, bidir } = t5Args(o);
      const heads = int('heads', o.heads, 1, 65536);
      const table = tensor('table', o.table, [['numBuckets', nb], ['heads', heads]]);
      const n = checkElements('t5 bias', [['heads', heads], ['queryLength', q], ['keyLength', k]], 4);
      return call((f) => {
        const pt = f.f32(table);
        const out = f.alloc(n * 4);
        check(m.t5Bias(pt, heads, q, k, off, nb, md, bidir, out));
        return readF32(out, n);
      });
    },

    shawIndices(options: ShawOptions): Int32Array {
      const o = requireObject('options', options);
      const { q, k, clip } = shawShape(o);
      const n = checkElements('shaw indices', [['queryLength', q], ['keyLength', k]], 4);
      return call((f) => {
        const out = f.alloc(n * 4);
        check(m.shawIndices(q, k, clip, out));
        return readI32(out, n);
      });
    },

    shawLogits(options: ShawLogitsOptions): Float32Array {
      const o = requireObject('options', options);
      const { q: Q, k: K, clip } = shawShape(o);
      const D = int('headDim', o.headDim, 1);
      const rows = 2 * clip + 1;
      const q = tensor('q', o.q, [['queryLength', Q], ['headDim', D]]);
      const k = tensor('k', o.k, [['keyLength', K], ['headDim', D]]);
      const tk = tensor('tableK', o.tableK, [['(2 * clip + 1)', rows], ['headDim', D]]);
      const scale = optNum('scale', o.scale, 1 / Math.sqrt(D));
      const n = checkElements('logits', [['queryLength', Q], ['keyLength', K]], 4);
      return call((f) => {
        const pq = f.f32(q);
        const pk = f.f32(k);
        const pt = f.f32(tk);
        const out = f.alloc(n * 4);
        check(m.shawLogits(pq, pk, pt, Q, K, D, clip, scale, out));
        return readF32(out, n);
      });
    },

    shawValues(options: ShawValuesOptions): Float32Array {
      const o = requireObject('options', options);
      const { q: Q, k: K, clip } = shawShape(o);
      const D = int('headDim', o.headDim, 1);
      const rows = 2 * clip + 1;
      const p = tensor('probs', o.probs, [['queryLength', Q], ['keyLength', K]]);
      const v = tensor('v', o.v, [['keyLength', K], ['headDim', D]]);
      const tv = tensor('tableV', o.tableV, [['(2 * clip + 1)', rows], ['headDim', D]]);
      const n = checkElements('output', [['queryLength', Q], ['headDim', D]], 4);
      return call((f) => {
        const pp = f.f32(p);
        const pv = f.f32(v);
        const pt = f.f32(tv);
        const out = f.alloc(n * 4);
        check(m.shawValues(pp, pv, pt, Q, K, D, clip, out));
        return readF32(out, n);
      });
    },

    learnedPositions(options: LearnedOptions): Float32Array {
      const o = requireObject('options', options);
      const maxLength = int('maxLength', o.maxLength, 1);
      const dim = int('dim', o.dim, 1);
      const table = tensor('table', o.table, [['maxLength', maxLength], ['dim', dim]]);
      const positions = own(i32('positions', o.positions));
      const T = positions.length;
      const n = checkElements('output', [['positions.length', T], ['dim', dim]], 4);
      return call((f) => {
        const pt = f.f32(table);
        const pp = f.i32(positions);
        const out = f.alloc(n * 4);
        check(m.learnedPositions(pt, maxLength, dim, pp, T, out));
        return readF32(out, n);
      });
    },

    xposScales(options: XposScaleOptions): Float32Array {
      const o = requireObject('options', options);
      const positions = own(i32('positions', o.positions));
      const rotaryDim = int('rotaryDim', o.rotaryDim, 2);
      if (rotaryDim % 2 !== 0) throw new RangeError(`rotaryDim must be even, got ${rotaryDim}`);
      const scaleBase = optNum('scaleBase', o.scaleBase, 512, { gt: 0 });
      const center = optInt('center', o.center, 0, -2147483648);
      const key = optBool('key', o.key, false);
      const T = positions.length;
      const n = checkElements('xpos scales', [['positions.length', T], ['rotaryDim / 2', rotaryDim / 2]], 4);
      return call((f) => {
        const pp = f.i32(positions);
        const out = f.alloc(n * 4);
        check(m.xposScales(pp, T, rotaryDim, scaleBase, center, key, out));
        return readF32(out, n);
      });
    },

    attention(options: AttentionOptions): AttentionResult {
      const o = requireObject('options', options);
      const heads = int('heads', o.heads, 1, 65536);
      const kvHeads = optInt('kvHeads', o.kvHeads, heads, 1, 65536);
      if (heads % kvHeads !== 0) throw new RangeError(`kvHeads (${kvHeads}) must divide heads (${heads})`);
      const Tq = int('queryLength', o.queryLength, 0, 1 << 24);
      const Tk = int('keyLength', o.keyLength, 0, 1 << 24);
      const D = int('headDim', o.headDim, 1, 65536);
      const q = tensor('q', o.q, [['heads', heads], ['queryLength', Tq], ['headDim', D]]);
      const k = tensor('k', o.k, [['kvHeads', kvHeads], ['keyLength', Tk], ['headDim', D]]);
      const v = tensor('v', o.v, [['kvHeads', kvHeads], ['keyLength', Tk], ['headDim', D]]);
      return call((f) => {
        const { spec, weights } = attentionSpec(f, o, { heads, kvHeads, queryLength: Tq, keyLength: Tk, headDim: D });
        const r = attentionRope(f, o.rope, D);
        if (o.rope !== undefined) {
          const ro = o.rope as AttentionRopeOptions;
          spec.rope = true;
          spec.ropeLayout = r.layout;
          spec.xpos = r.xpos;
          spec.xposScaleBase = r.xposBase;
          if (ro.queryPositions !== undefined) spec.qPositions = f.i32(own(i32('rope.queryPositions', ro.queryPositions, Tq, 'queryLength')));
          if (ro.keyPositions !== undefined) spec.kPositions = f.i32(own(i32('rope.keyPositions', ro.keyPositions, Tk, 'keyLength')));
          spec.positionsFromMask = optBool('rope.positionsFromPadding', ro.positionsFromPadding, false);
          if (spec.positionsFromMask && spec.keyMask === 0) {
            throw new TypeError('rope.positionsFromPadding needs keyPadding');
          }
        }
        const out = f.alloc(q.length * 4);
        check(m.attention(spec, r.spec, f.f32(q), f.f32(k), f.f32(v), out));
        return finishAttention(spec, out, weights);
      });
    },

    KvCache: KvCacheImpl,
    loadModel: models.loadModel,
    train: models.train,
    continueTraining: models.continueTraining,
    sampleTask: models.sampleTask,
    taskReference: models.taskReference,

    benchRope(heads: number, seqLen: number, headDim: number, layout: RopeLayout, iters: number): void {
      const h = int('heads', heads, 1);
      const t = int('seqLen', seqLen, 1);
      const d = int('headDim', headDim, 2);
      if (d % 2 !== 0) throw new RangeError(`headDim must be even, got ${d}`);
      checkElements('bench', [['heads', h], ['seqLen', t], ['headDim', d]], 4 * 3);
      m.benchRope(h, t, d, LAYOUTS.indexOf(oneOf('layout', layout, LAYOUTS)), int('iters', iters, 0));
    },

    benchCopy(iters: number): void {
      m.benchCopy(int('iters', iters, 0));
    },

    benchPeak(iters: number): number {
      return m.benchPeak(int('iters', iters, 0));
    },
  };
  return api;
}

function shawShape(o: Record<string, unknown>) {
  const q = int('queryLength', o.queryLength, 0);
  const k = int('keyLength', o.keyLength, 0);
  const clip = int('clip', o.clip, 0, 1 << 20);
  if (q > k) throw new RangeError(`queryLength (${q}) must not exceed keyLength (${k}): queries are the last positions`);
  return { q, k, clip };
}

function t5Args(o: Record<string, unknown>) {
  const q = int('queryLength', o.queryLength, 0);
  const k = int('keyLength', o.keyLength, 0);
  const bidir = optBool('bidirectional', o.bidirectional, true);
  const nb = optInt('numBuckets', o.numBuckets, 32, bidir ? 4 : 2, 65536);
  const perSign = bidir ? Math.floor(nb / 2) : nb;
  const md = optInt('maxDistance', o.maxDistance, 128, Math.floor(perSign / 2) + 1, 2 ** 30);
  const off = optInt('queryOffset', o.queryOffset, 0, 0, 2 ** 30);
  return { q, k, off, nb, md, bidir };
}

/** Scaling objects as the page and tests build them (re-exported for convenience). */
export type { RopeScaling };
