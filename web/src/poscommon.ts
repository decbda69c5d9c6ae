// What the "positions" section and its padding panel share: the shipped
// RoPE model's head settings (from the Worker), seeded demo vectors, and the table of a shipped
// model's loss with correct and with wrong position ids (the Worker's
// `bugLoss`, memoised).
import type { PositionBug } from 'posenc';

import type { Ctx } from './sections/context.js';
import { encodingSpan } from './encname.js';
import { EVAL_SET, evalCurve } from './evalset.js';
import { onLangChange, t, type Key } from './i18n.js';
import { el, text } from './ui.js';

/** The head settings of the shipped RoPE language model, as the Worker's `describe` gives them. */
export interface RopeFacts {
  headDim: number;
  /** Dims rotated per head (the head dim when the whole head turns). */
  rotaryDim: number;
  base: number;
  /** The length the model was trained at. */
  trainLen: number;
}

let ropeFactsCache: Promise<RopeFacts> | undefined;

/** The shipped RoPE language model's head settings (Worker `describe`, asked once per page). */
export function ropeFacts(ctx: Ctx): Promise<RopeFacts> {
  ropeFactsCache ??= ctx.worker.call('describe', { model: 'language-rope' }).then(({ config: c }) => {
    const headDim = c.dModel / c.heads;
    return { headDim, rotaryDim: c.rotaryDim || headDim, base: c.ropeBase, trainLen: c.trainLen };
  });
  // A failed call is asked again next time.
  ropeFactsCache.catch(() => { ropeFactsCache = undefined; });
  return ropeFactsCache;
}

/** Seeded uniform values in [-1, 1) (an LCG: the same numbers on every load). */
export function seeded(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  });
}

/** Gives a control's input a stable id (tests read it), keeping its label and output attached. */
export function rename(c: { el: HTMLElement; input: HTMLElement }, id: string): void {
  const old = c.input.id;
  c.input.id = id;
  for (const e of c.el.querySelectorAll(`[for="${old}"]`)) e.setAttribute('for', id);
}

export interface ChipRow {
  id: string;
  tokens: string[];
  ids: number[];
  /** Per slot: extra classes (pad, gen, dropped, odd, bad). */
  cls: string[];
  mask?: number[];
  /** Slots [from, to) drawn as one ellipsis chip. */
  elide?: [number, number];
  /** A name above the row. */
  label?: Key;
}

/** A row of chips: token, (mask), position id; the full id list in data-ids. */
export function chipRow(r: ChipRow): HTMLElement {
  const head = el('div', { class: 'pos-chip pos-head', 'aria-hidden': 'true' },
    text('positions.row.token', 'span', 'tk'), ...(r.mask ? [text('positions.row.mask', 'span', 'mk')] : []), text('positions.row.id', 'span', 'pid'));
  const chips: HTMLElement[] = [head];
  for (let i = 0; i < r.ids.length; i++) {
    if (r.elide && i >= r.elide[0] && i < r.elide[1]) {
      if (i === r.elide[0]) chips.push(el('div', { class: 'pos-chip ellipsis', title: `${r.elide[1] - r.elide[0]}` }, '…'));
      continue;
    }
    chips.push(el('div', { class: `pos-chip ${r.cls[i] ?? ''}`, 'data-slot': String(i) },
      el('span', { class: 'tk' }, r.tokens[i]!),
      ...(r.mask ? [el('span', { class: 'mk' }, String(r.mask[i]))] : []),
      el('span', { class: 'pid', 'data-value': String(r.ids[i]) }, String(r.ids[i]))));
  }
  const row = el('div', { class: 'pos-row', id: r.id, 'data-ids': r.ids.join(','), ...(r.mask ? { 'data-mask': r.mask.join(',') } : {}) }, ...chips);
  return r.label ? el('div', { class: 'pos-labelled' }, text(r.label, 'div', 'pos-rowname'), row) : row;
}

/** One loss table: these models, this bug (or this sliding window), at this length. */
export interface LossSpec {
  bug: PositionBug;
  models: string[];
  length: number;
  /** Compare full causal attention (clean) with a sliding window of this many keys (buggy) instead of a bug. */
  window?: number;
  /**
   * Which run the ids shown above the table are (padding: the "count the
   * pads" checkbox): its column comes first, as the current loss
   * (`${prefix}-now-${model}`), the other one next (`${prefix}-other-${model}`).
   */
  current?: 'clean' | 'buggy';
}

/** NaN where that run failed; `error` says why. */
type LossResult = { clean: number; buggy: number; error?: string };
const lossCache = new Map<string, Promise<{ buggy: number; error?: string }>>();

/**
 * Loss of a shipped model with correct ids and full attention (the page's
 * evaluation set at this length, evalset.ts: the same number every section
 * shows) and, when there is one, with a bug or a window on the same
 * sequences (Worker, memoised per page).
 */
