/**
 * Attention with the encodings fused in, and the KV cache for incremental
 * decoding: options parsed into the AttentionOptions value object, arrays
 * copied into the call's frame.
 */
import { Owner, type Frame, type Heap } from './heap.js';
import type { AttentionWire, RawKvCache, RawModule } from './raw.js';
import { attentionRope, ropeKeys } from './rope.js';
import { keysOf, knownKeys, knownKeysIfObject } from './known-keys.js';
import { ALIBI_VARIANTS } from './names.js';
import { t5Args } from './encodings.js';
import type {
  AttentionBiasOptions,
  AttentionOptions,
  AttentionResult,
  AttentionRopeOptions,
  KvCache,
  KvCacheAttendOptions,
  KvCacheOptions,
  Posenc,
} from './types.js';
import { besideSentinel, checkElements, f32, i32, int, oneOf, optBool, optInt, requireObject } from './validate.js';

const BIAS_KEYS = keysOf<AttentionBiasOptions>()([
  'heads', 'queryLength', 'causal', 'scale', 'queryOffset', 'window', 'keyPadding', 'alibi', 't5', 'shaw', 'bias', 'returnWeights',
]);
const ATTENTION_KEYS = keysOf<AttentionOptions>()([...BIAS_KEYS, 'q', 'k', 'v', 'kvHeads', 'keyLength', 'headDim', 'rope']);
const ATTEND_KEYS = keysOf<KvCacheAttendOptions>()([...BIAS_KEYS, 'queryPositions']);
const ALIBI_KEYS = keysOf<Exclude<AttentionBiasOptions['alibi'], boolean | undefined>>()(['variant', 'slopes']);
const T5_KEYS = keysOf<NonNullable<AttentionBiasOptions['t5']>>()(['table', 'numBuckets', 'maxDistance', 'bidirectional']);
const SHAW_KEYS = keysOf<NonNullable<AttentionBiasOptions['shaw']>>()(['tableK', 'tableV', 'clip']);
const ATTENTION_ROPE_KEYS = keysOf<AttentionRopeOptions>()([
  'layout', 'rotaryDim', 'base', 'scaling', 'mrope', 'queryPositions', 'keyPositions', 'positionsFromPadding', 'xpos', 'contextLength',
]);
const ATTENTION_XPOS_KEYS = keysOf<NonNullable<AttentionRopeOptions['xpos']>>()(['scaleBase']);
type KvCacheRope = NonNullable<KvCacheOptions['rope']>;
const KV_CACHE_ROPE_KEYS = keysOf<KvCacheRope>()(['layout', 'rotaryDim', 'base', 'scaling', 'xpos', 'contextLength']);
const KV_CACHE_KEYS = keysOf<KvCacheOptions>()(['kvHeads', 'headDim', 'rope', 'consistent']);
const APPEND_KEYS = keysOf<NonNullable<Parameters<KvCache['append']>[2]>>()(['positions']);

/** Refuses an unknown key of bias options `o` (named `name`, with the keys `known`) or of their `alibi`, `t5` and `shaw`. */
function biasKeys(name: string, o: Record<string, unknown>, known: readonly string[]): void {
  knownKeys(name, o, known);
  knownKeysIfObject('alibi', o.alibi, ALIBI_KEYS);
  knownKeysIfObject('t5', o.t5, T5_KEYS);
  knownKeysIfObject('shaw', o.shaw, SHAW_KEYS);
}

/** Refuses an unknown key of `attention` options or of any object in them (also the pool's check, before it posts anything). */
export function attentionKeys(o: Record<string, unknown>): void {
  biasKeys('attention options', o, ATTENTION_KEYS);
  if (typeof o.rope === 'object' && o.rope !== null) ropeKeys('rope', 'rope.', o.rope, ATTENTION_ROPE_KEYS, ATTENTION_XPOS_KEYS);
}

const defaults = new WeakMap<RawModule, AttentionWire>();

