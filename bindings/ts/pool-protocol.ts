/** The messages between a pool and its Workers. */
import type { AttentionOptions, AttentionResult } from './types.js';

export type PoolRequest =
  | { id: number; op: 'init'; module: WebAssembly.Module; simd: boolean }
  | { id: number; op: 'attention'; options: AttentionOptions };

export type PoolReply =
  /** `inputs`: the buffers of the request's arrays, moved back for the pool to reuse. */
  | { id: number; ok: true; result?: AttentionResult; inputs?: ArrayBuffer[] }
  | { id: number; ok: false; error: { name: string; message: string } };
