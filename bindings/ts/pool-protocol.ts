/** The messages between a pool and its Workers. */
import type { StepRow } from './model.js';
import type { AttentionOptions, AttentionResult, ContinueTrainingConfig, EvaluateOptions, EvaluateResult, TrainConfig } from './types.js';

/** How a Worker makes its training replica: a fresh request, or continued training of a model's safetensors bytes. */
export type WireReplicaSpec =
  | { kind: 'train'; config: TrainConfig }
  | { kind: 'continue'; model: Uint8Array; config: ContinueTrainingConfig };

export type PoolRequest =
  | { id: number; op: 'init'; module: WebAssembly.Module; simd: boolean }
  | { id: number; op: 'attention'; options: AttentionOptions }
  // Training run `run`: a replica of the trainer computing micro-batches `micro` of every step.
  | { id: number; op: 'trainStart'; run: number; models: WebAssembly.Module; spec: WireReplicaSpec; micro: number[] }
  // Applies the last step's summed gradient (when given), then samples the next batch and computes its
  // micro-batches. `presum`: reply with their sum (in order) instead of each (the first block only).
  | { id: number; op: 'trainStep'; run: number; grad?: Float32Array; loss?: number; presum: boolean }
  // Applies a step's summed gradient (the last of a chunk: its row is the progress report).
  | { id: number; op: 'trainApply'; run: number; grad: Float32Array; loss: number }
  // Ends a run; `save`: reply with the trained model's safetensors bytes first.
  | { id: number; op: 'trainEnd'; run: number; save: boolean }
  // model.evaluate(options) of a model's safetensors bytes, on the models module `models`.
  | { id: number; op: 'evaluate'; models: WebAssembly.Module; model: Uint8Array; options: EvaluateOptions };

export type PoolReply =
  /**
   * `inputs`: the buffers of the request's arrays, moved back for the pool to reuse. trainStep: `grads`
   * = the micro-batches' gradients one after the other ([micro.length, params], or [1, params], their
   * sum, with `presum`), `losses` = theirs; `row`: the optimiser step a trainStep or trainApply applied.
   * trainEnd with `save`: `model`.
   */
  | {
    id: number; ok: true; result?: AttentionResult; inputs?: ArrayBuffer[]; grads?: Float32Array; losses?: Float64Array;
    row?: StepRow; model?: Uint8Array; evaluated?: EvaluateResult[];
  }
  | { id: number; ok: false; error: { name: string; message: string } };
