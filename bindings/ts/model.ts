/**
 * Tiny models over the Embind `TinyModel` and `Trainer` handles of the
 * models module, which the first model call instantiates: loading
 * (validated in C++), forward with attention maps, generation through the
 * KV cache (or by full passes), evaluation, saving, and training in chunks
 * that yield to the event loop. Every call copies in and out of the models
 * module's memory (heap.ts); RoPE options are built with the core's defaults.
 */
import type {
  ContinueTrainingConfig,
  EncodingName,
  EvaluateOptions,
  EvaluateResult,
  GenerateOptions,
  ModelForwardOptions,
  ModelForwardResult,
  PositionBug,
  Posenc,
  RopeScaling,
  SampleTaskOptions,
  TaskReference,
  TaskSample,
  TinyModel,
  TinyModelConfig,
  TrainConfig,
  TrainOptions,
  TrainProgress,
} from './types.js';
import { Owner, type Heap } from './heap.js';
import { ENCODINGS, POSITION_BUGS as BUGS, TASKS } from './names.js';
import type { ModelConfigWire, RawModels, RawModule, RawTinyModel, RawTrainer, RopeConfigWire, RopeScalingWire, TrainRequestWire } from './raw.js';
import { ropeSpec } from './rope.js';
import { i32, int, int32, number, oneOf, optBool, optInt, requireObject } from './validate.js';
import { keysOf, knownKeys } from './known-keys.js';

/** An integer option (its range is checked in C++); left out, `dflt`. */
const optInt32 = (name: string, v: unknown, dflt: number): number => (v === undefined ? dflt : int32(name, v));

/** The `bug` option (whether it applies to the model is checked in C++). */
const bugOption = (v: unknown): PositionBug => (v === undefined ? 'none' : oneOf('bug', v, BUGS));

/**
 * A RopeScaling value object as the public RopeScaling of its type (only
 * that type's keys; attentionFactor only when given), frozen: passed back
 * as `scaling`, it gives the same rotation.
 */
function publicScaling(w: RopeScalingWire): RopeScaling {
  const { factor, originalMaxPositionEmbeddings: original } = w;
  const attention = Number.isNaN(w.attentionFactor) ? {} : { attentionFactor: w.attentionFactor };
  let s: RopeScaling;
  switch (w.type as RopeScaling['type']) {
    case 'linear': s = { type: 'linear', factor }; break;
    case 'ntk': s = { type: 'ntk', factor }; break;
    case 'dynamic': s = { type: 'dynamic', factor, maxPositionEmbeddings: w.maxPositionEmbeddings }; break;
    case 'yarn':
      s = {
        type: 'yarn', factor, originalMaxPositionEmbeddings: original, betaFast: w.betaFast, betaSlow: w.betaSlow,
        truncate: w.truncate, mscale: w.mscale, mscaleAllDim: w.mscaleAllDim, ...attention,
      };
      break;
    case 'longrope':
      s = {
        type: 'longrope', factor, originalMaxPositionEmbeddings: original,
        shortFactor: Object.freeze(Array.from(w.shortFactor)), longFactor: Object.freeze(Array.from(w.longFactor)), ...attention,
      };
      break;
    case 'llama3':
      s = {
        type: 'llama3', factor, originalMaxPositionEmbeddings: original,
        lowFreqFactor: w.lowFreqFactor, highFreqFactor: w.highFreqFactor,
      };
      break;
    case 'proportional': s = { type: 'proportional', factor, partialRotaryFactor: w.partialRotaryFactor }; break;
    default: s = { type: 'default' };
  }
  return Object.freeze(s);
}

/** The ModelConfig value object as the public TinyModelConfig (ropeScaling only when the model has one). */
function publicConfig(w: ModelConfigWire): TinyModelConfig {
  const { ropeScaling, encoding, ...rest } = w;
  return {
    ...rest,
    encoding: encoding as EncodingName,
    ...(ropeScaling.type === 'default' ? {} : { ropeScaling: publicScaling(ropeScaling) }),
  };
}

const lines = (text: string): string[] => (text === '' ? [] : text.slice(0, -1).split('\n'));

