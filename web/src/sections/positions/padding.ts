// Part of the "positions" section: RoPE and left padding, when it matters.
// (a) dynamic NTK derives its frequencies from the sequence length, so
// counting the pads changes q·k; (b) absolute encodings see shifted
// positions (loss of the shipped models); (c) prefill and decode counting
// the pads differently put a jump between the cached keys and the new query.
import type { RopeScaling } from 'posenc';

import { lang, onLangChange, t, type Key } from '../../i18n.js';
import { LinePlot, type LineSeries } from '../../plot.js';
import { idsFromMask, leftPadMask } from '../../posids.js';
import { getChoice, getNumber } from '../../state.js';
import { chipRow, HEAD_DIM, lossTable, rename, ROPE_BASE, seeded } from '../../poscommon.js';
import { coalesce, el, figure, fmtNum, select, slider, text, whenNear } from '../../ui.js';
import { dot } from '../../vec.js';
import type { Ctx } from '../context.js';

/** Pads in the padding demos (as the model API's left-padding bug uses). */
const PADS = 16;
/** The training length of the shipped models: dynamic NTK's maxPositionEmbeddings. */
const TRAIN_LEN = 64;

/**
 * q·k of one query against keys (all the same vector k), in one applyRope
 * call: `x = [q, k, k, ...]` at `[qPos, ...kPos]`, with an explicit context
 * length (what `dynamic` reads), the same for q and every k.
 */
function scores(ctx: Ctx, q: Float32Array, k: Float32Array, qPos: number, kPos: readonly number[], scaling?: RopeScaling,
  contextLength = qPos + 1): number[] {
  const n = kPos.length + 1;
  const x = new Float32Array(n * HEAD_DIM);  // [1, n, D]
  x.set(q, 0);
  for (let j = 1; j < n; j++) x.set(k, j * HEAD_DIM);
  const r = ctx.pe.applyRope(x, {
    heads: 1, seqLen: n, headDim: HEAD_DIM, layout: 'half', base: ROPE_BASE,
    positions: Int32Array.from([qPos, ...kPos]), contextLength, ...(scaling ? { scaling } : {}),
  });
  return kPos.map((_, j) => dot(r, r, 0, (j + 1) * HEAD_DIM, HEAD_DIM));
}

function out(id: string): HTMLOutputElement {
  return el('output', { id, class: 'big' });
}
function show(o: HTMLOutputElement, v: number, digits = 4): void {
  o.textContent = fmtNum(v, digits);
  o.dataset.value = String(v);
}

/** (a) Dynamic NTK: q·k of the last token against every key, pads counted or not. */
const comma = (): string => (lang() === 'zh' ? '，' : ', ');

function dynamicPart(ctx: Ctx): HTMLElement {
  const st = { T: getNumber('pp.T', 96, 16, 512), n: getNumber('pp.n', 0, 0, 511), factor: getNumber('pp.factor', 2, 1, 8) };
  const q = seeded(HEAD_DIM, 7), k = seeded(HEAD_DIM, 11);
  const o = { d0: out('pad-default-0'), d16: out('pad-default-16'), y0: out('pad-dynamic-0'), y16: out('pad-dynamic-16') };
  const slow = el('p', { class: 'note', id: 'pad-slowest' });
  const series = (): LineSeries[] => [
    { label: () => t('pad.a.default'), color: '#1f77b4', width: 3 },
    { label: () => `${t('pad.a.default')}${comma()}${t('pad.withPads')}`, color: '#9ecae1', dash: [5, 4] },
    { label: () => t('pad.a.dynamic'), color: '#e6550d', width: 2 },
    { label: () => `${t('pad.a.dynamic')}${comma()}${t('pad.withPads')}`, color: '#d62728', dash: [5, 4] },
  ];
  const plot = new LinePlot({
    xLabel: () => t('pad.a.x'), yLabel: () => t('pad.a.y'), height: 240, markers: () => [Math.min(st.n, st.T - 1)], series: series(),
  });
  const box = el('div', { id: 'pad-dynamic', class: 'pad-part' });
  const update = coalesce(() => {
    const T = st.T, n = Math.min(st.n, T - 1);
    const dyn: RopeScaling = { type: 'dynamic', factor: st.factor, maxPositionEmbeddings: TRAIN_LEN };
    const keys = Array.from({ length: T }, (_, j) => j);
    const padded = keys.map((j) => j + PADS);
    // The context length is the length of the row: T real tokens, or T + 16 with the pads counted.
    const curves = [
      scores(ctx, q, k, T - 1, keys, undefined, T), scores(ctx, q, k, T - 1 + PADS, padded, undefined, T + PADS),
      scores(ctx, q, k, T - 1, keys, dyn, T), scores(ctx, q, k, T - 1 + PADS, padded, dyn, T + PADS),
    ];
    plot.setData([keys, ...curves], series());
    show(o.d0, curves[0]![n]!);
    show(o.d16, curves[1]![n]!);
    show(o.y0, curves[2]![n]!);
    show(o.y16, curves[3]![n]!);
    const last = HEAD_DIM / 2 - 1;
    const f = (len: number): number => ctx.pe.ropeFrequencies({ headDim: HEAD_DIM, base: ROPE_BASE, scaling: dyn, seqLen: len }).invFreq[last]!;
    const a = f(T), b = f(T + PADS);
    slow.dataset.value = `${a},${b}`;
    slow.textContent = `${t('pad.a.slowest')} ${fmtNum(a, 6)} → ${fmtNum(b, 6)} rad`;
    Object.assign(box.dataset, {
      t: String(T), n: String(n), m: String(T - 1), pads: String(PADS), factor: String(st.factor), max: String(TRAIN_LEN),
      base: String(ROPE_BASE), dim: String(HEAD_DIM), q: Array.from(q).join(','), k: Array.from(k).join(','),
    });
  });
  onLangChange(update);
  const nSlider = slider({ label: 'pad.a.n', param: 'pp.n', min: 0, max: 511, step: 1, value: st.n, onInput: (v) => { st.n = v; update(); } });
  box.append(
    text('pad.a.title', 'h4'),
    el('div', { class: 'explain', 'data-i18n-rich': 'pad.a.text' }),
    el('div', { class: 'controls' },
      slider({ label: 'pad.a.T', param: 'pp.T', min: 16, max: 512, step: 1, value: st.T, onInput: (v) => { st.T = v; update(); } }).el,
      nSlider.el,
      slider({ label: 'pad.a.factor', param: 'pp.factor', min: 1, max: 8, step: 0.5, value: st.factor, onInput: (v) => { st.factor = v; update(); } }).el),
    el('table', { class: 'answers pad-scores' },
      el('thead', {}, el('tr', {}, el('th', {}), text('pad.a.noPads', 'th'), text('pad.withPads', 'th'))),
      el('tbody', {},
        el('tr', {}, text('pad.a.default', 'td'), el('td', {}, o.d0), el('td', {}, o.d16)),
        el('tr', {}, text('pad.a.dynamic', 'td'), el('td', {}, o.y0), el('td', {}, o.y16)))),
    slow,
    figure('pad.a.fig', plot.el),
    text('pad.a.look', 'p', 'note'),
  );
  update();
  return box;
}

