/**
 * `ropeFromConfig`: the RoPE of every decoder layer of a Hugging Face
 * `config.json`, read the way the transformers library reads it, as posenc
 * options.
 *
 * Every key of a RoPE part of the config (`rope_scaling` / `rope_parameters`,
 * flat or keyed by layer type) must be one this function understands for the
 * given type: an unknown key is an error naming it, never a silent default.
 * Values are checked by the core, through `ropeFrequencies`, which also gives
 * the attention factor.
 */
import { layerPlan } from './hf-layers.js';
import {
  ATTENTION_LAYER_TYPES, LAYOUT_BY_MODEL_TYPE, MODEL_DEFAULTS, MROPE_INTERLEAVED, OTHER_LAYER_TYPES, TEXT_MODEL_TYPE,
} from './hf-model-types.js';
import { type Json, Reader } from './hf-reader.js';
import { ROPE_LAYOUTS } from './names.js';
import type {
  MropeOptions, Posenc, QueryScaling, RopeFromConfig, RopeFromConfigOptions, RopeLayerOptions, RopeLayout, RopeScaling,
} from './types.js';
import { oneOf, requireObject } from './validate.js';
import { keysOf, knownKeys } from './known-keys.js';

export { LAYOUT_BY_MODEL_TYPE } from './hf-model-types.js';

/** Hugging Face `rope_type` (or the legacy `type`) -> posenc scaling type. */
const TYPE_NAMES: Readonly<Record<string, RopeScaling['type']>> = {
  default: 'default', linear: 'linear', dynamic: 'dynamic', yarn: 'yarn', longrope: 'longrope',
  su: 'longrope', // Phi-3's first name for LongRoPE
  llama3: 'llama3',
  proportional: 'proportional',
};

/**
 * Keys a scaling object may hold besides its type, per posenc type. `llama_4_scaling_beta` is a query
 * scaling (reported apart); `max_position_embeddings` is Ministral 3's copy of the top-level one.
 */
const COMMON_KEYS = ['rope_type', 'type', 'rope_theta', 'partial_rotary_factor', 'llama_4_scaling_beta', 'max_position_embeddings',
  'mrope_section', 'mrope_interleaved'];
const KEYS: Readonly<Record<RopeScaling['type'], readonly string[]>> = {
  default: [],
  linear: ['factor'],
  ntk: ['factor'],
  // `alpha`: HunYuan's fixed NTK base (its own rotary module reads it; see the dynamic case below).
  dynamic: ['factor', 'original_max_position_embeddings', 'alpha'],
  // `finetuned`: a flag of the first YaRN release that transformers reads and ignores.
  yarn: ['factor', 'original_max_position_embeddings', 'beta_fast', 'beta_slow', 'mscale', 'mscale_all_dim',
    'attention_factor', 'truncate', 'finetuned'],
  longrope: ['factor', 'original_max_position_embeddings', 'short_factor', 'long_factor', 'attention_factor'],
  llama3: ['factor', 'original_max_position_embeddings', 'low_freq_factor', 'high_freq_factor'],
  // Its part's partial_rotary_factor (a common key) is the share of pairs that turn, not a narrower rotation.
  proportional: ['factor'],
};

/** What every layer of the model shares: the model type, the layout and the head size keys. */
interface Model {
  type: string | undefined;
  layout: RopeLayout;
  maxPositions: number | undefined;
}

/** A layer type's RoPE part: the scaling object (if any) and where it sits. */
interface RopePart {
  dict: Json | undefined;
  path: string;
  /** Sliding layers of a flat config (see `ModelDefaults.slidingRope`): no scaling, and Gemma 3's own base. */
  sliding?: 'local-base' | 'unscaled';
}

