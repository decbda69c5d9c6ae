/**
 * What posenc knows of each Hugging Face `model_type` that applies RoPE: the
 * pair layout its modeling code rotates, and the RoPE defaults of its config
 * class (used, and listed in `defaulted`, when a config.json leaves a key
 * out). Each entry was checked against the model's modeling and configuration
 * files in transformers; docs/formulas.md#rope-from-a-config says how.
 */
import type { RopeLayout } from './types.js';

/**
 * Pair layout by `model_type`: which elements the model's own code rotates
 * together. `interleaved`: adjacent pairs (GPT-J's `rotate_every_two`, GLM,
 * Cohere and Helium's `repeat_interleave`, Llama 4's complex product, and
 * DeepSeek's MLA, whose Hugging Face code de-interleaves q_pe and k_pe
 * first); `half`: Hugging Face's `rotate_half` on halves.
 */
export const LAYOUT_BY_MODEL_TYPE: Readonly<Record<string, RopeLayout>> = Object.freeze({
  llama: 'half', mistral: 'half', mixtral: 'half', ministral: 'half', ministral3: 'half', qwen2: 'half',
  qwen2_moe: 'half', qwen3: 'half', qwen3_moe: 'half', qwen3_next: 'half', gemma: 'half', gemma2: 'half',
  gemma3_text: 'half', gemma3n_text: 'half', gemma4_text: 'half', phi: 'half', phi3: 'half', phimoe: 'half', gpt_neox: 'half',
  stablelm: 'half', persimmon: 'half', falcon: 'half', olmo: 'half', olmo2: 'half', olmo3: 'half',
  starcoder2: 'half', internlm2: 'half', gpt_oss: 'half', granite: 'half', smollm3: 'half', exaone4: 'half',
  glm4_moe: 'half', hunyuan_v1_dense: 'half', hunyuan_v1_moe: 'half', apertus: 'half', lfm2: 'half',
  qwen2_vl: 'half', qwen2_vl_text: 'half', qwen2_5_vl: 'half', qwen2_5_vl_text: 'half', qwen3_vl: 'half',
  qwen3_vl_text: 'half', qwen3_vl_moe: 'half', qwen3_vl_moe_text: 'half', qwen3_5: 'half', qwen3_5_text: 'half',
  qwen3_5_moe: 'half', qwen3_5_moe_text: 'half', glm4v: 'interleaved', glm4v_text: 'interleaved',
  glm4v_moe: 'interleaved', glm4v_moe_text: 'interleaved',
  gptj: 'interleaved', codegen: 'interleaved', glm: 'interleaved', glm4: 'interleaved', chatglm: 'interleaved',
  cohere: 'interleaved', cohere2: 'interleaved', deepseek_v2: 'interleaved', deepseek_v3: 'interleaved',
  llama4_text: 'interleaved', helium: 'interleaved', ernie4_5: 'interleaved',
});

/** The text model of a multimodal wrapper whose `text_config` does not name its own `model_type`. */
export const TEXT_MODEL_TYPE: Readonly<Record<string, string>> = Object.freeze({
  gemma3: 'gemma3_text', gemma3n: 'gemma3n_text', gemma4: 'gemma4_text', llama4: 'llama4_text', mistral3: 'mistral',
  qwen2_vl: 'qwen2_vl_text', qwen2_5_vl: 'qwen2_5_vl_text', qwen3_vl: 'qwen3_vl_text', qwen3_vl_moe: 'qwen3_vl_moe_text',
  qwen3_5: 'qwen3_5_text', qwen3_5_moe: 'qwen3_5_moe_text', glm4v: 'glm4v_text', glm4v_moe: 'glm4v_moe_text',
});

/**
 * How each M-RoPE model type deals its frequency pairs to the three position rows (transformers fixes it
 * by model class and never reads `mrope_interleaved`): `false` in chunks (Qwen2-VL, Qwen2.5-VL, GLM-4.1V),
 * `true` in turn (Qwen3-VL, Qwen3.5).
 */
export const MROPE_INTERLEAVED: Readonly<Record<string, boolean>> = Object.freeze({
  qwen2_vl_text: false, qwen2_5_vl_text: false, glm4v_text: false, glm4v_moe_text: false,
  qwen3_vl_text: true, qwen3_vl_moe_text: true, qwen3_5_text: true, qwen3_5_moe_text: true,
});

/** Which layers of a model type have no RoPE, beyond `no_rope_layers` and non-attention layers. */
export type NoRopeRule =
  /** Cohere2: RoPE only on sliding-window layers (none at all when `sliding_window` is null). */
  | 'sliding-only'
  /** EXAONE 4: with a sliding window, global layers have no RoPE; without one, every layer has it. */
  | 'global-nope-if-sliding';

