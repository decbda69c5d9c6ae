/**
 * RoPE: frequencies, rotation and re-rotation, and the RopeSpec value object
 * that attention, the KV cache and the tiny models share.
 */
import type { Heap } from './heap.js';
import { ROPE_LAYOUTS, ROPE_SCALINGS } from './names.js';
import type { AttentionRopeWire, RawModule, RopeApplyWire, RopeConfigWire } from './raw.js';
import type {
  ApplyRopeOptions, DefaultScaling, DynamicScaling, Llama3Scaling, LinearScaling, LongropeScaling, MropeOptions, NtkScaling, Posenc,
  ProportionalScaling, RerotateOptions, RopeCache, RopeCacheOptions, RopeConfig, RopeFrequencies, RopeFrequencyOptions, RopeScaling,
  RopeScalingType, UniformRopeFromConfig, XposOptions, YarnScaling,
} from './types.js';
import { keysOf, knownKeys, knownKeysIfObject } from './known-keys.js';
import { checkElements, f32, i32, int, int32, notLayered, num, number, oneOf, optBool, optInt, requireObject } from './validate.js';

/** True when A and B are the same union (a compile-time check). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Every RopeScaling variant has a name in ROPE_SCALINGS and vice versa.
const scalingsMatch: Same<RopeScaling['type'], (typeof ROPE_SCALINGS)[number]> = true;
void scalingsMatch;

/** The keys of each scaling type (its variant of `RopeScaling`). */
const SCALING_KEYS: { readonly [T in RopeScalingType]: readonly (keyof Extract<RopeScaling, { type: T }>)[] } = {
  default: keysOf<DefaultScaling>()(['type']),
  linear: keysOf<LinearScaling>()(['type', 'factor']),
  ntk: keysOf<NtkScaling>()(['type', 'factor']),
  dynamic: keysOf<DynamicScaling>()(['type', 'factor', 'maxPositionEmbeddings']),
  yarn: keysOf<YarnScaling>()([
    'type', 'factor', 'originalMaxPositionEmbeddings', 'betaFast', 'betaSlow', 'truncate', 'mscale', 'mscaleAllDim', 'attentionFactor',
  ]),
  longrope: keysOf<LongropeScaling>()(['type', 'factor', 'originalMaxPositionEmbeddings', 'shortFactor', 'longFactor', 'attentionFactor']),
  llama3: keysOf<Llama3Scaling>()(['type', 'factor', 'originalMaxPositionEmbeddings', 'lowFreqFactor', 'highFreqFactor']),
  proportional: keysOf<ProportionalScaling>()(['type', 'factor', 'partialRotaryFactor']),
};

/**
 * The fields of a `ropeFromConfig` result (uniform: the shared layer's options at the top level), which its
 * documented spread (`{ ...layer, heads, seqLen }`, `{ ...rc }` when uniform) brings into RoPE options: accepted
 * there, and ignored by a call that has no such option (`attentionFactor`, `keysRead`, `layout` for the
 * frequencies, ...). The KV cache refuses an M-RoPE layer's `mrope` with a message of its own (C++).
 */
const FROM_CONFIG_KEYS = keysOf<UniformRopeFromConfig>()([
  'uniform', 'layers', 'layerTypes', 'queryScaling', 'softmaxScale', 'maxPositions', 'modelType', 'keysRead', 'defaulted',
  'headDim', 'rotaryDim', 'base', 'layout', 'scaling', 'mrope', 'attentionFactor',
]);

const ROPE_CONFIG_KEYS = keysOf<RopeConfig>()(['heads', 'seqLen', 'headDim', 'rotaryDim', 'layout', 'base', 'scaling', 'mrope', 'contextLength']);
const APPLY_ROPE_KEYS = keysOf<ApplyRopeOptions>()([...ROPE_CONFIG_KEYS, 'positions', 'batch', 'axes', 'offset', 'xpos']);
const REROTATE_KEYS = keysOf<RerotateOptions>()([...ROPE_CONFIG_KEYS, 'delta', 'batch', 'axes']);
const ROPE_CACHE_KEYS = keysOf<RopeCacheOptions>()([
  'headDim', 'rotaryDim', 'base', 'scaling', 'mrope', 'contextLength', 'layout', 'seqLen', 'offset', 'positions', 'format',
]);
const ROPE_FREQUENCY_KEYS = keysOf<RopeFrequencyOptions>()(['headDim', 'rotaryDim', 'base', 'scaling', 'seqLen', 'mrope']);
const MROPE_KEYS = keysOf<MropeOptions>()(['section', 'interleaved']);
const XPOS_KEYS = keysOf<XposOptions>()(['scaleBase', 'key', 'center']);

