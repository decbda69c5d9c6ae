/**
 * RoPE: frequencies, rotation and re-rotation, and the RopeSpec value object
 * that attention, the KV cache and the tiny models share.
 */
import type { Heap, Frame } from './heap.js';
import { ROPE_LAYOUTS, ROPE_SCALINGS } from './names.js';
import type { RopeSpec } from './raw.js';
import type { ApplyRopeOptions, Posenc, RerotateOptions, RopeFrequencies, RopeFrequencyOptions, RopeScaling } from './types.js';
import { i32, int, num, oneOf, optBool, optInt, optNum, requireObject } from './validate.js';

/** True when A and B are the same union (a compile-time check). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// Every RopeScaling variant has a name in ROPE_SCALINGS and vice versa.
const scalingsMatch: Same<RopeScaling['type'], (typeof ROPE_SCALINGS)[number]> = true;
void scalingsMatch;

/** Default frequencies, not validated (callers check the dims). */
export function defaultRopeSpec(headDim: number, rotaryDim: number, base: number): RopeSpec {
  return {
    headDim, rotaryDim, base, scaling: 'default', factor: 1, originalMaxPositionEmbeddings: 0,
    maxPositionEmbeddings: 0, betaFast: 32, betaSlow: 1, truncate: true, mscale: 0, mscaleAllDim: 0,
    attentionFactor: NaN, lowFreqFactor: 1, highFreqFactor: 4, shortFactor: 0, longFactor: 0, factorLength: 0,
  };
}

/** Validates the frequency options and builds the RopeSpec (factor lists copied into `f`). */
export function ropeSpec(f: Frame, o: Record<string, unknown>): { spec: RopeSpec; rotaryDim: number } {
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
  const type = oneOf('scaling.type', s.type, ROPE_SCALINGS);
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

/** The `rope` option of an attention call or a KV cache (defaults when absent). */
export function attentionRope(f: Frame, r: unknown, headDim: number): { spec: RopeSpec; layout: number; xposBase: number; xpos: boolean } {
  // Without RoPE the core ignores the spec: any head dim (odd too) is fine.
  if (r === undefined) return { spec: defaultRopeSpec(headDim, headDim, 10000), layout: 0, xposBase: 512, xpos: false };
  const o = requireObject('rope', r);
  const layout = ROPE_LAYOUTS.indexOf(oneOf('rope.layout', o.layout, ROPE_LAYOUTS));
  const { spec } = ropeSpec(f, { headDim, rotaryDim: o.rotaryDim, base: o.base, scaling: o.scaling });
  let xposBase = 512;
  if (o.xpos !== undefined) xposBase = optNum('rope.xpos.scaleBase', requireObject('rope.xpos', o.xpos).scaleBase, 512, { gt: 0 });
  return { spec, layout, xposBase, xpos: o.xpos !== undefined };
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
      const { spec } = ropeSpec(f, o);
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
        const { spec, rotaryDim } = ropeSpec(f, o);
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
