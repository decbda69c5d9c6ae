/**
 * The Worker side of a pool: one posenc instance per Worker, made from the
 * module the pool compiled, answering the pool's calls in the order they
 * arrive. Shared by the browser Worker (pool-worker.ts) and the Node worker
 * thread (pool-worker-node.ts), which differ only in their port.
 */
import { init } from './index.js';
import { attentionInto, trainReplica } from './internal.js';
import type { StepRow, TrainReplica } from './model.js';
import { PEER_FAILED, type PeerMessage, type PoolReply, type PoolRequest } from './pool-protocol.js';
import { transfersOf } from './pool-split.js';
import type { AttentionOptions, AttentionResult, Posenc } from './types.js';

/** The messaging end a Worker answers on. */
export interface ServePort {
  post(reply: PoolReply, transfer: ArrayBuffer[]): void;
  listen(onRequest: (request: PoolRequest) => void): void;
}

/** A gradient sum a peer sent (PeerMessage). */
type Sum = { grads: Float32Array; loss: number };

/** The sums one peer of a training run sent, taken in the order they came. */
class Mailbox {
  private readonly got: Sum[] = [];
  private waiting: { resolve: (b: Sum) => void; reject: (e: Error) => void } | undefined;
  private error: Error | undefined;

  constructor(port: MessagePort) {
    port.addEventListener('message', (e: MessageEvent<PeerMessage>) => {
      const m = e.data;
      if ('failed' in m) this.fail(new Error(`${PEER_FAILED}: ${m.failed}`));
      else if (this.waiting !== undefined) {
        this.waiting.resolve(m);
        this.waiting = undefined;
      } else this.got.push(m);
    });
    port.start();
  }