/** The head width of a layer type: DeepSeek's qk_rope_head_dim, Gemma 4's global_head_dim, head_dim, or hidden size / heads. */
function headDim(r: Reader, model: Model, layerType: string): number {
  const ropeHead = r.integer('qk_rope_head_dim');
  if (ropeHead !== undefined) return ropeHead;
  const global = model.type === undefined ? undefined : MODEL_DEFAULTS[model.type]?.globalHeadDim;
  if (global !== undefined && layerType === 'full_attention') {
    return r.integer('global_head_dim') ?? r.fill(global, `global_head_dim = ${global} (${model.type}'s default)`);
  }
  const given = r.integer('head_dim');
  if (given !== undefined) return given;
  const byClass = model.type === undefined ? undefined : MODEL_DEFAULTS[model.type]?.headDim;
  if (byClass !== undefined) return r.fill(byClass, `head_dim = ${byClass} (${model.type}'s default)`);
  const hidden = r.first(['hidden_size', 'n_embd', 'd_model'], (k) => r.integer(k));
  const heads = r.first(['num_attention_heads', 'n_head', 'num_heads'], (k) => r.integer(k));
  if (hidden === undefined || heads === undefined) {
    throw new TypeError('config has no head size: give head_dim, or hidden_size and num_attention_heads');
  }
  if (hidden % heads !== 0) throw new RangeError(`config: hidden size ${hidden} is not a multiple of the ${heads} attention heads`);
  return hidden / heads;
}

/** The rotated width: `rotary_dim`, or the head width times the rotary share (the layer's, the config's, the class's). */
function rotaryDim(r: Reader, model: Model, part: RopePart, head: number, scaling: RopeScaling): number {
  if (r.integer('qk_rope_head_dim') !== undefined || scaling.type === 'proportional') return head;
  const absolute = r.integer('rotary_dim');
  if (absolute !== undefined) return absolute;
  const classShare = model.type === undefined ? undefined : MODEL_DEFAULTS[model.type]?.partialRotaryFactor;
  const share =
    (part.dict === undefined ? undefined : r.innerNumber(part.dict, 'partial_rotary_factor', part.path)) ??
    r.number('partial_rotary_factor') ??
    r.number('rotary_pct') ??
    (classShare === undefined ? undefined : r.fill(classShare, `partial_rotary_factor = ${classShare} (${model.type}'s default)`));
  if (share === undefined) return head;
  if (!(share > 0 && share <= 1)) throw new RangeError(`config: the rotary share must be in (0, 1], got ${share}`);
  return Math.floor(head * share);
}

/** The RoPE part of each layer type: nested `rope_parameters`, Gemma 3's two bases, a class default, or one flat part. */
function ropeParts(r: Reader, model: Model, types: readonly string[]): Map<string, RopePart> {
  const defaults = model.type === undefined ? {} : (MODEL_DEFAULTS[model.type] ?? {});
  if (r.get('rope_scaling') !== undefined && r.get('rope_parameters') !== undefined) {
    throw new RangeError('config has both rope_scaling and rope_parameters: keep the one the model was saved with');
  }
  const key = r.get('rope_parameters') !== undefined ? 'rope_parameters' : 'rope_scaling';
  const raw = r.get(key);
  const path = r.path(key);
  const flat = raw === undefined ? undefined : requireObject(`config.${path}`, raw);
  const parts = new Map<string, RopePart>();
  const known = [...ATTENTION_LAYER_TYPES, ...OTHER_LAYER_TYPES];
  const nested = flat !== undefined && Object.keys(flat).length > 0 && Object.keys(flat).every((k) => known.includes(k));
  if (nested || (flat === undefined && defaults.ropeParameters !== undefined)) {
    const byType = nested ? flat : r.fill(defaults.ropeParameters as Json, `rope_parameters: ${model.type}'s default per layer type`);
    for (const t of types) {
      const p = byType[t];
      if (p === undefined || p === null) continue;  // a layer type without RoPE; a layer that needs it fails below
      const dict = requireObject(`config.${path}.${t}`, p);
      parts.set(t, { dict: nested ? dict : r.supplied({ ...dict }), path: nested ? `${path}.${t}` : `rope_parameters.${t} (${model.type}'s default)` });
    }
    return parts;
  }
  for (const t of types) {
    const sliding = t === 'sliding_attention' ? defaults.slidingRope : undefined;
    parts.set(t, sliding === undefined ? { dict: flat, path } : { dict: flat, path, sliding });
  }
  return parts;
}

