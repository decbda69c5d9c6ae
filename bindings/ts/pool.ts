/**
 * A pool of Workers, each owning a posenc instance made from one compiled
 * module, for every core without SharedArrayBuffer (so without cross-origin
 * isolation): a call is cut into parts (pool-split.ts), the parts run in the
 * Workers, the results are joined. The entries (index.ts, node.ts) give the
 * way to start a Worker; everything else is here.
 */
import { registerPoolTraining, trainReplica } from './internal.js';
import { CONTINUE_CONFIG_KEYS, EVALUATE_KEYS, evaluateLengths, TRAIN_CONFIG_KEYS, trainOptions, type ReplicaSpec, type TrainReplica } from './model.js';
import { attentionKeys } from './attention.js';
import { scalingKeys } from './rope.js';
import { keysOf, knownKeys, knownKeysIfObject } from './known-keys.js';
import { attentionWork, joinAttention, splitAttention, transfersOf } from './pool-split.js';
import { PEER_FAILED, type PoolReply, type PoolRequest, type WireReplicaSpec } from './pool-protocol.js';
import type {
  AlibiVariant, AttentionOptions, AttentionResult, ContinueTrainingConfig, EvaluateOptions, EvaluateResult, Posenc, PosencPool, PoolOptions,
  TinyModel, TrainConfig, TrainOptions,
} from './types.js';
import { ALIBI_VARIANTS } from './names.js';
import { oneOf, requireObject } from './validate.js';

/** What a request moves to a Worker instead of copying: its arrays' buffers, a training run's ports. */
export type Transfer = ArrayBuffer | MessagePort;

/** A started Worker, whatever the runtime's Worker type. */
export interface PoolWorker {
  post(request: PoolRequest, transfer: Transfer[]): void;
  /** Calls `onReply` with each reply, `onFail` if the Worker dies (an uncaught error or an exit). */
  listen(onReply: (reply: PoolReply) => void, onFail: (e: Error) => void): void;
  terminate(): Promise<void>;
}

/** What an entry gives: how to start a Worker, the runtime's core count, and `init` / `compileWasm`. */
export interface PoolRuntime {
  spawn(): PoolWorker;
  cores(): number;
  init(o: { module: WebAssembly.Module; simd?: boolean; models?: { module: WebAssembly.Module } }): Promise<Posenc>;
  compile(o: { simd?: boolean; wasmUrl?: string | URL; part?: 'core' | 'models' }): Promise<WebAssembly.Module>;
}

/** At most this many Workers by default, whatever the core count. */
export const MAX_DEFAULT_WORKERS = 8;

/**
 * The default `minSplitWork`: below this much work (2 · heads · queryLength · keyLength · headDim FLOPs) a call
 * runs on the calling thread, where splitting costs more in copies and messages than it saves. Measured by
 * `npm run bench:pool` (see docs/performance.md): on 2 cores, T = 128 at H = 8, D = 64 (2^24) gained
 * nothing, T = 256 (2^26) did.
 */
export const MIN_SPLIT_WORK = 1 << 25;

/** Buffers a Worker gave back that a Slot keeps for its next calls (at most). */
const MAX_SPARE = 8;

/** One Worker, the calls waiting for its answer and the buffers it gave back. */
class Slot {
  readonly pending = new Map<number, { resolve: (r: PoolReply) => void; reject: (e: Error) => void }>();
  /** Input buffers back from the Worker: the next call's parts are cut into them (memory already mapped). */
  private spare: ArrayBuffer[] = [];
  /** Set when the Worker died (it is replaced once). */
  dead = false;
  constructor(readonly worker: PoolWorker) {}

  keep(buffers: readonly ArrayBuffer[] | undefined): void {
    if (buffers === undefined) return;
    this.spare.push(...buffers);
    if (this.spare.length > MAX_SPARE) this.spare.splice(0, this.spare.length - MAX_SPARE);
  }

  /** A Float32Array of `length` values: a spare buffer of that size if there is one, else a new one. */
  readonly alloc = (length: number): Float32Array => {
    const i = this.spare.findIndex((b) => b.byteLength === length * 4);
    return i < 0 ? new Float32Array(length) : new Float32Array(this.spare.splice(i, 1)[0]!);
  };
}

const asyncDispose: symbol = (Symbol as unknown as { asyncDispose?: symbol }).asyncDispose ?? Symbol.for('Symbol.asyncDispose');

const POOL_KEYS = keysOf<PoolOptions>()(['workers', 'simd', 'module', 'wasmUrl', 'minSplitWork', 'models', 'connect']);
const POOL_MODELS_KEYS = keysOf<NonNullable<PoolOptions['models']>>()(['module', 'wasmUrl']);

