/** The messages between a pool and its Workers. */
import type { AttentionOptions, AttentionResult } from './types.js';

export type PoolRequest =
  | { id: number; op: 'init'; module: WebAssembly.Module; simd: boolean }
  | { id: number; op: 'attention'; options: AttentionOptions };

export type PoolReply =
  | { id: number; ok: true; result?: AttentionResult }
  | { id: number; ok: false; error: { name: string; message: string } };
