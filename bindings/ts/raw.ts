/**
 * The raw interface of the Emscripten module (bindings/embind.cc): the
 * functions, handle classes and value objects exactly as Embind exposes
 * them. Array arguments are byte addresses in wasm memory; every function
 * returns '' or the core's error message. Only heap.ts and the modules it
 * serves (rope.ts, attention.ts, encodings.ts, model.ts) use it.
 */

/** The value object `RopeSpec` (RoPE frequencies; addresses 0 = absent). */
export interface RopeSpec {
  headDim: number;
  rotaryDim: number;
  base: number;
  scaling: string;
  factor: number;
  originalMaxPositionEmbeddings: number;
  maxPositionEmbeddings: number;
  betaFast: number;
  betaSlow: number;
  truncate: boolean;
  mscale: number;
  mscaleAllDim: number;
  attentionFactor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  shortFactor: number;
  longFactor: number;
  factorLength: number;
}

/** The value object `AttentionSpec` (addresses 0 = absent). */
export interface AttentionSpec {
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
  rope: boolean;
  ropeLayout: number;
  qPositions: number;
  kPositions: number;
  positionsFromMask: boolean;
  xpos: boolean;
  xposScaleBase: number;
  weights: number;
}

/** The value object `TrainSpec`. */
export interface TrainSpec {
  task: string;
  encoding: string;
  steps: number;
  batch: number;
  seqLen: number;
  dModel: number;
  heads: number;
  layers: number;
  dFf: number;
  lr: number;
  warmup: number;
  seed: number;
}

/** Every Embind handle has `delete()`. */
export interface RawHandle {
  delete(): void;
}

/** The Embind `KvCache` handle. */
export interface RawKvCache extends RawHandle {
  error(): string;
  append(k: number, v: number, n: number, positions: number): string;
  attend(spec: AttentionSpec, q: number, qPositions: number, out: number): string;
  shift(delta: number): string;
  length(): number;
}

/** The Embind `TinyModel` handle. */
export interface RawTinyModel extends RawHandle {
  error(): string;
  config(): string;
  vocab(): string;
  classes(): string;
  forward(tokens: number, T: number, logits: number, maps: number, hasScaling: number, scaling: RopeSpec, bug: string): string;
  generate(
    prompt: number, n: number, maxNew: number, temperature: number, seed: number,
    hasScaling: number, scaling: RopeSpec, bug: string, cache: boolean, out: number,
  ): string;
  evaluate(length: number, count: number, seed: number, hasScaling: number, scaling: RopeSpec, bug: string, out: number): string;
  saveSize(): number;
  saveInto(ptr: number): void;
}

/** The Embind `Trainer` handle. */
export interface RawTrainer extends RawHandle {
  error(): string;
  step(n: number, out: number): string;
  model(): RawTinyModel;
}

/** The Embind `Trainer` class: fresh training, or continued training of a model (with a scaling when hasScaling). */
export interface RawTrainerClass {
  new (spec: TrainSpec): RawTrainer;
  new (spec: TrainSpec, init: RawTinyModel, hasScaling: number, scaling: RopeSpec): RawTrainer;
}

/** What the Emscripten module exposes. */
export interface RawModule {
  HEAPU8: Uint8Array;
  HEAP32: Int32Array;
  HEAPF32: Float32Array;
  HEAPF64: Float64Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  ropeFrequencies(spec: RopeSpec, seqLen: number, outFreq: number, outFactor: number): string;
  ropeApply(
    spec: RopeSpec, layout: number, x: number, xLen: number, out: number, heads: number, seqLen: number,
    positions: number, offset: number, pureRotation: boolean, xpos: boolean, xposScaleBase: number,
    xposCenter: number, xposKey: boolean, contextLength: number,
  ): string;
  sinusoidal(length: number, dim: number, base: number, layout: number, out: number): string;
  alibiSlopes(heads: number, variant: number, out: number): string;
  alibiBias(heads: number, variant: number, q: number, k: number, causal: boolean, out: number): string;
  t5Buckets(q: number, k: number, qOffset: number, numBuckets: number, maxDistance: number, bidirectional: boolean, out: number): string;
  t5Bias(table: number, heads: number, q: number, k: number, qOffset: number, numBuckets: number, maxDistance: number, bidirectional: boolean, out: number): string;
  shawIndices(q: number, k: number, clip: number, out: number): string;
  shawLogits(q: number, k: number, tableK: number, Q: number, K: number, D: number, clip: number, scale: number, out: number): string;
  shawValues(probs: number, v: number, tableV: number, Q: number, K: number, D: number, clip: number, out: number): string;
  learnedPositions(table: number, maxLength: number, dim: number, positions: number, T: number, out: number): string;
  xposScales(positions: number, T: number, rotaryDim: number, scaleBase: number, center: number, key: boolean, out: number): string;
  attention(spec: AttentionSpec, rope: RopeSpec, q: number, k: number, v: number, out: number): string;
  KvCache: new (kvHeads: number, headDim: number, rope: boolean, spec: RopeSpec, layout: number, xpos: boolean, xposScaleBase: number) => RawKvCache;
  TinyModel: new (bytes: number, n: number) => RawTinyModel;
  Trainer: RawTrainerClass;
  sampleTask(task: string, length: number, seed: number, cap: number, tokens: number, targets: number, count: number): string;
  taskReference(task: string, out: number): string;
  target(): string;
  /** One of the name tables of the C++ enums, one name per line ('' for an unknown list). */
  names(list: string): string;
  benchRope(H: number, T: number, d: number, layout: number, iters: number): void;
  benchCopy(iters: number): void;
  benchPeak(iters: number): number;
  memoryStats(): string;
}
