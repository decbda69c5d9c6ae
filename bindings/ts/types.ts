/**
 * Public types of the `posenc` package. Hand-written (Emscripten 3.1.6 has no
 * type emitter) and checked by `tsc --noEmit` and the package tests.
 *
 * Shapes follow the C++ core: row-major typed arrays, `[heads, seqLen, headDim]`
 * for q/k, `[heads, queryLength, keyLength]` for bias matrices.
 */

import type {
  ALIBI_VARIANTS,
  ENCODINGS,
  POSITION_BUGS,
  ROPE_LAYOUTS,
  ROPE_SCALINGS,
  SINUSOIDAL_LAYOUTS,
  TASKS,
} from './names.js';

declare global {
  // The platform types the API names, declared so that a project whose libs lack them type-checks
  // these files: WebAssembly.Module, MessagePort and Worker without the DOM lib (Node with
  // `lib: ["ES2022"]`), the disposables of TypeScript's `esnext.disposable` lib (a page with
  // `lib: ["ES2022", "DOM"]`). Where a lib declares them, these merge with it and change nothing.
  namespace WebAssembly {
    interface Module {}
  }
  interface MessagePort {}
  interface Worker {}
  interface SymbolConstructor {
    readonly dispose: unique symbol;
    readonly asyncDispose: unique symbol;
  }
  interface Disposable {
    [Symbol.dispose](): void;
  }
  interface AsyncDisposable {
    [Symbol.asyncDispose](): PromiseLike<void>;
  }
}

/**
 * Which elements of a head vector form a rotated pair (`ROPE_LAYOUTS`):
 * `'half'` is Hugging Face's `rotate_half` (GPT-NeoX, and Hugging Face's
 * Llama port, which permutes the q/k weights for it): pairs
 * `(x[i], x[i + r/2])`; `'interleaved'` is GPT-J, Meta's reference Llama and
 * ggml's "normal" mode: pairs `(x[2i], x[2i + 1])`.
 */
export type RopeLayout = (typeof ROPE_LAYOUTS)[number];

/** No context extension: `invFreq[i] = base^(-2i/r)`, attention factor 1. */
export interface DefaultScaling {
  type: 'default';
}
/** Position interpolation (Chen et al. 2023): every frequency divided by `factor`. */
export interface LinearScaling {
  type: 'linear';
  factor: number;
}
/** Static NTK-aware scaling: `base' = base * factor^(r/(r-2))`. */
export interface NtkScaling {
  type: 'ntk';
  factor: number;
}
/**
 * Dynamic NTK (Hugging Face `dynamic`): default frequencies up to
 * `maxPositionEmbeddings`, then `base' = base * (factor*T/M - (factor-1))^(r/(r-2))`
 * with `T` the longest position + 1 of the call.
 */
export interface DynamicScaling {
  type: 'dynamic';
  factor: number;
  maxPositionEmbeddings: number;
}
/** YaRN (Peng et al. 2023), Hugging Face semantics. */
export interface YarnScaling {
  type: 'yarn';
  factor: number;
  originalMaxPositionEmbeddings: number;
  /** Pairs rotating more than this many times over the original context are kept. Default 32. */
  betaFast?: number;
  /** Pairs rotating fewer times than this are interpolated. Default 1. */
  betaSlow?: number;
  /** Floor/ceil the ramp edges. Default true. */
  truncate?: boolean;
  mscale?: number;
  mscaleAllDim?: number;
  /** Overrides the derived attention factor. */
  attentionFactor?: number;
}
/** LongRoPE (Ding et al. 2024): per-pair divisors, `longFactor` once positions pass `originalMaxPositionEmbeddings`. */
export interface LongropeScaling {
  type: 'longrope';
  factor: number;
  originalMaxPositionEmbeddings: number;
  /** `rotaryDim / 2` positive values. */
  shortFactor: ArrayLike<number>;
  /** `rotaryDim / 2` positive values. */
  longFactor: ArrayLike<number>;
  attentionFactor?: number;
}
/** Llama 3.1 wavelength bands. */
export interface Llama3Scaling {
  type: 'llama3';
  factor: number;
  originalMaxPositionEmbeddings: number;
  lowFreqFactor: number;
  highFreqFactor: number;
}

/**
 * Gemma 4's global layers (Hugging Face `proportional`): the exponent runs over the whole `rotaryDim`
 * (Gemma 4: the 512-wide global head), `invFreq[i] = base^(-2i/r) / factor` for the first
 * `floor(partialRotaryFactor * r / 2)` pairs, and 0 (no rotation) for the rest.
 */
export interface ProportionalScaling {
  type: 'proportional';
  /** Divides the turning frequencies. Default 1. */
  factor?: number;
  /** The share of the `r / 2` pairs that turn, in (0, 1]. Default 1. */
  partialRotaryFactor?: number;
}

/** A RoPE context-extension method, named as Hugging Face's `rope_type`. */
export type RopeScaling =
  | DefaultScaling
  | LinearScaling
  | NtkScaling
  | DynamicScaling
  | YarnScaling
  | LongropeScaling
  | Llama3Scaling
  | ProportionalScaling;

/** The `type` of a `RopeScaling`: one of `ROPE_SCALINGS`. */
export type RopeScalingType = (typeof ROPE_SCALINGS)[number];

/**
 * Multimodal RoPE (M-RoPE: Qwen2-VL, Qwen2.5-VL, Qwen3-VL and their kin): every frequency pair turns by
 * one of three position rows, temporal, height and width. With it, positions are `[3, seqLen]` (or
 * `[batch, 3, seqLen]`); three equal rows give plain RoPE, bit for bit.
 */
export interface MropeOptions {
  /**
   * Pairs per row (temporal, height, width), Hugging Face's `mrope_section`: three integers >= 0
   * summing to `rotaryDim / 2`.
   */
  section: readonly number[];
  /**
   * How pairs are dealt to the rows. `false` (default): in chunks, the first `section[0]` pairs temporal,
   * the next `section[1]` height, the rest width (Qwen2-VL, Qwen2.5-VL). `true`: in turn, pair `j` height
   * when `j % 3 == 1` and `j < 3 section[1]`, width when `j % 3 == 2` and `j < 3 section[2]`, otherwise
   * temporal (Qwen3-VL).
   */
  interleaved?: boolean;
}

/** Options of `pe.mropePositionIds`: a tokenized prompt and its image / video grids, as the processor gives them. */
export interface MropePositionIdsOptions {
  /** `[batch, seqLen]` token ids. */
  inputIds: Int32Array;
  /** Rows of `inputIds`. Default 1. */
  batch?: number;
  /** `[batch, seqLen]`, 1 = token, 0 = padding (padded slots get position 1, as in transformers). */
  attentionMask?: Uint8Array;
  /** `[images, 3]` (t, h, w) in patches, in prompt order over the whole batch (`image_grid_thw`). */
  imageGridThw?: Int32Array;
  /** `[videos, 3]` (t, h, w) (`video_grid_thw`). */
  videoGridThw?: Int32Array;
  /** `vision_config.spatial_merge_size`: h and w patches merged per token side. */
  spatialMergeSize: number;
  /** `image_token_id`, `video_token_id`, `vision_start_token_id` of the config. */
  imageTokenId: number;
  videoTokenId: number;
  visionStartTokenId: number;
  /**
   * Qwen2.5-VL: `vision_config.tokens_per_second`. With it, a video's frames are
   * `trunc(frame * secondPerGridTs[v] * tokensPerSecond)` positions apart; without it, 1 (Qwen2-VL).
   */
  tokensPerSecond?: number;
  /** Qwen2.5-VL: seconds per temporal grid of each video (the processor's `second_per_grid_ts`). Default 1. */
  secondPerGridTs?: ArrayLike<number>;
  /** Qwen3-VL: each frame group of a video is a block of its own (the prompt repeats the vision start token per frame). */
  splitVideoFrames?: boolean;
}

