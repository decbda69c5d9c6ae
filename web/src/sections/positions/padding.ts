// Part of the "positions" section: RoPE and left padding, when it matters.
// (a) dynamic NTK derives its frequencies from the sequence length, so
// counting the pads changes q·k; (b) absolute encodings see shifted
// positions (loss of the shipped models); (c) prefill and decode counting
// the pads differently put a jump between the cached keys and the new query.
import type { RopeScaling } from 'posenc';

import { lang, onLangChange, t, type Key } from '../../i18n.js';
import { LinePlot, type LineSeries } from '../../plot.js';
import { idsFromMask, leftPadMask } from '../../posids.js';
import { getChoice } from '../../state.js';
import { EVAL_SET } from '../../evalset.js';
import { chipRow, lossTable, rename, ropeFacts, seeded, type RopeFacts } from '../../poscommon.js';
import { liveText, sentenceGap, tf, tidyCjk, type Vars } from '../../textfill.js';
import { coalesce, el, figure, fmtNum, lazyPanel, numberControl, select, text } from '../../ui.js';
import { dot } from '../../vec.js';
import type { Ctx } from '../context.js';

/** Pads in the padding demos (as the model API's left-padding bug uses); the texts get it as {pads}. */
export const PADS = 16;
/** How far the new token lands behind its last prompt token when the prefill counts the pads and the decode does not: 1 − pads. */
const BACK = `−${PADS - 1}`;

/**
 * The numbers the panel's texts name: the pads and the shipped RoPE model's
 * head dim, base and training length M (from the Worker), with M − pads
 * (the longest row that stays within M with the pads counted) and the last
 * counted id.
 */
export function padVars(f: RopeFacts): Vars {
  return { pads: PADS, dim: f.headDim, base: f.base, M: f.trainLen, short: f.trainLen - PADS, back: BACK };
}

/**
 * q·k of one query against keys (all the same vector k), in one applyRope
 * call: `x = [q, k, k, ...]` at `[qPos, ...kPos]`, with an explicit context
 * length (what `dynamic` reads), the same for q and every k.
 */
function scores(ctx: Ctx, f: RopeFacts, q: Float32Array, k: Float32Array, qPos: number, kPos: readonly number[], scaling?: RopeScaling,
  contextLength = qPos + 1): number[] {
  const D = f.headDim;
  const n = kPos.length + 1;
  const x = new Float32Array(n * D);  // [1, n, D]
  x.set(q, 0);
  for (let j = 1; j < n; j++) x.set(k, j * D);
  const r = ctx.pe.applyRope(x, {
    heads: 1, seqLen: n, headDim: D, rotaryDim: f.rotaryDim, layout: 'half', base: f.base,
    positions: Int32Array.from([qPos, ...kPos]), contextLength, ...(scaling ? { scaling } : {}),
  });
  return kPos.map((_, j) => dot(r, r, 0, (j + 1) * D, D));
}

/** Seeded demo vectors q and k of the model's head dim. */
const demoQk = (f: RopeFacts): { q: Float32Array; k: Float32Array } => ({ q: seeded(f.headDim, 7), k: seeded(f.headDim, 11) });

function out(id: string): HTMLOutputElement {
  return el('output', { id, class: 'big' });
}
function show(o: HTMLOutputElement, v: number, digits = 4): void {
  o.textContent = fmtNum(v, digits);
  o.dataset.value = String(v);
}

/** (a) Dynamic NTK: q·k of the last token against every key, pads counted or not. */
const comma = (): string => (lang() === 'zh' ? '，' : ', ');