/** Every key of some scaling type. */
const ANY_SCALING_KEYS = [...new Set(Object.values(SCALING_KEYS).flat())];

/**
 * Refuses a key of `s` (a scaling named `name`) that its type does not have. Without a type, a key of
 * no type at all (`rope_type`, a Hugging Face scaling object's, suggests `type`); an unknown type is
 * left to the check of `type`.
 */
export function scalingKeys(name: string, s: unknown): void {
  if (typeof s !== 'object' || s === null) return;
  const type: unknown = (s as { type?: unknown }).type;
  if (type === undefined) knownKeys(name, s, ANY_SCALING_KEYS);
  if (typeof type !== 'string' || !(ROPE_SCALINGS as readonly string[]).includes(type)) return;
  knownKeys(name, s, SCALING_KEYS[type as RopeScalingType]);
}

/**
 * Refuses an unknown key of RoPE options `o` (named `name`; a spread `ropeFromConfig` result's fields are
 * accepted, see FROM_CONFIG_KEYS) or of their `scaling`, `mrope` and `xpos` (`xposKeys`; their names start with `path`).
 */
export function ropeKeys(name: string, path: string, o: object, known: readonly string[], xposKeys: readonly string[]): void {
  knownKeys(name, o, known, FROM_CONFIG_KEYS);
  const r = o as Record<string, unknown>;
  scalingKeys(`${path}scaling`, r.scaling);
  knownKeysIfObject(`${path}mrope`, r.mrope, MROPE_KEYS);
  knownKeysIfObject(`${path}xpos`, r.xpos, xposKeys);
}

const defaults = new WeakMap<RawModule, RopeConfigWire>();

/** A RoPE configuration at the C++ defaults (the module's, read once), with these dims (and base, unless left out); not validated. */
export function defaultRopeSpec(m: RawModule, headDim: number, rotaryDim: number, base?: number): RopeConfigWire {
  let d = defaults.get(m);
  if (d === undefined) defaults.set(m, (d = m.defaultRopeConfig()));
  return { ...d, headDim, rotaryDim, base: base ?? d.base, scaling: { ...d.scaling }, mropeSection: [] };
}

const rotations = new WeakMap<RawModule, RopeApplyWire>();

/** A rotation (the RopeApplyOptions value object) at the C++ defaults (the module's, read once), with these frequencies. */
function defaultRotation(m: RawModule, freq: RopeConfigWire): RopeApplyWire {
  let d = rotations.get(m);
  if (d === undefined) rotations.set(m, (d = m.defaultRopeApply()));
  return { ...d, freq };
}

const kinds = new WeakMap<RawModule, ReadonlyArray<readonly [string, string]>>();

/** [jsName, jsType] of every RopeScaling field but `type`, from the module's contract (read once). */
function scalingFields(m: RawModule): ReadonlyArray<readonly [string, string]> {
  let k = kinds.get(m);
  if (k === undefined) {
    const lines = m.contract('RopeScaling').trim().split('\n');
    k = lines.map((l) => l.split(' ') as [string, string]).filter(([name]) => name !== 'type');
    kinds.set(m, k);
  }
  return k;
}

const required = new WeakMap<RawModule, Map<string, readonly string[]>>();

/** The fields a scaling type needs from the caller (C++ RequiredScalingFields), read once per module and type. */
function requiredFields(m: RawModule, type: string): readonly string[] {
  let byType = required.get(m);
  if (byType === undefined) required.set(m, (byType = new Map()));
  let fields = byType.get(type);
  if (fields === undefined) byType.set(type, (fields = m.requiredScalingFields(type).split(' ')));
  return fields;
}

