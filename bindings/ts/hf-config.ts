/**
 * `ropeFromConfig`: the RoPE settings of a Hugging Face `config.json`, read
 * the way the transformers library reads them, as posenc options.
 *
 * Every key of the RoPE part of the config (`rope_scaling` /
 * `rope_parameters`) must be one this function understands for the given
 * type: an unknown key is an error naming it, never a silent default. Values
 * are checked by the core, through `ropeFrequencies`, which also gives the
 * attention factor.
 */
import { ROPE_LAYOUTS } from './names.js';
import type { Posenc, RopeFromConfig, RopeFromConfigOptions, RopeLayout, RopeScaling } from './types.js';
import { oneOf, requireObject } from './validate.js';

/**
 * Pair layout by `model_type`: which elements the model's own code rotates
 * together. `interleaved`: adjacent pairs (GPT-J's `rotate_every_two`, GLM,
 * Cohere, and DeepSeek's MLA, whose Hugging Face code de-interleaves q_pe and
 * k_pe first); `half`: Hugging Face's `rotate_half` on halves.
 */
export const LAYOUT_BY_MODEL_TYPE: Readonly<Record<string, RopeLayout>> = Object.freeze({
  llama: 'half', mistral: 'half', mixtral: 'half', qwen2: 'half', qwen2_moe: 'half', qwen3: 'half',
  qwen3_moe: 'half', gemma: 'half', gemma2: 'half', gemma3_text: 'half', phi: 'half', phi3: 'half',
  phimoe: 'half', gpt_neox: 'half', stablelm: 'half', persimmon: 'half', falcon: 'half', olmo: 'half',
  olmo2: 'half', starcoder2: 'half', internlm2: 'half', gpt_oss: 'half', granite: 'half',
  gptj: 'interleaved', codegen: 'interleaved', glm: 'interleaved', glm4: 'interleaved', chatglm: 'interleaved',
  cohere: 'interleaved', deepseek_v2: 'interleaved', deepseek_v3: 'interleaved',
});

/** Hugging Face `rope_type` (or the legacy `type`) -> posenc scaling type. */
const TYPE_NAMES: Readonly<Record<string, RopeScaling['type']>> = {
  default: 'default', linear: 'linear', dynamic: 'dynamic', yarn: 'yarn', longrope: 'longrope',
  su: 'longrope', // Phi-3's first name for LongRoPE
  llama3: 'llama3',
};

/** Keys a scaling object may hold besides its type, per posenc type. */
const COMMON_KEYS = ['rope_type', 'type', 'rope_theta', 'partial_rotary_factor'];
const KEYS: Readonly<Record<RopeScaling['type'], readonly string[]>> = {
  default: [],
  linear: ['factor'],
  ntk: ['factor'],
  dynamic: ['factor', 'original_max_position_embeddings'],
  // `finetuned`: a flag of the first YaRN release that transformers reads and ignores.
  yarn: ['factor', 'original_max_position_embeddings', 'beta_fast', 'beta_slow', 'mscale', 'mscale_all_dim',
    'attention_factor', 'truncate', 'finetuned'],
  longrope: ['factor', 'original_max_position_embeddings', 'short_factor', 'long_factor', 'attention_factor'],
  llama3: ['factor', 'original_max_position_embeddings', 'low_freq_factor', 'high_freq_factor'],
};

type Json = Record<string, unknown>;

/** Reads keys of a config, recording the dotted path of each key present. */
class Reader {
  readonly keysRead: string[] = [];
  readonly defaulted: string[] = [];

  /** The value at `obj[key]` (undefined and null are "absent"), recorded as `path`. */
  raw(obj: Json, key: string, path: string = key): unknown {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    this.keysRead.push(path);
    return v;
  }

  number(obj: Json, key: string, path: string = key): number | undefined {
    const v = this.raw(obj, key, path);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new TypeError(`config.${path} must be a finite number, got ${JSON.stringify(v)}`);
    }
    return v;
  }

  integer(obj: Json, key: string, path: string = key): number | undefined {
    const v = this.number(obj, key, path);
    if (v !== undefined && (!Number.isSafeInteger(v) || v < 1)) {
      throw new RangeError(`config.${path} must be an integer >= 1, got ${v}`);
    }
    return v;
  }

  /** The first of `keys` present at the top level. */
  first(keys: readonly string[], read: (key: string) => number | undefined): number | undefined {
    for (const k of keys) {
      const v = read(k);
      if (v !== undefined) return v;
    }
    return undefined;
  }
}

