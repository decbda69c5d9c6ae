/**
 * The Worker side of a pool: one posenc instance per Worker, made from the
 * module the pool compiled, answering the pool's calls in the order they
 * arrive. Shared by the browser Worker (pool-worker.ts) and the Node worker
 * thread (pool-worker-node.ts), which differ only in their port.
 */
import { init } from './index.js';
import { trainReplica } from './internal.js';
import type { TrainReplica } from './model.js';
import type { PoolReply, PoolRequest } from './pool-protocol.js';
import { transfersOf } from './pool-split.js';
import type { Posenc } from './types.js';

/** The messaging end a Worker answers on. */
export interface ServePort {
  post(reply: PoolReply, transfer: ArrayBuffer[]): void;
  listen(onRequest: (request: PoolRequest) => void): void;
}

/** Answers the pool's requests on `port` until the Worker is terminated. */
export function serve(port: ServePort): void {
  let pe: Promise<Posenc> | undefined;
  let core: { module: WebAssembly.Module; simd: boolean } | undefined;
  // Training: an instance with the pool's models module, the runs' replicas, and a queue that keeps
  // each run's messages in order (starting one is asynchronous).
  let trainPe: Promise<Posenc> | undefined;
  const runs = new Map<number, { replica: TrainReplica; micro: number[] }>();
  let queue: Promise<void> = Promise.resolve();
  const fail = (id: number, e: unknown): void => {
    const error = e instanceof Error ? { name: e.name, message: e.message } : { name: 'Error', message: String(e) };
    port.post({ id, ok: false, error }, []);
  };

  const train = async (req: Extract<PoolRequest, { op: 'trainStart' | 'trainStep' | 'trainEnd' }>): Promise<void> => {
    if (req.op === 'trainStart') {
      if (core === undefined) throw new Error('posenc pool: a call reached a Worker before its init');
      trainPe ??= init({ module: core.module, simd: core.simd, models: { module: req.models } });
      trainPe.catch(() => (trainPe = undefined));
      const replica = await trainReplica(await trainPe, req.spec);
      runs.set(req.run, { replica, micro: req.micro });
      port.post({ id: req.id, ok: true }, []);
      return;
    }
    const r = runs.get(req.run);
    if (req.op === 'trainEnd') {
      r?.replica.free();
      runs.delete(req.run);
      port.post({ id: req.id, ok: true }, []);
      return;
    }
    if (r === undefined) throw new Error(`posenc pool: no training run ${req.run} in this Worker`);
    const { replica, micro } = r;
    if (req.grad !== undefined) replica.apply(req.grad, req.loss ?? 0);
    replica.begin();
    const P = replica.params;
    const grads = new Float32Array(micro.length * P);
    const losses = new Float64Array(micro.length);
    micro.forEach((j, k) => {
      const g = replica.gradient(j);
      grads.set(g.grad, k * P);
      losses[k] = g.loss;
    });
    port.post({ id: req.id, ok: true, grads, losses }, [grads.buffer, losses.buffer]);
  };

  port.listen((req) => {
    if (req.op === 'init') {
      core = { module: req.module, simd: req.simd };
      pe = init({ module: req.module, simd: req.simd });
      pe.then(() => port.post({ id: req.id, ok: true }, []), (e: unknown) => fail(req.id, e));
      return;
    }
    if (req.op === 'trainStart' || req.op === 'trainStep' || req.op === 'trainEnd') {
      queue = queue.then(() => train(req)).catch((e: unknown) => fail(req.id, e));
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