function dynamicPart(ctx: Ctx, facts: () => Promise<RopeFacts>): HTMLElement {
  const c = {
    T: numberControl({ label: 'pad.a.T', param: 'pp.T', min: 16, max: 512, step: 1, initial: 96 }, () => update()),
    n: numberControl({ label: 'pad.a.n', param: 'pp.n', min: 0, max: 511, step: 1, initial: 0 }, () => update()),
    factor: numberControl({ label: 'pad.a.factor', param: 'pp.factor', min: 1, max: 8, step: 0.5, initial: 2 }, () => update()),
  };
  /** The model's head settings, once the Worker gave them. */
  let f: RopeFacts | undefined;
  const o = { d0: out('pad-default-0'), d16: out('pad-default-16'), y0: out('pad-dynamic-0'), y16: out('pad-dynamic-16') };
  const slow = el('p', { class: 'note', id: 'pad-slowest' });
  const series = (): LineSeries[] => [
    { label: () => t('pad.a.default'), color: '#1f77b4', width: 3 },
    { label: () => `${t('pad.a.default')}${comma()}${tf('pad.withPads', { pads: PADS })}`, color: '#9ecae1', dash: [5, 4] },
    { label: () => t('pad.a.dynamic'), color: '#e6550d', width: 2 },
    { label: () => `${t('pad.a.dynamic')}${comma()}${tf('pad.withPads', { pads: PADS })}`, color: '#d62728', dash: [5, 4] },
  ];
  const plot = new LinePlot({
    xLabel: () => t('pad.a.x'), yLabel: () => t('pad.a.y'), height: 240, markers: () => [Math.min(c.n.value(), c.T.value() - 1)], series: series(),
  });
  const box = el('div', { id: 'pad-dynamic', class: 'pad-part' });
  const update = coalesce(() => {
    if (!f) return;
    const { q, k } = demoQk(f);
    const T = c.T.value(), n = Math.min(c.n.value(), T - 1), factor = c.factor.value();
    const dyn: RopeScaling = { type: 'dynamic', factor, maxPositionEmbeddings: f.trainLen };
    const keys = Array.from({ length: T }, (_, j) => j);
    const padded = keys.map((j) => j + PADS);
    // The context length is the length of the row: T real tokens, or T + 16 with the pads counted.
    const curves = [
      scores(ctx, f, q, k, T - 1, keys, undefined, T), scores(ctx, f, q, k, T - 1 + PADS, padded, undefined, T + PADS),
      scores(ctx, f, q, k, T - 1, keys, dyn, T), scores(ctx, f, q, k, T - 1 + PADS, padded, dyn, T + PADS),
    ];
    plot.setData([keys, ...curves], series());
    show(o.d0, curves[0]![n]!);
    show(o.d16, curves[1]![n]!);
    show(o.y0, curves[2]![n]!);
    show(o.y16, curves[3]![n]!);
    const last = f.rotaryDim / 2 - 1;
    const { headDim, rotaryDim, base } = f;
    const slowest = (len: number): number => ctx.pe.ropeFrequencies({ headDim, rotaryDim, base, scaling: dyn, seqLen: len }).invFreq[last]!;
    const a = slowest(T), b = slowest(T + PADS);
    slow.dataset.value = `${a},${b}`;
    slow.textContent = tidyCjk(`${t('pad.a.slowest')} ${fmtNum(a, 6)} → ${fmtNum(b, 6)} rad`);
    Object.assign(box.dataset, {
      t: String(T), n: String(n), m: String(T - 1), pads: String(PADS), factor: String(factor), max: String(f.trainLen),
      base: String(base), dim: String(headDim), q: Array.from(q).join(','), k: Array.from(k).join(','),
    });
    box.dataset.ready = '1';
  });
  onLangChange(update);
  const withPads = liveText('th');
  withPads.set('pad.withPads', { pads: PADS });
  const about = liveText('div', 'explain'), look = liveText('p', 'note');
  look.el.id = 'pad-a-look';
  const status = el('p', { class: 'status' });
  box.append(
    text('pad.a.title', 'h4'),
    about.el,
    el('div', { class: 'controls' }, c.T.el, c.n.el, c.factor.el),
    el('table', { class: 'answers pad-scores' },
      el('thead', {}, el('tr', {}, el('th', {}), text('pad.a.noPads', 'th'), withPads.el)),
      el('tbody', {},
        el('tr', {}, text('pad.a.default', 'td'), el('td', {}, o.d0), el('td', {}, o.d16)),
        el('tr', {}, text('pad.a.dynamic', 'td'), el('td', {}, o.y0), el('td', {}, o.y16)))),
    slow,
    figure('pad.a.fig', plot.el),
    look.el,
    status,
  );
  // Near: the model's head settings from the Worker, then the texts, the table and the plot.
  lazyPanel(box, facts, (got) => {
    f = got;
    about.set('pad.a.text', padVars(got));
    look.set('pad.a.look', padVars(got));
    update();
  }, { errorBox: status });
  return box;
}

/** (b) Absolute encodings: the loss of the shipped models with the pads counted, inside and past the trained positions. */
function absolutePart(ctx: Ctx, facts: () => Promise<RopeFacts>): HTMLElement {
  const about = liveText('div', 'explain');
  about.set('pad.b.text', { pads: PADS });
  const box = el('div', { id: 'pad-absolute', class: 'pad-part' }, text('pad.b.title', 'h4'), about.el);
  // Near: the training length M, then the losses at M − pads (the counted ids stay inside M) and at M (they run past).
  lazyPanel(box, facts, (f) => {
    let done = 0;
    const vars = padVars(f);
    const table = (length: number, key: Key): HTMLElement => {
      const note = liveText('p', 'note');
      note.set(key, { ...vars, n: length, last: length + PADS - 1, count: EVAL_SET.examples });
      note.el.id = `pad-note-${length}`;
      return el('div', {}, note.el,
        lossTable(ctx, { bug: 'left-padding-in-positions', models: ['language-sinusoidal', 'language-learned', 'language-rope'], length },
          `pad-loss-${length}`, () => { if (++done === 2) box.dataset.ready = '1'; }));
    };
    const look = liveText('p', 'note');
    look.el.id = 'pad-b-look';
    look.set('pad.b.look', vars);
    box.append(el('div', { class: 'figs' }, table(f.trainLen - PADS, 'pad.b.inside'), table(f.trainLen, 'pad.b.past')), look.el);
  });
  return box;
}

const MISMATCH = ['prefill-counts', 'decode-counts'] as const;
type Mismatch = (typeof MISMATCH)[number];

