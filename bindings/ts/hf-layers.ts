/**
 * The decoder layers of a config.json, as transformers lays them out: each
 * layer's type (`layer_types`, or the pattern keys that stand for it) and
 * whether it applies RoPE at all.
 */
import { ATTENTION_LAYER_TYPES, MODEL_DEFAULTS, OTHER_LAYER_TYPES } from './hf-model-types.js';
import type { Reader } from './hf-reader.js';

export interface LayerPlan {
  /** `[layers]` transformers' name of each layer's kind. */
  types: string[];
  /** `[layers]` whether the layer rotates q and k. */
  rope: boolean[];
  /** Where the types came from (for `defaulted` and the inspect command). */
  typesFrom: string;
}

/** A sliding-window pattern: an integer n (every n-th layer global) or a string of L (local) and G (global). */
function fromPattern(pattern: unknown, path: string, n: number): string[] {
  if (typeof pattern === 'number') {
    if (!Number.isSafeInteger(pattern) || pattern < 1) throw new RangeError(`config.${path} must be an integer >= 1, got ${pattern}`);
    return Array.from({ length: n }, (_, i) => ((i + 1) % pattern !== 0 ? 'sliding_attention' : 'full_attention'));
  }
  if (typeof pattern === 'string' && /^[LG]+$/.test(pattern)) {
    // EXAONE 4's documented string form: the pattern repeats and the last layer is global.
    return Array.from({ length: n }, (_, i) =>
      i === n - 1 || pattern[i % pattern.length] === 'G' ? 'full_attention' : 'sliding_attention');
  }
  throw new RangeError(`config.${path} must be an integer >= 1 or a string of L and G (such as "LLLG"), got ${JSON.stringify(pattern)}`);
}

/** The layer types: `layer_types`, a pattern key, `full_attention_interval`, the class's default, or all full attention. */
function layerTypes(r: Reader, modelType: string | undefined, n: number): { types: string[]; from: string } {
  const given = r.get('layer_types');
  if (given !== undefined) {
    const path = r.path('layer_types');
    if (!Array.isArray(given) || given.length !== n || given.some((t) => typeof t !== 'string')) {
      throw new RangeError(
        `config.${path} must be an array of ${n} strings (num_hidden_layers), got ${Array.isArray(given) ? `${given.length} entries` : JSON.stringify(given)}`);
    }
    for (const [i, t] of (given as string[]).entries()) {
      if (!ATTENTION_LAYER_TYPES.includes(t) && !OTHER_LAYER_TYPES.includes(t)) {
        throw new RangeError(`config.${path}[${i}] is '${t}', a layer type posenc does not know (${[...ATTENTION_LAYER_TYPES, ...OTHER_LAYER_TYPES].join(', ')})`);
      }
    }
    return { types: given as string[], from: path };
  }
  for (const key of ['sliding_window_pattern', '_sliding_window_pattern']) {
    const p = r.get(key);
    if (p !== undefined) return { types: fromPattern(p, r.path(key), n), from: r.path(key) };
  }
  const idxs = r.get('full_attn_idxs');
  if (idxs !== undefined) {
    // LFM2's first form: the indices of the attention layers; the others are convolutions.
    const path = r.path('full_attn_idxs');
    if (!Array.isArray(idxs) || idxs.some((i) => !Number.isSafeInteger(i) || i < 0 || i >= n)) {
      throw new RangeError(`config.${path} must be an array of layer indices in [0, ${n}), got ${JSON.stringify(idxs)}`);
    }
    return { types: Array.from({ length: n }, (_, i) => (idxs.includes(i) ? 'full_attention' : 'conv')), from: path };
  }
  const interval = r.integer('full_attention_interval');
  if (interval !== undefined) {
    return {
      types: Array.from({ length: n }, (_, i) => ((i + 1) % interval === 0 ? 'full_attention' : 'linear_attention')),
      from: r.path('full_attention_interval'),
    };
  }
  const byClass = modelType === undefined ? undefined : MODEL_DEFAULTS[modelType]?.layerType;
  if (byClass !== undefined) {
    const types = Array.from({ length: n }, (_, i) => byClass(i, n));
    r.fill(undefined, `layer_types: ${modelType}'s default pattern (${types.map((t) => t[0]).join('')})`);
    return { types, from: `${modelType}'s default` };
  }
  return { types: Array<string>(n).fill('full_attention'), from: 'every layer full attention' };
}

/** `no_rope_layers` ([layers] of 1 = RoPE, 0 = none) or `no_rope_layer_interval`, when the model type reads them. */
function noRopeLayers(r: Reader, modelType: string | undefined, n: number): boolean[] | undefined {
  const interval0 = modelType === undefined ? undefined : MODEL_DEFAULTS[modelType]?.noRopeInterval;
  const list = r.get('no_rope_layers');
  // Read (and checked) even beside a list, which transformers then follows.
  const given = r.integer('no_rope_layer_interval');
  const path = r.path('no_rope_layers');
  // Llama 4 takes an empty list as absent; SmolLM3 would index past it.
  if (list !== undefined && !(Array.isArray(list) && list.length === 0 && modelType === 'llama4_text')) {
    if (!Array.isArray(list) || list.length !== n || list.some((v) => v !== 0 && v !== 1 && v !== true && v !== false)) {
      throw new RangeError(
        `config.${path} must be an array of ${n} values 0 or 1 (1 = the layer uses RoPE), got ${Array.isArray(list) ? `${list.length} entries` : JSON.stringify(list)}`);
    }
    if (interval0 === undefined) throw new RangeError(`config.${path}: posenc does not know whether model type '${String(modelType)}' reads it`);
    return list.map((v) => v === 1 || v === true);
  }
  if (given === undefined && interval0 === undefined) return undefined;
  if (interval0 === undefined) {
    throw new RangeError(`config.${r.path('no_rope_layer_interval')}: posenc does not know whether model type '${String(modelType)}' reads it`);
  }
  const interval = given ?? r.fill(interval0, `no_rope_layer_interval = ${interval0} (${modelType}'s default)`);
  return Array.from({ length: n }, (_, i) => (i + 1) % interval !== 0);
}

/** The model's sliding window: the config's (null = none) or the class default when the key is absent. */
function slidingWindow(r: Reader, modelType: string): number | undefined {
  if (r.has('sliding_window')) return r.integer('sliding_window');
  const d = MODEL_DEFAULTS[modelType]?.slidingWindow;
  return d === undefined ? undefined : r.fill(d, `sliding_window = ${d} (${modelType}'s default)`);
}

export function layerPlan(r: Reader, modelType: string | undefined, n: number): LayerPlan {
  const { types, from } = layerTypes(r, modelType, n);
  let rope = types.map((t) => ATTENTION_LAYER_TYPES.includes(t));
  const noRope = noRopeLayers(r, modelType, n);
  if (noRope !== undefined) rope = rope.map((has, i) => has && noRope[i]!);
  const rule = modelType === undefined ? undefined : MODEL_DEFAULTS[modelType]?.noRope;
  if (rule !== undefined) {
    const window = slidingWindow(r, modelType!);
    if (rule === 'sliding-only') {
      rope = rope.map((has, i) => has && window !== undefined && types[i] === 'sliding_attention');
    } else if (window !== undefined) {
      rope = rope.map((has, i) => has && types[i] === 'sliding_attention');
    }
  }
  return { types, rope, typesFrom: from };
}
