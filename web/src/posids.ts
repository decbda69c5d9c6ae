// Position ids as inference code builds them, one rule per scenario of the
// "positions" section. Pure functions over small integer arrays.

/** A run of tokens fed in one call: slots `start .. start + length - 1`. */
export interface Step {
  start: number;
  length: number;
}

/** Plain prefill of T tokens: ids 0 .. T-1. */
export function prefillIds(T: number): number[] {
  return Array.from({ length: T }, (_, i) => i);
}

/** The calls of a cached run: the prompt (N tokens) at once, then `gen` tokens `step` at a time. */
export function cachedSteps(N: number, gen: number, step: number): Step[] {
  const steps: Step[] = [{ start: 0, length: N }];
  for (let s = N; s < N + gen; s += step) steps.push({ start: s, length: Math.min(step, N + gen - s) });
  return steps;
}

/** KV-cache decoding done right: every call continues from the cache length, so ids are 0 .. N+gen-1. */
export function cachedIds(steps: readonly Step[]): number[] {
  return steps.flatMap((s) => Array.from({ length: s.length }, (_, t) => s.start + t));
}

/** The restart bug: every call numbers its own tokens from 0, ignoring the cache. */
export function restartIds(steps: readonly Step[]): number[] {
  return steps.flatMap((s) => Array.from({ length: s.length }, (_, t) => t));
}

/** A left-padded row of `T` slots with `pads` pads: mask 0 for pads, 1 for real tokens. */
export function leftPadMask(T: number, pads: number): number[] {
  return Array.from({ length: T }, (_, i) => (i < pads ? 0 : 1));
}

/**
 * Ids from the attention mask as Hugging Face derives them:
 * `cumsum(mask) - 1`, pad slots set to 1 (a dummy: they are masked anyway).
 */
export function idsFromMask(mask: readonly number[]): number[] {
  let sum = 0;
  return mask.map((m) => {
    sum += m;
    return m ? sum - 1 : 1;
  });
}

/** Sliding window: may query i see key j? (causal, at most `window` keys including itself). */
export function inWindow(i: number, j: number, window: number): boolean {
  return j <= i && i - j < window;
}
