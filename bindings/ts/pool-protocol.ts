/** The messages between a pool and its Workers. */
import type { StepRow } from './model.js';
import type { AttentionOptions, AttentionResult, ContinueTrainingConfig, EvaluateOptions, EvaluateResult, TrainConfig } from './types.js';

/** How a Worker makes its training replica: a fresh request, or continued training of a model's safetensors bytes. */
export type WireReplicaSpec =
  | { kind: 'train'; config: TrainConfig }
  | { kind: 'continue'; model: Uint8Array; config: ContinueTrainingConfig };

export type PoolRequest =
  | { id: number; op: 'init'; module: WebAssembly.Module; simd: boolean }
  // `whole`: reply with result arrays of the whole call (`heads` query heads), this part's heads
  // written from head `head` on (the pool joins the other parts into them).
  | { id: number; op: 'attention'; options: AttentionOptions; whole?: { heads: number; head: number } }
  // Training run `run`: a replica of the trainer computing micro-batches `micro` (a contiguous block)
  // of every step, as Worker `worker` of the run; `peers[k]`: the port to the run's Worker k (null at
  // `worker`), over which the Workers pass each step's gradient sum along (PeerMessage).
  | { id: number; op: 'trainStart'; run: number; models: WebAssembly.Module; spec: WireReplicaSpec; micro: number[]; worker: number; peers: Array<MessagePort | null> }
  // `steps` optimiser steps: sample the batch, compute the block, add it to the running sum from the
  // previous Worker and pass that on (the last Worker sends the whole sum to all), apply. Replies with
  // the last step's row.
  | { id: number; op: 'trainRun'; run: number; steps: number }
  // Stops run `run` now (not queued behind its calls): a step waiting for a peer's block fails.
  | { id: number; op: 'trainAbort'; run: number }
  // Ends a run; `save`: reply with the trained model's safetensors bytes first.
  | { id: number; op: 'trainEnd'; run: number; save: boolean }
  // model.evaluate(options) of a model's safetensors bytes, on the models module `models`.
  | { id: number; op: 'evaluate'; models: WebAssembly.Module; model: Uint8Array; options: EvaluateOptions };

export type PoolReply =
  /**
   * `inputs`: the buffers of the request's arrays, moved back for the pool to reuse. `row`: the last
   * optimiser step a trainRun applied. trainEnd with `save`: `model`.
   */
  | {
    id: number; ok: true; result?: AttentionResult; inputs?: ArrayBuffer[]; row?: StepRow; model?: Uint8Array; evaluated?: EvaluateResult[];
  }
  | { id: number; ok: false; error: { name: string; message: string } };

/**
 * What a training Worker sends a peer per step: a gradient of `params` floats and its loss, or, when
 * its step failed, why. Down the chain (Worker w to w + 1) the running sum of micro-batches 0 to the
 * end of w's block; from the last Worker to every other, the step's whole gradient.
 */
export type PeerMessage = { grads: Float32Array; loss: number } | { failed: string };

/** The message of the error a training Worker fails with when a peer failed first. */
export const PEER_FAILED = 'posenc pool: another Worker of this training run failed';