/** The base of a layer type: the part's rope_theta, Gemma 3's local base, the config's, the class's, or 10000. */
function ropeBase(r: Reader, model: Model, part: RopePart): number {
  const defaults = model.type === undefined ? {} : (MODEL_DEFAULTS[model.type] ?? {});
  // A base given in the config must be > 1 (the core's rule), named by its key.
  const above1 = (v: number | undefined, path: string): number | undefined => {
    if (v !== undefined && !(v > 1)) throw new RangeError(`config.${path} must be > 1 (a RoPE base), got ${v}`);
    return v;
  };
  if (part.sliding === 'local-base') {
    return above1(r.number('rope_local_base_freq'), r.path('rope_local_base_freq')) ??
      r.fill(defaults.localBase!, `rope_local_base_freq = ${defaults.localBase} (${model.type}'s default, the sliding layers' base)`);
  }
  const given =
    (part.dict === undefined ? undefined : above1(r.innerNumber(part.dict, 'rope_theta', part.path), `${part.path}.rope_theta`)) ??
    above1(r.number('rope_theta'), r.path('rope_theta')) ??
    above1(r.number('rotary_emb_base'), r.path('rotary_emb_base'));
  if (given !== undefined) return given;
  if (defaults.ropeTheta !== undefined) return r.fill(defaults.ropeTheta, `base = ${defaults.ropeTheta} (${model.type}'s default rope_theta)`);
  return r.fill(10000, 'base = 10000 (no rope_theta in the config, as transformers assumes)');
}

