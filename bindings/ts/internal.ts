/**
 * Not part of the public API (not in the package's exports map): the raw
 * module behind a `Posenc`, for the package's own tests (the name tables and
 * the binding contract) and the benchmark hooks the benchmarks time.
 * Benchmarks and tests import it by path: dist/internal.js.
 */
import { ROPE_LAYOUTS } from './names.js';
import type { AttentionInto } from './attention.js';
import type { ReplicaSpec, TrainReplica } from './model.js';
import type { RawModels, RawModule } from './raw.js';
import type { AttentionOptions, Posenc, RopeLayout } from './types.js';
import { checkElements, int, oneOf } from './validate.js';

/** What core.ts records about an API object. */
interface Raws extends PoolCalls {
  core: RawModule;
  models: () => Promise<RawModels>;
}

/** What a pool's Worker calls beyond the public API. */
interface PoolCalls {
  trainReplica: (spec: ReplicaSpec) => Promise<TrainReplica>;
  attentionInto: (options: AttentionOptions, into: AttentionInto) => void;
}

const raws = new WeakMap<object, Raws>();

/**
 * Records the raw modules of an API object (core.ts): the core, how to get the models module, and the
 * Worker pool's calls (a training replica for data-parallel training, attention into given arrays).
 */
export function registerRaw(pe: Posenc, core: RawModule, models: () => Promise<RawModels>, pool: PoolCalls): void {
  raws.set(pe, { core, models, ...pool });
}

/** A training replica on `pe`'s models module (model.ts' TrainReplica), for pool.ts. */
export function trainReplica(pe: Posenc, spec: ReplicaSpec): Promise<TrainReplica> {
  return rawsOf(pe).trainReplica(spec);
}

/** `pe.attention(options)` written into `into` (its heads from `into.head` on) instead of fresh arrays, for pool.ts. */
export function attentionInto(pe: Posenc, options: AttentionOptions, into: AttentionInto): void {
  rawsOf(pe).attentionInto(options, into);
}

const poolTraining = new WeakMap<object, () => Promise<Posenc | undefined>>();

/** Records how to reach a pool's calling-thread training instance (pool.ts), for the tests' leak checks. */
export function registerPoolTraining(pool: object, instance: () => Promise<Posenc | undefined>): void {
  poolTraining.set(pool, instance);
}

/** The instance a pool trains on, on the calling thread (undefined before its first training call). */
export function poolTrainingInstance(pool: object): Promise<Posenc | undefined> {
  const f = poolTraining.get(pool);
  if (f === undefined) throw new TypeError('pool must be a pool from createPool()');
  return f();
}

function rawsOf(pe: Posenc): Raws {
  const r = raws.get(pe);
  if (r === undefined) throw new TypeError('pe must be an initialised Posenc (from init())');
  return r;
}

/** The raw core Emscripten module behind `pe`. */
export function rawModule(pe: Posenc): RawModule {
  return rawsOf(pe).core;
}

/** The raw models module behind `pe` (loaded if it is not yet). */
export function rawModels(pe: Posenc): Promise<RawModels> {
  return rawsOf(pe).models();
}

/** Benchmark hooks: kernels run on module-owned buffers, so a JS timer measures the kernel and not the copies. */
export interface BenchHooks {
  /** Runs the RoPE kernel `iters` times on module-owned buffers `[heads, seqLen, headDim]`. */
  rope(heads: number, seqLen: number, headDim: number, layout: RopeLayout, iters: number): void;
  /** Copies the buffers of the last `rope` call `iters` times (the memory-bandwidth ceiling). */
  copy(iters: number): void;
  /** Runs independent mul+add chains; returns the flops done (the SIMD ceiling). */
  peak(iters: number): number;
}

export function benchHooks(pe: Posenc): BenchHooks {
  const m = rawModule(pe);
  return {
    rope(heads, seqLen, headDim, layout, iters) {
      const h = int('heads', heads, 1);
      const t = int('seqLen', seqLen, 1);
      const d = int('headDim', headDim, 2);
      if (d % 2 !== 0) throw new RangeError(`headDim must be even, got ${d}`);
      checkElements('bench', [['heads', h], ['seqLen', t], ['headDim', d]], 4 * 3);
      m.benchRope(h, t, d, ROPE_LAYOUTS.indexOf(oneOf('layout', layout, ROPE_LAYOUTS)), int('iters', iters, 0));
    },
    copy: (iters) => m.benchCopy(int('iters', iters, 0)),
    peak: (iters) => m.benchPeak(int('iters', iters, 0)),
  };
}