function bugLoss(ctx: Ctx, model: string, bug: PositionBug, length: number, window?: number): Promise<LossResult> {
  const clean = evalCurve(ctx, model, length).then((r) => r.loss);
  if (bug === 'none' && window === undefined) {
    return clean.then((v) => ({ clean: v, buggy: v }), (e: unknown) => ({ clean: NaN, buggy: NaN, error: e instanceof Error ? e.message : String(e) }));
  }
  const key = `${model}|${bug}|${length}|${window ?? ''}`;
  let p = lossCache.get(key);
  if (!p) {
    p = ctx.worker.call('bugLoss', { model, bug, length, examples: EVAL_SET.examples, seed: EVAL_SET.seed, ...(window === undefined ? {} : { window }) }).then(
      (r) => r,
      (e: unknown) => ({ buggy: NaN, error: e instanceof Error ? e.message : String(e) }),
    );
    lossCache.set(key, p);
  }
  return Promise.all([clean, p]).then(([c, b]) => ({ clean: c, ...b }),
    (e: unknown) => ({ clean: NaN, buggy: NaN, error: e instanceof Error ? e.message : String(e) }));
}

const setValue = (o: HTMLOutputElement, v: number, s: string): void => {
  o.textContent = s;
  o.dataset.value = String(v);
};

/**
 * A loss table: model | correct ids | wrong ids | change (the last two only
 * with a bug or a window; with a window the columns are "no window" and
 * "window W"). Outputs have ids `${prefix}-{clean,buggy,delta}-${model}`, or
 * with `spec.current` `${prefix}-{now,other,delta}-${model}`, the current
 * run first; `data-run` says which run each holds. `onDone` runs once every
 * row has its numbers.
 */
export function lossTable(ctx: Ctx, spec: LossSpec, prefix: string, onDone: () => void): HTMLElement {
  const body = el('tbody');
  const withBug = spec.bug !== 'none' || spec.window !== undefined;
  const runs: Array<'clean' | 'buggy'> = spec.current === 'buggy' ? ['buggy', 'clean'] : ['clean', 'buggy'];
  const outId = (run: 'clean' | 'buggy', m: string): string =>
    `${prefix}-${spec.current ? (run === spec.current ? 'now' : 'other') : run}-${m}`;
  const header = (run: 'clean' | 'buggy'): HTMLElement => {
    if (spec.window !== undefined) {
      return run === 'clean' ? text('positions.loss.nowindow', 'th') : el('th', {}, text('positions.loss.windowed'), ` ${spec.window}`);
    }
    const th = el('th', {}, text(run === 'clean' ? 'positions.loss.clean' : 'positions.loss.buggy'));
    if (spec.current === run) {
      th.append(' ', text('positions.loss.shown'));
      th.classList.add('current');
    }
    return th;
  };
  const head = el('tr', {}, text('positions.loss.model', 'th'), ...(withBug ? [header(runs[0]!), header(runs[1]!), text('positions.loss.delta', 'th')] : [text('positions.loss.clean', 'th')]));
  const jobs = spec.models.map((m) => {
    const out = { clean: el('output', { id: outId('clean', m), class: 'big zero', 'data-run': 'clean' }, '…'),
      buggy: el('output', { id: outId('buggy', m), class: 'big', 'data-run': 'buggy' }, '…') };
    const { clean, buggy } = out;
    const delta = el('output', { id: `${prefix}-delta-${m}` }, '');
    body.append(el('tr', {}, el('td', {}, encodingSpan(m.replace('language-', ''))),
      ...(withBug ? [el('td', {}, out[runs[0]!]), el('td', {}, out[runs[1]!]), el('td', {}, delta)] : [el('td', {}, clean)])));
    // The core's message (English) goes in the tooltip; the cell says "error" in the page's language.
    const fail = (o: HTMLOutputElement, why: string): void => {
      o.replaceChildren(text('positions.loss.error'));
      // After a sentence in the page's language (none in English).
      const title = (): void => { if (o.isConnected || !o.title) o.title = t('error.gloss') + why; };
      title();
      onLangChange(title, o);
      o.setAttribute('translate', 'no'); // the title ends with the core's own (English) message
      o.dataset.error = why;
      o.classList.add('err');
    };
    return bugLoss(ctx, m, spec.bug, spec.length, spec.window).then((r) => {
      if (Number.isNaN(r.clean)) return fail(clean, r.error ?? '?');
      setValue(clean, r.clean, r.clean.toFixed(3));
      if (!withBug) return;
      if (Number.isNaN(r.buggy)) return fail(buggy, r.error ?? '?');
      setValue(buggy, r.buggy, r.buggy.toFixed(3));
      const d = r.buggy - r.clean;
      setValue(delta, d, Math.abs(d) < 5e-4 ? '0.000' : `${d > 0 ? '+' : '−'}${Math.abs(d).toFixed(3)}`);
      buggy.classList.toggle('zero', Math.abs(d) < 5e-3);
    });
  });
  void Promise.all(jobs).then(onDone);
  return el('table', { class: 'answers pos-loss' }, el('thead', {}, head), body);
}
