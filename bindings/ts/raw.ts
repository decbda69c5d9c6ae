/**
 * The raw interfaces of the two Emscripten modules (bindings/core_module.cc
 * with bench_hooks.cc, and bindings/models_module.cc): the functions,
 * handle classes and value objects exactly as Embind exposes them. Array arguments are byte addresses in wasm memory; every function
 * returns '' or the core's error message. Only heap.ts and the modules it
 * serves (rope.ts, attention.ts, encodings.ts, model.ts) use it.
 */
import type { RopeScaling, TinyModelConfig, TrainConfig } from './types.js';

/** Every key of every member of a union. */
type KeysOfUnion<T> = T extends unknown ? keyof T : never;
/** The type of key K in the members of union T that have it. */
type ValueIn<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;

/**
 * The value object `RopeScaling` (src/ops/rope_frequencies.h,
 * POSENC_ROPE_SCALING_FIELDS): every field of every public `RopeScaling`
 * variant, all present; `type` as its name, `attentionFactor` NaN when
 * absent. tests/ts/contract.test.ts checks it against the C++ list.
 */
export type RopeScalingWire = {
  [K in KeysOfUnion<RopeScaling>]-?: K extends 'type' ? string : Exclude<ValueIn<RopeScaling, K>, undefined>;
};

/** The value object `RopeFrequencyConfig` (POSENC_ROPE_CONFIG_FIELDS). */
export interface RopeConfigWire {
  headDim: number;
  rotaryDim: number;
  base: number;
  scaling: RopeScalingWire;
  /** M-RoPE's pairs per row; empty = plain RoPE. */
  mropeSection: number[];
  mropeInterleaved: boolean;
}

/** The value object `RopeApplyOptions` (src/ops/rope_apply.h, POSENC_ROPE_APPLY_FIELDS): one rotation (positions: an address, 0 = offset + t). */
export interface RopeApplyWire {
  freq: RopeConfigWire;
  layout: string;
  heads: number;
  seqLen: number;
  positions: number;
  offset: number;
  contextLength: number;
  pureRotation: boolean;
  xpos: boolean;
  xposScaleBase: number;
  xposCenter: number;
  xposKey: boolean;
}

/** The value object `AttentionRope` (src/ops/attention.h, POSENC_ATTENTION_ROPE_FIELDS; addresses 0 = absent). */
export interface AttentionRopeWire {
  enabled: boolean;
  freq: RopeConfigWire;
  layout: string;
  queryPositions: number;
  keyPositions: number;
  positionsFromPadding: boolean;
  xpos: boolean;
  xposScaleBase: number;
  contextLength: number;
}

/** The value object `AttentionOptions` (POSENC_ATTENTION_FIELDS; addresses 0 = absent). */
export interface AttentionWire {
  heads: number;
  kvHeads: number;
  queryLength: number;
  keyLength: number;
  headDim: number;
  scale: number;
  causal: boolean;
  queryOffset: number;
  window: number;
  keyMask: number;
  alibiSlopes: number;
  t5Table: number;
  t5Buckets: number;
  t5MaxDistance: number;
  t5Bidirectional: boolean;
  shawK: number;
  shawV: number;
  shawClip: number;
  bias: number;
  rope: AttentionRopeWire;
  weights: number;
}

/** The value object `ModelConfig` (src/model/config.h, POSENC_MODEL_CONFIG_FIELDS): the public TinyModelConfig with every field present. */
export type ModelConfigWire = Omit<TinyModelConfig, 'encoding' | 'ropeScaling'> & { encoding: string; ropeScaling: RopeScalingWire };

/**
 * The value object `TrainRequest` (src/model/train.h, POSENC_TRAIN_REQUEST_FIELDS): the public TrainConfig with
 * every field present; lr and warmup undefined = derived in C++.
 */
export type TrainRequestWire = Omit<Required<TrainConfig>, 'task' | 'encoding' | 'lr' | 'warmup'> & {
  task: string; encoding: string; lr: number | undefined; warmup: number | undefined;
};

/** Every Embind handle has `delete()`. */
export interface RawHandle {
  delete(): void;
}

/** The Embind `KvCache` handle. */
export interface RawKvCache extends RawHandle {
  error(): string;
  append(k: number, v: number, n: number, positions: number): string;
  attend(options: AttentionWire, q: number, qPositions: number, out: number, outCapacity: number, weightsCapacity: number): string;
  shift(delta: number): string;
  length(): number;
}

/** The Embind `TinyModel` handle. */
export interface RawTinyModel extends RawHandle {
  error(): string;
  config(): ModelConfigWire;
  vocab(): string;
  classes(): string;
  forward(
    tokens: number, T: number, logits: number, logitsCapacity: number, maps: number, mapsCapacity: number,
    hasScaling: number, scaling: RopeConfigWire, bug: string,
  ): string;
  generate(
    prompt: number, n: number, maxNew: number, temperature: number, seed: number,
    hasScaling: number, scaling: RopeConfigWire, bug: string, cache: boolean, out: number, capacity: number,
  ): string;
  evaluate(
    length: number, count: number, seed: number, hasScaling: number, scaling: RopeConfigWire, bug: string, window: number,
    out: number, capacity: number,
  ): string;
  saveSize(): number;
  /** Writes the bytes saveSize() prepared into a buffer of `capacity` bytes. */
  saveInto(ptr: number, capacity: number): string;
}

