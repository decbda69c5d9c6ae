/**
 * The Worker side of a pool: one posenc instance per Worker, made from the
 * module the pool compiled, answering the pool's calls in the order they
 * arrive. Shared by the browser Worker (pool-worker.ts) and the Node worker
 * thread (pool-worker-node.ts), which differ only in their port.
 */
import { init } from './index.js';
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
  const fail = (id: number, e: unknown): void => {
    const error = e instanceof Error ? { name: e.name, message: e.message } : { name: 'Error', message: String(e) };
    port.post({ id, ok: false, error }, []);
  };
  port.listen((req) => {
    if (req.op === 'init') {
      pe = init({ module: req.module, simd: req.simd });
      pe.then(() => port.post({ id: req.id, ok: true }, []), (e: unknown) => fail(req.id, e));
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