/** The defined options of `o` among `keys` (a copy for the Workers: its keys were checked, an undefined one is dropped). */
function wireCopy<C extends object>(o: C, keys: readonly string[]): C {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = (o as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as C;
}

/**
 * The micro-batches of worker w when J of them are shared by W workers: a contiguous block, so that
 * the pool sums the replies in micro-batch order by taking them worker by worker.
 */
export function microBatchesOf(w: number, W: number, J: number): number[] {
  const from = Math.floor((w * J) / W), to = Math.floor(((w + 1) * J) / W);
  return Array.from({ length: to - from }, (_, i) => from + i);
}

const terminatedError = (): Error => new Error('posenc pool: this pool has been terminated');

/** The Error class a Worker's error reply names. */
function rethrow(error: { name: string; message: string }): never {
  const E = error.name === 'RangeError' ? RangeError : error.name === 'TypeError' ? TypeError : Error;
  throw new E(error.message);
}

function workerCount(o: PoolOptions, cores: number): number {
  if (o.workers === undefined) return Math.max(1, Math.min(cores, MAX_DEFAULT_WORKERS));
  const w: unknown = o.workers;
  if (typeof w !== 'number') {
    throw new TypeError(`workers must be an integer in [1, 64], got ${typeof w}${typeof w === 'string' ? ` ${JSON.stringify(w)}` : ''}`);
  }
  if (!Number.isInteger(w) || w < 1 || w > 64) throw new RangeError(`workers must be an integer in [1, 64], got ${w}`);
  return w;
}

/** Starts a pool (see `createPool` in types.ts for the contract). */
export async function createPoolWith(options: PoolOptions | undefined, rt: PoolRuntime): Promise<PosencPool> {
  const o = options ?? {};
  if (typeof o !== 'object' || o === null) throw new TypeError(`pool options must be an object, got ${o === null ? 'null' : typeof o}`);
  knownKeys('pool options', o, POOL_KEYS);
  knownKeysIfObject('models', o.models, POOL_MODELS_KEYS);
  const n = workerCount(o, rt.cores());
  if (o.module !== undefined && o.wasmUrl !== undefined) throw new TypeError('pass module or wasmUrl to createPool(), not both');
  const split: unknown = o.minSplitWork ?? MIN_SPLIT_WORK;
  if (typeof split !== 'number' || !(split >= 0)) {
    throw new (typeof split === 'number' ? RangeError : TypeError)(`minSplitWork must be a number >= 0, got ${typeof split === 'number' ? String(split) : typeof split}`);
  }
  const minSplitWork: number = split;
  const modelsOption: unknown = o.models ?? {};
  if (typeof modelsOption !== 'object' || modelsOption === null) {
    throw new TypeError(`models must be an object, got ${modelsOption === null ? 'null' : typeof modelsOption}`);
  }
  const modelsGiven = modelsOption as NonNullable<PoolOptions['models']>;
  if (modelsGiven.module !== undefined && !(modelsGiven.module instanceof WebAssembly.Module)) {
    throw new TypeError('models.module must be a WebAssembly.Module (from compileWasm({ part: \'models\' }))');
  }
  if (modelsGiven.module !== undefined && modelsGiven.wasmUrl !== undefined) throw new TypeError('pass models.module or models.wasmUrl to createPool(), not both');
  // Compiled once; the calling thread's instance runs small calls and reports bad ones in its own words.
  const module = o.module ?? (await rt.compile({ ...(o.simd !== undefined ? { simd: o.simd } : {}), ...(o.wasmUrl !== undefined ? { wasmUrl: o.wasmUrl } : {}) }));
  const local = await rt.init({ module, ...(o.simd !== undefined ? { simd: o.simd } : {}) });
  const simd = local.simd;
  let nextId = 1;
  let closed = false;

  const slots: Slot[] = [];
  const start = async (): Promise<Slot> => {
    const slot = new Slot(rt.spawn());
    slot.worker.listen(
      (reply) => {
        const p = slot.pending.get(reply.id);
        if (p === undefined) return;
        slot.pending.delete(reply.id);
        if (reply.ok) slot.keep(reply.inputs);
        p.resolve(reply);
      },
      (e) => {
        for (const p of slot.pending.values()) p.reject(e);
        slot.pending.clear();
        // Once per Worker: a Node worker thread that throws reports an error and then its exit.
        if (slot.dead) return;
        slot.dead = true;
        // A dead Worker is replaced, so that later calls still have all of them.
        const i = slots.indexOf(slot);
        if (i >= 0 && !closed) {
          void start().then((s) => {
            if (closed) void s.worker.terminate();
            else slots[i] = s;
          }, () => undefined);
        }
      },
    );
    const ok = await send(slot, { id: nextId++, op: 'init', module, simd }, []);
    if (!ok.ok) throw new Error(`posenc pool: a Worker could not start: ${ok.error.message}`);
    return slot;
  };
  const send = (slot: Slot, req: PoolRequest, transfer: Transfer[]): Promise<PoolReply> =>
    new Promise((resolve, reject) => {
      slot.pending.set(req.id, { resolve, reject });
      try {
        slot.worker.post(req, transfer);
      } catch (e) {
        slot.pending.delete(req.id);
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  try {
    slots.push(...(await Promise.all(Array.from({ length: n }, start))));
  } catch (e) {
    closed = true;
    await Promise.all(slots.map((s) => s.worker.terminate()));
    throw e;
  }

  // The variant checked under the name pe.attention gives it (alibiSlopes' own would say `variant`).
  const slopesOf = (heads: number, variant: AlibiVariant | undefined): Float32Array =>
    local.alibiSlopes(heads, variant === undefined ? undefined : { variant: oneOf('alibi.variant', variant, ALIBI_VARIANTS) });

  async function attention(options: AttentionOptions): Promise<AttentionResult> {
    if (closed) throw terminatedError();
    // Every key is checked before a part is cut (a part holds only the options a Worker needs).
    if (typeof options === 'object' && options !== null) attentionKeys(options as unknown as Record<string, unknown>);
    const parts = slots.length > 1 && options?.heads !== undefined && attentionWork(options) >= minSplitWork
      ? splitAttention(options, slots.length, slopesOf) : undefined;
    if (parts === undefined) return local.attention(options);
    // Each part is cut and sent before the next is cut, so the Workers start
    // one after another without waiting for all the copies. The first part's
    // Worker answers with the whole call's result arrays, its heads in place,
    // and the other parts are joined into them: this thread does no more
    // than the cutting before the last Worker starts.
    const sent: Array<Promise<PoolReply>> = [];
    parts.forEach((p, i) => {
      const slot = slots[i]!;
      const part = p.cut(slot.alloc);
      const whole = i === 0 ? { heads: options.heads, head: p.head } : undefined;
      sent.push(send(slot, { id: nextId++, op: 'attention', options: part, ...(whole ? { whole } : {}) }, transfersOf(part)));
    });
    const replies = await Promise.all(sent);
    const failed = replies.find((r) => !r.ok);
    if (failed !== undefined && !failed.ok) {
      // The whole call on this thread names the problem as pe.attention does (the parts' shapes are not the caller's).
      local.attention(options);
      rethrow(failed.error);
    }
    const into = (replies[0] as Extract<PoolReply, { ok: true }>).result!;
    for (let i = 1; i < parts.length; i++) joinAttention(options, parts[i]!, (replies[i] as Extract<PoolReply, { ok: true }>).result!, into);
    return into;
  }

  // The models module, compiled once (for the Workers and the calling thread's training instance).
  let modelsCompiled: Promise<WebAssembly.Module> | undefined;
  const modelsModule = (): Promise<WebAssembly.Module> => {
    modelsCompiled ??= modelsGiven.module !== undefined ? Promise.resolve(modelsGiven.module)
      : rt.compile({ simd, part: 'models', ...(modelsGiven.wasmUrl !== undefined ? { wasmUrl: modelsGiven.wasmUrl } : {}) });
    modelsCompiled.catch(() => (modelsCompiled = undefined));
    return modelsCompiled;
  };
  // Training also needs an instance here (to check requests and hold the returned models); evaluation does not.
  let trainLocal: Promise<{ pe: Posenc; models: WebAssembly.Module }> | undefined;
  const training = (): Promise<{ pe: Posenc; models: WebAssembly.Module }> => {
    trainLocal ??= (async () => {
      const models = await modelsModule();
      return { pe: await rt.init({ module, simd, models: { module: models } }), models };
    })();
    trainLocal.catch(() => (trainLocal = undefined));
    return trainLocal;
  };
  let nextRun = 1;

  /**
   * Data-parallel training: every Worker used holds a replica of the trainer (same request, same seed:
   * the same batches) and computes its block of each step's micro-batches; the running sum passes down
   * the Workers in micro-batch order (float32, as Trainer::Step adds), the last sends the whole sum
   * back to the others, and every replica applies the same AdamW step. The calling thread only starts a
   * chunk of steps and reports it: a replica made here checks the request (pe.train's errors) and is
   * freed; the trained model comes back from the first Worker as its saved bytes.
   */
  async function runTraining(spec: ReplicaSpec, options: TrainOptions | undefined): Promise<TinyModel> {
    if (closed) throw terminatedError();
    // Checked in pe.train's order: the config object, the options, then its fields (by the replica).
    requireObject('config', spec.config);
    const entry = spec.kind === 'train' ? 'train' : 'continueTraining';
    const o = trainOptions(options, entry);
    // The config's keys before it is copied (the copy holds only known keys); the replica below checks its values.
    const keys = spec.kind === 'train' ? TRAIN_CONFIG_KEYS : CONTINUE_CONFIG_KEYS;
    knownKeys(`${entry} config`, spec.config, keys);
    const { pe, models } = await training();
    const wire: WireReplicaSpec = spec.kind === 'train'
      ? { kind: 'train', config: wireCopy(spec.config, keys) }
      : { kind: 'continue', model: spec.model instanceof Uint8Array ? spec.model : spec.model.save(), config: wireCopy(spec.config, keys) };
    const check: TrainReplica = await trainReplica(pe, wire);
    const { steps, microBatches: J } = check;
    check.free();
    const run = nextRun++;
    const used = slots.slice(0, Math.min(slots.length, J));
    const W = used.length;
    const quiet = (p: Promise<unknown>): void => void p.catch(() => undefined);
    const call = async (slot: Slot, req: PoolRequest, transfer: Transfer[] = []): Promise<Extract<PoolReply, { ok: true }>> => {
      if (closed) throw terminatedError();
      const r = await send(slot, req, transfer);
      if (!r.ok) rethrow(r.error);
      return r;
    };
    /**
     * The replies of one call to every Worker of the run; when some fail, the first error that is not
     * a Worker reporting another's failure.
     */
    const all = async (calls: Array<Promise<Extract<PoolReply, { ok: true }>>>): Promise<Array<Extract<PoolReply, { ok: true }>>> => {
      const settled = await Promise.allSettled(calls);
      const failed = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      if (failed.length === 0) return settled.map((r) => (r as PromiseFulfilledResult<Extract<PoolReply, { ok: true }>>).value);
      throw failed.find((e) => !(e instanceof Error && e.message.startsWith(PEER_FAILED))) ?? failed[0];
    };
    // A channel between every two Workers of the run: peers[w][k] is Worker w's end towards k.
    const peers: Array<Array<MessagePort | null>> = used.map(() => used.map(() => null));
    for (let a = 0; a < W; a++) {
      for (let b = a + 1; b < W; b++) {
        const c = new MessageChannel();
        peers[a]![b] = c.port1;
        peers[b]![a] = c.port2;
      }
    }
    let started = false;
    let saved: Uint8Array | undefined;
    try {
      // From here on a failure ends the run in every Worker (a Worker without it just answers).
      started = true;
      await all(used.map((slot, w) => call(slot, {
        id: nextId++, op: 'trainStart', run, models, spec: wire, micro: microBatchesOf(w, W, J), worker: w, peers: peers[w]!,
      }, peers[w]!.filter((p): p is MessagePort => p !== null))));
      const { chunk, onProgress, signal } = o;
      // The next chunk is sent while this one runs (the Workers queue it), so they never wait for a
      // round trip to the calling thread between chunks; a cancel therefore stops them one chunk
      // later than the check (and trainAbort stops that chunk at its next step).
      const sizes: number[] = [];
      for (let done = 0; done < steps; done += sizes[sizes.length - 1]!) sizes.push(Math.min(chunk, steps - done));
      const runChunk = (n: number): Promise<Array<Extract<PoolReply, { ok: true }>>> =>
        all(used.map((slot) => call(slot, { id: nextId++, op: 'trainRun', run, steps: n })));
      if (signal?.aborted) throw signal.reason ?? new Error('training cancelled');
      let next: Promise<Array<Extract<PoolReply, { ok: true }>>> | undefined = runChunk(sizes[0]!);
      let done = 0;
      for (let i = 0; i < sizes.length; i++) {
        const now = next!;
        next = undefined;
        if (i + 1 < sizes.length && !signal?.aborted) {
          next = runChunk(sizes[i + 1]!);
          quiet(next);
        }
        const rows = await now;
        const last = rows[0]!.row!;
        done += sizes[i]!;
        onProgress?.({ step: done, steps, loss: last.loss, gradNorm: last.gradNorm, lr: last.lr });
        if (signal?.aborted) throw signal.reason ?? new Error('training cancelled');
        // No timer here (pe.train yields with one): every chunk already waits for the Workers'
        // messages, so the caller's events (an abort) run between chunks, and a browser clamps a
        // timer in a loop like this one to 4 ms.
      }
      if (signal?.aborted) throw signal.reason ?? new Error('training cancelled');
      if (closed) throw terminatedError();
      const ends = used.map((slot, w) => call(slot, { id: nextId++, op: 'trainEnd', run, save: w === 0 }));
      started = false;
      saved = (await all(ends))[0]!.model!;
    } finally {
      if (started && !closed) {
        // A step may wait for a block that a failed Worker will not send: stop it, then end the run.
        for (const slot of used) quiet(send(slot, { id: nextId++, op: 'trainAbort', run }, []));
        for (const slot of used) quiet(send(slot, { id: nextId++, op: 'trainEnd', run, save: false }, []));
      }
    }
    return pe.loadModel(saved);
  }

  const train = (config: TrainConfig, options?: TrainOptions): Promise<TinyModel> => runTraining({ kind: 'train', config }, options);

  async function continueTraining(model: TinyModel, config: ContinueTrainingConfig, options?: TrainOptions): Promise<TinyModel> {
    if (typeof model !== 'object' || model === null || typeof (model as { save?: unknown }).save !== 'function') {
      throw new TypeError('model must be a TinyModel (from loadModel, train or continueTraining)');
    }
    return runTraining({ kind: 'continue', model, config }, options);
  }

  /** The Worker with the fewest calls waiting (the first of those). */
  const leastBusy = (): Slot => slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));

  async function evaluate(model: TinyModel, options: EvaluateOptions): Promise<EvaluateResult[]> {
    if (closed) throw terminatedError();
    if (typeof model !== 'object' || model === null || typeof (model as { save?: unknown }).save !== 'function') {
      throw new TypeError('model must be a TinyModel (from loadModel, train or continueTraining)');
    }
    const o = requireObject('options', options);
    knownKeys('evaluate options', o, EVALUATE_KEYS);
    scalingKeys('scaling', o.scaling);
    const lengths = evaluateLengths(o.lengths);
    // The options the Workers get (a copy, lengths cut per Worker below).
    const wire = wireCopy(o, EVALUATE_KEYS.filter((k) => k !== 'lengths')) as Partial<EvaluateOptions>;
    const bytes = model.save();
    const models = await modelsModule();
    // Longest first, each to the part with the least work so far (a length's work grows as
    // L · (L + 6 · dModel): attention plus the per-token matrix products).
    const d = model.config.dModel;
    const parts: Array<{ at: number[]; work: number }> = Array.from({ length: Math.min(slots.length, lengths.length) }, () => ({ at: [], work: 0 }));
    const order = lengths.map((L, i) => ({ L, i })).sort((a, b) => b.L - a.L || a.i - b.i);
    for (const { L, i } of order) {
      const part = parts.reduce((a, b) => (b.work < a.work ? b : a));
      part.at.push(i);
      part.work += L * (L + 6 * d);
    }
    const replies = await Promise.all(parts.map((p) => {
      if (closed) throw terminatedError();
      return send(leastBusy(), { id: nextId++, op: 'evaluate', models, model: bytes, options: { ...wire, lengths: p.at.map((i) => lengths[i]!) } }, []);
    }));
    const out: EvaluateResult[] = new Array<EvaluateResult>(lengths.length);
    replies.forEach((r, k) => {
      if (!r.ok) rethrow(r.error);
      r.evaluated!.forEach((e, j) => (out[parts[k]!.at[j]!] = e));
    });
    return out;
  }

  async function terminate(): Promise<void> {
    if (closed) return;
    closed = true;
    const dead = terminatedError();
    for (const s of slots) {
      for (const p of s.pending.values()) p.reject(dead);
      s.pending.clear();
    }
    await Promise.all(slots.map((s) => s.worker.terminate()));
    slots.length = 0;
  }

  const pool: PosencPool = {
    simd,
    get workers() {
      return slots.length;
    },
    attention,
    train,
    continueTraining,
    evaluate,
    terminate,
    [Symbol.asyncDispose]: terminate,
  };
  registerPoolTraining(pool, async () => (trainLocal === undefined ? undefined : (await trainLocal).pe));
  if (asyncDispose !== Symbol.asyncDispose) Object.defineProperty(pool, asyncDispose, { value: terminate });
  return pool;
}

