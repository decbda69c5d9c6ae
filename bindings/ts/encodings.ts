/**
 * The encodings outside RoPE: sinusoidal tables, ALiBi slopes and biases,
 * T5 buckets and biases, Shaw's relative tables, learned position rows and
 * xPos scales.
 */
import type { Heap } from './heap.js';
import type { RawModule } from './raw.js';
import { ALIBI_VARIANTS, SINUSOIDAL_LAYOUTS } from './names.js';
import type {
  AlibiBiasOptions,
  AlibiVariant,
  LearnedOptions,
  Posenc,
  ShawLogitsOptions,
  ShawOptions,
  ShawValuesOptions,
  SinusoidalOptions,
  T5BiasOptions,
  T5BucketOptions,
  XposScaleOptions,
} from './types.js';
import { keysOf, knownKeys } from './known-keys.js';
import { checkElements, i32, int, int32, number, oneOf, optBool, optInt, optNum, requireObject } from './validate.js';

const SINUSOIDAL_KEYS = keysOf<SinusoidalOptions>()(['length', 'dim', 'base', 'layout']);
const ALIBI_SLOPES_KEYS = keysOf<NonNullable<Parameters<Posenc['alibiSlopes']>[1]>>()(['variant']);
const ALIBI_BIAS_KEYS = keysOf<AlibiBiasOptions>()(['heads', 'queryLength', 'keyLength', 'causal', 'variant']);
const T5_BUCKET_KEYS = keysOf<T5BucketOptions>()(['queryLength', 'keyLength', 'numBuckets', 'maxDistance', 'bidirectional', 'queryOffset']);
const T5_BIAS_KEYS = keysOf<T5BiasOptions>()([...T5_BUCKET_KEYS, 'table', 'heads']);
const SHAW_KEYS = keysOf<ShawOptions>()(['queryLength', 'keyLength', 'clip']);
const SHAW_LOGITS_KEYS = keysOf<ShawLogitsOptions>()([...SHAW_KEYS, 'q', 'k', 'tableK', 'headDim', 'scale']);
const SHAW_VALUES_KEYS = keysOf<ShawValuesOptions>()([...SHAW_KEYS, 'probs', 'v', 'tableV', 'headDim']);
const LEARNED_KEYS = keysOf<LearnedOptions>()(['table', 'maxLength', 'dim', 'positions']);
const XPOS_SCALE_KEYS = keysOf<XposScaleOptions>()(['positions', 'rotaryDim', 'scaleBase', 'center', 'key']);