const TOKENIZE_KEYS = keysOf<NonNullable<Parameters<TinyModel['tokenize']>[1]>>()(['bos']);
const FORWARD_KEYS = keysOf<ModelForwardOptions>()(['attentionMaps', 'scaling', 'bug']);
const GENERATE_KEYS = keysOf<GenerateOptions>()(['maxNewTokens', 'temperature', 'seed', 'scaling', 'bug', 'cache']);
/** The keys of `evaluate` options (also what the pool copies to its Workers). */
export const EVALUATE_KEYS = keysOf<EvaluateOptions>()(['lengths', 'examples', 'seed', 'scaling', 'bug', 'window']);
const SAMPLE_TASK_KEYS = keysOf<SampleTaskOptions>()(['task', 'length', 'seed']);
/** The keys of a `train` config (also what the pool copies to its Workers). */
export const TRAIN_CONFIG_KEYS = keysOf<TrainConfig>()([
  'task', 'encoding', 'steps', 'batch', 'seqLen', 'dModel', 'heads', 'layers', 'dFf', 'lr', 'warmup', 'seed',
]);
/** The keys of a `continueTraining` config (also what the pool copies to its Workers). */
export const CONTINUE_CONFIG_KEYS = keysOf<ContinueTrainingConfig>()(['steps', 'seqLen', 'scaling', 'batch', 'lr', 'warmup', 'seed']);
const TRAIN_OPTIONS_KEYS = keysOf<TrainOptions>()(['onProgress', 'signal', 'chunk']);

/** Progress callback, cancel signal and chunk size of a training call (pe.train and pool.train). */
export interface TrainRunOptions {
  chunk: number;
  onProgress?: ((p: TrainProgress) => void) | undefined;
  signal?: AbortSignal | undefined;
}

/** The options of a training call (`call`: 'train' or 'continueTraining', for errors), checked. */
export function trainOptions(options: unknown, call: string): TrainRunOptions {
  const o = options === undefined ? {} : requireObject('options', options);
  knownKeys(`${call} options`, o, TRAIN_OPTIONS_KEYS);
  const chunk = optInt('chunk', o.chunk, 10, 1, 1_000_000);
  const onProgress = o.onProgress;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new TypeError('onProgress must be a function');
  }
  // Duck-typed (Node's and a browser's AbortSignal differ, and a Worker may lack the global): an
  // AbortController or any other object here would make cancelling silently do nothing.
  const signal = o.signal as { aborted?: unknown; addEventListener?: unknown } | undefined;
  if (signal !== undefined && (typeof signal !== 'object' || signal === null || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function')) {
    const got = typeof signal === 'object' && signal !== null && 'signal' in signal ? 'an AbortController (pass its .signal)' : typeof signal === 'object' ? 'an object that is not one' : typeof signal;
    throw new TypeError(`signal must be an AbortSignal, got ${got}`);
  }
  return { chunk, onProgress: onProgress as ((p: TrainProgress) => void) | undefined, signal: o.signal as AbortSignal | undefined };
}

/** One training step's outcome: step number, batch loss, gradient norm (before clipping), learning rate. */
export interface StepRow {
  step: number;
  loss: number;
  gradNorm: number;
  lr: number;
}

/** `evaluate`'s `lengths`, checked: a non-empty array of integers in [1, 65536] (also pool.ts' check). */
export function evaluateLengths(v: unknown): number[] {
  if (!Array.isArray(v) || v.length === 0) throw new TypeError('lengths must be a non-empty array of sequence lengths');
  return (v as unknown[]).map((x, i) => int(`lengths[${i}]`, x, 1, 65536));
}

/**
 * A trainer driven step by step for data parallelism (the Worker pool, pool.ts): replicas made from
 * the same request sample the same batches; `gradient(j)` gives micro-batch j's gradient, and `apply`
 * sums such parts in j order (float32) and steps with their losses' sum. Not part of the public API.
 */