/** The M-RoPE position rows of a prompt (`pe.mropePositionIds`). */
export interface MropePositionIds {
  /** `[batch, 3, seqLen]`: temporal, height and width rows, ready for `applyRope`'s `positions` with `mrope`. */
  positions: Int32Array;
  /**
   * `[batch]`: transformers' `rope_deltas`, the largest position + 1 minus `seqLen`. A token generated at
   * index `i` sits at position `i + ropeDeltas[b]` on all three rows.
   */
  ropeDeltas: Int32Array;
}

/** Options of `pe.ropeFrequencies`: the head and rotary sizes, the base and a scaling. */
export interface RopeFrequencyOptions {
  /** Head dimension `d` (integer >= 1). */
  headDim: number;
  /** Rotary dimension `r` (even, <= headDim). Default `headDim`. Frequencies use `r` in the exponent. */
  rotaryDim?: number;
  /** `rope_theta`. Default 10000. */
  base?: number;
  scaling?: RopeScaling;
  /** Longest position + 1 the frequencies are for (only `dynamic` and `longrope` read it). Default 0. */
  seqLen?: number;
  /** M-RoPE's split of the pairs (checked here; the frequencies do not depend on it). */
  mrope?: MropeOptions;
}

/** Options of `ropeFromConfig`. */
export interface RopeFromConfigOptions {
  /**
   * The pair layout, when the config's `model_type` is not in `LAYOUT_BY_MODEL_TYPE`
   * (or to override it: a checkpoint whose q/k weights were permuted for the other layout).
   */
  layout?: RopeLayout;
}

/**
 * One decoder layer's RoPE, as `ropeFromConfig` reads it: complete options, ready to spread into
 * `applyRope`, `ropeCache` or `attention`'s `rope` (`attentionFactor` is what the core derives from them;
 * the calls ignore it).
 */
export interface RopeLayerOptions {
  /** Width of the head vector this layer rotates (Gemma 4's global layers: `global_head_dim`). */
  headDim: number;
  /** Rotated share: `rotary_dim`, or `floor(headDim * partial_rotary_factor)` (`rotary_pct` in GPT-NeoX). */
  rotaryDim: number;
  /** `rope_theta` of this layer (Gemma 3's sliding layers: `rope_local_base_freq`). */
  base: number;
  /** From `model_type` (see `LAYOUT_BY_MODEL_TYPE`) or the `layout` option. */
  layout: RopeLayout;
  /** `{ type: 'default' }` when the layer has no scaling. */
  scaling: RopeScaling;
  /** M-RoPE (`mrope_section`), for the Qwen2-VL family: positions are then `[3, seqLen]`. */
  mrope?: MropeOptions;
  /**
   * What cos and sin are multiplied by (YaRN's `mscale`, LongRoPE's factor; 1 otherwise), as transformers
   * computes it. DeepSeek's code multiplies its softmax scale by a second mscale of its own, which this is not.
   */
  attentionFactor: number;
}

/**
 * A position-dependent multiplier of the queries, outside cos and sin (keys are not scaled): at position
 * `p`, `q *= 1 + beta * ln(1 + floor((p + shift) / length))`. Llama 4's attention temperature tuning
 * (`attn_scale`, `floor_scale`, `shift` 1, on its layers without RoPE) and Ministral 3's
 * `llama_4_scaling_beta` (over `original_max_position_embeddings`, `shift` 0, on every layer).
 * `pe.queryScale(positions, queryScaling)` gives the multipliers.
 */
export interface QueryScaling {
  /** Where it comes from: `'llama4'` (`attn_temperature_tuning`) or `'llama_4_scaling_beta'`. */
  source: 'llama4' | 'llama_4_scaling_beta';
  beta: number;
  /** Positions per step (an integer >= 1). */
  length: number;
  /** Added to the position before the division: 1 for Llama 4, 0 for Ministral 3. */
  shift: number;
  /** The decoder layers whose queries are scaled (indices into `layers`). */
  layers: number[];
}

/** What every `ropeFromConfig` result has, whether or not its layers agree. */
export interface RopeFromConfigCommon {
  /**
   * One entry per decoder layer (`num_hidden_layers`): that layer's complete RoPE options, or `null` for a
   * layer without RoPE (Llama 4's and SmolLM3's NoPE layers, Cohere2's and EXAONE 4's global layers,
   * linear-attention or convolution layers).
   */
  layers: Array<RopeLayerOptions | null>;
  /** Each layer's kind as transformers names it (`layer_types`): `'full_attention'`, `'sliding_attention'`, ... */
  layerTypes: string[];
  /** Query scaling outside cos and sin, when the model has one (never dropped: apply it, see `QueryScaling`). */
  queryScaling: QueryScaling | undefined;
  /**
   * A constant the model multiplies its softmax scale (1/sqrt of the q.k width) by, outside cos and sin:
   * DeepSeek-V2/V3 with YaRN's `mscale_all_dim` (mscale², about 1.87 for DeepSeek-V3). Pass
   * `scale: softmaxScale / Math.sqrt(qkHeadDim)` to `attention` (DeepSeek's q.k width is
   * `qk_nope_head_dim + qk_rope_head_dim`, not the rotated width).
   */
  softmaxScale: number | undefined;
  /** `max_position_embeddings` (`n_positions`, `seq_length`; the config class's default if absent). */
  maxPositions: number | undefined;
  /** The `model_type` whose rules were applied (the text model's, when the config nests a `text_config`). */
  modelType: string | undefined;
  /** The dotted paths of the config keys that were read (for example `text_config.rope_scaling.factor`). */
  keysRead: string[];
  /** Settings the config did not give, with the value used (the config class's default, as transformers fills it). */
  defaulted: string[];
}

/**
 * `ropeFromConfig` for a model whose RoPE layers all rotate alike (Llama, Qwen2, Mistral, ... and
 * SmolLM3, whose other layers have no RoPE): the shared options at the top level, ready to spread.
 */
export interface UniformRopeFromConfig extends RopeFromConfigCommon, RopeLayerOptions {
  uniform: true;
}

/**
 * `ropeFromConfig` for a model whose layers rotate differently (Gemma 3's local and global layers, Gemma 4,
 * or no layer with RoPE): no top-level RoPE fields. Take each layer's options from `layers`; spreading this
 * object into `applyRope`, `ropeCache` or `attention` is a TypeError naming `layers`.
 */
export interface LayeredRopeFromConfig extends RopeFromConfigCommon {
  uniform: false;
}

/** The RoPE settings of a Hugging Face `config.json` as posenc options (`pe.ropeFromConfig`). */
export type RopeFromConfig = UniformRopeFromConfig | LayeredRopeFromConfig;