/** The head and rotary dims: DeepSeek's qk_rope_head_dim, head_dim, or hidden size / heads; then the rotated share. */
function dims(r: Reader, c: Json, scaling: Json | undefined): { headDim: number; rotaryDim: number } {
  const ropeHead = r.integer(c, 'qk_rope_head_dim');
  if (ropeHead !== undefined) return { headDim: ropeHead, rotaryDim: ropeHead };
  let headDim = r.integer(c, 'head_dim');
  if (headDim === undefined) {
    const hidden = r.first(['hidden_size', 'n_embd', 'd_model'], (k) => r.integer(c, k));
    const heads = r.first(['num_attention_heads', 'n_head', 'num_heads'], (k) => r.integer(c, k));
    if (hidden === undefined || heads === undefined) {
      throw new TypeError('config has no head size: give head_dim, or hidden_size and num_attention_heads');
    }
    if (hidden % heads !== 0) {
      throw new RangeError(`config: hidden size ${hidden} is not a multiple of the ${heads} attention heads`);
    }
    headDim = hidden / heads;
  }
  const absolute = r.integer(c, 'rotary_dim');
  if (absolute !== undefined) return { headDim, rotaryDim: absolute };
  const share =
    (scaling === undefined ? undefined : r.number(scaling, 'partial_rotary_factor', `${scalingKey(c)}.partial_rotary_factor`)) ??
    r.number(c, 'partial_rotary_factor') ??
    r.number(c, 'rotary_pct');
  if (share === undefined) return { headDim, rotaryDim: headDim };
  if (!(share > 0 && share <= 1)) throw new RangeError(`config: the rotary share must be in (0, 1], got ${share}`);
  return { headDim, rotaryDim: Math.floor(headDim * share) };
}

/** `rope_scaling` or `rope_parameters`: the key the config uses for its RoPE part. */
function scalingKey(c: Json): 'rope_scaling' | 'rope_parameters' {
  return c.rope_parameters !== undefined && c.rope_parameters !== null ? 'rope_parameters' : 'rope_scaling';
}