/**
 * One scaling field given by the caller, checked for what C++ cannot see:
 * its JS type, integers, and NaN where NaN stands for "left out" on the wire.
 */
function scalingField(name: string, kind: string, v: unknown): unknown {
  switch (kind) {
    case 'number':
      return number(name, v);
    case 'optional-number':
      if (Number.isNaN(number(name, v))) throw new RangeError(`${name} must be a finite number, got NaN`);
      return v;
    case 'int32':
      return int32(name, v);
    case 'boolean':
      return optBool(name, v, false);
    case 'number[]': {
      if (typeof v !== 'object' || v === null || typeof (v as ArrayLike<unknown>).length !== 'number') {
        throw new TypeError(`${name} must be an array of numbers, got ${typeof v}`);
      }
      const a = v as ArrayLike<unknown>;
      for (let i = 0; i < a.length; i++) number(`${name}[${i}]`, a[i]);
      return a;
    }
    default:
      throw new TypeError(`${name}: no check for fields of JS type '${kind}' (rope.ts)`);
  }
}

/**
 * The frequency options as a RopeFrequencyConfig value object, checked for
 * JS types, integers and required fields; the values are checked in C++
 * (ValidateRopeConfig). rotaryDim is the effective one (headDim if left out).
 */
export function ropeSpec(m: RawModule, o: Record<string, unknown>): { spec: RopeConfigWire; rotaryDim: number } {
  const headDim = int('headDim', o.headDim, 1);
  // Left out, rotaryDim is 0 in C++ (the whole head), so an explicit 0 is refused here.
  const rotaryDim = optInt('rotaryDim', o.rotaryDim, 0, 1);
  const base = o.base === undefined ? undefined : number('base', o.base);
  const spec = defaultRopeSpec(m, headDim, rotaryDim, base);
  const result = { spec, rotaryDim: rotaryDim || headDim };
  if (o.mrope !== undefined) {
    // Values (integers, the sum) are checked in C++ (ValidateRopeConfig).
    const mr = requireObject('mrope', o.mrope);
    const section = mr.section;
    if (!Array.isArray(section) && !ArrayBuffer.isView(section)) {
      throw new TypeError(`mrope.section must be an array of 3 integers, got ${typeof section}`);
    }
    spec.mropeSection = Array.from(section as ArrayLike<unknown>, (v, i) => number(`mrope.section[${i}]`, v));
    spec.mropeInterleaved = optBool('mrope.interleaved', mr.interleaved, false);
  }
  if (o.scaling === undefined) return result;
  const s = requireObject('scaling', o.scaling);
  scalingKeys('scaling', s);
  const type = oneOf('scaling.type', s.type, ROPE_SCALINGS);
  const w = spec.scaling as unknown as Record<string, unknown>;
  w.type = type;
  if (type === 'default') return result;
  const required = requiredFields(m, type);
  for (const [key, kind] of scalingFields(m)) {
    const v = s[key];
    if (v !== undefined) w[key] = scalingField(`scaling.${key}`, kind, v);
    else if (required.includes(key)) throw new TypeError(`scaling.${key} is required for scaling type '${type}'`);
  }
  return result;
}

/**
 * The `rope` option of an attention call or a KV cache into `wire` (the
 * C++ defaults): rotation, layout, frequencies and xPos; positions are the
 * caller's.
 */
export function attentionRope(m: RawModule, r: unknown, headDim: number, wire: AttentionRopeWire): AttentionRopeWire {
  // Without RoPE the core ignores freq: any head dim (odd too) is fine.
  wire.freq = defaultRopeSpec(m, headDim, 0);
  if (r === undefined) return wire;
  const o = requireObject('rope', r);
  notLayered(o, 'layout', 'rope.layout');
  // A spread ropeFromConfig layer carries the head size it was made for (a model may have two).
  if (o.headDim !== undefined && o.headDim !== headDim) {
    throw new RangeError(`rope.headDim is ${typeof o.headDim === 'number' ? o.headDim : JSON.stringify(o.headDim)} but headDim is ${headDim}: this RoPE layer is for heads of another size (pass the layer of this call's heads)`);
  }
  wire.enabled = true;
  wire.layout = oneOf('rope.layout', o.layout, ROPE_LAYOUTS);
  wire.freq = ropeSpec(m, { headDim, rotaryDim: o.rotaryDim, base: o.base, scaling: o.scaling, mrope: o.mrope }).spec;
  wire.contextLength = optContextLength(o.contextLength, 'rope.contextLength');
  if (o.xpos !== undefined) {
    wire.xpos = true;
    const scaleBase = requireObject('rope.xpos', o.xpos).scaleBase;
    if (scaleBase !== undefined) wire.xposScaleBase = number('rope.xpos.scaleBase', scaleBase);
  }
  return wire;
}