/** One distinct RoPE of a model and the decoder layers that use it (`ropeGroups`). */
export interface RopeGroup {
  /** The layers' options, or `null` for the group of layers without RoPE (always last). */
  rope: RopeLayerOptions | null;
  /** Indices into `layers`, ascending. */
  layers: number[];
  /** `layers` as runs of consecutive indices, `[first, last]` each. */
  spans: Array<[number, number]>;
  /** The context the RoPE was trained on before extension (`ropeOriginalContext`); undefined when unknown or `rope` is null. */
  originalContext: number | undefined;
}

/** What `pe.ropeFrequencies` returns: the inverse frequencies of every rotated pair and the attention factor of the scaling. */
export interface RopeFrequencies {
  /** `[rotaryDim / 2]` inverse frequencies, computed in double, rounded once. */
  invFreq: Float32Array;
  /** Multiplies cos and sin (the q.k logit by its square). 1 unless the scaling sets it. */
  attentionFactor: number;
}

/** xPos decay (Sun et al. 2022) on top of the rotation. */
export interface XposOptions {
  /** Default 512. */
  scaleBase?: number;
  /** `true` for keys (inverse scale). */
  key: boolean;
  /** Position the exponent is measured from; use the same value for queries and keys. Default 0. */
  center?: number;
}

/** The rotation every RoPE call shares: shape of `x` and the frequency settings. */
/**
 * Axis order of a batched `x`: `'bhsd'` = `[batch, heads, seqLen, headDim]` (Hugging Face's q and k after
 * the transpose), `'bshd'` = `[batch, seqLen, heads, headDim]` (straight out of the projection).
 */
export type RopeAxes = 'bhsd' | 'bshd';

/** The RoPE settings shared by `pe.applyRope`, `pe.rerotateRope` and `pe.ropeCache`: the shape of `x` and the rotation's layout, base and scaling. */
export interface RopeConfig {
  /** Heads in `x: [heads, seqLen, headDim]`. */
  heads: number;
  /** Tokens in `x`. */
  seqLen: number;
  headDim: number;
  /** Rotated leading dims (even, <= headDim). Default `headDim`. */
  rotaryDim?: number;
  /** The pair layout of the weights: `half` (NeoX / HF Llama) or `interleaved` (GPT-J / Meta). */
  layout: RopeLayout;
  /** `rope_theta`. Default 10000. */
  base?: number;
  scaling?: RopeScaling;
  /** Multimodal RoPE: `positions` become `[3, seqLen]` (`[batch, 3, seqLen]`), one row per axis. */
  mrope?: MropeOptions;
  /**
   * The context length the frequencies are computed for (an integer >= 0;
   * -1 or omitted: derived from this call, the longest position + 1, as
   * Hugging Face does). Only `dynamic` and `longrope` read it. Rotate q and
   * k with the same value (e.g. the total sequence length): derived
   * separately, a q call and a k call at different positions get different
   * frequencies and q.k is no longer a function of the distance alone.
   */
  contextLength?: number;
}

/** Options of `ropeCache`: the rotation's settings and the positions the tables are for. */
export interface RopeCacheOptions extends Omit<RopeConfig, 'heads' | 'seqLen' | 'layout'> {
  /** The pair layout the full-width tables are laid out for. */
  layout: RopeLayout;
  /** Number of positions (rows); with `offset`, positions `offset .. offset + seqLen - 1`. */
  seqLen?: number;
  /** First position when `positions` is not given. Default 0. */
  offset?: number;
  /** Explicit positions `[seqLen]` (Int32Array). Mutually exclusive with `offset`. */
  positions?: Int32Array;
  /**
   * `'full'` (default): `[seqLen, rotaryDim]`, as Hugging Face's rotary module returns cos and sin: each
   * pair's value twice, at the pair's two slots (`half`: `[c, c]` halves; `interleaved`: `c0 c0 c1 c1 ...`),
   * for `x * cos + rotate(x) * sin`. `'half'`: `[seqLen, rotaryDim / 2]`, one value per pair, the
   * `cos_cache` / `sin_cache` inputs of onnxruntime's `RotaryEmbedding` operators (the layout is then
   * their `interleaved` attribute).
   */
  format?: 'full' | 'half';
}

/** cos and sin of a rotation, with the attention factor applied. */
export interface RopeCache {
  /** `[seqLen, width]`. */
  cos: Float32Array;
  /** `[seqLen, width]`. */
  sin: Float32Array;
  /** Values per row: `rotaryDim` (`'full'`) or `rotaryDim / 2` (`'half'`). */
  width: number;
}

/** Options of `pe.applyRope`: the RoPE settings, and where the tokens sit (explicit positions or an offset), a batch, the axis order and xPos. */
export interface ApplyRopeOptions extends RopeConfig {
  /**
   * Explicit positions: `[seqLen]` (every batch row), or `[batch, seqLen]` per row (for example
   * `pe.positionIds(mask, seqLen)` for a left-padded batch). Mutually exclusive with `offset`.
   */
  positions?: Int32Array;
  /**
   * Rows of a batch: `x` is `[batch, heads, seqLen, headDim]` (or `axes: 'bshd'`). `dynamic` / `longrope`
   * then see one context length for the whole batch (the longest position + 1, as Hugging Face derives
   * it from `position_ids`) unless `contextLength` is given.
   */
  batch?: number;
  /** Axis order of `x` (see `RopeAxes`). Default `'bhsd'`; `'bshd'` also without `batch`. */
  axes?: RopeAxes;
  /** Positions are `offset .. offset + seqLen - 1`. Default 0. */
  offset?: number;
  xpos?: XposOptions;
}

/** Options of `pe.rerotateRope`: the RoPE settings and the number of positions by which cached keys move. */
export interface RerotateOptions extends RopeConfig {
  /** Rotate every token by this many positions (a pure rotation: norms unchanged). */
  delta: number;
  /** As in `applyRope`: `x` is `[batch, heads, seqLen, headDim]` (or `axes: 'bshd'`). */
  batch?: number;
  axes?: RopeAxes;
}

/**
 * `'interleaved'` (Vaswani et al.): `PE[p, 2i] = sin`, `PE[p, 2i+1] = cos`,
 * `w_i = base^(-2i/dim)`; `'concat'` (tensor2tensor / fairseq):
 * `[sin | cos]`, `w_i = exp(-i ln(base) / (dim/2 - 1))`. See `SINUSOIDAL_LAYOUTS`.
 */
export type SinusoidalLayout = (typeof SINUSOIDAL_LAYOUTS)[number];

/** Options of `pe.sinusoidal`: the table's length and width, the base (default 10000) and the layout (default `interleaved`). */
export interface SinusoidalOptions {
  length: number;
  /** Even, >= 2 (>= 4 for `concat`). */
  dim: number;
  base?: number;
  layout?: SinusoidalLayout;
}

/**
 * `'paper'` (Press et al. 2022): `2^(-8(h+1)/n)` for powers of two, the
 * interleaved fill otherwise; `'simple'`: the teaching simplification
 * `1 / 2^h`, `h = 0..n-1`. See `ALIBI_VARIANTS`.
 */
export type AlibiVariant = (typeof ALIBI_VARIANTS)[number];

