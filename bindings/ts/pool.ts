/**
 * A pool of Workers, each owning a posenc instance made from one compiled
 * module, for every core without SharedArrayBuffer (so without cross-origin
 * isolation): a call is cut into parts (pool-split.ts), the parts run in the
 * Workers, the results are joined. The entries (index.ts, node.ts) give the
 * way to start a Worker; everything else is here.
 */
import { attentionWork, joinAttention, resultArrays, splitAttention, transfersOf } from './pool-split.js';
import type { PoolReply, PoolRequest } from './pool-protocol.js';
import type { AlibiVariant, AttentionOptions, AttentionResult, Posenc, PosencPool, PoolOptions } from './types.js';

/** A started Worker, whatever the runtime's Worker type. */
export interface PoolWorker {
  post(request: PoolRequest, transfer: ArrayBuffer[]): void;
  /** Calls `onReply` with each reply, `onFail` if the Worker dies (an uncaught error or an exit). */
  listen(onReply: (reply: PoolReply) => void, onFail: (e: Error) => void): void;
  terminate(): Promise<void>;
}

/** What an entry gives: how to start a Worker, the runtime's core count, and `init` / `compileWasm`. */
export interface PoolRuntime {
  spawn(): PoolWorker;
  cores(): number;
  init(o: { module: WebAssembly.Module; simd?: boolean }): Promise<Posenc>;
  compile(o: { simd?: boolean; wasmUrl?: string | URL }): Promise<WebAssembly.Module>;
}

/** At most this many Workers by default, whatever the core count. */
export const MAX_DEFAULT_WORKERS = 8;

/**
 * Below this much work (2 · heads · queryLength · keyLength · headDim FLOPs) a call runs on the calling thread: splitting it costs more in messages
 * than it saves (measured by `npm run bench:pool`, see docs/performance.md).
 */
export const MIN_SPLIT_WORK = 1 << 22;

/** Buffers a Worker gave back that a Slot keeps for its next calls (at most). */
const MAX_SPARE = 8;

/** One Worker, the calls waiting for its answer and the buffers it gave back. */
class Slot {
  readonly pending = new Map<number, { resolve: (r: PoolReply) => void; reject: (e: Error) => void }>();
  /** Input buffers back from the Worker: the next call's parts are cut into them (memory already mapped). */
  private spare: ArrayBuffer[] = [];
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

function workerCount(o: PoolOptions, cores: number): number {
  if (o.workers === undefined) return Math.max(1, Math.min(cores, MAX_DEFAULT_WORKERS));
  const w: unknown = o.workers;
  if (typeof w !== 'number' || !Number.isInteger(w) || w < 1 || w > 64) {
    throw new RangeError(`workers must be an integer in [1, 64], got ${typeof w === 'number' ? String(w) : typeof w}`);
  }
  return w;
}

/** Starts a pool (see `createPool` in types.ts for the contract). */
export async function createPoolWith(options: PoolOptions | undefined, rt: PoolRuntime): Promise<PosencPool> {
  const o = options ?? {};
  if (typeof o !== 'object' || o === null) throw new TypeError(`pool options must be an object, got ${o === null ? 'null' : typeof o}`);
  const n = workerCount(o, rt.cores());
  if (o.module !== undefined && o.wasmUrl !== undefined) throw new TypeError('pass module or wasmUrl to createPool(), not both');
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
  const send = (slot: Slot, req: PoolRequest, transfer: ArrayBuffer[]): Promise<PoolReply> =>
    new Promise((resolve, reject) => {
      slot.pending.set(req.id, { resolve, reject });
      slot.worker.post(req, transfer);
    });
  try {
    slots.push(...(await Promise.all(Array.from({ length: n }, start))));
  } catch (e) {
    closed = true;
    await Promise.all(slots.map((s) => s.worker.terminate()));
    throw e;
  }

  const slopesOf = (heads: number, variant: AlibiVariant | undefined): Float32Array =>
    local.alibiSlopes(heads, variant === undefined ? undefined : { variant });

  async function attention(options: AttentionOptions): Promise<AttentionResult> {
    if (closed) throw new Error('posenc pool: this pool has been terminated');
    const parts = slots.length > 1 && options?.heads !== undefined && attentionWork(options) >= MIN_SPLIT_WORK
      ? splitAttention(options, slots.length, slopesOf) : undefined;
    if (parts === undefined) return local.attention(options);
    // Each part is cut and sent before the next is cut, so the Workers start
    // one after another without waiting for all the copies; the result's
    // arrays are mapped while they compute.
    const sent: Array<Promise<PoolReply>> = [];
    parts.forEach((p, i) => {
      const slot = slots[i]!;
      const part = p.cut(slot.alloc);
      sent.push(send(slot, { id: nextId++, op: 'attention', options: part }, transfersOf(part)));
    });
    const into = resultArrays(options);
    const replies = await Promise.all(sent);
    const failed = replies.find((r) => !r.ok);
    if (failed !== undefined && !failed.ok) {
      // The whole call on this thread names the problem as pe.attention does (the parts' shapes are not the caller's).
      local.attention(options);
      const E = failed.error.name === 'RangeError' ? RangeError : failed.error.name === 'TypeError' ? TypeError : Error;
      throw new E(failed.error.message);
    }
    return joinAttention(options, parts, replies.map((r) => (r.ok ? r.result! : { out: new Float32Array(0) })), into);
  }

  async function terminate(): Promise<void> {
    if (closed) return;
    closed = true;
    const dead = new Error('posenc pool: this pool has been terminated');
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
    terminate,
    [Symbol.asyncDispose]: terminate,
  };
  if (asyncDispose !== Symbol.asyncDispose) Object.defineProperty(pool, asyncDispose, { value: terminate });
  return pool;
}

