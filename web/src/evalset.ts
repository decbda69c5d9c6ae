// The shipped language models on the page's one evaluation set (EVAL_SET in
// seedbands.ts: the seed bands' sequences): one Worker evaluation per model,
// length and scaling, memoised per page, so every section that shows the same
// model at the same length shows the same number.
import type { RopeScaling } from 'posenc';

import type { LossCurve } from './protocol.js';
import type { Ctx } from './sections/context.js';
import { EVAL_SET } from './seedbands.js';

export { EVAL_SET };

const cache = new Map<string, Promise<LossCurve>>();

/**
 * Loss (and loss by position) of a shipped model on the evaluation set's
 * sequences at `length` (default: the training length, i.e. the set itself),
 * with `scaling` if given. A failed call is asked again next time.
 */
export function evalCurve(ctx: Ctx, model: string, length: number = EVAL_SET.length, scaling?: RopeScaling): Promise<LossCurve> {
  const key = `${model}|${length}|${scaling ? JSON.stringify(scaling) : ''}`;
  let p = cache.get(key);
  if (!p) {
    p = ctx.worker.call('evaluate', { model, lengths: [length], examples: EVAL_SET.examples, seed: EVAL_SET.seed, ...(scaling ? { scaling } : {}) })
      .then((r) => r[0]!);
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}
