/** A pool's Node worker thread (see pool.ts). */
import { parentPort } from 'node:worker_threads';

import { serve } from './pool-serve.js';
import type { PoolRequest } from './pool-protocol.js';

const port = parentPort;
if (port === null) throw new Error('posenc: pool-worker-node.js runs only as a worker thread');
serve({
  post: (reply, transfer) => port.postMessage(reply, transfer),
  listen: (onRequest) => port.on('message', (r: PoolRequest) => onRequest(r)),
});