/** The scaling of one RoPE part, read as transformers' rope init functions read it. */
function ropeScaling(r: Reader, model: Model, part: RopePart): RopeScaling {
  const sc = part.dict;
  if (sc === undefined || part.sliding !== undefined) return { type: 'default' };
  const key = part.path;
  const modern = r.inner(sc, 'rope_type', key);
  const legacy = r.inner(sc, 'type', key);
  if (modern !== undefined && legacy !== undefined && modern !== legacy) {
    throw new RangeError(`config.${key}: rope_type ${JSON.stringify(modern)} and type ${JSON.stringify(legacy)} differ`);
  }
  // Qwen2-VL's first configs say "mrope": default frequencies, M-RoPE positions (the section is read apart).
  const given = modern ?? legacy ?? 'default';
  if (given === 'mrope' && (sc.mrope_section === undefined || sc.mrope_section === null)) {
    throw new TypeError(`config.${key}: rope type 'mrope' needs ${key}.mrope_section`);
  }
  if (typeof given !== 'string' || (TYPE_NAMES[given] === undefined && given !== 'mrope')) {
    throw new RangeError(
      `config.${key}: rope type ${JSON.stringify(given)} is not one posenc reads (${Object.keys(TYPE_NAMES).join(', ')})`);
  }
  let name: string = given === 'mrope' ? 'default' : given;
  if (model.type !== undefined && MODEL_DEFAULTS[model.type]?.scalingIsLlama3 === true && name !== 'llama3') {
    r.fill(undefined, `rope type llama3 for ${key} (its type says '${name}'; ${model.type} reads any rope_scaling as llama3)`);
    name = 'llama3';
  }
  const type = TYPE_NAMES[name]!;
  // HunYuan's configs carry YaRN-like keys beside alpha, which its rotary module does not read.
  const hunyuan = type === 'dynamic' && sc.alpha !== undefined && sc.alpha !== null ? ['beta_fast', 'beta_slow', 'mscale', 'mscale_all_dim'] : [];
  const mscales = type === 'longrope' && model.type !== undefined && MODEL_DEFAULTS[model.type]?.longropeMscales === true ? ['short_mscale', 'long_mscale'] : [];
  for (const k of Object.keys(sc)) {
    if (!COMMON_KEYS.includes(k) && !KEYS[type].includes(k) && !hunyuan.includes(k) && !mscales.includes(k)) {
      throw new RangeError(`config.${key}.${k} is not a key posenc understands for rope type '${name}'`);
    }
  }
  const inner = sc.max_position_embeddings;
  if (inner !== undefined && inner !== null && inner !== model.maxPositions) {
    throw new RangeError(`config.${key}.max_position_embeddings (${JSON.stringify(inner)}) differs from config.max_position_embeddings (${String(model.maxPositions)})`);
  }
  if (inner !== undefined) r.inner(sc, 'max_position_embeddings', key);
  const num = (k: string): number | undefined => r.innerNumber(sc, k, key);
  const need = (v: number | undefined, what: string): number => {
    if (v === undefined) throw new TypeError(`config: rope type '${type}' needs ${what}`);
    return v;
  };
  const list = (k: string): number[] => {
    const v = r.inner(sc, k, key);
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'number')) {
      throw new TypeError(`config.${key}.${k} must be an array of numbers, got ${JSON.stringify(v)}`);
    }
    return v as number[];
  };
  const original = (): number | undefined => r.innerInteger(sc, 'original_max_position_embeddings', key);
  /** transformers: a factor left null is the ratio of the two context lengths. */
  const ratio = (L: number | undefined): number | undefined =>
    L !== undefined && model.maxPositions !== undefined ? model.maxPositions / L : undefined;

  switch (type) {
    case 'default':
      return { type };
    case 'linear':
    case 'ntk':
      return { type, factor: need(num('factor'), `${key}.factor`) };
    case 'dynamic': {
      const alpha = num('alpha');
      if (alpha !== undefined) {
        // HunYuan's rotary module: base * alpha^(d/(d-2)) once, at every length: static NTK with factor alpha
        // (its `factor` is not used). Other model types ignore alpha, so a config giving it is not theirs.
        if (model.type === undefined || !model.type.startsWith('hunyuan')) {
          throw new RangeError(`config.${key}.alpha: only HunYuan's modeling code reads it, and model_type is ${JSON.stringify(model.type ?? null)}`);
        }
        for (const k of ['factor', ...hunyuan]) num(k);
        return { type: 'ntk', factor: alpha };
      }
      // transformers (_compute_dynamic_ntk_parameters and the rotary module's update) take the trained length
      // from max_position_embeddings; an original_max_position_embeddings in the scaling is not read.
      return {
        type, factor: need(num('factor'), `${key}.factor`),
        maxPositionEmbeddings: need(model.maxPositions, 'max_position_embeddings'),
      };
    }
    case 'yarn': {
      const L = need(original() ?? model.maxPositions, `${key}.original_max_position_embeddings or max_position_embeddings`);
      const factor = num('factor') ?? ('factor' in sc ? ratio(L) : undefined);
      const y: RopeScaling = { type, factor: need(factor, `${key}.factor`), originalMaxPositionEmbeddings: L };
      const betaFast = num('beta_fast');
      const betaSlow = num('beta_slow');
      const mscale = num('mscale');
      const mscaleAllDim = num('mscale_all_dim');
      const attentionFactor = num('attention_factor');
      const truncate = r.inner(sc, 'truncate', key);
      r.inner(sc, 'finetuned', key);
      if (betaFast !== undefined) y.betaFast = betaFast;
      if (betaSlow !== undefined) y.betaSlow = betaSlow;
      if (mscale !== undefined) y.mscale = mscale;
      if (mscaleAllDim !== undefined) y.mscaleAllDim = mscaleAllDim;
      if (attentionFactor !== undefined) y.attentionFactor = attentionFactor;
      if (truncate !== undefined) {
        if (typeof truncate !== 'boolean') throw new TypeError(`config.${key}.truncate must be a boolean, got ${JSON.stringify(truncate)}`);
        y.truncate = truncate;
      }
      return y;
    }
    case 'longrope': {
      // Phi-3 keeps the pre-extension length at the top level, which then wins over the scaling's own; with
      // no factor, transformers takes the ratio of max_position_embeddings to it.
      const topOriginal = r.integer('original_max_position_embeddings');
      const L = need(topOriginal ?? original(), 'original_max_position_embeddings');
      const factor = num('factor') ?? ratio(L);
      const l: RopeScaling = {
        type, factor: need(factor, `${key}.factor (or max_position_embeddings and original_max_position_embeddings)`),
        originalMaxPositionEmbeddings: L, shortFactor: list('short_factor'), longFactor: list('long_factor'),
      };
      const attentionFactor = num('attention_factor');
      if (attentionFactor !== undefined) l.attentionFactor = attentionFactor;
      if (mscales.length > 0) {
        // PhiMoE's rotary module multiplies cos and sin by short_mscale up to the original length and by
        // long_mscale past it, instead of the attention factor: one value when the two agree.
        const short = num('short_mscale'), long = num('long_mscale');
        if (short !== undefined || long !== undefined) {
          if (short !== long) {
            throw new RangeError(`config.${key}: short_mscale (${String(short)}) and long_mscale (${String(long)}) differ; ` +
              'posenc gives a LongRoPE one attention factor at every length');
          }
          l.attentionFactor = short!;
        }
      }
      return l;
    }
    case 'llama3':
      return {
        type, factor: need(num('factor'), `${key}.factor`),
        originalMaxPositionEmbeddings: need(original(), `${key}.original_max_position_embeddings`),
        lowFreqFactor: need(num('low_freq_factor'), `${key}.low_freq_factor`),
        highFreqFactor: need(num('high_freq_factor'), `${key}.high_freq_factor`),
      };
    case 'proportional': {
      // transformers: the part's partial_rotary_factor (default 1) over the full head; factor default 1.
      const p: RopeScaling = { type, partialRotaryFactor: num('partial_rotary_factor') ?? 1 };
      const factor = num('factor');
      if (factor !== undefined) p.factor = factor;
      return p;
    }
  }
  throw new RangeError(`config.${key}: no reader for rope type '${type}'`);
}