/** Attention options at the C++ defaults (the module's, read once). */
function defaultAttention(m: RawModule): AttentionWire {
  let d = defaults.get(m);
  if (d === undefined) defaults.set(m, (d = m.defaultAttention()));
  return { ...d, rope: { ...d.rope } };
}

/** The floats of the weights buffer attentionSpec allocated (0 without one). */
const weightsCapacity = (spec: AttentionWire): number => (spec.weights === 0 ? 0 : spec.heads * spec.queryLength * spec.keyLength);

/**
 * Where a call's result goes instead of fresh arrays (the Worker pool's first part): `out` (and
 * `weights`) of a larger call, this call's heads written from head `head` on.
 */
export interface AttentionInto {
  out: Float32Array;
  weights?: Float32Array;
  head: number;
}

/** `attention` and the `KvCache` class over one module, and `attentionInto` (internal.ts). */
export function attentionApi(h: Heap): Pick<Posenc, 'attention' | 'KvCache'> & { attentionInto(options: AttentionOptions, into: AttentionInto): void } {
  const { m } = h;

  /** Validates the masks and bias encodings of one call and copies their arrays in. */
  function attentionSpec(f: Frame, o: Record<string, unknown>, shape: {
    heads: number; kvHeads: number; queryLength: number; keyLength: number; headDim: number;
  }): { spec: AttentionWire; weights: boolean } {
    const { heads, queryLength: Tq, keyLength: Tk, headDim: D } = shape;
    const causal = optBool('causal', o.causal, true);
    const spec: AttentionWire = {
      ...defaultAttention(m), ...shape, causal,
      // Left out, these are C++'s sentinels (scale 0: 1/sqrt(headDim); queryOffset -1: the queries are the
      // last keys; window 0: none): the same values given explicitly are refused, C++ checks the rest.
      scale: besideSentinel('scale', o.scale, 0, 'scale must be > 0'),
      queryOffset: besideSentinel('queryOffset', o.queryOffset, -1, 'queryOffset must be an integer in [0, 16777216]', true),
      window: besideSentinel('window', o.window, 0, 'window must be an integer in [1, 16777216]', true),
      t5Bidirectional: !causal,
    };
    if (o.keyPadding !== undefined) {
      const pad = o.keyPadding;
      if (!(pad instanceof Uint8Array)) throw new TypeError(`keyPadding must be a Uint8Array, got ${typeof pad}`);
      if (pad.length !== Tk) throw new RangeError(`keyPadding must have keyLength = ${Tk} elements, got ${pad.length}`);
      spec.keyMask = f.u8(h.own(pad));
    }
    if (o.alibi !== undefined && o.alibi !== false) {
      if (o.alibi === true) {
        spec.alibiSlopes = f.alloc(heads * 4);
        h.check(m.alibiSlopes(heads, 0, spec.alibiSlopes, heads));
      } else {
        const a = requireObject('alibi', o.alibi);
        if (a.slopes !== undefined && a.variant !== undefined) throw new TypeError('alibi: pass slopes or variant, not both');
        if (a.slopes !== undefined) {
          spec.alibiSlopes = f.f32(h.tensor('alibi.slopes', a.slopes, [['heads', heads]]));
        } else {
          const variant = a.variant === undefined ? 'paper' : oneOf('alibi.variant', a.variant, ALIBI_VARIANTS);
          spec.alibiSlopes = f.alloc(heads * 4);
          h.check(m.alibiSlopes(heads, ALIBI_VARIANTS.indexOf(variant), spec.alibiSlopes, heads));
        }
      }
    }
    if (o.t5 !== undefined) {
      const t = requireObject('t5', o.t5);
      const { nb, md, bidir } = t5Args(m, { queryLength: 0, keyLength: 0, numBuckets: t.numBuckets, maxDistance: t.maxDistance,
        bidirectional: t.bidirectional ?? !causal }, 't5.');
      spec.t5Table = f.f32(h.tensor('t5.table', t.table, [['numBuckets', nb], ['heads', heads]]));
      spec.t5Buckets = nb;
      spec.t5MaxDistance = md;
      spec.t5Bidirectional = bidir;
    }
    if (o.shaw !== undefined) {
      const sh = requireObject('shaw', o.shaw);
      const clip = int('shaw.clip', sh.clip, 0, 1 << 20);
      spec.shawClip = clip;
      spec.shawK = f.f32(h.tensor('shaw.tableK', sh.tableK, [['(2 * clip + 1)', 2 * clip + 1], ['headDim', D]]));
      if (sh.tableV !== undefined) {
        spec.shawV = f.f32(h.tensor('shaw.tableV', sh.tableV, [['(2 * clip + 1)', 2 * clip + 1], ['headDim', D]]));
      }
    }
    if (o.bias !== undefined) {
      spec.bias = f.f32(h.tensor('bias', o.bias, [['heads', heads], ['queryLength', Tq], ['keyLength', Tk]]));
    }
    const weights = optBool('returnWeights', o.returnWeights, false);
    if (weights) {
      checkElements('weights', [['heads', heads], ['queryLength', Tq], ['keyLength', Tk]], 4);
      spec.weights = f.alloc(heads * Tq * Tk * 4);
    }
    return { spec, weights };
  }
  function finishAttention(spec: AttentionWire, out: number, weights: boolean): AttentionResult {
    const res: AttentionResult = { out: h.readF32(out, spec.heads * spec.queryLength * spec.headDim) };
    if (weights) res.weights = h.readF32(spec.weights, spec.heads * spec.queryLength * spec.keyLength);
    return res;
  }

  function attention(options: AttentionOptions): AttentionResult {
    return run(options, undefined)!;
  }

  function run(options: AttentionOptions, into: AttentionInto | undefined): AttentionResult | undefined {
    const o = requireObject('options', options);
    attentionKeys(o);
    const heads = int('heads', o.heads, 1, 65536);
    const kvHeads = optInt('kvHeads', o.kvHeads, heads, 1, 65536);
    const Tq = int('queryLength', o.queryLength, 0, 1 << 24);
    const Tk = int('keyLength', o.keyLength, 0, 1 << 24);
    const D = int('headDim', o.headDim, 1, 65536);
    const q = h.tensor('q', o.q, [['heads', heads], ['queryLength', Tq], ['headDim', D]]);
    const k = h.tensor('k', o.k, [['kvHeads', kvHeads], ['keyLength', Tk], ['headDim', D]]);
    const v = h.tensor('v', o.v, [['kvHeads', kvHeads], ['keyLength', Tk], ['headDim', D]]);
    return h.call((f) => {
      const { spec, weights } = attentionSpec(f, o, { heads, kvHeads, queryLength: Tq, keyLength: Tk, headDim: D });
      const r = attentionRope(m, o.rope, D, spec.rope);
      if (o.rope !== undefined) {
        const ro = o.rope as AttentionRopeOptions;
        // M-RoPE: three position rows per token.
        const R = r.freq.mropeSection.length > 0 ? 3 : 1;
        const times = R === 3 ? '3 * ' : '';
        if (ro.queryPositions !== undefined) {
          r.queryPositions = f.i32(h.own(i32('rope.queryPositions', ro.queryPositions, R * Tq, `${times}queryLength`)));
        }
        if (ro.keyPositions !== undefined) {
          r.keyPositions = f.i32(h.own(i32('rope.keyPositions', ro.keyPositions, R * Tk, `${times}keyLength`)));
        }
        r.positionsFromPadding = optBool('rope.positionsFromPadding', ro.positionsFromPadding, false);
        if (r.positionsFromPadding && spec.keyMask === 0) {
          throw new TypeError('rope.positionsFromPadding needs keyPadding');
        }
      }
      const out = f.alloc(q.length * 4);
      h.check(m.attention(spec, f.f32(q), f.f32(k), f.f32(v), out, q.length, weightsCapacity(spec)));
      if (into === undefined) return finishAttention(spec, out, weights);
      const HEAP = m.HEAPF32;
      into.out.set(HEAP.subarray(out >>> 2, (out >>> 2) + q.length), into.head * Tq * D);
      if (weights && into.weights !== undefined) {
        into.weights.set(HEAP.subarray(spec.weights >>> 2, (spec.weights >>> 2) + heads * Tq * Tk), into.head * Tq * Tk);
      }
      return undefined;
    });
  }

  class KvCacheImpl extends Owner<RawKvCache> implements KvCache {
    readonly #kvHeads: number;
    readonly #headDim: number;

    constructor(options: KvCacheOptions) {
      const o = requireObject('options', options);
      knownKeys('KvCache options', o, KV_CACHE_KEYS);
      if (typeof o.rope === 'object' && o.rope !== null) ropeKeys('rope', 'rope.', o.rope, KV_CACHE_ROPE_KEYS, ATTENTION_XPOS_KEYS);
      const kvHeads = int('kvHeads', o.kvHeads, 1, 65536);
      const headDim = int('headDim', o.headDim, 1, 65536);
      const raw = new m.KvCache(kvHeads, headDim, attentionRope(m, o.rope, headDim, defaultAttention(m).rope),
        optBool('consistent', o.consistent, false));
      const err = raw.error();
      if (err !== '') {
        raw.delete();
        throw new RangeError(err);
      }
      super(raw, 'KvCache', 'cache');
      this.#kvHeads = kvHeads;
      this.#headDim = headDim;
    }

    get length(): number {
      return this.handle('length').length();
    }

    append(k: Float32Array, v: Float32Array, options?: { positions?: Int32Array }): void {
      const c = this.handle('append()');
      const o = options === undefined ? {} : requireObject('options', options);
      knownKeys('append options', o, APPEND_KEYS);
      const ki = h.own(f32('k', k));
      if (ki.length === 0 && ki.buffer.byteLength === 0 && f32('v', v).length > 0) {
        throw new RangeError('k has 0 elements and v does not (is the buffer of k detached?)');
      }
      const n = ki.length / (this.#kvHeads * this.#headDim);
      if (!Number.isInteger(n)) {
        throw new RangeError(`k must have kvHeads * n * headDim = ${this.#kvHeads} * n * ${this.#headDim} elements, got ${ki.length}`);
      }
      const vi = h.tensor('v', v, [['kvHeads', this.#kvHeads], ['n', n], ['headDim', this.#headDim]]);
      h.call((f) => {
        const pos = o.positions === undefined ? 0 : f.i32(h.own(i32('positions', o.positions, n, 'n')));
        h.check(c.append(f.f32(ki), f.f32(vi), n, pos));
      });
    }

    attend(q: Float32Array, options: KvCacheAttendOptions): AttentionResult {
      const c = this.handle('attend()');
      const o = requireObject('options', options);
      biasKeys('attend options', o, ATTEND_KEYS);
      const heads = int('heads', o.heads, 1, 65536);
      const Tq = int('queryLength', o.queryLength, 0);
      const qi = h.tensor('q', q, [['heads', heads], ['queryLength', Tq], ['headDim', this.#headDim]]);
      return h.call((f) => {
        const { spec, weights } = attentionSpec(f, o, {
          heads, kvHeads: this.#kvHeads, queryLength: Tq, keyLength: c.length(), headDim: this.#headDim,
        });
        const qpos = o.queryPositions === undefined ? 0 : f.i32(h.own(i32('queryPositions', o.queryPositions, Tq, 'queryLength')));
        const out = f.alloc(qi.length * 4);
        h.check(c.attend(spec, f.f32(qi), qpos, out, qi.length, weightsCapacity(spec)));
        return finishAttention(spec, out, weights);
      });
    }

    shift(delta: number): void {
      h.check(this.handle('shift()').shift(int('delta', delta, -2147483648, 2147483647)));
    }
  }

  return { attention, KvCache: KvCacheImpl, attentionInto: (options, into) => void run(options, into) };
}