/** The Embind `Trainer` handle. */
export interface RawTrainer extends RawHandle {
  error(): string;
  step(n: number, out: number, capacity: number): string;
  model(): RawTinyModel;
  /** Micro-batches per step (data-parallel steps: the Worker pool). */
  microBatches(): number;
  /** Floats in a gradient (the model's weights). */
  paramCount(): number;
  /** Samples the next step's batch. */
  beginStep(): string;
  /** Micro-batch `j`'s gradient into `grad` (float [paramCount]) and its summed loss into `loss` (float64 [1]). */
  blockGradient(first: number, count: number, grad: number, gradCapacity: number, loss: number, lossCapacity: number): string;
  /** The AdamW step from the summed gradient `grad` (float [n]); out: float64 [4] (step, loss, grad norm, lr). */
  applyGradient(grad: number, n: number, loss: number, out: number, capacity: number): string;
}

/** The Embind `Trainer` class: fresh training, or continued training of a model (with a scaling when hasScaling). */
export interface RawTrainerClass {
  new (spec: TrainRequestWire): RawTrainer;
  new (spec: TrainRequestWire, init: RawTinyModel, hasScaling: number, scaling: RopeConfigWire): RawTrainer;
}

/** What both modules expose: their heap, the allocator and the shared queries. */
export interface RawCommon {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  target(): string;
  /**
   * The fields of a struct crossing this module's boundary: 'jsName jsType' lines ('' for an unknown
   * struct); jsType is 'number', 'int32', 'int64', 'boolean', 'string' or 'number[]'.
   */
  contract(struct: string): string;
  /** One of the name tables of the C++ enums this module parses, one name per line ('' for another list). */
  names(list: string): string;
  /** Bytes in use by malloc, then the live handles of each class (KvCache; or TinyModel, Trainer), space-separated. */
  memoryStats(): string;
}

/** What the models module (posenc-models-*) exposes: tiny models, training, the tasks. */
export interface RawModels extends RawCommon {
  TinyModel: new (bytes: number, n: number) => RawTinyModel;
  Trainer: RawTrainerClass;
  sampleTask(task: string, length: number, seed: number, cap: number, tokens: number, targets: number, count: number): string;
  taskReference(task: string, out: number, capacity: number): string;
  /** A training request with every field at its C++ default. */
  defaultTrainRequest(): TrainRequestWire;
}

/**
 * What the core module (posenc-*) exposes: the encodings, attention and the KV cache. Every output buffer is
 * followed by its capacity in elements, which C++ checks before writing.
 */
export interface RawModule extends RawCommon {
  ropeFrequencies(spec: RopeConfigWire, seqLen: number, outFreq: number, capacity: number, outFactor: number): string;
  ropeApply(options: RopeApplyWire, x: number, xLen: number, out: number, capacity: number): string;
  /** cos and sin: buffers of `capacity` floats each. */
  ropeCache(options: RopeApplyWire, cos: number, sin: number, capacity: number): string;
  sinusoidal(length: number, dim: number, base: number, layout: number, out: number, capacity: number): string;
  alibiSlopes(heads: number, variant: number, out: number, capacity: number): string;
  alibiBias(heads: number, variant: number, q: number, k: number, causal: boolean, out: number, capacity: number): string;
  t5Buckets(
    q: number, k: number, qOffset: number, numBuckets: number, maxDistance: number, bidirectional: boolean, out: number, capacity: number,
  ): string;
  t5Bias(
    table: number, heads: number, q: number, k: number, qOffset: number, numBuckets: number, maxDistance: number, bidirectional: boolean,
    out: number, capacity: number,
  ): string;
  shawIndices(q: number, k: number, clip: number, out: number, capacity: number): string;
  shawLogits(
    q: number, k: number, tableK: number, Q: number, K: number, D: number, clip: number, scale: number, out: number, capacity: number,
  ): string;
  shawValues(probs: number, v: number, tableV: number, Q: number, K: number, D: number, clip: number, out: number, capacity: number): string;
  learnedPositions(table: number, maxLength: number, dim: number, positions: number, T: number, out: number, capacity: number): string;
  xposScales(
    positions: number, T: number, rotaryDim: number, scaleBase: number, center: number, key: boolean, out: number, capacity: number,
  ): string;
  attention(options: AttentionWire, q: number, k: number, v: number, out: number, outCapacity: number, weightsCapacity: number): string;
  KvCache: new (kvHeads: number, headDim: number, rope: AttentionRopeWire, consistent: boolean) => RawKvCache;
  /** The scaling fields (JS names, space-separated) a scaling type needs from the caller. */
  requiredScalingFields(type: string): string;
  /** A RoPE configuration with every field at its C++ default. */
  defaultRopeConfig(): RopeConfigWire;
  /** A rotation with every field at its C++ default. */
  defaultRopeApply(): RopeApplyWire;
  /** The C++ defaults of options outside a value object: xPos's scale base, T5's buckets and max distance. */
  readonly xposScaleBase: number;
  readonly t5NumBuckets: number;
  readonly t5MaxDistance: number;
  /** Attention options with every field at its C++ default. */
  defaultAttention(): AttentionWire;
  benchRope(H: number, T: number, d: number, layout: number, iters: number): void;
  benchCopy(iters: number): void;
  benchPeak(iters: number): number;
}