/** M-RoPE's split of the pairs, from a part's `mrope_section`; the model type says how they are dealt. */
function mrope(r: Reader, model: Model, part: RopePart): MropeOptions | undefined {
  if (part.dict === undefined || part.sliding !== undefined) return undefined;
  const section = r.inner(part.dict, 'mrope_section', part.path);
  if (section === undefined) return undefined;
  const path = `config.${part.path}.mrope_section`;
  if (!Array.isArray(section) || section.length !== 3 || section.some((v) => !Number.isSafeInteger(v) || (v as number) < 0)) {
    throw new RangeError(`${path} must be 3 integers >= 0 (pairs for the temporal, height and width rows), got ${JSON.stringify(section)}`);
  }
  const interleaved = model.type === undefined ? undefined : MROPE_INTERLEAVED[model.type];
  if (interleaved === undefined) {
    throw new RangeError(`${path}: posenc does not know how model type ${JSON.stringify(model.type ?? null)} deals its pairs to the three rows`);
  }
  const flag = r.inner(part.dict, 'mrope_interleaved', part.path);
  if (flag !== undefined && flag !== interleaved) {
    throw new RangeError(`config.${part.path}.mrope_interleaved is ${JSON.stringify(flag)}, but ${model.type}'s code deals the pairs ` +
      `${interleaved ? 'in turn' : 'in chunks'} (transformers follows the model type)`);
  }
  return { section: section as number[], interleaved };
}

/** The query scaling outside cos and sin: Llama 4's temperature tuning, or a `llama_4_scaling_beta`. */
function queryScaling(r: Reader, model: Model, parts: Map<string, RopePart>, types: string[], rope: boolean[]): QueryScaling | undefined {
  const attends = (i: number): boolean => ATTENTION_LAYER_TYPES.includes(types[i]!);
  if (model.type !== undefined && MODEL_DEFAULTS[model.type]?.temperatureTuning === true) {
    const on = r.get('attn_temperature_tuning');
    if (on === undefined || (on !== false && on !== 0)) {
      if (on === undefined) r.fill(undefined, `attn_temperature_tuning = true (${model.type}'s default)`);
      const beta = r.number('attn_scale') ?? r.fill(0.1, `attn_scale = 0.1 (${model.type}'s default)`);
      const length = r.integer('floor_scale') ?? r.fill(8192, `floor_scale = 8192 (${model.type}'s default)`);
      const layers = types.flatMap((_, i) => (attends(i) && !rope[i] ? [i] : []));
      if (layers.length > 0) return { source: 'llama4', beta, length, shift: 1, layers };
    }
  }
  for (const part of new Set(parts.values())) {
    if (part.dict === undefined) continue;
    const beta = r.innerNumber(part.dict, 'llama_4_scaling_beta', part.path);
    if (beta === undefined) continue;
    const length = r.innerInteger(part.dict, 'original_max_position_embeddings', part.path);
    if (length === undefined) {
      throw new TypeError(`config.${part.path}.llama_4_scaling_beta needs ${part.path}.original_max_position_embeddings (the query scale's step)`);
    }
    return { source: 'llama_4_scaling_beta', beta, length, shift: 0, layers: types.flatMap((_, i) => (attends(i) ? [i] : [])) };
  }
  return undefined;
}