/** The API methods of these encodings over one module. */
export function encodingsApi(h: Heap): Pick<Posenc, 'sinusoidal' | 'alibiSlopes' | 'alibiBias' | 't5Buckets' | 't5Bias' | 'shawIndices' | 'shawLogits' | 'shawValues' | 'learnedPositions' | 'xposScales'> {
  const { m } = h;
  return {
    sinusoidal(options: SinusoidalOptions): Float32Array {
      const o = requireObject('options', options);
      knownKeys('sinusoidal options', o, SINUSOIDAL_KEYS);
      const length = int('length', o.length, 0);
      const dim = int('dim', o.dim, 2);
      const base = o.base === undefined ? 10000 : number('base', o.base);
      const layout = o.layout === undefined ? 'interleaved' : oneOf('layout', o.layout, SINUSOIDAL_LAYOUTS);
      const n = checkElements('sinusoidal table', [['length', length], ['dim', dim]], 4);
      return h.call((f) => {
        const out = f.alloc(n * 4);
        h.check(m.sinusoidal(length, dim, base, SINUSOIDAL_LAYOUTS.indexOf(layout), out, n));
        return h.readF32(out, n);
      });
    },

    alibiSlopes(heads: number, options?: { variant?: AlibiVariant }): Float32Array {
      const H = int('heads', heads, 1, 65536);
      const o = options === undefined ? {} : requireObject('options', options);
      knownKeys('alibiSlopes options', o, ALIBI_SLOPES_KEYS);
      const variant = o.variant === undefined ? 'paper' : oneOf('variant', o.variant, ALIBI_VARIANTS);
      return h.call((f) => {
        const out = f.alloc(H * 4);
        h.check(m.alibiSlopes(H, ALIBI_VARIANTS.indexOf(variant), out, H));
        return h.readF32(out, H);
      });
    },

    alibiBias(options: AlibiBiasOptions): Float32Array {
      const o = requireObject('options', options);
      knownKeys('alibiBias options', o, ALIBI_BIAS_KEYS);
      const heads = int('heads', o.heads, 1, 65536);
      const q = int('queryLength', o.queryLength, 0);
      const k = int('keyLength', o.keyLength, 0, 1 << 24);
      const causal = optBool('causal', o.causal, true);
      const variant = o.variant === undefined ? 'paper' : oneOf('variant', o.variant, ALIBI_VARIANTS);
      const n = checkElements('alibi bias', [['heads', heads], ['queryLength', q], ['keyLength', k]], 4);
      return h.call((f) => {
        const out = f.alloc(n * 4);
        h.check(m.alibiBias(heads, ALIBI_VARIANTS.indexOf(variant), q, k, causal, out, n));
        return h.readF32(out, n);
      });
    },

    t5Buckets(options: T5BucketOptions): Int32Array {
      const o = requireObject('options', options);
      knownKeys('t5Buckets options', o, T5_BUCKET_KEYS);
      const { q, k, off, nb, md, bidir } = t5Args(m, o);
      const n = checkElements('t5 buckets', [['queryLength', q], ['keyLength', k]], 4);
      return h.call((f) => {
        const out = f.alloc(n * 4);
        h.check(m.t5Buckets(q, k, off, nb, md, bidir, out, n));
        return h.readI32(out, n);
      });
    },

    t5Bias(options: T5BiasOptions): Float32Array {
      const o = requireObject('options', options);
      knownKeys('t5Bias options', o, T5_BIAS_KEYS);
      const { q, k, off, nb, md, bidir } = t5Args(m, o);
      const heads = int('heads', o.heads, 1, 65536);
      const table = h.tensor('table', o.table, [['numBuckets', nb], ['heads', heads]]);
      const n = checkElements('t5 bias', [['heads', heads], ['queryLength', q], ['keyLength', k]], 4);
      return h.call((f) => {
        const pt = f.f32(table);
        const out = f.alloc(n * 4);
        h.check(m.t5Bias(pt, heads, q, k, off, nb, md, bidir, out, n));
        return h.readF32(out, n);
      });
    },

    shawIndices(options: ShawOptions): Int32Array {
      const o = requireObject('options', options);
      knownKeys('shawIndices options', o, SHAW_KEYS);
      const { q, k, clip } = shawShape(o);
      const n = checkElements('shaw indices', [['queryLength', q], ['keyLength', k]], 4);
      return h.call((f) => {
        const out = f.alloc(n * 4);
        h.check(m.shawIndices(q, k, clip, out, n));
        return h.readI32(out, n);
      });
    },

    shawLogits(options: ShawLogitsOptions): Float32Array {
      const o = requireObject('options', options);
      knownKeys('shawLogits options', o, SHAW_LOGITS_KEYS);
      const { q: Q, k: K, clip } = shawShape(o);
      const D = int('headDim', o.headDim, 1);
      const rows = 2 * clip + 1;
      const q = h.tensor('q', o.q, [['queryLength', Q], ['headDim', D]]);
      const k = h.tensor('k', o.k, [['keyLength', K], ['headDim', D]]);
      const tk = h.tensor('tableK', o.tableK, [['(2 * clip + 1)', rows], ['headDim', D]]);
      const scale = optNum('scale', o.scale, 1 / Math.sqrt(D));
      const n = checkElements('logits', [['queryLength', Q], ['keyLength', K]], 4);
      return h.call((f) => {
        const pq = f.f32(q);
        const pk = f.f32(k);
        const pt = f.f32(tk);
        const out = f.alloc(n * 4);
        h.check(m.shawLogits(pq, pk, pt, Q, K, D, clip, scale, out, n));
        return h.readF32(out, n);
      });
    },

    shawValues(options: ShawValuesOptions): Float32Array {
      const o = requireObject('options', options);
      knownKeys('shawValues options', o, SHAW_VALUES_KEYS);
      const { q: Q, k: K, clip } = shawShape(o);
      const D = int('headDim', o.headDim, 1);
      const rows = 2 * clip + 1;
      const p = h.tensor('probs', o.probs, [['queryLength', Q], ['keyLength', K]]);
      const v = h.tensor('v', o.v, [['keyLength', K], ['headDim', D]]);
      const tv = h.tensor('tableV', o.tableV, [['(2 * clip + 1)', rows], ['headDim', D]]);
      const n = checkElements('output', [['queryLength', Q], ['headDim', D]], 4);
      return h.call((f) => {
        const pp = f.f32(p);
        const pv = f.f32(v);
        const pt = f.f32(tv);
        const out = f.alloc(n * 4);
        h.check(m.shawValues(pp, pv, pt, Q, K, D, clip, out, n));
        return h.readF32(out, n);
      });
    },

    learnedPositions(options: LearnedOptions): Float32Array {
      const o = requireObject('options', options);
      knownKeys('learnedPositions options', o, LEARNED_KEYS);
      const maxLength = int('maxLength', o.maxLength, 1);
      const dim = int('dim', o.dim, 1);
      const table = h.tensor('table', o.table, [['maxLength', maxLength], ['dim', dim]]);
      const positions = h.own(i32('positions', o.positions));
      const T = positions.length;
      const n = checkElements('output', [['positions.length', T], ['dim', dim]], 4);
      return h.call((f) => {
        const pt = f.f32(table);
        const pp = f.i32(positions);
        const out = f.alloc(n * 4);
        h.check(m.learnedPositions(pt, maxLength, dim, pp, T, out, n));
        return h.readF32(out, n);
      });
    },

    xposScales(options: XposScaleOptions): Float32Array {
      const o = requireObject('options', options);
      knownKeys('xposScales options', o, XPOS_SCALE_KEYS);
      const positions = h.own(i32('positions', o.positions));
      const rotaryDim = int('rotaryDim', o.rotaryDim, 2);
      const scaleBase = o.scaleBase === undefined ? m.xposScaleBase : number('scaleBase', o.scaleBase);
      const center = o.center === undefined ? 0 : int32('center', o.center);
      const key = optBool('key', o.key, false);
      const T = positions.length;
      const n = checkElements('xpos scales', [['positions.length', T], ['rotaryDim / 2', rotaryDim / 2]], 4);
      return h.call((f) => {
        const pp = f.i32(positions);
        const out = f.alloc(n * 4);
        h.check(m.xposScales(pp, T, rotaryDim, scaleBase, center, key, out, n));
        return h.readF32(out, n);
      });
    },
  };
}

function shawShape(o: Record<string, unknown>) {
  const q = int('queryLength', o.queryLength, 0);
  const k = int('keyLength', o.keyLength, 0);
  const clip = int('clip', o.clip, 0, 1 << 20);
  return { q, k, clip };
}

/**
 * The T5 options of a call (their names in errors start with `path`, e.g. 't5.'); left out, numBuckets
 * and maxDistance are the C++ defaults (the module's constants).
 */
export function t5Args(m: RawModule, o: Record<string, unknown>, path = '') {
  const q = int('queryLength', o.queryLength, 0);
  const k = int('keyLength', o.keyLength, 0);
  const bidir = optBool(`${path}bidirectional`, o.bidirectional, true);
  const nb = optInt(`${path}numBuckets`, o.numBuckets, m.t5NumBuckets, 1, 65536);  // a table shape; its rule is checked in C++
  const md = o.maxDistance === undefined ? m.t5MaxDistance : int32(`${path}maxDistance`, o.maxDistance);
  const off = o.queryOffset === undefined ? 0 : int32('queryOffset', o.queryOffset);
  return { q, k, off, nb, md, bidir };
}