/** The options `ropeFromConfig` builds, before the core checks them. */
function read(c: Json, options: RopeFromConfigOptions): Omit<RopeFromConfig, 'attentionFactor'> {
  const r = new Reader();
  if (c.rope_scaling != null && c.rope_parameters != null) {
    throw new RangeError('config has both rope_scaling and rope_parameters: keep the one the model was saved with');
  }
  const key = scalingKey(c);
  const s = r.raw(c, key);
  const scaling = s === undefined ? undefined : requireObject(`config.${key}`, s);

  const modelType = r.raw(c, 'model_type');
  if (modelType !== undefined && typeof modelType !== 'string') {
    throw new TypeError(`config.model_type must be a string, got ${JSON.stringify(modelType)}`);
  }
  let layout: RopeLayout;
  if (options.layout !== undefined) {
    layout = oneOf('options.layout', options.layout, ROPE_LAYOUTS);
  } else {
    const known = modelType === undefined ? undefined : LAYOUT_BY_MODEL_TYPE[modelType];
    if (known === undefined) {
      throw new RangeError(
        `config.model_type ${modelType === undefined ? 'is missing' : `'${modelType}' is not in posenc's layout table`}: ` +
          "pass options.layout ('half' for Hugging Face's rotate_half, 'interleaved' for adjacent pairs)");
    }
    layout = known;
  }

  const { headDim, rotaryDim } = dims(r, c, scaling);
  let base =
    (scaling === undefined ? undefined : r.number(scaling, 'rope_theta', `${key}.rope_theta`)) ??
    r.number(c, 'rope_theta') ??
    r.number(c, 'rotary_emb_base');
  if (base === undefined) {
    base = 10000;
    r.defaulted.push('base = 10000 (no rope_theta in the config, as transformers assumes)');
  }
  const maxPositions = r.first(['max_position_embeddings', 'n_positions', 'seq_length'], (k) => r.integer(c, k));

  let type: RopeScaling['type'] = 'default';
  if (scaling !== undefined) {
    const name = r.raw(scaling, 'rope_type', `${key}.rope_type`) ?? r.raw(scaling, 'type', `${key}.type`) ?? 'default';
    if (typeof name !== 'string' || TYPE_NAMES[name] === undefined) {
      throw new RangeError(
        `config.${key}: rope type ${JSON.stringify(name)} is not one posenc reads (${Object.keys(TYPE_NAMES).join(', ')})`);
    }
    type = TYPE_NAMES[name]!;
    for (const k of Object.keys(scaling)) {
      if (!COMMON_KEYS.includes(k) && !KEYS[type].includes(k)) {
        throw new RangeError(`config.${key}.${k} is not a key posenc understands for rope type '${name}'`);
      }
    }
  }
  const sc = scaling ?? {};
  const num = (k: string): number | undefined => r.number(sc, k, `${key}.${k}`);
  const need = (v: number | undefined, what: string): number => {
    if (v === undefined) throw new TypeError(`config: rope type '${type}' needs ${what}`);
    return v;
  };
  const list = (k: string): number[] => {
    const v = r.raw(sc, k, `${key}.${k}`);
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'number')) {
      throw new TypeError(`config.${key}.${k} must be an array of numbers, got ${JSON.stringify(v)}`);
    }
    return v as number[];
  };
  const original = (): number | undefined => r.integer(sc, 'original_max_position_embeddings', `${key}.original_max_position_embeddings`);

  let result: RopeScaling;
  switch (type) {
    case 'default':
      result = { type };
      break;
    case 'linear':
    case 'ntk':
      result = { type, factor: need(num('factor'), `${key}.factor`) };
      break;
    case 'dynamic':
      // transformers: the trained length is max_position_embeddings unless the scaling names its own.
      result = {
        type, factor: need(num('factor'), `${key}.factor`),
        maxPositionEmbeddings: need(original() ?? maxPositions, 'max_position_embeddings'),
      };
      break;
    case 'yarn': {
      const y: RopeScaling = {
        type, factor: need(num('factor'), `${key}.factor`),
        originalMaxPositionEmbeddings: need(original() ?? maxPositions, `${key}.original_max_position_embeddings or max_position_embeddings`),
      };
      const betaFast = num('beta_fast');
      const betaSlow = num('beta_slow');
      const mscale = num('mscale');
      const mscaleAllDim = num('mscale_all_dim');
      const attentionFactor = num('attention_factor');
      const truncate = r.raw(sc, 'truncate', `${key}.truncate`);
      r.raw(sc, 'finetuned', `${key}.finetuned`);
      if (betaFast !== undefined) y.betaFast = betaFast;
      if (betaSlow !== undefined) y.betaSlow = betaSlow;
      if (mscale !== undefined) y.mscale = mscale;
      if (mscaleAllDim !== undefined) y.mscaleAllDim = mscaleAllDim;
      if (attentionFactor !== undefined) y.attentionFactor = attentionFactor;
      if (truncate !== undefined) {
        if (typeof truncate !== 'boolean') throw new TypeError(`config.${key}.truncate must be a boolean, got ${JSON.stringify(truncate)}`);
        y.truncate = truncate;
      }
      result = y;
      break;
    }
    case 'longrope': {
      // Phi-3 keeps the pre-extension length at the top level; transformers then takes the factor as the ratio
      // of the two lengths, which is why those configs have no factor.
      const topOriginal = r.integer(c, 'original_max_position_embeddings');
      const L = need(original() ?? topOriginal, 'original_max_position_embeddings');
      const factor = topOriginal !== undefined && maxPositions !== undefined ? maxPositions / topOriginal : num('factor');
      const l: RopeScaling = {
        type, factor: need(factor, `${key}.factor (or max_position_embeddings and original_max_position_embeddings)`),
        originalMaxPositionEmbeddings: L, shortFactor: list('short_factor'), longFactor: list('long_factor'),
      };
      const attentionFactor = num('attention_factor');
      if (attentionFactor !== undefined) l.attentionFactor = attentionFactor;
      result = l;
      break;
    }
    case 'llama3':
      result = {
        type, factor: need(num('factor'), `${key}.factor`),
        originalMaxPositionEmbeddings: need(original(), `${key}.original_max_position_embeddings`),
        lowFreqFactor: need(num('low_freq_factor'), `${key}.low_freq_factor`),
        highFreqFactor: need(num('high_freq_factor'), `${key}.high_freq_factor`),
      };
      break;
  }
  return {
    headDim, rotaryDim, base, layout, scaling: result, maxPositions,
    modelType: modelType as string | undefined, keysRead: r.keysRead, defaulted: r.defaulted,
  };
}

/** `pe.ropeFromConfig` over one API object (the core checks the values and gives the attention factor). */
export function ropeFromConfigApi(pe: Pick<Posenc, 'ropeFrequencies'>): Pick<Posenc, 'ropeFromConfig'> {
  return {
    ropeFromConfig(config: object, options?: RopeFromConfigOptions): RopeFromConfig {
      const c = requireObject('config', config);
      const o = options === undefined ? {} : (requireObject('options', options) as RopeFromConfigOptions);
      const got = read(c, o);
      const { attentionFactor } = pe.ropeFrequencies({
        headDim: got.headDim, rotaryDim: got.rotaryDim, base: got.base, scaling: got.scaling,
      });
      return { ...got, attentionFactor };
    },
  };
}
