/**
 * The Worker side of a pool: one posenc instance per Worker, made from the
 * module the pool compiled, answering the pool's calls in the order they
 * arrive. Shared by the browser Worker (pool-worker.ts) and the Node worker
 * thread (pool-worker-node.ts), which differ only in their port.
 */
import { init } from './index.js';
import { trainReplica } from './internal.js';
import type { StepRow, TrainReplica } from './model.js';
import { PEER_FAILED, type PeerMessage, type PoolReply, type PoolRequest } from './pool-protocol.js';
import { transfersOf } from './pool-split.js';
import type { Posenc } from './types.js';

/** The messaging end a Worker answers on. */
export interface ServePort {
  post(reply: PoolReply, transfer: ArrayBuffer[]): void;
  listen(onRequest: (request: PoolRequest) => void): void;
}

/** The blocks one peer of a training run sent, taken in the order they came. */
class Mailbox {
  private readonly got: Array<{ grads: Float32Array; losses: Float64Array }> = [];
  private waiting: { resolve: (b: { grads: Float32Array; losses: Float64Array }) => void; reject: (e: Error) => void } | undefined;
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

  /** The next block, or the peer's failure. */
  take(): Promise<{ grads: Float32Array; losses: Float64Array }> {
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

/** Answers the pool's requests on `port` until the Worker is terminated. */
export function serve(port: ServePort): void {
  let pe: Promise<Posenc> | undefined;
  let core: { module: WebAssembly.Module; simd: boolean } | undefined;
  // Training: an instance with the pool's models module, the runs' replicas, and a queue that keeps
  // each run's messages in order (starting one is asynchronous).
  let trainPe: Promise<Posenc> | undefined;
  const runs = new Map<number, { replica: TrainReplica; micro: number[]; worker: number; peers: Array<MessagePort | null>; inbox: Array<Mailbox | undefined> }>();
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
      // The peers' blocks are taken in, in order, from the start (a peer may be a step ahead).
      const inbox = req.peers.map((p) => (p === null ? undefined : new Mailbox(p)));
      try {
        const replica = await trainReplica(await withModels(req.models), req.spec);
        runs.set(req.run, { replica, micro: req.micro, worker: req.worker, peers: req.peers, inbox });
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
    const { replica, micro, worker, peers, inbox } = r;
    const P = replica.params;
    let row: StepRow | undefined;
    try {
      for (let s = 0; s < req.steps; s++) {
        replica.begin();
        let own: { grads: Float32Array; losses: Float64Array };
        if (worker === 0) {
          // The first block, summed in wasm in order (Trainer::Step's sum starts with it).
          const g = replica.gradient(micro[0]!, micro.length);
          own = { grads: g.grad, losses: Float64Array.of(g.loss) };
        } else {
          // A later block: each micro-batch apart, as they are added one by one to the sum so far.
          own = { grads: new Float32Array(micro.length * P), losses: new Float64Array(micro.length) };
          micro.forEach((j, k) => {
            const g = replica.gradient(j, 1);
            own.grads.set(g.grad, k * P);
            own.losses[k] = g.loss;
          });
        }
        // A copy moved to each peer (ours is still needed here). Moved, not cloned: Chromium's
        // structured clone of the block cost about 0.5 ms per step more (page recipe, 2 Workers).
        for (const p of peers) {
          if (p === null) continue;
          const copy = { grads: own.grads.slice(), losses: own.losses.slice() } satisfies PeerMessage;
          p.postMessage(copy, [copy.grads.buffer, copy.losses.buffer]);
        }
        const blocks: Array<{ grads: Float32Array; losses: Float64Array }> = [];
        for (let k = 0; k < peers.length; k++) blocks.push(k === worker ? own : await inbox[k]!.take());
        // ((first block + g) + g) + ...: the rows in micro-batch order; the losses likewise.
        const rows: Float32Array[] = [];
        let loss = 0;
        blocks.forEach((b, k) => {
          for (let i = 0; i < b.losses.length; i++) {
            rows.push(b.grads.subarray(i * P, (i + 1) * P));
            loss = k === 0 && i === 0 ? (b.losses[0] as number) : loss + (b.losses[i] as number);
          }
        });
        row = replica.apply(rows, loss);
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
      const r = p.attention(req.options);
      // The result's arrays are copies out of the wasm heap: moved, not copied
      // again. The request's arrays (copied into the heap by the call) go
      // back too, so the pool cuts its next call into them.
      const inputs = transfersOf(req.options);
      const transfer = [r.out.buffer, ...(r.weights ? [r.weights.buffer] : []), ...inputs] as ArrayBuffer[];
      port.post({ id: req.id, ok: true, result: r, inputs }, transfer);
    }).catch((e: unknown) => fail(req.id, e));
  });
}
