/**
 * The Worker pool, browser / bundler entry (`posenc/pool`): module Workers started from
 * pool-worker.js. A separate entry, so that only apps that use the pool bundle a Worker (Vite needs
 * `worker: { format: 'es' }` for it: the Worker loads the wasm glue with dynamic imports).
 *
 *   import { createPool } from 'posenc/pool';
 *   await using pool = await createPool();
 *   const { out } = await pool.attention({ q, k, v, heads, queryLength, keyLength, headDim });
 *
 * @module posenc/pool
 */
import { compileWasm, init } from './index.js';
import { createPoolWith, type PoolWorker } from './pool.js';
import type { PoolOptions, PosencPool } from './types.js';

export type { PoolOptions, PosencPool } from './types.js';

/** A module Worker running pool-worker.js (a literal `new URL`, so that bundlers emit it). */
function spawnWorker(): PoolWorker {
  const w = new Worker(new URL('./pool-worker.js', import.meta.url), { type: 'module' });
  return {
    post: (req, transfer) => w.postMessage(req, transfer),
    listen(onReply, onFail) {
      w.addEventListener('message', (e: MessageEvent) => onReply(e.data));
      w.addEventListener('error', (e: ErrorEvent) => {
        e.preventDefault();
        onFail(new Error(`posenc pool: a Worker failed: ${e.message || 'could not load pool-worker.js'}`));
      });
    },
    terminate: async () => w.terminate(),
  };
}

/** A Worker the page started, reached through the port `connect` gave (see PoolOptions.connect). */
function portWorker(port: MessagePort): PoolWorker {
  return {
    post: (req, transfer) => port.postMessage(req, transfer),
    listen(onReply) {
      port.addEventListener('message', (e: MessageEvent) => onReply(e.data));
      port.start();
    },
    terminate: async () => {
      port.postMessage({ op: 'close' });
      port.close();
    },
  };
}

/**
 * On the page's main thread, for a pool created in a Worker with `connect`: starts one pool Worker and
 * hands it `port`, the other end of the channel `connect` returned. The Worker ends when the pool is
 * terminated.
 */
export function startPoolWorker(port: MessagePort): Worker {
  if (!(port instanceof MessagePort)) throw new TypeError('startPoolWorker(port): port must be a MessagePort');
  const w = new Worker(new URL('./pool-worker.js', import.meta.url), { type: 'module' });
  w.postMessage({ op: 'connect', port }, [port]);
  return w;
}

/**
 * Starts `workers` module Workers (default: the core count, at most 8), each with its own instance of one
 * compiled module: `await pool.attention(args)` then splits a call across them. No SharedArrayBuffer, so
 * no COOP/COEP headers. Stop it with `terminate()` or `await using`.
 */
export function createPool(options?: PoolOptions): Promise<PosencPool> {
  const connect: unknown = options?.connect;
  if (connect !== undefined && typeof connect !== 'function') {
    return Promise.reject(new TypeError(`connect must be a function returning a MessagePort, got ${connect === null ? 'null' : typeof connect}`));
  }
  const spawn = connect === undefined ? spawnWorker : (): PoolWorker => {
    const port: unknown = (connect as () => unknown)();
    if (!(port instanceof MessagePort)) throw new TypeError('connect() must return a MessagePort');
    return portWorker(port);
  };
  return createPoolWith(options, {
    spawn,
    cores: () => (typeof navigator !== 'undefined' && navigator.hardwareConcurrency > 0 ? navigator.hardwareConcurrency : 1),
    init,
    compile: compileWasm,
  });
}
