/** The messages between a pool and its Workers. */
import type { AttentionOptions, AttentionResult, ContinueTrainingConfig, TrainConfig } from './types.js';

/** How a Worker makes its training replica: a fresh request, or continued training of a model's safetensors bytes. */
export type WireReplicaSpec =
  | { kind: 'train'; config: TrainConfig }
  | { kind: 'continue'; model: Uint8Array; config: ContinueTrainingConfig };

export type PoolRequest =
  | { id: number; op: 'init'; module: WebAssembly.Module; simd: boolean }
  | { id: number; op: 'attention'; options: AttentionOptions }
  // Training run `run`: a replica of the trainer computing micro-batches `micro` of every step.
  | { id: number; op: 'trainStart'; run: number; models: WebAssembly.Module; spec: WireReplicaSpec; micro: number[] }
  // Applies the last step's summed gradient (when given), then samples the next batch and computes its micro-batches.
  | { id: number; op: 'trainStep'; run: number; grad?: Float32Array; loss?: number }
  | { id: number; op: 'trainEnd'; run: number };

export type PoolReply =
  /**
   * `inputs`: the buffers of the request's arrays, moved back for the pool to reuse. trainStep: `grads`
   * = the micro-batches' gradients one after the other ([micro.length, params]), `losses` = theirs.
   */
  | { id: number; ok: true; result?: AttentionResult; inputs?: ArrayBuffer[]; grads?: Float32Array; losses?: Float64Array }
  | { id: number; ok: false; error: { name: string; message: string } };