/** Options of `pe.alibiBias`: the bias shape, causal or bidirectional, and the slopes (a variant or given values). */
export interface AlibiBiasOptions {
  heads: number;
  queryLength: number;
  /** `>= queryLength`; queries are the last `queryLength` positions. */
  keyLength: number;
  /**
   * Default true: `-m (i - j)` for `j <= i`, `-Infinity` above the diagonal (the
   * causal mask is included). `false`: `-m |i - j|` (posenc's bidirectional
   * option; the paper does not define one).
   */
  causal?: boolean;
  variant?: AlibiVariant;
}

/** Options of `pe.t5Buckets`: the query and key lengths, and the bucketing of relative positions (Raffel et al. 2020). */
export interface T5BucketOptions {
  queryLength: number;
  keyLength: number;
  /** Default 32. */
  numBuckets?: number;
  /** Default 128. */
  maxDistance?: number;
  /** Default true (encoder); false for causal decoders. */
  bidirectional?: boolean;
  /** Position of query 0 (keys start at 0). Default 0, as Hugging Face `compute_bias`. */
  queryOffset?: number;
}

/** Options of `pe.t5Bias`: the bucketing of `pe.t5Buckets` and the learned table that maps each bucket and head to a bias. */
export interface T5BiasOptions extends T5BucketOptions {
  /** `[numBuckets, heads]` learned bias table. */
  table: Float32Array;
  heads: number;
}

/** The lengths and clip distance shared by `pe.shawIndices`, `pe.shawLogits` and `pe.shawValues` (Shaw et al. 2018). */
export interface ShawOptions {
  queryLength: number;
  /** `>= queryLength`; queries are the last `queryLength` key positions. */
  keyLength: number;
  /** Clip distance `k`; tables have `2k + 1` rows. */
  clip: number;
}

/** Options of `pe.shawLogits`: one head's q and k and the relative key embeddings, for the logits `q_i . (k_j + aK[clip(j - i)])`. */
export interface ShawLogitsOptions extends ShawOptions {
  /** `[queryLength, headDim]`. */
  q: Float32Array;
  /** `[keyLength, headDim]`. */
  k: Float32Array;
  /** `[2 * clip + 1, headDim]` relative key embeddings `aK`. */
  tableK: Float32Array;
  headDim: number;
  /** Default `1 / sqrt(headDim)`. */
  scale?: number;
}

/** Options of `pe.shawValues`: one head's attention probabilities, its v and the relative value embeddings, for `sum_j p_ij (v_j + aV[clip(j - i)])`. */
export interface ShawValuesOptions extends ShawOptions {
  /** `[queryLength, keyLength]` attention probabilities. */
  probs: Float32Array;
  /** `[keyLength, headDim]`. */
  v: Float32Array;
  /** `[2 * clip + 1, headDim]` relative value embeddings `aV`. */
  tableV: Float32Array;
  headDim: number;
}

/** Options of `pe.learnedPositions`: a learned absolute table and the positions to read from it; a position past the table is an error, never a clamp. */
export interface LearnedOptions {
  /** `[maxLength, dim]`. */
  table: Float32Array;
  maxLength: number;
  dim: number;
  /** `[T]`, each in `[0, maxLength)`. */
  positions: Int32Array;
}

/** Options of `pe.xposScales`: the positions, the rotary width, the scale base (default 512), the centre (default 0) and whether the scales are the keys' (their inverse). */
export interface XposScaleOptions {
  positions: Int32Array;
  rotaryDim: number;
  scaleBase?: number;
  center?: number;
  key?: boolean;
}

/** RoPE (or xPos) applied to q and k inside attention. */
export interface AttentionRopeOptions {
  layout: RopeLayout;
  rotaryDim?: number;
  base?: number;
  scaling?: RopeScaling;
  /** Multimodal RoPE: `queryPositions` and `keyPositions` are then `[3, length]`. */
  mrope?: MropeOptions;
  /** `[queryLength]` positions; default: the position of the key slot each query sits in. */
  queryPositions?: Int32Array;
  /** `[keyLength]` positions; default `0..keyLength-1`, or from `keyPadding` (see `positionsFromPadding`). */
  keyPositions?: Int32Array;
  /** Left padding: key positions are `cumsum(keyPadding) - 1` (pad slots get 1; they are masked anyway). */
  positionsFromPadding?: boolean;
  /** Adds xPos decay (queries scaled, keys inverse-scaled). */
  xpos?: { scaleBase?: number };
  /**
   * The context length `dynamic` and `longrope` compute frequencies for (an integer >= 0), the same for
   * q and k. Default: the longest position the call rotates, + 1 (Hugging Face's behaviour). In a
   * `KvCache` every `append` and `attend` uses it, so decoding equals the uncached pass at every length
   * (without it, keys keep the frequencies of the step that appended them, as in Hugging Face).
   */
  contextLength?: number;
}

/** The encodings and masks of one attention call (shared by `attention` and `KvCache.attend`). */
export interface AttentionBiasOptions {
  /** Query heads. */
  heads: number;
  queryLength: number;
  /** Default true: key `j` is visible to query `i` iff `j <= i + queryOffset`. */
  causal?: boolean;
  /** Multiplies q.k. Default `1 / sqrt(headDim)` (T5 uses 1). */
  scale?: number;
  /** Query `i` sits at key index `i + queryOffset`. Default `keyLength - queryLength` (queries are the last tokens). */
  queryOffset?: number;
  /** Sliding window: key `j` is visible iff `i + queryOffset - j < window`. */
  window?: number;
  /** `[keyLength]`, 1 = real token, 0 = padding (masked). */
  keyPadding?: Uint8Array;
  /** ALiBi: `true` for the paper's slopes, or a variant or explicit `[heads]` slopes (not both). Bidirectional calls use `-m|i-j|`. */
  alibi?: boolean | { variant?: AlibiVariant; slopes?: Float32Array };
  /** T5 relative bias from a learned `[numBuckets, heads]` table (set `scale: 1` for T5 itself). */
  t5?: { table: Float32Array; numBuckets?: number; maxDistance?: number; bidirectional?: boolean };
  /** Shaw et al. relative keys (and values): `[2 * clip + 1, headDim]` tables. */
  shaw?: { tableK: Float32Array; tableV?: Float32Array; clip: number };
  /** Any additive bias `[heads, queryLength, keyLength]`. */
  bias?: Float32Array;
  /** Also return the attention probabilities `[heads, queryLength, keyLength]` (allocates T^2). */
  returnWeights?: boolean;
}

export interface AttentionOptions extends AttentionBiasOptions {
  /** `[heads, queryLength, headDim]`. */
  q: Float32Array;
  /** `[kvHeads, keyLength, headDim]`. */
  k: Float32Array;
  /** `[kvHeads, keyLength, headDim]`. */
  v: Float32Array;
  /** Key/value heads; must divide `heads` (grouped-query / multi-query). Default `heads`. */
  kvHeads?: number;
  keyLength: number;
  headDim: number;
  /** RoPE / xPos on q and k. Omit for NoPE or a bias-only encoding. */
  rope?: AttentionRopeOptions;
}

/** What `pe.attention` returns: the output and, when asked for, the attention weights. */
export interface AttentionResult {
  /** `[heads, queryLength, headDim]`. */
  out: Float32Array;
  /** `[heads, queryLength, keyLength]` when `returnWeights` was set. */
  weights?: Float32Array;
}