  /** The next sum, or the peer's failure. */
  take(): Promise<Sum> {
    const b = this.got.shift();
    if (b !== undefined) return Promise.resolve(b);
    if (this.error !== undefined) return Promise.reject(this.error);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  fail(e: Error): void {
    this.error ??= e;
    this.waiting?.reject(e);
    this.waiting = undefined;
  }
}

/**
 * A part's call answered with the whole call's result arrays (`whole.heads` query heads), the part's
 * heads in place: the pool's first part, so that the calling thread neither maps the result's memory
 * nor copies this part (its other parts are joined into these arrays).
 */
function wholeAttention(pe: Posenc, o: AttentionOptions, whole: { heads: number; head: number }): AttentionResult {
  const { queryLength: Tq, keyLength: Tk, headDim: D } = o;
  const r: AttentionResult = { out: new Float32Array(whole.heads * Tq * D) };
  if (o.returnWeights === true) r.weights = new Float32Array(whole.heads * Tq * Tk);
  attentionInto(pe, o, { ...r, head: whole.head });
  return r;
}

/** Answers the pool's requests on `port` until the Worker is terminated. */
export function serve(port: ServePort): void {
  let pe: Promise<Posenc> | undefined;
  let core: { module: WebAssembly.Module; simd: boolean } | undefined;
  // Training: an instance with the pool's models module, the runs' replicas, and a queue that keeps
  // each run's messages in order (starting one is asynchronous).
  let trainPe: Promise<Posenc> | undefined;
  // `rows`: the arrays a Worker's micro-batch gradients are written into, reused every step (the first
  // Worker's one array comes back to it each step as the whole sum).
  const runs = new Map<number, {
    replica: TrainReplica; micro: number[]; worker: number; peers: Array<MessagePort | null>; inbox: Array<Mailbox | undefined>; rows: Float32Array[];
  }>();
  let queue: Promise<void> = Promise.resolve();
  const fail = (id: number, e: unknown): void => {
    const error = e instanceof Error ? { name: e.name, message: e.message } : { name: 'Error', message: String(e) };
    port.post({ id, ok: false, error }, []);
  };

  /** The instance with the models module (made on the first call that needs it). */
  const withModels = (models: WebAssembly.Module): Promise<Posenc> => {
    if (core === undefined) throw new Error('posenc pool: a call reached a Worker before its init');
    trainPe ??= init({ module: core.module, simd: core.simd, models: { module: models } });
    trainPe.catch(() => (trainPe = undefined));
    return trainPe;
  };

  const evaluate = async (req: Extract<PoolRequest, { op: 'evaluate' }>): Promise<void> => {
    const model = await (await withModels(req.models)).loadModel(req.model);
    try {
      const evaluated = model.evaluate(req.options);
      port.post({ id: req.id, ok: true, evaluated }, evaluated.map((r) => r.positionLoss.buffer as ArrayBuffer));
    } finally {
      model.delete();
    }
  };

  const train = async (req: Extract<PoolRequest, { op: 'trainStart' | 'trainRun' | 'trainEnd' }>): Promise<void> => {
    if (req.op === 'trainStart') {
      // The peers' sums are taken in, in order, from the start (a peer may be a step ahead).
      const inbox = req.peers.map((p) => (p === null ? undefined : new Mailbox(p)));
      try {
        const replica = await trainReplica(await withModels(req.models), req.spec);
        runs.set(req.run, { replica, micro: req.micro, worker: req.worker, peers: req.peers, inbox, rows: [] });
      } catch (e) {
        for (const p of req.peers) p?.close();
        throw e;
      }
      port.post({ id: req.id, ok: true }, []);
      return;
    }
    const r = runs.get(req.run);
    if (req.op === 'trainEnd') {
      try {
        const model = req.save && r !== undefined ? r.replica.model() : undefined;
        const bytes = model?.save();
        model?.delete();
        port.post({ id: req.id, ok: true, ...(bytes ? { model: bytes } : {}) }, bytes ? [bytes.buffer as ArrayBuffer] : []);
      } finally {
        r?.replica.free();
        for (const p of r?.peers ?? []) p?.close();
        runs.delete(req.run);
      }
      return;
    }
    if (r === undefined) throw new Error(`posenc pool: no training run ${req.run} in this Worker`);
    const { replica, micro, worker, peers, inbox, rows } = r;
    const last = peers.length - 1;
    // Each message moves its array: no copy, no allocation.
    const post = (to: number, sum: Sum): void => peers[to]!.postMessage(sum satisfies PeerMessage, [sum.grads.buffer as ArrayBuffer]);
    let row: StepRow | undefined;
    try {
      for (let s = 0; s < req.steps; s++) {
        replica.begin();
        // The sum runs down the chain of Workers in micro-batch order, ((g0 + g1) + g2) + ..., in
        // float32 as Trainer::Step adds: the first Worker's block is summed in wasm; each later Worker
        // adds its micro-batches one by one to the sum so far (a float32 sum computed in float64 and
        // rounded is the float32 sum).
        let sum: Sum;
        if (worker === 0) {
          const g = replica.gradient(micro[0]!, micro.length, rows[0]);
          rows[0] = g.grad;
          sum = { grads: g.grad, loss: g.loss };
        } else {
          const own = micro.map((j, k) => replica.gradient(j, 1, rows[k]));
          own.forEach((g, k) => (rows[k] = g.grad));
          sum = await inbox[worker - 1]!.take();
          for (const g of own) {
            const a = sum.grads, b = g.grad;
            for (let i = 0; i < a.length; i++) a[i]! += b[i]!;
            sum.loss += g.loss;
          }
        }
        if (worker < last) {
          post(worker + 1, sum);
          if (worker === 0) rows.length = 0;
          // The whole sum; the first Worker keeps its array for the next step.
          const whole = await inbox[last]!.take();
          if (worker === 0) rows[0] = whole.grads;
          row = replica.apply([whole.grads], whole.loss);
        } else {
          // Copies to the middle Workers; the array itself to the first once it is in the heap.
          for (let k = 1; k < last; k++) post(k, { grads: sum.grads.slice(), loss: sum.loss });
          row = replica.apply([sum.grads], sum.loss, last > 0 ? () => post(0, sum) : undefined);
        }
      }
    } catch (e) {
      const failed = e instanceof Error ? e.message : String(e);
      for (const p of peers) p?.postMessage({ failed } satisfies PeerMessage);
      throw e;
    }
    port.post({ id: req.id, ok: true, ...(row ? { row } : {}) }, []);
  };

  port.listen((req) => {
    if (req.op === 'init') {
      core = { module: req.module, simd: req.simd };
      pe = init({ module: req.module, simd: req.simd });
      pe.then(() => port.post({ id: req.id, ok: true }, []), (e: unknown) => fail(req.id, e));
      return;
    }
    if (req.op === 'trainAbort') {
      // Not queued: the run's step waiting for a peer's block (behind which the queue waits) fails now.
      const r = runs.get(req.run);
      for (const b of r?.inbox ?? []) b?.fail(new Error(PEER_FAILED));
      port.post({ id: req.id, ok: true }, []);
      return;
    }
    if (req.op === 'trainStart' || req.op === 'trainRun' || req.op === 'trainEnd' || req.op === 'evaluate') {
      queue = queue.then(() => (req.op === 'evaluate' ? evaluate(req) : train(req))).catch((e: unknown) => fail(req.id, e));
      return;
    }
    if (pe === undefined) {
      fail(req.id, new Error('posenc pool: a call reached a Worker before its init'));
      return;
    }
    pe.then((p) => {
      const r = req.whole === undefined ? p.attention(req.options) : wholeAttention(p, req.options, req.whole);
      // The result's arrays are copies out of the wasm heap: moved, not copied
      // again. The request's arrays (copied into the heap by the call) go
      // back too, so the pool cuts its next call into them.
      const inputs = transfersOf(req.options);
      const transfer = [r.out.buffer, ...(r.weights ? [r.weights.buffer] : []), ...inputs] as ArrayBuffer[];
      port.post({ id: req.id, ok: true, result: r, inputs }, transfer);
    }).catch((e: unknown) => fail(req.id, e));
  });
}
