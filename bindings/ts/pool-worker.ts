/** A pool's browser Worker (a module Worker; see pool.ts). */
import { serve } from './pool-serve.js';
import type { PoolRequest } from './pool-protocol.js';

const scope = self as unknown as Worker;
serve({
  post: (reply, transfer) => scope.postMessage(reply, transfer),
  listen: (onRequest) => scope.addEventListener('message', (e: MessageEvent<PoolRequest>) => onRequest(e.data)),
});
