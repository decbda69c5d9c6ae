/** The Worker pool, Node entry (`posenc/pool` under the `node` condition): worker threads. */
import { availableParallelism } from 'node:os';
import { Worker, type TransferListItem } from 'node:worker_threads';

import { compileWasm, init } from './node.js';
import { createPoolWith, type PoolWorker } from './pool.js';
import type { PoolReply } from './pool-protocol.js';
import type { PoolOptions, PosencPool } from './types.js';

export type { PoolOptions, PosencPool } from './types.js';

/** A worker thread running pool-worker-node.js. */
function spawnWorker(): PoolWorker {
  const w = new Worker(new URL('./pool-worker-node.js', import.meta.url));
  // An idle pool does not keep the process alive; a call waiting for its answer, or a Worker being
  // stopped, does.
  let waiting = 0;
  let stopping = false;
  const hold = (): void => {
    if (waiting > 0 || stopping) w.ref();
    else w.unref();
  };
  hold();
  return {
    post: (req, transfer) => {
      // (The run's MessagePorts are Node's here: the global MessageChannel is worker_threads'.) A
      // message that cannot be sent throws here, before it counts as waiting.
      w.postMessage(req, transfer as unknown as TransferListItem[]);
      waiting++;
      hold();
    },
    listen(onReply, onFail) {
      w.on('message', (reply: PoolReply) => {
        waiting--;
        hold();
        onReply(reply);
      });
      w.on('error', (e: Error) => onFail(new Error(`posenc pool: a worker thread failed: ${e.message}`)));
      w.on('exit', (code) => onFail(new Error(`posenc pool: a worker thread exited (code ${code})`)));
    },
    terminate: async () => {
      stopping = true;
      hold();
      await w.terminate();
    },
  };
}

/**
 * Starts `workers` worker threads (default: `os.availableParallelism()`, at most 8), each with its own
 * instance of one compiled module: `await pool.attention(args)` then splits a call across them. Stop it
 * with `terminate()` or `await using`.
 */
export function createPool(options?: PoolOptions): Promise<PosencPool> {
  if (options?.connect !== undefined) return Promise.reject(new TypeError('connect is for the browser entry (posenc/pool in a page); Node starts worker threads itself'));
  return createPoolWith(options, { spawn: spawnWorker, cores: availableParallelism, init, compile: compileWasm });
}

/**
 * The browser entry's way to start a pool Worker for a pool in another Worker (`connect`). Node's
 * pool starts its worker threads itself, so here it only says so (the types are the browser
 * entry's, shared by both).
 */
export function startPoolWorker(port: unknown): never {
  void port;
  throw new TypeError('startPoolWorker is for the browser entry (posenc/pool in a page); Node starts worker threads itself');
}