export interface TrainReplica {
  /** Steps the request asks for. */
  readonly steps: number;
  /** Micro-batches per step. */
  readonly microBatches: number;
  /** Floats in a gradient. */
  readonly params: number;
  /** Samples the next step's batch. */
  begin(): void;
  /**
   * The gradients of micro-batches [first, first + count) of the batch `begin` sampled, summed in
   * order as `pe.train` sums them, and their summed loss. `grad` is a copy, written into `into`
   * (`params` floats) when given, so a caller that steps many times can reuse its arrays.
   */
  gradient(first: number, count: number, into?: Float32Array): { grad: Float32Array; loss: number };
  /**
   * The optimiser step from the step's gradient given as parts in micro-batch order (a first block's
   * sum, then one array per later micro-batch, each of `params` floats; summed in that order in
   * float32, as `pe.train` sums) and the micro-batches' losses summed in order. `copied`, when given,
   * runs once the parts are copied into the wasm heap, before the step: the caller may then move
   * them to another thread while the step runs.
   */
  apply(grads: readonly Float32Array[], loss: number, copied?: () => void): StepRow;
  /** The model as trained so far (a TinyModel of this module). */
  model(): TinyModel;
  /** Frees the trainer (idempotent). */
  free(): void;
}

/** How a replica is made: a fresh request, or continued training of a model (by value: its safetensors bytes). */
export type ReplicaSpec =
  | { kind: 'train'; config: TrainConfig }
  | { kind: 'continue'; model: TinyModel | Uint8Array; config: ContinueTrainingConfig };

type ModelCalls = Pick<Posenc, 'loadModels' | 'loadModel' | 'train' | 'continueTraining' | 'sampleTask' | 'taskReference'>;

/**
 * Model loading, training and the task helpers: each call first waits for the models module
 * (`models()` instantiates it once), then runs on its heap.
 */
export function modelApi(core: Heap, models: () => Promise<Heap<RawModels>>): ModelCalls & { trainReplica(spec: ReplicaSpec): Promise<TrainReplica> } {
  // One set of calls (one TinyModel class) per module, also when the first calls overlap: a
  // model is accepted only by the calls that made it, so two sets would refuse each other's.
  let calls: Promise<ReturnType<typeof modelsApi>> | undefined;
  const ready = (): Promise<ReturnType<typeof modelsApi>> => {
    calls ??= models().then(
      (heap) => modelsApi(heap, core.m),
      (e: unknown) => {
        calls = undefined;
        throw e;
      },
    );
    return calls;
  };
  return {
    loadModels: async () => {
      await ready();
    },
    loadModel: async (bytes) => (await ready()).loadModel(bytes),
    train: async (config, options) => (await ready()).train(config, options),
    continueTraining: async (model, config, options) => (await ready()).continueTraining(model, config, options),
    sampleTask: async (options) => (await ready()).sampleTask(options),
    taskReference: async (task) => (await ready()).taskReference(task),
    trainReplica: async (spec) => (await ready()).trainReplica(spec),
  };
}

