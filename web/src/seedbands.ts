// The seed bands: every shipped model is seed 1 of its recipe; `npm run
// seed-bands` (tools/seed_bands.mjs) trains seeds 2 and 3 of the same
// recipes, evaluates all three natively and writes data/seed-bands.json. The
// page draws its conclusions from these bands (mean and range over the
// seeds), never from one seed.
import json from './data/seed-bands.json';
import { lang } from './i18n.js';

export type BandTask = 'word-order' | 'language' | 'retrieval';

/** One measurement over the seeds: their mean, lowest and highest value. */
export interface Band {
  mean: number;
  min: number;
  max: number;
  values: readonly number[];
}

type Values = ReadonlyArray<number | null>;
const DATA = json.data as unknown as Record<BandTask, Record<string, Record<string, Values>>>;

/** The seeds each band is made of (1 is the shipped model). */
export const SEEDS: readonly number[] = json.seeds;
/** The language generator's entropy rate: the lowest mean loss any model can reach. */
export const ENTROPY_RATE: number = json.entropyRate;
/** The training length of every language and retrieval recipe. */
export const TRAIN_LEN: number = json.trainLen;

/** Tokens per length of the language evaluation (at the training length) and sequences per length of the retrieval one. */
export const EVAL_SIZE = {
  languageTokens: json.trainLen * (json.evaluation.examples.language as Record<string, number>)[String(json.trainLen)]!,
  retrievalSequences: json.evaluation.examples.retrieval,
};

/**
 * The page's one evaluation set of the shipped language models at their
 * training length: the seed bands' own (the same sequences, so a shipped
 * model's loss here is seed 1's value in the families table). Every section
 * that shows a shipped language model's loss uses these sequences
 * (evalset.ts); at another length, the same count and data seed.
 */
export const EVAL_SET = {
  /** Tokens per sequence: the training length. */
  length: json.trainLen,
  /** Sequences. */
  examples: (json.evaluation.examples.language as Record<string, number>)[String(json.trainLen)]!,
  /** Data seed of the sequences. */
  seed: json.evaluation.dataSeed,
} as const;

/** The band of some values (one per seed). */
export function bandOf(values: readonly number[]): Band {
  return { mean: values.reduce((s, v) => s + v, 0) / values.length, min: Math.min(...values), max: Math.max(...values), values };
}

/** The band of `task`'s `encoding` model at `length` (0 for word order); undefined where the model refuses the length. */
export function band(task: BandTask, encoding: string, length: number): Band | undefined {
  const vs = DATA[task]?.[encoding]?.[String(length)];
  if (!vs || vs.some((v) => v === null)) return undefined;
  return bandOf(vs as number[]);
}

/** The encodings measured for `task`, in the JSON's order. */
export function bandEncodings(task: BandTask): string[] {
  return Object.keys(DATA[task] ?? {});
}

/** A per-seed combination of two bands' values (e.g. a ratio), as a band. */
export function combine(a: Band, b: Band, f: (x: number, y: number) => number): Band {
  return bandOf(a.values.map((x, i) => f(x, b.values[i]!)));
}

/** Whether two bands' ranges overlap (then their order depends on the seed). */
export function overlaps(a: Band, b: Band): boolean {
  return a.min <= b.max && b.min <= a.max;
}

/**
 * `mean (min–max)` with `digits` decimals, in the page's current language:
 * Chinese puts the range in full-width brackets, `mean（min–max）`. `percent`
 * shows 100·v with a % after the mean and the range; `unit` (e.g. ×) follows
 * the mean. A caller that shows it re-formats on a language change.
 */
export function fmtBand(b: Band, digits: number, percent = false, unit = ''): string {
  const f = (v: number): string => (percent ? 100 * v : v).toFixed(digits);
  const pct = percent ? '%' : '';
  const [open, close] = lang() === 'zh' ? ['（', '）'] : [' (', ')'];
  return `${f(b.mean)}${pct}${unit}${open}${f(b.min)}–${f(b.max)}${pct}${close}`;
}