/** (b) Absolute encodings: the loss of the shipped models with the pads counted, inside and past the trained positions. */
function absolutePart(ctx: Ctx): HTMLElement {
  const box = el('div', { id: 'pad-absolute', class: 'pad-part' },
    text('pad.b.title', 'h4'), el('div', { class: 'explain', 'data-i18n-rich': 'pad.b.text' }));
  whenNear(box, () => {
    let done = 0;
    const table = (length: number): HTMLElement => el('div', {},
      text(`pad.b.len${length}` as Key, 'p', 'note'),
      lossTable(ctx, { bug: 'left-padding-in-positions', models: ['language-sinusoidal', 'language-learned', 'language-rope'], length },
        `pad-loss-${length}`, () => { if (++done === 2) box.dataset.ready = '1'; }));
    box.append(el('div', { class: 'figs' }, table(48), table(64)), text('pad.b.look', 'p', 'note'));
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
function mismatchPart(ctx: Ctx): HTMLElement {
  const st = { N: getNumber('pp.N', 8, 2, 32), kind: getChoice<Mismatch>('pp.kind', 'prefill-counts', MISMATCH) };
  const q = seeded(HEAD_DIM, 7), k = seeded(HEAD_DIM, 11);
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
    const real = (ids: number[]): number[] => ids.slice(PADS);
    const a = scores(ctx, q, k, okIds.next, real(okIds.prompt));
    const b = scores(ctx, q, k, wrongIds.next, real(wrongIds.prompt));
    plot.setData([a.map((_, j) => j), a, b], series());
    show(good, a[st.N - 1]!);
    show(bad, b[st.N - 1]!);
    const d = wrongIds.next - wrongIds.prompt[PADS + st.N - 1]!;
    gap.dataset.value = String(d);
    gap.textContent = `${t('pad.c.gap')} 1 → ${d}`;
  });
  onLangChange(update);
  const kindSel = select<Mismatch>({
    label: 'pad.c.kind', param: 'pp.kind', value: st.kind,
    options: MISMATCH.map((m) => [m, () => t(`pad.c.${m}` as Key)] as const), onChange: (v) => { st.kind = v; update(); },
  });
  rename(kindSel, 'pad-kind');
  const box = el('div', { id: 'pad-mismatch', class: 'pad-part' },
    text('pad.c.title', 'h4'), el('div', { class: 'explain', 'data-i18n-rich': 'pad.c.text' }),
    el('div', { class: 'controls' }, kindSel.el,
      slider({ label: 'pad.c.N', param: 'pp.N', min: 2, max: 32, step: 1, value: st.N, onInput: (v) => { st.N = v; update(); } }).el),
    rows,
    el('p', { class: 'result' }, text('pad.c.score'), ' ', text('pad.c.correct'), ' ', good, ' \u2003 ', text('pad.c.mismatch'), ' ', bad),
    gap,
    figure('pad.c.fig', plot.el),
    text('pad.c.look', 'p', 'note'),
  );
  update();
  return box;
}

export function mountPaddingPanel(ctx: Ctx, root: HTMLElement): void {
  root.append(
    el('h3', { id: 'pad-h' }, text('pad.title')),
    el('div', { class: 'explain', 'data-i18n-rich': 'pad.text' }),
    dynamicPart(ctx), absolutePart(ctx), mismatchPart(ctx),
  );
}
