/**
 * A pool's browser Worker (a module Worker; see pool.ts). It answers on its own scope, or, when the
 * page started it for a pool that runs in another Worker (`startPoolWorker`), on the port it is sent.
 */
import { serve } from './pool-serve.js';
import type { PoolRequest } from './pool-protocol.js';

/** The first message of a Worker started by `startPoolWorker`: the port its pool calls on. */
export interface ConnectMessage {
  op: 'connect';
  port: MessagePort;
}

const scope = self as unknown as Worker;
scope.addEventListener('message', (e: MessageEvent<PoolRequest | ConnectMessage>) => {
  const m = e.data;
  if (m.op !== 'connect') return;
  const { port } = m;
  serve({
    post: (reply, transfer) => port.postMessage(reply, transfer),
    listen: (onRequest) => {
      port.addEventListener('message', (p: MessageEvent<PoolRequest | { op: 'close' }>) => {
        if (p.data.op === 'close') {
          port.close();
          (self as unknown as { close(): void }).close();
          return;
        }
        onRequest(p.data);
      });
      port.start();
    },
  });
});
serve({
  post: (reply, transfer) => scope.postMessage(reply, transfer),
  listen: (onRequest) => scope.addEventListener('message', (e: MessageEvent<PoolRequest | ConnectMessage>) => {
    if (e.data.op !== 'connect') onRequest(e.data);
  }),
});