/** The text model's type and the pair layout. */
function modelOf(r: Reader, c: Json, options: RopeFromConfigOptions): Model {
  const top = c.model_type;
  if (top !== undefined && top !== null && typeof top !== 'string') {
    throw new TypeError(`config.model_type must be a string, got ${JSON.stringify(top)}`);
  }
  const inner = r.text?.model_type;
  if (inner !== undefined && inner !== null && typeof inner !== 'string') {
    throw new TypeError(`config.text_config.model_type must be a string, got ${JSON.stringify(inner)}`);
  }
  if (top != null) r.keysRead.push('model_type');
  if (inner != null) r.keysRead.push('text_config.model_type');
  const type = (inner ?? (top == null ? undefined : (TEXT_MODEL_TYPE[top] ?? top))) as string | undefined;
  let layout: RopeLayout;
  if (options.layout !== undefined) {
    layout = oneOf('options.layout', options.layout, ROPE_LAYOUTS);
  } else {
    const known = type === undefined ? undefined : (LAYOUT_BY_MODEL_TYPE[type] ?? (top == null ? undefined : LAYOUT_BY_MODEL_TYPE[top]));
    if (known === undefined) {
      throw new RangeError(
        `config.model_type ${type === undefined ? 'is missing' : `'${type}' is not in posenc's layout table`}: ` +
          "pass options.layout ('half' for Hugging Face's rotate_half, 'interleaved' for adjacent pairs)");
    }
    layout = known;
    if (type !== undefined && MODEL_DEFAULTS[type]?.ropeInterleaveKey === true) {
      // DeepSeek-V3's attention rotates with apply_rotary_pos_emb_interleave unless rope_interleave is false.
      const flag = r.get('rope_interleave');
      if (flag !== undefined && flag !== null && typeof flag !== 'boolean') {
        throw new TypeError(`config.${r.path('rope_interleave')} must be a boolean, got ${JSON.stringify(flag)}`);
      }
      if (flag === false) layout = 'half';
      if (flag === undefined || flag === null) r.fill(undefined, `rope_interleave = true (${type}'s default: interleaved pairs)`);
    }
  }
  const byClass = type === undefined ? undefined : MODEL_DEFAULTS[type]?.maxPositions;
  const maxPositions = r.first(['max_position_embeddings', 'n_positions', 'seq_length'], (k) => r.integer(k)) ??
    (byClass === undefined ? undefined : r.fill(byClass, `max_position_embeddings = ${byClass} (${type}'s default)`));
  return { type, layout, maxPositions };
}

/**
 * DeepSeek-V2/V3: with a scaling whose `mscale_all_dim` is set, the attention multiplies its softmax scale by
 * mscale² (mscale = 0.1 * mscale_all_dim * ln(factor) + 1, or 1 for factor <= 1), outside cos and sin.
 */
function softmaxScale(model: Model, roped: readonly RopeLayerOptions[]): number | undefined {
  if (model.type === undefined || MODEL_DEFAULTS[model.type]?.softmaxMscale !== true || roped.length === 0) return undefined;
  const s = roped[0]!.scaling;
  if (s.type !== 'yarn' || !s.mscaleAllDim) return undefined;
  const m = s.factor <= 1 ? 1 : 0.1 * s.mscaleAllDim * Math.log(s.factor) + 1;
  return m * m;
}

