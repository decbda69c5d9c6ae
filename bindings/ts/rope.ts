/**
 * RoPE: frequencies, rotation and re-rotation, and the RopeSpec value object
 * that attention, the KV cache and the tiny models share.
 */
import type { Heap } from './heap.js';
import { ROPE_LAYOUTS, ROPE_SCALINGS } from './names.js';
import type { AttentionRopeWire, RawModule, RopeConfigWire } from './raw.js';
import type { ApplyRopeOptions, Posenc, RerotateOptions, RopeFrequencies, RopeFrequencyOptions, RopeScaling } from './types.js';
import { i32, int, num, oneOf, optBool, optInt, optNum, requireObject } from './validate.js';

/** True when A and B are the same union (a compile-time check). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Every RopeScaling variant has a name in ROPE_SCALINGS and vice versa.
const scalingsMatch: Same<RopeScaling['type'], (typeof ROPE_SCALINGS)[number]> = true;
void scalingsMatch;

const defaults = new WeakMap<RawModule, RopeConfigWire>();

/** A RoPE configuration at the C++ defaults (the module's, read once), with these dims and base; not validated. */
export function defaultRopeSpec(m: RawModule, headDim: number, rotaryDim: number, base: number): RopeConfigWire {
  let d = defaults.get(m);
  if (d === undefined) defaults.set(m, (d = m.defaultRopeConfig()));
  return { ...d, headDim, rotaryDim, base, scaling: { ...d.scaling } };
}

/** Validates the frequency options and builds the RopeFrequencyConfig value object. */
export function ropeSpec(m: RawModule, o: Record<string, unknown>): { spec: RopeConfigWire; rotaryDim: number } {
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
  const spec = defaultRopeSpec(m, headDim, rotaryDim, optNum('base', o.base, 10000, { gt: 1 }));
  const w = spec.scaling;
  if (o.scaling === undefined) return { spec, rotaryDim };
  const s = requireObject('scaling', o.scaling);
  const type = oneOf('scaling.type', s.type, ROPE_SCALINGS);
  w.type = type;
  if (type === 'default') return { spec, rotaryDim };
  const required = (key: string): unknown => {
    if (s[key] === undefined) throw new TypeError(`scaling.${key} is required for scaling type '${type}'`);
    return s[key];
  };
  w.factor = num('scaling.factor', required('factor'), { gt: 0 });
  if (type === 'dynamic') {
    w.maxPositionEmbeddings = int('scaling.maxPositionEmbeddings', required('maxPositionEmbeddings'), 1);
  }
  if (type === 'yarn' || type === 'longrope' || type === 'llama3') {
    w.originalMaxPositionEmbeddings = int(
      'scaling.originalMaxPositionEmbeddings', required('originalMaxPositionEmbeddings'), 1);
  }
  if (type === 'yarn') {
    w.betaFast = optNum('scaling.betaFast', s.betaFast, 32, { gt: 0 });
    w.betaSlow = optNum('scaling.betaSlow', s.betaSlow, 1, { gt: 0 });
    w.truncate = optBool('scaling.truncate', s.truncate, true);
    w.mscale = optNum('scaling.mscale', s.mscale, 0, { ge: 0 });
    w.mscaleAllDim = optNum('scaling.mscaleAllDim', s.mscaleAllDim, 0, { ge: 0 });
  }
  if (type === 'yarn' || type === 'longrope') {
    w.attentionFactor = optNum('scaling.attentionFactor', s.attentionFactor, NaN, { gt: 0 });
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
      w[key] = a;
    }
  }
  if (type === 'llama3') {
    w.lowFreqFactor = num('scaling.lowFreqFactor', required('lowFreqFactor'), { gt: 0 });
    w.highFreqFactor = num('scaling.highFreqFactor', required('highFreqFactor'), { gt: 0 });
    if (!(w.highFreqFactor > w.lowFreqFactor)) {
      throw new RangeError(
        `scaling.highFreqFactor (${w.highFreqFactor}) must be greater than scaling.lowFreqFactor (${w.lowFreqFactor})`);
    }
  }
  // Any other field of the C++ list the caller gave (one the checks above
  // do not know yet) crosses too, checked for its JS type: a field added to
  // the list and to the public type is never dropped silently.
  const wire = w as unknown as Record<string, unknown>;
  for (const key of Object.keys(wire)) {
    const v = s[key];
    if (key === 'type' || v === undefined || handled.has(key)) continue;
    const d = wire[key];
    if (typeof d === 'number') wire[key] = num(`scaling.${key}`, v);
    else if (typeof d === 'boolean') wire[key] = optBool(`scaling.${key}`, v, d);
    else throw new TypeError(`scaling.${key}: fields of this kind must be checked in rope.ts`);
  }
  return { spec, rotaryDim };
}