/** Options of `new pe.KvCache`: the key-value heads and head size, the RoPE or xPos applied to keys as they are appended, and how the cache follows a growing context. */
export interface KvCacheOptions {
  kvHeads: number;
  headDim: number;
  /** Keys are rotated with this RoPE / xPos when appended (positions as given to `append`; no M-RoPE). */
  rope?: Omit<AttentionRopeOptions, 'queryPositions' | 'keyPositions' | 'positionsFromPadding' | 'mrope'>;
  /**
   * `dynamic` / `longrope` without `rope.contextLength`: rotate every cached key again whenever a longer
   * context changes the frequencies, so decoding equals the uncached pass at every length. Keeps an
   * unrotated copy of the keys (twice the key memory). Default false: keys keep the frequencies of the
   * step that appended them, as in Hugging Face.
   */
  consistent?: boolean;
}

export interface KvCacheAttendOptions extends AttentionBiasOptions {
  /** `[queryLength]` RoPE positions of the queries; default: positions of the last `queryLength` cached tokens. */
  queryPositions?: Int32Array;
}

/**
 * Keys and values of past tokens for incremental decoding. Owns wasm memory:
 * call `delete()` (or use `using`) when done.
 */
export interface KvCache {
  /** Cached tokens. */
  readonly length: number;
  /** Appends `k`, `v`: `[kvHeads, n, headDim]` at `positions` (default `length .. length + n - 1`). */
  append(k: Float32Array, v: Float32Array, options?: { positions?: Int32Array }): void;
  /** Attends `q: [heads, queryLength, headDim]` over every cached token. */
  attend(q: Float32Array, options: KvCacheAttendOptions): AttentionResult;
  /** Re-rotates every cached key by `delta` positions (a pure rotation). */
  shift(delta: number): void;
  /** Frees the wasm memory. Any later call, a second `delete()` included, throws. */
  delete(): void;
  /** Same as `delete()`, but a no-op when already deleted. */
  [Symbol.dispose](): void;
}

/** What `memoryStats()` reports. */
export interface MemoryStats {
  /** Size of the wasm memories, core and (once loaded) models module together (they only grow). */
  heapBytes: number;
  /** Bytes currently allocated (malloc) in both modules, outside this call. */
  inUseBytes: number;
  /** Whether the models module has been loaded (by a model call or `loadModels()`). */
  modelsLoaded: boolean;
  /** Live objects holding wasm memory: call `delete()` on each when done. */
  kvCaches: number;
  models: number;
  /** Trainers exist only while `train()` runs. */
  trainers: number;
}

/** The positional encodings posenc implements (`ENCODINGS`). `nope` is an explicit choice. */
export type Encoding = (typeof ENCODINGS)[number];

/** Options of `init()`: which binary (SIMD or scalar) and where it comes from (a URL, bytes or a compiled module), for the core and for the models module. */
export interface InitOptions {
  /** Force the SIMD (`true`) or scalar (`false`) binary. Default: SIMD when `WebAssembly.validate` accepts SIMD. */
  simd?: boolean;
  /** The .wasm bytes, if the caller already has them. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where to fetch the .wasm from (browser). Default: next to the module, via `import.meta.url`. */
  wasmUrl?: string | URL;
  /**
   * An already compiled binary (from `compileWasm()`), instantiated as is: nothing is fetched or
   * compiled. A page can compile once and post the module to its Workers. Give `simd: false` with
   * a module compiled from the scalar binary. Not together with `wasmBinary` / `wasmUrl`.
   */
  module?: WebAssembly.Module;
  /**
   * The models module (loaded the first time a model is used), given the same ways: its bytes, where to
   * fetch it from (default: next to the package's module), or compiled (from
   * `compileWasm({ part: 'models' })`, of the same flavour).
   */
  models?: { wasmBinary?: ArrayBuffer | Uint8Array; wasmUrl?: string | URL; module?: WebAssembly.Module };
}

/** What `createPool()` accepts. */
export interface PoolOptions {
  /**
   * How many Workers (each with its own instance), an integer in [1, 64]. Default: the core count
   * (`navigator.hardwareConcurrency`, Node: `os.availableParallelism()`), at most 8.
   */
  workers?: number;
  /** Force the SIMD (`true`) or scalar (`false`) binary, as for `init()`. */
  simd?: boolean;
  /** An already compiled core binary (from `compileWasm()`); otherwise it is fetched and compiled once. */
  module?: WebAssembly.Module;
  /** Where to fetch the core .wasm from, as for `init()`. Not together with `module`. */
  wasmUrl?: string | URL;
  /**
   * `attention` calls with less work than this (FLOPs: 2 · heads · queryLength · keyLength · headDim)
   * run on the calling thread, where splitting costs more in copies and messages than it saves.
   * Default: 2^25 (for H=8, D=64: calls of T ≤ 128 queries and keys), measured by `npm run bench:pool`
   * (see docs/performance.md); 0 splits
   * every call that can be split. A number >= 0.
   */
  minSplitWork?: number;
  /**
   * The models module (tiny models, training) for `train`, `continueTraining` and `evaluate`: an already
   * compiled one (`compileWasm({ part: 'models' })`) or where to fetch it, as `init()`'s `models`
   * option. Default: fetched and compiled once, on the first such call.
   */
  models?: { module?: WebAssembly.Module; wasmUrl?: string | URL };
  /**
   * Browser entry only: where a pool runs inside a Worker, let the page's main thread start its
   * Workers instead of this Worker. Called once per Worker, it returns one end of a `MessageChannel`
   * whose other end the main thread passes to `startPoolWorker(port)`. Firefox (ESR 153) can hang a
   * Worker inside the constructor of a Worker it starts; Workers started by the page do not. The
   * pool's `terminate()` closes these Workers through their ports.
   */
  connect?: () => MessagePort;
}

/**
 * Workers that each own a posenc instance (made from one compiled module), for the calls that split
 * across cores. Needs no SharedArrayBuffer, so no cross-origin isolation. A pool survives a bad call
 * (the error is thrown, later calls work); `terminate()` (or `await using`) stops every Worker.
 */