/** Same RoPE options (the attention factor follows from them). */
function sameRope(a: RopeLayerOptions, b: RopeLayerOptions): boolean {
  return a.headDim === b.headDim && a.rotaryDim === b.rotaryDim && a.base === b.base && a.layout === b.layout &&
    JSON.stringify(a.scaling) === JSON.stringify(b.scaling) && JSON.stringify(a.mrope) === JSON.stringify(b.mrope);
}

const FROM_CONFIG_OPTION_KEYS = keysOf<RopeFromConfigOptions>()(['layout']);

/** `pe.ropeFromConfig` over one API object (the core checks the values and gives the attention factor). */
export function ropeFromConfigApi(pe: Pick<Posenc, 'ropeFrequencies'>): Pick<Posenc, 'ropeFromConfig'> {
  return {
    ropeFromConfig(config: object, options?: RopeFromConfigOptions): RopeFromConfig {
      const c = requireObject('config', config);
      const o = options === undefined ? {} : (requireObject('options', options) as RopeFromConfigOptions);
      // The options only: a config holds any keys; those of its RoPE part are checked against its rope type (ropeScaling).
      knownKeys('ropeFromConfig options', o, FROM_CONFIG_OPTION_KEYS);
      const text = c.text_config === undefined || c.text_config === null ? undefined : requireObject('config.text_config', c.text_config);
      const r = new Reader(c, text);
      const model = modelOf(r, c, o);
      const n = r.first(['num_hidden_layers', 'n_layer', 'num_layers'], (k) => r.integer(k));
      if (n === undefined) throw new TypeError('config.num_hidden_layers is missing: posenc lists the RoPE of every decoder layer');
      const plan = layerPlan(r, model.type, n);
      const parts = ropeParts(r, model, plan.types);
      const byType = new Map<string, RopeLayerOptions>();
      const layers = plan.types.map((t, i): RopeLayerOptions | null => {
        if (!plan.rope[i]) return null;
        let got = byType.get(t);
        if (got === undefined) {
          const part = parts.get(t);
          if (part === undefined) throw new RangeError(`config.${r.path('rope_parameters')} has no entry for layer type '${t}' (layer ${i})`);
          const head = headDim(r, model, t);
          const scaling = ropeScaling(r, model, part);
          const base = ropeBase(r, model, part);
          const rotary = rotaryDim(r, model, part, head, scaling);
          if (scaling.type === 'ntk' && rotary !== head) {
            throw new RangeError(`config: HunYuan's alpha raises the base over the whole head (${head}), but only ${rotary} dims rotate`);
          }
          if (rotary % 2 !== 0) {
            throw new RangeError(`config: layer ${i} would rotate ${rotary} dims (of a ${head}-wide head, from head_dim, or hidden_size / ` +
              'num_attention_heads, and the rotary share): RoPE turns pairs of dims, so the width must be even');
          }
          const split = mrope(r, model, part);
          const { attentionFactor } = pe.ropeFrequencies({ headDim: head, rotaryDim: rotary, base, scaling, ...(split ? { mrope: split } : {}) });
          got = { headDim: head, rotaryDim: rotary, base, layout: model.layout, scaling, attentionFactor, ...(split ? { mrope: split } : {}) };
          byType.set(t, got);
        }
        return { ...got, scaling: { ...got.scaling }, ...(got.mrope ? { mrope: { ...got.mrope, section: [...got.mrope.section] } } : {}) };
      });
      const roped = layers.filter((l): l is RopeLayerOptions => l !== null);
      const common = {
        layers, layerTypes: plan.types, queryScaling: queryScaling(r, model, parts, plan.types, plan.rope),
        softmaxScale: softmaxScale(model, roped), maxPositions: model.maxPositions, modelType: model.type,
        keysRead: [...new Set(r.keysRead)], defaulted: [...new Set(r.defaulted)],
      };
      if (roped.length > 0 && roped.every((l) => sameRope(l, roped[0]!))) {
        const first = roped[0]!;
        return {
          uniform: true, ...first, scaling: { ...first.scaling },
          ...(first.mrope ? { mrope: { ...first.mrope, section: [...first.mrope.section] } } : {}), ...common,
        };
      }
      return { uniform: false, ...common };
    },
  };
}
