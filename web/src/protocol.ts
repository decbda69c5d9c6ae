// Messages between the page and its module Worker (worker.ts), which owns
// the tiny models and does everything heavy: evaluation, generation,
// training. Typed end to end: `Api[M]` gives a method's arguments and result.
import { ENCODINGS, type EncodingName, type PositionBug, type RopeScaling, type TaskName, type TaskReference, type TinyModelConfig } from 'posenc';

/** Encodings of the shipped models per task (posenc-models: web/models/<task>-<encoding>.safetensors). */
export const SHIPPED: Record<TaskName, readonly EncodingName[]> = {
  'word-order': ['nope', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'shaw'],
  language: ENCODINGS,
  retrieval: ENCODINGS,
};

/** The model trained in section "train" is registered under this name. */
export const CUSTOM = 'yours';

export interface Answer {
  /** Predicted class (the subject). */
  answer: string;
  /** Its probability. */
  p: number;
}

export interface LossCurve {
  length: number;
  loss: number;
  accuracy: number;
  /** [length] mean loss per position (NaN where nothing is scored). */
  positionLoss: Float64Array;
}

export interface Api {
  /**
   * Instantiates posenc in the worker from the module the page compiled
   * (nothing fetched or compiled twice) in the page's flavour; returns it.
   * WorkerClient sends it first, by itself.
   */
  init: { args: { modelBase: string; module: WebAssembly.Module; simd: boolean }; result: { simd: boolean; target: string } };
  /** Loads (once) and describes a model: `<task>-<encoding>` or CUSTOM. */
  describe: { args: { model: string }; result: { config: TinyModelConfig; classes: string[]; vocab: string[] } };
  /**
   * One float32 tensor of a shipped model's file, e.g. `t5.bias` or
   * `pos.weight` (the file is fetched once, for the model and its tensors).
   */
  tensor: { args: { model: string; name: string }; result: { shape: number[]; data: Float32Array } };
  /** The reference levels of tasks (from the generators: chance, best possible, entropy rate). */
  references: { args: { tasks: TaskName[] }; result: TaskReference[] };
  /** The tokens of one seeded example of a task. */
  sample: { args: { task: TaskName; length: number; seed: number }; result: Int32Array };
  /** Word-order answers for each sentence. */
  answer: { args: { model: string; sentences: string[] }; result: Answer[] };
  /** Loss and per-position loss at each length (`seed`: the data seed, default the package's). */
  evaluate: { args: { model: string; lengths: number[]; examples: number; seed?: number; scaling?: RopeScaling }; result: LossCurve[] };
  /** Attention maps of one sampled task sequence: [layers, heads, T, T]. */
  maps: { args: { model: string; tokens: Int32Array }; result: { maps: Float32Array; layers: number; heads: number } };
  /**
   * A bug applied to a model: its loss with the bug (the page has the loss
   * without it from `evaluate`, on the same sequences), and greedy
   * generations from one prompt.
   */
  bug: {
    args: { model: string; bug: PositionBug; length: number; examples: number; seed: number; scaling?: RopeScaling };
    result: {
      buggy: LossCurve;
      prompt: string;
      /** Greedy continuation through the KV cache, without and with the bug. */
      cleanText: string[];
      buggyText: string[];
      /** Greedy continuation with the bug and no cache (a full pass per token). */
      uncachedText: string[];
    };
  };
  /**
   * Mean loss at one length with a position bug, or (`window`) with a
   * sliding window of that many keys (NaN + error where the run fails); the
   * page has the loss with correct ids and full attention from `evaluate`.
   */
  bugLoss: {
    args: { model: string; bug: PositionBug; length: number; examples: number; seed: number; window?: number };
    result: { buggy: number; error?: string };
  };
  /**
   * Trains a model (progress messages while running); it becomes CUSTOM.
   * `lr` / `warmup`: the optimiser's peak learning rate and warm-up steps
   * (the package's defaults when absent); `seed` (default 1) seeds the
   * weights and the data. The result has the training time
   * and the trained model's accuracy at `seqLen` on fresh seeded examples.
   */
  train: {
    args: { task: TaskName; encoding: EncodingName; steps: number; seqLen: number; lr?: number; warmup?: number; seed?: number };
    result: { config: TinyModelConfig; seconds: number; accuracy: number; cores: number };
  };
  /** Stops the running training. */
  cancel: { args: Record<string, never>; result: null };
  /**
   * Extends a trained RoPE / xPos model to `seqLen` with `scaling` (none: the
   * plain positions) and keeps training it there for `steps` (progress
   * messages while running; `cancel` stops it). Loss by position at `seqLen`
   * (`examples` sequences from data seed `seed`) of the extended model before
   * and after the extra training. With a scaling, the same model without one
   * is then trained the same steps on the same data (progress stage 2 of 2):
   * `plain` is its loss before and after.
   */
  extend: {
    args: { model: string; scaling?: RopeScaling; seqLen: number; steps: number; examples: number; seed: number };
    result: { before: LossCurve; after: LossCurve; plain?: { before: LossCurve; after: LossCurve }; seconds: number; cores: number };
  };
}

export type Method = keyof Api;

export interface Request<M extends Method = Method> {
  id: number;
  method: M;
  args: Api[M]['args'];
}

export type Reply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: string }
  | { id: number; progress: Progress }
  // Not a reply: the Worker's pool asks the page to start one of its Workers on this port (see worker.ts).
  | { poolPort: MessagePort };

/**
 * A training progress report; `seconds` since the run started; `cores`: how many the run uses (the Worker pool's Workers, or 1);
 * `stage` of `stages`: which of the runs of one request (extend: the scaled model, then the unscaled one), when there are several.
 */
export interface Progress {
  step: number;
  steps: number;
  loss: number;
  seconds: number;
  cores: number;
  stage?: number;
  stages?: number;
}