/** A config class's RoPE defaults, as its `__init__` / `__post_init__` fills a missing key. */
export interface ModelDefaults {
  /** `rope_theta` when the config has none (transformers' default otherwise: 10000). */
  ropeTheta?: number;
  /**
   * How sliding-window layers rotate when the config has one flat RoPE part: `'local-base'` (Gemma 3: with
   * `rope_local_base_freq`, `localBase` by default, and no scaling), `'unscaled'` (OLMo 3: the same base,
   * no scaling).
   */
  slidingRope?: 'local-base' | 'unscaled';
  localBase?: number;
  /** `head_dim` when the config has none (Gemma 3's multimodal configs leave it out). */
  headDim?: number;
  /** `partial_rotary_factor` set by the class when the config has none. */
  partialRotaryFactor?: number;
  /** `layer_types` when the config gives neither them nor a pattern: layer `i`'s type. */
  layerType?: (i: number, layers: number) => string;
  /** `sliding_window` when the key is absent (it decides a `NoRopeRule`). */
  slidingWindow?: number;
  noRope?: NoRopeRule;
  /** `no_rope_layer_interval` (every n-th layer has no RoPE) when `no_rope_layers` is absent. */
  noRopeInterval?: number;
  /** Gemma 4: `rope_parameters` keyed by layer type when the config has none. */
  ropeParameters?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Gemma 4: the head width of full-attention layers (`global_head_dim`) when absent. */
  globalHeadDim?: number;
  /** Llama 4: a `rope_scaling` means llama3, whatever its type says. */
  scalingIsLlama3?: boolean;
  /** Llama 4's attention temperature tuning on layers without RoPE (see `QueryScaling`). */
  temperatureTuning?: boolean;
  /** `max_position_embeddings` when the config has none. */
  maxPositions?: number;
  /** DeepSeek-V3: `rope_interleave` (default true) picks the interleaved or the half rotation. */
  ropeInterleaveKey?: boolean;
  /** DeepSeek-V2/V3: a YaRN `mscale_all_dim` also multiplies the softmax scale by mscale² (see `softmaxScale`). */
  softmaxMscale?: boolean;
  /** PhiMoE: `short_mscale` / `long_mscale` replace LongRoPE's attention factor. */
  longropeMscales?: boolean;
}

/** `(i + 1) % n` nonzero: sliding (transformers' `bool((i + 1) % pattern)`). */
const everyNth = (n: number) => (i: number): string => ((i + 1) % n !== 0 ? 'sliding_attention' : 'full_attention');

export const MODEL_DEFAULTS: Readonly<Record<string, ModelDefaults>> = Object.freeze({
  gemma3_text: { ropeTheta: 1_000_000, slidingRope: 'local-base', localBase: 10_000, layerType: everyNth(6), headDim: 256, maxPositions: 131_072 },
  gemma3n_text: {
    ropeTheta: 1_000_000, slidingRope: 'local-base', localBase: 10_000,
    layerType: (i) => ((i + 1) % 5 === 0 ? 'full_attention' : 'sliding_attention'),
  },
  olmo3: { slidingRope: 'unscaled', layerType: everyNth(4) },
  gemma4_text: {
    // The last layer is always global (the config class forces it).
    layerType: (i, n) => (i === n - 1 ? 'full_attention' : everyNth(6)(i)),
    ropeParameters: {
      sliding_attention: { rope_type: 'default', rope_theta: 10_000 },
      full_attention: { rope_type: 'proportional', partial_rotary_factor: 0.25, rope_theta: 1_000_000 },
    },
    globalHeadDim: 512,
  },
  llama4_text: { ropeTheta: 500_000, noRopeInterval: 4, scalingIsLlama3: true, temperatureTuning: true },
  smollm3: { ropeTheta: 2_000_000, noRopeInterval: 4 },
  cohere2: { layerType: everyNth(4), slidingWindow: 4096, noRope: 'sliding-only' },
  exaone4: { layerType: everyNth(4), slidingWindow: 4096, noRope: 'global-nope-if-sliding' },
  qwen3_next: { partialRotaryFactor: 0.25, layerType: (i) => ((i + 1) % 4 === 0 ? 'full_attention' : 'linear_attention') },
  glm: { partialRotaryFactor: 0.5 },
  glm4: { partialRotaryFactor: 0.5 },
  glm4_moe: { partialRotaryFactor: 0.5 },
  deepseek_v2: { softmaxMscale: true },
  deepseek_v3: { ropeInterleaveKey: true, softmaxMscale: true },
  phimoe: { longropeMscales: true },
});

/** Layer types whose layers attend (and so may rotate); the others (linear attention, convolutions, SSMs) never do. */
export const ATTENTION_LAYER_TYPES: readonly string[] = ['full_attention', 'sliding_attention', 'chunked_attention'];
export const OTHER_LAYER_TYPES: readonly string[] = ['linear_attention', 'conv', 'mamba', 'mamba2', 'recurrent'];