export interface PosencPool extends AsyncDisposable {
  /** Whether the Workers run the SIMD binary. */
  readonly simd: boolean;
  /** How many Workers run (0 after `terminate()`). */
  readonly workers: number;
  /**
   * `pe.attention` split by key-value group across the Workers: the same arguments, errors and result,
   * bit for bit, for any worker count. Calls too small to gain from splitting run on the calling thread.
   */
  attention(options: AttentionOptions): Promise<AttentionResult>;
  /**
   * `pe.train` data-parallel: every step's batch is cut into micro-batches of 4 examples, shared by the
   * Workers; their gradients are summed in micro-batch order, as `pe.train` sums them, so the trained
   * weights equal `pe.train(config)`'s bit for bit for any worker count. Same config, errors, progress,
   * cancelling (`signal`) and chunking; the model lives on the pool's calling-thread instance.
   */
  train(config: TrainConfig, options?: TrainOptions): Promise<TinyModel>;
  /**
   * `pe.continueTraining` data-parallel, as `train`: the same weights, bit for bit, for any worker
   * count. `model` may come from any instance (it is copied by value); it is left unchanged.
   */
  continueTraining(model: TinyModel, config: ContinueTrainingConfig, options?: TrainOptions): Promise<TinyModel>;
  /**
   * `model.evaluate(options)` with its lengths shared by the Workers (each length on one Worker, the
   * longest first, to even out their work): the same results, bit for bit, for any worker count
   * (every length is evaluated from the same seed on its own). `model` may come from any instance (it
   * is copied by value). Calls overlap: each part goes to the Worker with the fewest calls waiting.
   */
  evaluate(model: TinyModel, options: EvaluateOptions): Promise<EvaluateResult[]>;
  /** Stops every Worker; calls still waiting reject, later calls reject. */
  terminate(): Promise<void>;
  /** `terminate()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * What `compileWasm()` accepts: the binary to compile, as for `init()`; `part: 'models'` compiles the
 * models module (pass the result as `init({ models: { module } })`).
 */
export type CompileOptions = Pick<InitOptions, 'simd' | 'wasmBinary' | 'wasmUrl'> & { part?: 'core' | 'models' };

/** An initialised module. Every method validates its arguments and throws `TypeError`/`RangeError` naming the parameter. */
// ---- Tiny models

/** The synthetic tasks the shipped models are trained on. */
export type TaskName = (typeof TASKS)[number];
/** Positional encodings a tiny model can use. */
export type EncodingName = Encoding;

/** A tiny model's configuration (the safetensors `__metadata__`). */
export interface TinyModelConfig {
  task: string;
  encoding: EncodingName;
  /** `true`: causal language model, logits `[T, vocab]`; `false`: encoder, pooled logits `[numClasses]`. */
  causal: boolean;
  vocab: number;
  dModel: number;
  heads: number;
  layers: number;
  dFf: number;
  numClasses: number;
  /** Rows of the learned position table (learned models cannot run past it). */
  maxLen: number;
  /** The length the model was trained at. */
  trainLen: number;
  rotaryDim: number;
  ropeBase: number;
  xposScaleBase: number;
  sinusoidalBase: number;
  t5Buckets: number;
  t5MaxDistance: number;
  shawClip: number;
  /**
   * RoPE / xPos: the context extension the model was (continued-)trained
   * with (see `continueTraining`); absent when it has none. `forward`,
   * `generate` and `evaluate` apply it unless their `scaling` option is
   * given, which then replaces it (`{ type: 'default' }` runs the model
   * without it). Saved in the safetensors metadata (`rope_scaling`, Hugging
   * Face key names), so it survives `save()` / `loadModel()`.
   */
  ropeScaling?: RopeScaling;
}

/**
 * A common RoPE / position bug applied on purpose at inference (the page's
 * "bug zoo"), to show its consequence on a trained model. Bugs marked
 * "RoPE / xPos" throw a `RangeError` naming the bug and the model's encoding
 * on other models.
 *
 * - `'none'`: No bug (the default).
 * - `'restart-positions'`: Positions restart at 0 with a KV cache: every
 *   cached step rotates (or, for sinusoidal / learned models, embeds) its
 *   tokens at 0 .. n-1 instead of after the cached ones. `forward` and
 *   `evaluate` emulate a cached run in chunks of `trainLen / 4` tokens (16 for
 *   the shipped models; no attention maps); `generate` feeds the prompt at 0
 *   .. n-1, then every new token at 0. Causal RoPE, xPos, sinusoidal or
 *   learned models.
 * - `'rotate-v'`: RoPE / xPos: V is rotated too, at the key positions.
 * - `'only-q'`: RoPE / xPos: only Q is rotated, K is not.
 * - `'layout-mismatch'`: RoPE / xPos: the rotation pairs elements interleaved;
 *   the models were trained with the half layout.
 * - `'left-padding-in-positions'`: The input is left-padded with 16 masked
 *   pad tokens, but positions count the pads. For RoPE / xPos this uniform
 *   shift is invisible (float rounding only); sinusoidal models see shifted
 *   positions, learned ones run past their table (a `RangeError`). RoPE, xPos,
 *   sinusoidal or learned models.
 * - `'wrong-base'`: RoPE / xPos: base 500000 (Llama 3's) instead of the
 *   model's own.
 * - `'partial-rotary-freq-over-head-dim'`: RoPE / xPos with partial rotary
 *   (`rotaryDim < headDim`, e.g. the shipped `language-rope-partial`):
 *   frequencies `base^(-2i/headDim)` instead of `base^(-2i/rotaryDim)`.
 * - `'yarn-magnitude-twice'`: RoPE / xPos with a `yarn` scaling (required:
 *   passed, or the model's own `config.ropeScaling`): the attention factor is
 *   applied twice, so logits are scaled by `mscale^4` instead of `mscale^2`.
 * - `'rope-on-embeddings'`: RoPE / xPos: the rotation is applied to the
 *   token embeddings (the input of layer 0) instead of to Q and K, and
 *   attention rotates nothing. Each embedding `[dModel]` is cut into head-sized
 *   blocks `[heads, headDim]`; every block gets the model's own rotation
 *   at the token's position (the cos/sin Q would have used; xPos: the query-side
 *   scale).
 * - `'qk-position-mismatch'`: RoPE / xPos: queries are rotated at position +
 *   1, keys at their position (an off-by-one in the position ids).
 * - `'rotate-half-mismatch'`: RoPE / xPos: `rotate_half` pairs the halves
 *   (`x[i]` with `x[i + r/2]`) but cos/sin were built with `repeat_interleave`
 *   (element `j` uses the angle of pair `floor(j/2)`). Not a rotation: norms
 *   change. Q and K.
 * - `'short-cos-sin-cache'`: RoPE / xPos: the cos/sin cache holds only
 *   `trainLen / 2` rows (32 for the shipped models); positions past it read
 *   the last row (a clamping gather). The loss rises past position 32.
 * - `'wrong-scaling'`: RoPE / xPos: another model's scaling: the model runs
 *   with `{ type: 'linear', factor: 4 }` although it was trained without one
 *   (a model with its own `config.ropeScaling` runs with linear x4 instead).
 *   Passing `scaling` as well throws a `RangeError` naming both.
 */
export type PositionBug = (typeof POSITION_BUGS)[number];

/** Options of a tiny model's `forward`: attention maps, a RoPE / xPos scaling at inference, a position bug or a sliding window. */
export interface ModelForwardOptions {
  /** Also return every attention map `[layers, heads, T, T]`. Default false. */
  attentionMaps?: boolean;
  /**
   * RoPE / xPos context extension applied at inference (RoPE and xPos
   * models). Default: the model's own `config.ropeScaling` (none for a model
   * trained without one); a value given here replaces it.
   */
  scaling?: RopeScaling;
  /** A position bug to apply. Default `'none'`. */
  bug?: PositionBug;
}

/** What a tiny model's `forward` returns: the logits and, when asked for, every attention map. */
export interface ModelForwardResult {
  /** `[T, vocab]` for causal models, `[numClasses]` for encoders. */
  logits: Float32Array;
  /** `[layers, heads, T, T]` when requested. */
  attentionMaps?: Float32Array;
}

/** Options of a causal tiny model's `generate`: how many tokens, greedy or sampled, a scaling, a position bug and whether to decode through the KV cache. */
export interface GenerateOptions {
  /** Tokens to generate (>= 0). */
  maxNewTokens: number;
  /** 0 (default) is greedy; otherwise softmax sampling at this temperature. */
  temperature?: number;
  /** Sampling seed. Default 1. */
  seed?: number;
  /** RoPE / xPos context extension; default the model's own `config.ropeScaling` (see `ModelForwardOptions`). */
  scaling?: RopeScaling;
  /**
   * A position bug to apply. Default `'none'`. With `cache: false`,
   * `'restart-positions'` has no cache to restart (the correct model runs);
   * every other bug applies as in `forward`.
   */
  bug?: PositionBug;
  /**
   * `true` (default): incremental decoding through the KV cache. `false`:
   * every new token runs a full forward pass over prompt + generated tokens
   * and takes the last position's logits (slower; the reference a cached
   * run must match: bugs that show only as cached != uncached differ here).
   */
  cache?: boolean;
}

/** Options of a tiny model's `evaluate`: the lengths to measure at, how many fresh examples, the data seed, a scaling, a position bug or a sliding window. */
export interface EvaluateOptions {
  /** Sequence lengths to evaluate at (language and retrieval tasks); word-order ignores them. */
  lengths: number[];
  /** Examples per length. Default 32. */
  examples?: number;
  /** Data seed. Default 12345. */
  seed?: number;
  /** RoPE / xPos scaling; default the model's own `config.ropeScaling` (see `ModelForwardOptions`). */
  scaling?: RopeScaling;
  /** A position bug to apply. Default `'none'`. */
  bug?: PositionBug;
  /**
   * Sliding-window attention in every layer: query `i` sees keys
   * `i - window + 1 .. i` only, at their usual positions (an integer in [1,
   * 16777216]; default: none). A window of at least the length changes
   * nothing. Not with `bug: 'restart-positions'` (a `RangeError`).
   */
  window?: number;
}

/** One length's result of a tiny model's `evaluate`: the mean loss and accuracy over the scored tokens, and the loss at each position. */
export interface EvaluateResult {
  length: number;
  /** Mean loss (nats) per scored token (per example for word-order). */
  loss: number;
  /** Argmax accuracy over scored tokens. */
  accuracy: number;
  scored: number;
  /** `[length]` mean loss at each position, NaN where nothing is scored. */
  positionLoss: Float64Array;
}

/** A tiny transformer in wasm memory. Free it with `delete()` (or `using`). */
export interface TinyModel {
  readonly config: TinyModelConfig;
  /** The task vocabulary: `vocab[id]` is the word. */
  readonly vocab: readonly string[];
  /** Class names of an encoder (word-order: the people), else empty. */
  readonly classes: readonly string[];
  /** Whitespace tokenizer over `vocab`; unknown words map to `<unk>`. Prepends `<bos>` unless `bos: false`. */
  tokenize(text: string, options?: { bos?: boolean }): Int32Array;
  /** The words of `ids`, joined by spaces (the inverse of `tokenize` for known words). */
  detokenize(ids: ArrayLike<number>): string;
  /** One forward pass over `tokens` (`[T]`, from `tokenize`): the logits, and the attention maps when asked for. */
  forward(tokens: Int32Array, options?: ModelForwardOptions): ModelForwardResult;
  /** Decoding (causal models): through the KV cache, or by full passes with `cache: false`. Returns the new ids. */
  generate(prompt: Int32Array, options: GenerateOptions): Int32Array;
  /** Loss and accuracy on fresh task data at each length. */
  evaluate(options: EvaluateOptions): EvaluateResult[];
  /** The model as safetensors bytes. */
  save(): Uint8Array;
  /** Frees the model's wasm memory. Any later call, a second `delete()` included, throws. */
  delete(): void;
  /** Same as `delete()`, but a no-op when already deleted (for `using`). */
  [Symbol.dispose](): void;
}

/** What `pe.train` trains: the task and encoding, the number of steps and the recipe (batch, length, learning rate, warm-up, seed). */
export interface TrainConfig {
  task: TaskName;
  encoding: EncodingName;
  /** Optimiser steps (>= 1). */
  steps: number;
  /** Sequences per step. Default 16. */
  batch?: number;
  /** Training length (language, retrieval). Default 64. */
  seqLen?: number;
  /** Default 64. */
  dModel?: number;
  /** Default 4. */
  heads?: number;
  /** Default 2. */
  layers?: number;
  /** Default 128. */
  dFf?: number;
  /** Peak AdamW learning rate. Default 3e-3. */
  lr?: number;
  /** Warmup steps. Default steps / 10. */
  warmup?: number;
  /** Seed of the initial weights and the data. Default 1. */
  seed?: number;
}

/**
 * Continued training of a trained model (`Posenc.continueTraining`), e.g.
 * after a RoPE context extension: the weights start from the model's, the
 * optimiser (AdamW) state starts fresh, the learning rate follows the same
 * warmup + cosine schedule as `train` over `steps`.
 */
export interface ContinueTrainingConfig {
  /** Optimiser steps (>= 0). 0 returns a copy of the model with `scaling` stored and `trainLen = seqLen`. */
  steps: number;
  /**
   * Training length (language, retrieval; word-order sentences have their
   * own). Default the model's `config.trainLen`. A learned-position model
   * cannot go past its table (`maxLen`): a longer `seqLen` throws a
   * `RangeError`. The new model records it as `config.trainLen`.
   */
  seqLen?: number;
  /**
   * RoPE / xPos scaling used in every training step and stored in the new
   * model (`config.ropeScaling`), so that inference applies it by default.
   * `dynamic` and `longrope` see `seqLen` as the context length. Default:
   * the model's own scaling (none for the shipped models). RoPE and xPos
   * models only (a `TypeError` otherwise).
   */
  scaling?: RopeScaling;
  /** Sequences per step. Default 16. */
  batch?: number;
  /**
   * Peak AdamW learning rate. Default 1e-3: a third of `train`'s 3e-3, since
   * the weights are already trained and only need to adapt.
   */
  lr?: number;
  /** Warmup steps (the moments start at zero). Default `min(20, steps / 10)`. */
  warmup?: number;
  /** Seed of the training data (integer >= 0). Default 1. */
  seed?: number;
}

/**
 * Reference levels of a synthetic task, exact from its generator: what the
 * loss (nats per scored token; per sentence for word-order) and the argmax
 * accuracy of a model compare with.
 */
export interface TaskReference {
  task: TaskName;
  /**
   * Best accuracy without looking at the input: always predicting the most
   * frequent target. word-order: 1 / 12 classes; retrieval: 1 / 16 values
   * (both uniform); language: the largest stationary token probability.
   */
  chanceAccuracy: number;
  /** Best loss without the input: the entropy of the targets (ln 12, ln 16; language: `unigramEntropy`). */
  chanceLoss: number;
  /**
   * Bayes-optimal accuracy with the whole input: 1 for word-order and
   * retrieval (the answer is unique), and for language the probability of
   * the favourite next token (0.55 + 0.08 / 32, the same in every context).
   */
  bestAccuracy: number;
  /** Bayes-optimal loss: 0 for word-order and retrieval; language: `entropyRate`. */
  bestLoss: number;
  /** language: `H(x_t | x_{t-1}, x_{t-2})`, the entropy rate: the lowest achievable loss. */
  entropyRate?: number;
  /** language: `H(x_t | x_{t-1})`: the best loss of a model that sees only the previous token. */
  bigramEntropy?: number;
  /** language: `H(x_t)` of the stationary distribution: the best loss without context. */
  unigramEntropy?: number;
  /**
   * word-order: the best accuracy of an encoder without positions. It sees
   * only the multiset of tokens, the same for "A verb B" and "B verb A",
   * which are equally likely: 1/2.
   */
  orderFreeAccuracy?: number;
  /** word-order: the best loss without positions, ln 2. */
  orderFreeLoss?: number;
}

/** Options of `pe.sampleTask`: the task, the sequence length and the data seed. */
export interface SampleTaskOptions {
  task: TaskName;
  /** Sequence length (language >= 8, retrieval >= 16); word-order sentences have their own length. */
  length: number;
  /** Data seed (integer >= 0). Default 1. */
  seed?: number;
}

/** One example of a task, as the trainer and `evaluate` draw them. */
export interface TaskSample {
  /** `[n]` token ids (n = length, except for word-order). */
  tokens: Int32Array;
  /** `[n]` next-token targets, -1 where nothing is scored (word-order: all -1). */
  targets: Int32Array;
}

/** A progress report of `pe.train` or `pe.continueTraining`, sent every `chunk` steps to `onProgress`. */
export interface TrainProgress {
  step: number;
  steps: number;
  /** Mean loss of the step's batch (nats). */
  loss: number;
  gradNorm: number;
  lr: number;
}

/** How `pe.train` and `pe.continueTraining` report and stop: a progress callback, an AbortSignal and the steps between reports. */
export interface TrainOptions {
  /** Called after every chunk of steps (the last may be shorter) with the step, the batch loss, the gradient norm and the learning rate. */
  onProgress?: (p: TrainProgress) => void;
  /** Stops training between chunks; the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Steps between progress reports (and chances to cancel). Default 10. */
  chunk?: number;
}

/** An instance of posenc, from `init()`: every encoding, attention, the KV cache and the tiny models, on one wasm instance (and the models module once a model call loads it). */
export interface Posenc {
  /** True when the SIMD binary is running. */
  readonly simd: boolean;
  /** Highway target of the running binary: `WASM` or `SCALAR`. */
  readonly target: string;
  /** Current size of the wasm heap in bytes. */
  heapBytes(): number;
  /** Heap bytes in use and live wasm-owned objects: for leak checks. */
  memoryStats(): MemoryStats;
  /** The inverse frequencies of RoPE with any scaling, as Hugging Face computes them, and the attention factor. */
  ropeFrequencies(options: RopeFrequencyOptions): RopeFrequencies;
  /**
   * The RoPE settings of a parsed Hugging Face `config.json` (the `rope_scaling` form, with the legacy
   * `type` key, or the `rope_parameters` form), as posenc options. A key of the RoPE part it does not
   * understand is a RangeError naming it.
   */
  ropeFromConfig(config: object, options?: RopeFromConfigOptions): RopeFromConfig;
  /**
   * The query multipliers of a `QueryScaling` (`ropeFromConfig(...).queryScaling`) at these positions:
   * `[positions.length]`, computed in double and rounded once.
   */
  queryScale(positions: Int32Array, queryScaling: QueryScaling): Float32Array;
  /**
   * M-RoPE's three position rows for a prompt with images and videos, as the Qwen2-VL family's
   * `get_rope_index` builds them, and the offset of generated tokens (`ropeDeltas`).
   */
  mropePositionIds(options: MropePositionIdsOptions): MropePositionIds;
  /**
   * The cos and sin tables of a rotation, to hand to another runtime (Hugging Face style full width, or
   * onnxruntime's half-width caches), with the attention factor applied and the angles formed in double
   * as `applyRope` forms them.
   */
  ropeCache(options: RopeCacheOptions): RopeCache;
  /**
   * The position ids Hugging Face derives from an attention mask (`mask.cumsum(-1) - 1`, and 1 at padded
   * slots, as transformers fills them): `mask` is `[batch, seqLen]` (1 = token, 0 = padding), the result
   * `[batch, seqLen]`, for `applyRope({ batch, positions })`. A left-padded row's first token gets 0.
   */
  positionIds(mask: Uint8Array | Int32Array, seqLen: number): Int32Array;
  /** Rotates `x: [heads, seqLen, headDim]` (or a batch, see `batch`); returns a new array. */
  applyRope(x: Float32Array, options: ApplyRopeOptions): Float32Array;
  /** Re-rotates cached keys by a position delta (no attention factor applied again). */
  rerotateRope(x: Float32Array, options: RerotateOptions): Float32Array;
  /** `[length, dim]`. */
  sinusoidal(options: SinusoidalOptions): Float32Array;
  /** `[heads]`. */
  alibiSlopes(heads: number, options?: { variant?: AlibiVariant }): Float32Array;
  /** `[heads, queryLength, keyLength]`. */
  alibiBias(options: AlibiBiasOptions): Float32Array;
  /** `[queryLength, keyLength]` bucket indices. */
  t5Buckets(options: T5BucketOptions): Int32Array;
  /** `[heads, queryLength, keyLength]`. */
  t5Bias(options: T5BiasOptions): Float32Array;
  /** `[queryLength, keyLength]` row indices `clip(j - i, -k, k) + k`. */
  shawIndices(options: ShawOptions): Int32Array;
  /** `[queryLength, keyLength]` logits `q_i . (k_j + aK[idx(i, j)]) * scale`. */
  shawLogits(options: ShawLogitsOptions): Float32Array;
  /** `[queryLength, headDim]` = `sum_j probs[i, j] (v_j + aV[idx(i, j)])`. */
  shawValues(options: ShawValuesOptions): Float32Array;
  /** `[T, dim]` rows of the table; a position past the table throws. */
  learnedPositions(options: LearnedOptions): Float32Array;
  /** `[T, rotaryDim / 2]` xPos scales. */
  xposScales(options: XposScaleOptions): Float32Array;
  /** `O = softmax(Q K^T * scale + bias + mask) V` with the encodings fused in. */
  attention(options: AttentionOptions): AttentionResult;
  /** A KV cache for incremental decoding. */
  readonly KvCache: new (options: KvCacheOptions) => KvCache;
  /**
   * Fetches and instantiates the models module (tiny models, training, the tasks: a second .wasm with
   * the same SIMD / scalar choice) if it is not loaded yet. The model calls below do it on first use;
   * call this to start the download early. Rejects with the loading error (a later call tries again).
   */
  loadModels(): Promise<void>;
  /** Loads a tiny model from safetensors bytes (validated: a bad file rejects with a RangeError naming the problem). */
  loadModel(bytes: Uint8Array | ArrayBuffer): Promise<TinyModel>;
  /** One seeded example of a task's data (what `train` and `evaluate` use). */
  sampleTask(options: SampleTaskOptions): Promise<TaskSample>;
  /**
   * Trains a tiny model; yields to the event loop every `chunk` steps (run it in a Worker, or use a
   * pool's `train`, which gives the same weights). A step's gradient is the sum, in order, of its
   * micro-batches' (4 examples each, accumulated in order).
   */
  train(config: TrainConfig, options?: TrainOptions): Promise<TinyModel>;
  /**
   * Trains a copy of `model` further (e.g. at a longer `seqLen` with a RoPE
   * `scaling`, as production models do after a context extension); resolves
   * to a new model and leaves `model` unchanged. `model` may come from any
   * instance (another `init`, the other flavour, a pool): it is copied by
   * value. Same progress, cancelling and chunking as `train`.
   */
  continueTraining(model: TinyModel, config: ContinueTrainingConfig, options?: TrainOptions): Promise<TinyModel>;
  /** The task's reference loss and accuracy levels (chance, best possible, ...). */
  taskReference(task: TaskName): Promise<TaskReference>;
}