/** A context length: an integer (its range is checked in C++); omitted = -1, derived. */
function optContextLength(v: unknown, name = 'contextLength'): number {
  if (v === undefined) return -1;
  const n = num(name, v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`${name} must be an integer, got ${n}`);
  return n;
}

/** One value per pair [T, half] -> each value at its pair's two slots [T, 2 half], in the layout's order. */
function fullWidth(t: Float32Array, T: number, half: number, layout: (typeof ROPE_LAYOUTS)[number]): Float32Array {
  const out = new Float32Array(T * 2 * half);
  for (let r = 0; r < T; r++) {
    const src = t.subarray(r * half, (r + 1) * half);
    const row = out.subarray(r * 2 * half, (r + 1) * 2 * half);
    if (layout === 'half') {
      row.set(src, 0);
      row.set(src, half);
    } else {
      for (let i = 0; i < half; i++) row[2 * i] = row[2 * i + 1] = src[i]!;
    }
  }
  return out;
}

/** `ropeFrequencies`, `applyRope`, `rerotateRope` and `ropeCache` over one module. */
export function ropeApi(h: Heap): Pick<Posenc, 'ropeFrequencies' | 'applyRope' | 'rerotateRope' | 'ropeCache' | 'positionIds'> {
  const { m } = h;

  /**
   * A batch (or the 'bshd' order): one call per batch row, all with one context length. 'bshd' rows are
   * rotated as [1, seqLen * heads, headDim] with each position repeated for the heads of its token.
   */
  function batched(xIn: unknown, o: Record<string, unknown>, pure: boolean): Float32Array {
    const B = optInt('batch', o.batch, 1, 1, 1 << 24);
    const axes = o.axes === undefined ? 'bhsd' : oneOf('axes', o.axes, ['bhsd', 'bshd'] as const);
    const H = int('heads', o.heads, 1);
    const T = int('seqLen', o.seqLen, 0);
    const D = int('headDim', o.headDim, 1);
    const n = checkElements('x', [['batch', B], ['heads', H], ['seqLen', T], ['headDim', D]], 4);
    const dims = axes === 'bhsd' ? 'batch * heads * seqLen * headDim' : 'batch * seqLen * heads * headDim';
    const x = h.own(f32('x', xIn, n, `${dims} = ${B} * ${axes === 'bhsd' ? `${H} * ${T}` : `${T} * ${H}`} * ${D}`));
    let rows: (b: number) => Int32Array | undefined = () => undefined;
    let contextLength = o.contextLength;
    // M-RoPE: each row's positions are [3, seqLen] (the temporal, height and width rows).
    const R = o.mrope === undefined ? 1 : 3;
    if (!pure) {
      if (o.positions !== undefined && o.offset !== undefined) throw new TypeError('pass either positions or offset, not both');
      const offset = optInt('offset', o.offset, 0, -2147483648, 2147483647 - Math.max(T - 1, 0));
      let all: Int32Array;
      if (o.positions !== undefined) {
        const p = h.own(i32('positions', o.positions));
        const one = R * T;
        if (p.length !== one && p.length !== B * one) {
          const what = R === 3 ? ['3 * seqLen', 'batch * 3 * seqLen'] : ['seqLen', 'batch * seqLen'];
          throw new RangeError(`positions must have ${what[0]} = ${one} or ${what[1]} = ${B * one} elements, got ${p.length}`);
        }
        all = p;
        rows = p.length === one ? () => p : (b) => p.subarray(b * one, (b + 1) * one);
      } else {
        all = Int32Array.from({ length: T }, (_, t) => offset + t);
        rows = () => all;
      }
      // One context length for the batch: the longest position + 1 (Hugging Face: position_ids.max() + 1).
      if (contextLength === undefined) contextLength = all.length === 0 ? 0 : all.reduce((a, b) => Math.max(a, b), -1) + 1;
    }
    const out = new Float32Array(n);
    const per = H * T * D;
    for (let b = 0; b < B; b++) {
      const xb = x.subarray(b * per, (b + 1) * per);
      let positions = rows(b);
      const shape = axes === 'bhsd' ? { heads: H, seqLen: T } : { heads: 1, seqLen: T * H };
      if (axes === 'bshd' && positions !== undefined) {
        // Each row of positions, repeated for the heads of its token.
        const p = positions;
        positions = Int32Array.from({ length: R * T * H }, (_, e) => {
          const a = Math.floor(e / (T * H));
          return p[a * T + Math.floor((e % (T * H)) / H)]!;
        });
      }
      const single = { ...o, ...shape, batch: undefined, axes: undefined, offset: undefined, positions, contextLength };
      if (pure) delete single.positions;
      out.set(rope(xb, single, pure), b * per);
    }
    return out;
  }

  /** Rotates x (or, `pure`, re-rotates it by `delta`). */
  function rope(xIn: unknown, options: unknown, pure: boolean): Float32Array {
    const o = requireObject('options', options);
    notLayered(o, 'headDim');
    if (pure) ropeKeys('rerotateRope options', '', o, REROTATE_KEYS, []);
    else ropeKeys('applyRope options', '', o, APPLY_ROPE_KEYS, XPOS_KEYS);
    if (o.batch !== undefined || o.axes !== undefined) return batched(xIn, o, pure);
    const heads = int('heads', o.heads, 1);
    const seqLen = int('seqLen', o.seqLen, 0);
    const layout = oneOf('layout', o.layout, ROPE_LAYOUTS);
    const contextLength = optContextLength(o.contextLength);
    return h.call((f) => {
      const { spec } = ropeSpec(m, o);
      const x = h.tensor('x', xIn, [['heads', heads], ['seqLen', seqLen], ['headDim', spec.headDim]]);
      const n = x.length;
      const r: RopeApplyWire = { ...defaultRotation(m, spec), layout, heads, seqLen, contextLength, pureRotation: pure };
      // M-RoPE reads three position rows per token.
      const rows = spec.mropeSection.length > 0 ? 3 : 1;
      if (pure) {
        const delta = int('delta', o.delta, -2147483648, 2147483647);
        r.positions = f.i32(new Int32Array(rows * seqLen).fill(delta));
      } else {
        if (o.positions !== undefined && o.offset !== undefined) {
          throw new TypeError('pass either positions or offset, not both');
        }
        if (o.positions !== undefined) {
          r.positions = f.i32(h.own(i32('positions', o.positions, rows * seqLen, rows === 3 ? '3 * seqLen (mrope)' : 'seqLen')));
        }
        r.offset = optInt('offset', o.offset, 0, -2147483648, 2147483647 - Math.max(seqLen - 1, 0));
        if (o.xpos !== undefined) {
          const xo = requireObject('xpos', o.xpos);
          r.xpos = true;
          if (xo.scaleBase !== undefined) r.xposScaleBase = number('xpos.scaleBase', xo.scaleBase);
          if (xo.center !== undefined) r.xposCenter = int32('xpos.center', xo.center);
          if (typeof xo.key !== 'boolean') throw new TypeError(`xpos.key must be a boolean, got ${String(xo.key)}`);
          r.xposKey = xo.key;
        }
      }
      const px = f.f32(x);
      const out = f.alloc(n * 4);
      h.check(m.ropeApply(r, px, n, out, n));
      return h.readF32(out, n);
    });
  }

  return {
    ropeFrequencies(options: RopeFrequencyOptions): RopeFrequencies {
      const o = requireObject('options', options);
      notLayered(o, 'headDim');
      ropeKeys('ropeFrequencies options', '', o, ROPE_FREQUENCY_KEYS, []);
      const seqLen = optInt('seqLen', o.seqLen, 0, 0);
      return h.call((f) => {
        const { spec, rotaryDim } = ropeSpec(m, o);
        const out = f.alloc((rotaryDim / 2) * 4);
        const factor = f.alloc(8);
        h.check(m.ropeFrequencies(spec, seqLen, out, rotaryDim / 2, factor));
        return { invFreq: h.readF32(out, rotaryDim / 2), attentionFactor: m.HEAPF64[factor >>> 3] as number };
      });
    },
    positionIds(mask: Uint8Array | Int32Array, seqLen: number): Int32Array {
      if (!(mask instanceof Uint8Array) && !(mask instanceof Int32Array)) {
        throw new TypeError(`mask must be a Uint8Array or an Int32Array, got ${mask === null ? 'null' : typeof mask}`);
      }
      const T = int('seqLen', seqLen, 1);
      if (mask.length % T !== 0) throw new RangeError(`mask must have batch * seqLen elements (seqLen = ${T}), got ${mask.length}`);
      const out = new Int32Array(mask.length);
      for (let b = 0; b < mask.length / T; b++) {
        let count = 0;
        for (let t = 0; t < T; t++) {
          const e = b * T + t;
          const v = mask[e]!;
          if (v !== 0 && v !== 1) throw new RangeError(`mask[${e}] must be 0 or 1, got ${v}`);
          count += v;
          // transformers: cumsum - 1, then 1 where the mask is 0.
          out[e] = v === 1 ? count - 1 : 1;
        }
      }
      return out;
    },
    ropeCache(options: RopeCacheOptions): RopeCache {
      const o = requireObject('options', options);
      notLayered(o, 'headDim');
      ropeKeys('ropeCache options', '', o, ROPE_CACHE_KEYS, []);
      const layout = oneOf('layout', o.layout, ROPE_LAYOUTS);
      const format = o.format === undefined ? 'full' : oneOf('format', o.format, ['full', 'half'] as const);
      if (o.positions !== undefined && o.offset !== undefined) throw new TypeError('pass either positions or offset, not both');
      const contextLength = optContextLength(o.contextLength);
      return h.call((f) => {
        const { spec, rotaryDim } = ropeSpec(m, o);
        const rows = spec.mropeSection.length > 0 ? 3 : 1;
        const given = o.positions === undefined ? undefined : h.own(i32('positions', o.positions));
        if (given !== undefined && given.length % rows !== 0) {
          throw new RangeError(`positions must have 3 * seqLen elements with mrope (three rows), got ${given.length}`);
        }
        const T = given === undefined ? int('seqLen', o.seqLen, 0, 1 << 24) : given.length / rows;
        if (given !== undefined && o.seqLen !== undefined && o.seqLen !== T) {
          throw new RangeError(`positions must have ${rows === 3 ? '3 * ' : ''}seqLen = ${rows * Number(o.seqLen)} elements, got ${given.length}`);
        }
        const offset = optInt('offset', o.offset, 0, -2147483648, 2147483647 - Math.max(T - 1, 0));
        const half = rotaryDim / 2;
        checkElements('rope cache', [['seqLen', T], ['rotaryDim', rotaryDim]], 4);
        const cos = f.alloc(T * half * 4);
        const sin = f.alloc(T * half * 4);
        const r: RopeApplyWire = {
          ...defaultRotation(m, spec), heads: 1, seqLen: T, positions: given === undefined ? 0 : f.i32(given), offset, contextLength,
        };
        h.check(m.ropeCache(r, cos, sin, T * half));
        const c = h.readF32(cos, T * half);
        const s = h.readF32(sin, T * half);
        if (format === 'half') return { cos: c, sin: s, width: half };
        return { cos: fullWidth(c, T, half, layout), sin: fullWidth(s, T, half, layout), width: rotaryDim };
      });
    },
    applyRope: (x: Float32Array, options: ApplyRopeOptions): Float32Array => rope(x, options, false),
    rerotateRope: (x: Float32Array, options: RerotateOptions): Float32Array => rope(x, options, true),
  };
}