/** The scaling fields the checks of ropeSpec handle one by one. */
const handled: ReadonlySet<string> = new Set([
  'factor', 'maxPositionEmbeddings', 'originalMaxPositionEmbeddings', 'betaFast', 'betaSlow', 'truncate', 'mscale',
  'mscaleAllDim', 'attentionFactor', 'shortFactor', 'longFactor', 'lowFreqFactor', 'highFreqFactor',
]);

/**
 * The `rope` option of an attention call or a KV cache into `wire` (the
 * C++ defaults): rotation, layout, frequencies and xPos; positions are the
 * caller's.
 */
export function attentionRope(m: RawModule, r: unknown, headDim: number, wire: AttentionRopeWire): AttentionRopeWire {
  // Without RoPE the core ignores freq: any head dim (odd too) is fine.
  wire.freq = defaultRopeSpec(m, headDim, headDim, 10000);
  if (r === undefined) return wire;
  const o = requireObject('rope', r);
  wire.enabled = true;
  wire.layout = oneOf('rope.layout', o.layout, ROPE_LAYOUTS);
  wire.freq = ropeSpec(m, { headDim, rotaryDim: o.rotaryDim, base: o.base, scaling: o.scaling }).spec;
  if (o.xpos !== undefined) {
    wire.xpos = true;
    wire.xposScaleBase = optNum('rope.xpos.scaleBase', requireObject('rope.xpos', o.xpos).scaleBase, 512, { gt: 0 });
  }
  return wire;
}

/** `contextLength`: an integer (its range is checked in C++); omitted = -1, derived. */
function optContextLength(v: unknown): number {
  if (v === undefined) return -1;
  const n = num('contextLength', v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`contextLength must be an integer, got ${n}`);
  return n;
}

/** `ropeFrequencies`, `applyRope` and `rerotateRope` over one module. */
export function ropeApi(h: Heap): Pick<Posenc, 'ropeFrequencies' | 'applyRope' | 'rerotateRope'> {
  const { m } = h;

  /** Rotates x (or, `pure`, re-rotates it by `delta`). */
  function rope(xIn: unknown, options: unknown, pure: boolean): Float32Array {
    const o = requireObject('options', options);
    const heads = int('heads', o.heads, 1);
    const seqLen = int('seqLen', o.seqLen, 0);
    const layout = oneOf('layout', o.layout, ROPE_LAYOUTS);
    const contextLength = optContextLength(o.contextLength);
    return h.call((f) => {
      const { spec } = ropeSpec(m, o);
      const x = h.tensor('x', xIn, [['heads', heads], ['seqLen', seqLen], ['headDim', spec.headDim]]);
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
        if (o.positions !== undefined) positions = f.i32(h.own(i32('positions', o.positions, seqLen, 'seqLen')));
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
      h.check(m.ropeApply(spec, ROPE_LAYOUTS.indexOf(layout), px, n, out, heads, seqLen, positions, offset, pure,
        xpos, xposScaleBase, xposCenter, xposKey, contextLength));
      return h.readF32(out, n);
    });
  }

  return {
    ropeFrequencies(options: RopeFrequencyOptions): RopeFrequencies {
      const o = requireObject('options', options);
      const seqLen = optInt('seqLen', o.seqLen, 0, 0);
      return h.call((f) => {
        const { spec, rotaryDim } = ropeSpec(m, o);
        const out = f.alloc((rotaryDim / 2) * 4);
        const factor = f.alloc(8);
        h.check(m.ropeFrequencies(spec, seqLen, out, factor));
        return { invFreq: h.readF32(out, rotaryDim / 2), attentionFactor: m.HEAPF64[factor >> 3] as number };
      });
    },
    applyRope: (x: Float32Array, options: ApplyRopeOptions): Float32Array => rope(x, options, false),
    rerotateRope: (x: Float32Array, options: RerotateOptions): Float32Array => rope(x, options, true),
  };
}
