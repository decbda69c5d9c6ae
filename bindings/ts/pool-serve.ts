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

  const train = async (req: Extract<PoolRequest, { op: 'trainStart' | 'trainStep' | 'trainApply' | 'trainEnd' }>): Promise<void> => {
    if (req.op === 'trainStart') {
      const replica = await trainReplica(await withModels(req.models), req.spec);
      runs.set(req.run, { replica, micro: req.micro });
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
        runs.delete(req.run);
      }
      return;
    }
    if (r === undefined) throw new Error(`posenc pool: no training run ${req.run} in this Worker`);
    const { replica, micro } = r;
    if (req.op === 'trainApply') {
      port.post({ id: req.id, ok: true, row: replica.apply(req.grad, req.loss) }, []);
      return;
    }
    const row = req.grad !== undefined ? replica.apply(req.grad, req.loss ?? 0) : undefined;
    replica.begin();
    const P = replica.params;
    if (req.presum) {
      // The block summed in wasm, in order (micro is contiguous), as Trainer::Step sums.
      const g = replica.gradient(micro[0]!, micro.length);
      port.post({ id: req.id, ok: true, grads: g.grad, losses: Float64Array.of(g.loss), ...(row ? { row } : {}) }, [g.grad.buffer as ArrayBuffer]);
      return;
    }
    const grads = new Float32Array(micro.length * P);
    const losses = new Float64Array(micro.length);
    micro.forEach((j, k) => {
      const g = replica.gradient(j, 1);
      grads.set(g.grad, k * P);
      losses[k] = g.loss;
    });
    port.post({ id: req.id, ok: true, grads, losses, ...(row ? { row } : {}) }, [grads.buffer, losses.buffer]);
  };

  port.listen((req) => {
    if (req.op === 'init') {
      core = { module: req.module, simd: req.simd };
      pe = init({ module: req.module, simd: req.simd });
      pe.then(() => port.post({ id: req.id, ok: true }, []), (e: unknown) => fail(req.id, e));
      return;
    }
    if (req.op === 'trainStart' || req.op === 'trainStep' || req.op === 'trainApply' || req.op === 'trainEnd' || req.op === 'evaluate') {
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