/** Ids of a left-padded prompt and of the first new token: correct, and with the pads counted on one side only. */
export function mismatchIds(P: number, N: number, kind: Mismatch | 'correct'): { prompt: number[]; next: number } {
  const mask = leftPadMask(P + N, P);
  if (kind === 'prefill-counts') return { prompt: mask.map((_, i) => i), next: N };
  return { prompt: idsFromMask(mask), next: kind === 'correct' ? N : P + N };
}

/** (c) Prefill and decode disagreeing about the pads. */
function mismatchPart(ctx: Ctx, facts: () => Promise<RopeFacts>): HTMLElement {
  const nControl = numberControl({ label: 'pad.c.N', param: 'pp.N', min: 2, max: 32, step: 1, initial: 8 }, () => update());
  const st = { get N(): number { return nControl.value(); }, kind: getChoice<Mismatch>('pp.kind', 'prefill-counts', MISMATCH) };
  /** The model's head settings, once the Worker gave them (the chips need none). */
  let f: RopeFacts | undefined;
  const rows = el('div', { class: 'pos-rows' });
  const good = out('pad-mismatch-correct'), bad = out('pad-mismatch-wrong');
  const gap = el('p', { class: 'note', id: 'pad-gap' });
  const series = (): LineSeries[] => [
    { label: t('pad.c.correct'), color: '#1f77b4' }, { label: t('pad.c.mismatch'), color: '#d62728', dash: [5, 4] },
  ];
  const plot = new LinePlot({ xLabel: () => t('pad.c.x'), yLabel: () => t('pad.a.y'), height: 220, points: true, integerX: true, series: series() });
  const row = (label: Key, ids: { prompt: number[]; next: number }, id: string, wrong: boolean): HTMLElement => {
    const mask = leftPadMask(PADS + st.N, PADS);
    return chipRow({
      id, label, ids: [...ids.prompt, ids.next],
      tokens: [...mask.map((m, i) => (m ? String.fromCharCode(65 + i - PADS) : '<pad>')), '→'],
      cls: [...mask.map((m) => (m ? '' : 'pad')), `gen${wrong ? ' bad' : ''}`],
      elide: [2, PADS - 2],
    });
  };
  const update = coalesce(() => {
    const okIds = mismatchIds(PADS, st.N, 'correct'), wrongIds = mismatchIds(PADS, st.N, st.kind);
    rows.replaceChildren(row('pad.c.correct', okIds, 'pad-ids-correct', false), row(`pad.c.${st.kind}` as Key, wrongIds, 'pad-ids-wrong', true));
    const d = wrongIds.next - wrongIds.prompt[PADS + st.N - 1]!;
    gap.dataset.value = String(d);
    gap.textContent = tidyCjk(`${t('pad.c.gap')} 1 → ${d}`);
    if (!f) return;
    const { q, k } = demoQk(f);
    const real = (ids: number[]): number[] => ids.slice(PADS);
    const a = scores(ctx, f, q, k, okIds.next, real(okIds.prompt));
    const b = scores(ctx, f, q, k, wrongIds.next, real(wrongIds.prompt));
    plot.setData([a.map((_, j) => j), a, b], series());
    show(good, a[st.N - 1]!);
    show(bad, b[st.N - 1]!);
    box.dataset.ready = '1';
  });
  onLangChange(update);
  const kindSel = select<Mismatch>({
    label: 'pad.c.kind', param: 'pp.kind', value: st.kind,
    options: MISMATCH.map((m) => [m, () => t(`pad.c.${m}` as Key)] as const), onChange: (v) => { st.kind = v; update(); },
  });
  rename(kindSel, 'pad-kind');
  const about = liveText('div', 'explain'), look = liveText('p', 'note');
  about.set('pad.c.text', { pads: PADS });
  look.set('pad.c.look', { pads: PADS, back: BACK });
  const status = el('p', { class: 'status' });
  const box = el('div', { id: 'pad-mismatch', class: 'pad-part' },
    text('pad.c.title', 'h4'), about.el,
    el('div', { class: 'controls' }, kindSel.el, nControl.el),
    rows,
    el('p', { class: 'result' }, text('pad.c.score'), sentenceGap(), text('pad.c.correct'), ' ', good, ' \u2003 ', text('pad.c.mismatch'), ' ', bad),
    gap,
    figure('pad.c.fig', plot.el),
    look.el,
    status,
  );
  update();
  // Near: the model's head settings from the Worker, then the scores.
  lazyPanel(box, facts, (got) => {
    f = got;
    update();
  }, { errorBox: status });
  return box;
}

export function mountPaddingPanel(ctx: Ctx, root: HTMLElement): void {
  const facts = (): Promise<RopeFacts> => ropeFacts(ctx);
  root.append(
    el('h3', { id: 'pad-h' }, text('pad.title')),
    el('div', { class: 'explain', 'data-i18n-rich': 'pad.text' }),
    dynamicPart(ctx, facts), absolutePart(ctx, facts), mismatchPart(ctx, facts),
  );
}
