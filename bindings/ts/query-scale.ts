/**
 * `queryScale`: the per-position query multipliers of a `QueryScaling`
 * (Llama 4's attention temperature tuning, Ministral 3's
 * `llama_4_scaling_beta`): `1 + beta * ln(1 + floor((p + shift) / length))`,
 * computed in double and rounded once to float32.
 */
import type { Posenc, QueryScaling } from './types.js';
import { i32, int, number, oneOf, requireObject } from './validate.js';
import { keysOf, knownKeys } from './known-keys.js';

const QUERY_SCALING_KEYS = keysOf<QueryScaling>()(['source', 'beta', 'length', 'shift', 'layers']);

export function queryScale(positions: Int32Array, queryScaling: QueryScaling): Float32Array {
  const p = i32('positions', positions);
  const s = requireObject('queryScaling', queryScaling);
  knownKeys('queryScaling', s, QUERY_SCALING_KEYS);
  oneOf('queryScaling.source', s.source, ['llama4', 'llama_4_scaling_beta'] as const);
  const beta = number('queryScaling.beta', s.beta);
  if (!Number.isFinite(beta)) throw new RangeError(`queryScaling.beta must be a finite number, got ${beta}`);
  const length = int('queryScaling.length', s.length, 1);
  const shift = int('queryScaling.shift', s.shift, 0, 1);
  const out = new Float32Array(p.length);
  for (let t = 0; t < p.length; t++) {
    const v = p[t]!;
    if (v < 0) throw new RangeError(`positions[${t}] must be >= 0, got ${v}`);
    out[t] = 1 + beta * Math.log1p(Math.floor((v + shift) / length));
  }
  return out;
}

export const queryScaleApi: Pick<Posenc, 'queryScale'> = { queryScale };