/** The model calls over a loaded models module (`core`: for the RoPE defaults). */
function modelsApi(heap: Heap<RawModels>, core: RawModule) {
  const { m } = heap;
  const check = (err: string): void => heap.check(err);

  class TinyModelImpl extends Owner<RawTinyModel> implements TinyModel {
    readonly config: TinyModelConfig;
    readonly vocab: readonly string[];
    readonly classes: readonly string[];
    readonly #ids: Map<string, number>;

    constructor(h: RawTinyModel) {
      const err = h.error();
      if (err !== '') {
        h.delete();
        throw new RangeError(err);
      }
      super(h, 'TinyModel', 'model');
      this.config = Object.freeze(publicConfig(h.config()));
      this.vocab = Object.freeze(lines(h.vocab()));
      this.classes = Object.freeze(lines(h.classes()));
      this.#ids = new Map(this.vocab.map((w, i) => [w, i]));
    }

    /** The live handle of `model`, a model of this module (`name` = the parameter, for errors). */
    static raw(name: string, model: unknown): RawTinyModel {
      return Owner.handleOf(model, TinyModelImpl, name, 'a TinyModel of this module (from loadModel, train or continueTraining)');
    }

    /** scaling -> [hasScaling, RopeConfigWire] for the model's rotary settings. */
    #scaling(scaling: unknown): [number, RopeConfigWire] {
      const c = this.config;
      const base = { headDim: c.dModel / c.heads, rotaryDim: c.rotaryDim || undefined, base: c.ropeBase };
      if (scaling === undefined) return [0, ropeSpec(core, base).spec];
      if (c.encoding !== 'rope' && c.encoding !== 'xpos') {
        throw new TypeError(`scaling applies to RoPE and xPos models; this model uses '${c.encoding}'`);
      }
      return [1, ropeSpec(core, { ...base, scaling: scaling as RopeScaling }).spec];
    }

    #tokens(name: string, tokens: unknown): Int32Array {
      const t = i32(name, tokens);
      if (t.length < 1) throw new RangeError(`${name} must hold at least 1 token, got 0`);
      for (let i = 0; i < t.length; i++) {
        const v = t[i] as number;
        if (v < 0 || v >= this.config.vocab) {
          throw new RangeError(`${name}[${i}] must be a token id in [0, ${this.config.vocab}), got ${v}`);
        }
      }
      return heap.own(t);
    }

    tokenize(text: string, options?: { bos?: boolean }): Int32Array {
      this.handle('tokenize()');
      if (typeof text !== 'string') throw new TypeError(`text must be a string, got ${typeof text}`);
      const o = options === undefined ? {} : requireObject('options', options);
      knownKeys('tokenize options', o, TOKENIZE_KEYS);
      const bos = optBool('bos', o.bos, true);
      const words = text.split(/[ \t\n\r]+/).filter((w) => w !== '');
      const unk = this.#ids.get('<unk>') ?? 2;
      const ids = words.map((w) => this.#ids.get(w) ?? unk);
      return Int32Array.from(bos ? [this.#ids.get('<bos>') ?? 1, ...ids] : ids);
    }

    detokenize(ids: ArrayLike<number>): string {
      this.handle('detokenize()');
      if (typeof ids !== 'object' || ids === null || typeof ids.length !== 'number') {
        throw new TypeError('ids must be an array of token ids');
      }
      const out: string[] = [];
      for (let i = 0; i < ids.length; i++) {
        const v = ids[i];
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= this.vocab.length) {
          throw new RangeError(`ids[${i}] must be a token id in [0, ${this.vocab.length}), got ${String(v)}`);
        }
        out.push(this.vocab[v] as string);
      }
      return out.join(' ');
    }

    forward(tokens: Int32Array, options?: ModelForwardOptions): ModelForwardResult {
      const h = this.handle('forward()');
      const o = options === undefined ? {} : requireObject('options', options);
      knownKeys('forward options', o, FORWARD_KEYS);
      const t = this.#tokens('tokens', tokens);
      const T = t.length;
      const maps = optBool('attentionMaps', o.attentionMaps, false);
      const bug = bugOption(o.bug);
      const c = this.config;
      const nLogits = c.causal ? T * c.vocab : c.numClasses;
      const nMaps = maps ? c.layers * c.heads * T * T : 0;
      if (nMaps * 4 > 1 << 30) {
        throw new RangeError(`attentionMaps for ${T} tokens need ${nMaps * 4} bytes (layers * heads * T * T floats); limit 2^30`);
      }
      return heap.call((f) => {
        const [has, spec] = this.#scaling(o.scaling);
        const pt = f.i32(t);
        const pl = f.alloc(nLogits * 4);
        const pm = maps ? f.alloc(nMaps * 4) : 0;
        check(h.forward(pt, T, pl, nLogits, pm, nMaps, has, spec, bug));
        const res: ModelForwardResult = { logits: heap.readF32(pl, nLogits) };
        if (maps) res.attentionMaps = heap.readF32(pm, nMaps);
        return res;
      });
    }

    generate(prompt: Int32Array, options: GenerateOptions): Int32Array {
      const h = this.handle('generate()');
      const o = requireObject('options', options);
      knownKeys('generate options', o, GENERATE_KEYS);
      const t = this.#tokens('prompt', prompt);
      const maxNew = int('maxNewTokens', o.maxNewTokens, 0, 1 << 20);
      const temperature = o.temperature === undefined ? 0 : number('temperature', o.temperature);
      const seed = optInt('seed', o.seed, 1, 0);
      const bug = bugOption(o.bug);
      const cache = optBool('cache', o.cache, true);
      return heap.call((f) => {
        const [has, spec] = this.#scaling(o.scaling);
        const pt = f.i32(t);
        const out = f.alloc(Math.max(maxNew, 1) * 4);
        check(h.generate(pt, t.length, maxNew, temperature, seed, has, spec, bug, cache, out, maxNew));
        return heap.readI32(out, maxNew);
      });
    }

    evaluate(options: EvaluateOptions): EvaluateResult[] {
      const h = this.handle('evaluate()');
      const o = requireObject('options', options);
      knownKeys('evaluate options', o, EVALUATE_KEYS);
      const lengths = evaluateLengths(o.lengths);
      const examples = optInt('examples', o.examples, 32, 1, 100000);
      const seed = optInt('seed', o.seed, 12345, 0);
      const bug = bugOption(o.bug);
      const window = optInt('window', o.window, 0, 1, 16777216);
      return lengths.map((L) => heap.call((f) => {
        const [has, spec] = this.#scaling(o.scaling);
        const out = f.alloc((3 + L) * 8);
        check(h.evaluate(L, examples, seed, has, spec, bug, window, out, 3 + L));
        const r = heap.readF64(out, 3 + L);
        return { length: L, loss: r[0] as number, accuracy: r[1] as number, scored: r[2] as number, positionLoss: r.slice(3) };
      }));
    }

    save(): Uint8Array {
      const h = this.handle('save()');
      const n = h.saveSize();
      return heap.call((f) => {
        const p = f.alloc(n);
        check(h.saveInto(p, n));
        return heap.readU8(p, n);
      });
    }
  }

  function loadModel(bytes: unknown): TinyModel {
    let b: Uint8Array;
    // A detached ArrayBuffer has byteLength 0 (the Uint8Array constructor would throw on it).
    if (bytes instanceof ArrayBuffer) b = bytes.byteLength === 0 ? new Uint8Array(0) : new Uint8Array(bytes);
    else if (bytes instanceof Uint8Array) b = bytes;
    else throw new TypeError('bytes must be a Uint8Array or an ArrayBuffer (a safetensors file)');
    if (b.byteLength === 0) {
      throw new RangeError('bytes is empty (or its ArrayBuffer was detached): expected a safetensors file');
    }
    const copy = heap.own(b);
    const h = heap.call((f) => new m.TinyModel(f.u8(copy), copy.length));
    return new TinyModelImpl(h);
  }

  /** Runs `steps` steps of the trainer `t` in chunks, yielding between them; frees `t`. */
  async function run(t: RawTrainer, steps: number, o: TrainRunOptions): Promise<TinyModel> {
    const { chunk, onProgress, signal } = o;
    try {
      check(t.error());
      for (let done = 0; done < steps;) {
        if (signal?.aborted) throw signal.reason ?? new Error('training cancelled');
        const n = Math.min(chunk, steps - done);
        const last = heap.call((f) => {
          const out = f.alloc(4 * n * 8);
          check(t.step(n, out, 4 * n));
          return heap.readF64(out + 4 * (n - 1) * 8, 4);
        });
        done += n;
        onProgress?.({ step: done, steps, loss: last[1] as number, gradNorm: last[2] as number, lr: last[3] as number });
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
      }
      if (signal?.aborted) throw signal.reason ?? new Error('training cancelled');
      return new TinyModelImpl(t.model());
    } finally {
      t.delete();
    }
  }

  let defaults: TrainRequestWire | undefined;
  /** The C++ defaults of a training request (read once). */
  const trainDefaults = (): TrainRequestWire => (defaults ??= m.defaultTrainRequest());

  // The training request's values (ranges, warmup <= steps) are checked, and lr and warmup left out derived,
  // in C++ only (ToTrainConfig, Trainer::Create): its message is the RangeError. Here: JS types and integers.
  /** A fresh trainer for `config` (its error checked) and the steps it runs. */
  function freshTrainer(config: TrainConfig): { t: RawTrainer; steps: number } {
    const c = requireObject('config', config);
    knownKeys('train config', c, TRAIN_CONFIG_KEYS);
    const steps = int32('steps', c.steps);
    const d = trainDefaults();
    const spec: TrainRequestWire = {
      task: oneOf('task', c.task, TASKS),
      encoding: oneOf('encoding', c.encoding, ENCODINGS),
      steps,
      batch: optInt32('batch', c.batch, d.batch),
      seqLen: optInt32('seqLen', c.seqLen, d.seqLen),
      dModel: optInt32('dModel', c.dModel, d.dModel),
      heads: optInt32('heads', c.heads, d.heads),
      layers: optInt32('layers', c.layers, d.layers),
      dFf: optInt32('dFf', c.dFf, d.dFf),
      lr: c.lr === undefined ? undefined : number('lr', c.lr),
      warmup: c.warmup === undefined ? undefined : int32('warmup', c.warmup),
      seed: optInt('seed', c.seed, d.seed, 0),
    };
    return { t: checked(new m.Trainer(spec)), steps };
  }

  /** The saved bytes of `model`, a TinyModel of any posenc instance. */
  function savedBytes(model: unknown): Uint8Array {
    const save = typeof model === 'object' && model !== null ? (model as { save?: unknown }).save : undefined;
    if (typeof save !== 'function') throw new TypeError('model must be a TinyModel (from loadModel, train or continueTraining)');
    return (save as () => Uint8Array).call(model);
  }

  /** A trainer continuing `model` with `config` (its error checked) and the steps it runs. */
  function continuedTrainer(model: TinyModel, config: ContinueTrainingConfig): { t: RawTrainer; steps: number } {
    const h = TinyModelImpl.raw('model', model);
    const mc = model.config;
    const c = requireObject('config', config);
    knownKeys('continueTraining config', c, CONTINUE_CONFIG_KEYS);
    const steps = int32('steps', c.steps);
    const d = trainDefaults();
    const spec: TrainRequestWire = {
      task: mc.task,
      encoding: mc.encoding,
      steps,
      batch: optInt32('batch', c.batch, d.batch),
      seqLen: optInt32('seqLen', c.seqLen, mc.trainLen),
      dModel: mc.dModel,
      heads: mc.heads,
      layers: mc.layers,
      dFf: mc.dFf,
      lr: c.lr === undefined ? undefined : number('lr', c.lr),
      warmup: c.warmup === undefined ? undefined : int32('warmup', c.warmup),
      seed: optInt('seed', c.seed, d.seed, 0),
    };
    if (c.scaling !== undefined && mc.encoding !== 'rope' && mc.encoding !== 'xpos') {
      throw new TypeError(`scaling applies to RoPE and xPos models; this model uses '${mc.encoding}'`);
    }
    const base = { headDim: mc.dModel / mc.heads, rotaryDim: mc.rotaryDim || undefined, base: mc.ropeBase };
    const has = c.scaling === undefined ? 0 : 1;
    const { spec: scaling } = ropeSpec(core, has ? { ...base, scaling: c.scaling } : base);
    return { t: checked(new m.Trainer(spec, h, has, scaling)), steps };
  }

  /** `t` if it was made without an error; else frees it and throws its message. */
  function checked(t: RawTrainer): RawTrainer {
    try {
      check(t.error());
    } catch (e) {
      t.delete();
      throw e;
    }
    return t;
  }

  async function train(config: TrainConfig, options?: TrainOptions): Promise<TinyModel> {
    requireObject('config', config);
    const o = trainOptions(options, 'train');
    const { t, steps } = freshTrainer(config);
    return run(t, steps, o);
  }

  async function continueTraining(model: TinyModel, config: ContinueTrainingConfig, options?: TrainOptions): Promise<TinyModel> {
    // A model of another instance (another init, the other flavour, a pool's result) is continued
    // from its saved bytes, loaded here; the trainer copies the weights, so the copy is freed then.
    const copy = model instanceof TinyModelImpl ? undefined : loadModel(savedBytes(model));
    let made: { t: RawTrainer; steps: number; o: TrainRunOptions };
    try {
      TinyModelImpl.raw('model', copy ?? model);
      requireObject('config', config);
      const o = trainOptions(options, 'continueTraining');
      made = { ...continuedTrainer(copy ?? model, config), o };
    } finally {
      (copy as TinyModelImpl | undefined)?.[Symbol.dispose]();
    }
    return run(made.t, made.steps, made.o);
  }

  function trainReplica(spec: ReplicaSpec): TrainReplica {
    let made: { t: RawTrainer; steps: number };
    if (spec.kind === 'train') {
      made = freshTrainer(spec.config);
    } else if (spec.model instanceof Uint8Array) {
      const init = loadModel(spec.model);
      try {
        made = continuedTrainer(init, spec.config);
      } finally {
        (init as TinyModelImpl)[Symbol.dispose]();
      }
    } else {
      made = continuedTrainer(spec.model, spec.config);
    }
    const { t, steps } = made;
    let live = true;
    const P = t.paramCount();
    return {
      steps,
      microBatches: t.microBatches(),
      params: P,
      begin: () => check(t.beginStep()),
      gradient: (first, count, into) => heap.call((f) => {
        if (into !== undefined && into.length !== P) throw new RangeError(`into must hold ${P} floats, got ${into.length}`);
        const g = f.alloc(P * 4);
        const l = f.alloc(8);
        check(t.blockGradient(first, count, g, P, l, 1));
        const grad = into ?? new Float32Array(P);
        grad.set(heap.m.HEAPF32.subarray(g >>> 2, (g >>> 2) + P));
        return { grad, loss: heap.readF64(l, 1)[0] as number };
      }),
      apply: (grads, loss, copied) => heap.call((f) => {
        const n = grads.reduce((k, r) => k + r.length, 0);
        const g = f.f32Rows(grads);
        const out = f.alloc(4 * 8);
        copied?.();
        check(t.applyGradient(g, n, loss, out, 4));
        const r = heap.readF64(out, 4);
        return { step: r[0] as number, loss: r[1] as number, gradNorm: r[2] as number, lr: r[3] as number };
      }),
      model: () => new TinyModelImpl(t.model()),
      free: () => {
        if (live) t.delete();
        live = false;
      },
    };
  }

  function taskReference(task: unknown): TaskReference {
    const name = oneOf('task', task, TASKS);
    return heap.call((f) => {
      const out = f.alloc(9 * 8);
      check(m.taskReference(name, out, 9));
      const v = heap.readF64(out, 9);
      const r: TaskReference = {
        task: name, chanceAccuracy: v[0] as number, chanceLoss: v[1] as number,
        bestAccuracy: v[2] as number, bestLoss: v[3] as number,
      };
      const optional: Array<[keyof TaskReference, number]> = [
        ['entropyRate', 4], ['bigramEntropy', 5], ['unigramEntropy', 6], ['orderFreeAccuracy', 7], ['orderFreeLoss', 8],
      ];
      for (const [key, i] of optional) {
        if (!Number.isNaN(v[i])) (r as unknown as Record<string, number>)[key] = v[i] as number;
      }
      return r;
    });
  }

  function sampleTask(options: unknown): TaskSample {
    const o = requireObject('options', options);
    knownKeys('sampleTask options', o, SAMPLE_TASK_KEYS);
    const task = oneOf('task', o.task, TASKS);
    const length = int('length', o.length, 1, 1 << 20);
    const seed = optInt('seed', o.seed, 1, 0);
    const cap = Math.max(length, 16);
    return heap.call((f) => {
      const tokens = f.alloc(cap * 4);
      const targets = f.alloc(cap * 4);
      const count = f.alloc(4);
      check(m.sampleTask(task, length, seed, cap, tokens, targets, count));
      const n = m.HEAP32[count >>> 2] as number;
      return { tokens: heap.readI32(tokens, n), targets: heap.readI32(targets, n) };
    });
  }

  return { loadModel, train, continueTraining, sampleTask, taskReference, trainReplica };
}
