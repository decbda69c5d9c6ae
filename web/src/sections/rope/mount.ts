// Section "rope": the RoPE lab. Every rotation comes from pe.applyRope, every
// frequency from pe.ropeFrequencies (with the chosen scaling).
import { ROPE_SCALINGS, type RopeLayout, type RopeScaling } from 'posenc';

import { AxedHeatmap } from '../../axes.js';
import { onLangChange, t, type Key } from '../../i18n.js';
import { cssVar, LinePlot } from '../../plot.js';
import { getChoice, getNumber, getParam, setParam } from '../../state.js';
import { byLang, liveText, sentenceGap, tf } from '../../textfill.js';
import { rich } from '../../lessonkit.js';
import { applyState, beforeApply, bindParam, coalesce, el, figure, fmtNum, lab, numberControl, select, text, type ParamValue } from '../../ui.js';
import type { Ctx } from '../context.js';
import { PRESET_IDS, presetLabel, ropePresets, type RopePreset } from '../../rope-presets.js';

/** The lab's context-extension methods: every scaling but Gemma 4's per-layer `proportional` (a model's layout, not an extension). */
export type ScalingName = Exclude<(typeof ROPE_SCALINGS)[number], 'proportional'>;
export const SCALINGS: readonly ScalingName[] = ROPE_SCALINGS.filter((s): s is ScalingName => s !== 'proportional');

/** Scalings whose frequencies depend on the context length L. */
export const LENGTH_DEPENDENT: ReadonlySet<ScalingName> = new Set(['dynamic', 'longrope']);

/** Select options for the scalings, labels translated. */
export const scalingOptions = (names: readonly ScalingName[] = SCALINGS): Array<readonly [ScalingName, () => string]> =>
  names.map((s) => [s, () => t(`scaling.${s}` as Key)] as const);

export interface ScalingParams {
  betaFast: number;
  betaSlow: number;
  lowFreqFactor: number;
  highFreqFactor: number;
}
const DEFAULT_PARAMS: ScalingParams = { betaFast: 32, betaSlow: 1, lowFreqFactor: 1, highFreqFactor: 4 };

/** A scaling spec with the page's parameters (LongRoPE: short factors 1, long factors rising to `factor`). */
export function makeScaling(name: ScalingName, factor: number, orig: number, rotaryDim: number, p: ScalingParams = DEFAULT_PARAMS): RopeScaling {
  switch (name) {
    case 'default':
      return { type: 'default' };
    case 'linear':
      return { type: 'linear', factor };
    case 'ntk':
      return { type: 'ntk', factor };
    case 'dynamic':
      return { type: 'dynamic', factor, maxPositionEmbeddings: orig };
    case 'yarn':
      return { type: 'yarn', factor, originalMaxPositionEmbeddings: orig, betaFast: p.betaFast, betaSlow: p.betaSlow };
    case 'llama3':
      return { type: 'llama3', factor, originalMaxPositionEmbeddings: orig, lowFreqFactor: p.lowFreqFactor, highFreqFactor: p.highFreqFactor };
    case 'longrope': {
      const half = rotaryDim / 2;
      return {
        type: 'longrope', factor, originalMaxPositionEmbeddings: orig,
        shortFactor: new Array<number>(half).fill(1),
        longFactor: Array.from({ length: half }, (_, i) => 1 + ((factor - 1) * i) / Math.max(half - 1, 1)),
      };
    }
  }
}

function seeded(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  });
}

/**
 * The y range of the shift chart: the data, at least `floor` tall, with the
 * zero line about a quarter of the height from the top (the data below it)
 * or the bottom (the data above it), with room for its label.
 */
function shiftRange(lo: number, hi: number, floor: number): [number, number] {
  const down = Math.abs(Math.min(lo, 0)) >= Math.max(hi, 0);
  const span = Math.max(hi - lo, floor);
  const a = Math.min(lo, 0), b = Math.max(hi, 0);
  // Far side: the data plus 10 %; near side: a third of the span beyond zero.
  return down ? [Math.min(a, b - span) - 0.1 * span, b + span / 3] : [a - span / 3, Math.max(b, a + span) + 0.1 * span];
}

/** Largest position of the m / n / shift controls. */
const POS_MAX = 8192;
/** The position slider is linear (one step per position) up to here, then logarithmic. */
const POS_LINEAR = 256;
/** Slider steps per doubling past POS_LINEAR. */
const POS_OCTAVE = 64;
const posFromSlider = (p: number): number => (p <= POS_LINEAR ? Math.round(p) : Math.min(POS_MAX, Math.round(POS_LINEAR * 2 ** ((p - POS_LINEAR) / POS_OCTAVE))));
const sliderFromPos = (v: number): number => (v <= POS_LINEAR ? v : POS_LINEAR + POS_OCTAVE * Math.log2(v / POS_LINEAR));

interface Control {
  el: HTMLElement;
  input: HTMLInputElement;
  /** The live value. */
  value(): number;
}

/**
 * A position control: a slider that moves one position per step up to 256
 * and then by about 1 % per step up to 8192 (so small positions are reachable
 * by mouse), with an exact number box beside it.
 */
function positionControl(label: Key, param: string, initial: number, onInput: (v: number) => void): Control {
  // Not a ui.ts slider (its scale is piecewise), so it reads its URL value itself.
  let value = getNumber(param, initial, 0, POS_MAX);
  const id = `rope-${param.replace('.', '-')}`;
  const range = el('input', { type: 'range', id, min: '0', max: String(Math.ceil(sliderFromPos(POS_MAX))), step: '1', value: String(sliderFromPos(value)) });
  const box = el('input', { type: 'number', min: '0', max: String(POS_MAX), step: '1', value: String(value), class: 'pos-number', 'aria-label': `${t(label)} (${t('rope.pos.number')})` });
  onLangChange(() => box.setAttribute('aria-label', `${t(label)} (${t('rope.pos.number')})`));
  const set = (v: number, from: 'range' | 'box'): void => {
    value = v;
    if (from === 'range') box.value = String(v);
    else range.value = String(sliderFromPos(v));
    range.setAttribute('aria-valuetext', String(v));
    setParam(param, v);
    onInput(v);
  };
  range.setAttribute('aria-valuetext', String(value));
  range.addEventListener('input', () => set(posFromSlider(Number(range.value)), 'range'));
  // A "try this" prompt (ui.ts applyState) sets the position as the box would.
  bindParam(param, (s) => {
    const v = Number(s);
    if (!(Number.isInteger(v) && v >= 0 && v <= POS_MAX)) throw new RangeError(`${param} must be an integer in [0, ${POS_MAX}], got ${s}`);
    box.value = String(v);
    set(v, 'box');
  });
  box.addEventListener('input', () => {
    const v = Number(box.value);
    if (box.value !== '' && Number.isInteger(v) && v >= 0 && v <= POS_MAX) set(v, 'box');
  });
  const lab = el('label', { for: id });
  lab.append(text(label));
  return { el: el('div', { class: 'control' }, lab, el('div', { class: 'pos-control' }, range, box)), input: range, value: () => value };
}

/**
 * A slider over a list of sensible values (ui.ts's log slider with these
 * stops: one arrow key = the next value, a number box for exact ones):
 * bases, factors, context lengths. Its input keeps the id rope-<param>.
 */
function listControl(label: Key, param: string, values: readonly number[], initial: number, onInput: (v: number) => void): Control {
  const s = numberControl({
    label, param, min: values[0]!, max: values[values.length - 1]!, step: values.every(Number.isInteger) ? 1 : 0.01,
    initial, log: true, stops: values,
  }, onInput);
  const id = `rope-${param.replace('.', '-')}`;
  s.el.querySelector('label')!.htmlFor = id;
  s.input.id = id;
  return { el: s.el, input: s.input, value: s.value };
}

const BASES = [100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000] as const;
const FACTORS = [1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40, 48, 64] as const;
const CONTEXTS = [64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768] as const;

export function mount(ctx: Ctx, root: HTMLElement): void {
  const pe = ctx.pe;
  // Each numeric control declared once (URL key, label, default, range); the state reads them live.
  const changed = (): void => update();
  // A published model's settings, head dim, rotary fraction, base, pair
  // layout and scaling sit behind "More" (closed: m, n and the shift carry
  // the lesson); a value set from outside (a link, a preset, a "Try this"
  // prompt) opens it, so every setting in effect is shown.
  const more = el('details', { class: 'more', id: 'rope-more' });
  const advanced = (): void => {
    more.open = true;
    update();
  };
  const c = {
    m: positionControl('rope.m', 'r.m', 12, changed),
    n: positionControl('rope.n', 'r.n', 5, changed),
    s: positionControl('rope.shift', 'r.s', 100, changed),
    headDim: numberControl({ label: 'rope.headDim', param: 'r.d', min: 8, max: 256, step: 8, initial: 64 }, changed),
    frac: numberControl({ label: 'rope.rotary', param: 'r.frac', min: 0.25, max: 1, step: 0.25, initial: 1 }, changed),
    base: listControl('rope.base', 'r.base', BASES, 10000, changed),
    factor: listControl('rope.factor', 'r.factor', FACTORS, 4, changed),
    orig: listControl('rope.orig', 'r.orig', CONTEXTS, 64, advanced),
    betaFast: listControl('rope.betaFast', 'r.bf', [1, 2, 4, 8, 16, 32, 64, 128], 32, advanced),
    betaSlow: listControl('rope.betaSlow', 'r.bs', [0.25, 0.5, 1, 2, 4, 8, 16], 1, advanced),
    lowFreqFactor: listControl('rope.lowFreq', 'r.lf', [0.25, 0.5, 1, 2, 4, 8], 1, advanced),
    highFreqFactor: listControl('rope.highFreq', 'r.hf', [1, 2, 4, 8, 16, 32], 4, advanced),
  };
  const st = {
    get headDim(): number { return c.headDim.value(); },
    get frac(): number { return c.frac.value(); },
    get base(): number { return c.base.value(); },
    layout: getChoice<RopeLayout>('r.layout', 'interleaved', ['half', 'interleaved'] as const),
    scaling: getChoice<ScalingName>('r.scaling', 'default', SCALINGS),
    get factor(): number { return c.factor.value(); },
    get orig(): number { return c.orig.value(); },
    get m(): number { return c.m.value(); },
    get n(): number { return c.n.value(); },
    get s(): number { return c.s.value(); },
    get betaFast(): number { return c.betaFast.value(); },
    get betaSlow(): number { return c.betaSlow.value(); },
    get lowFreqFactor(): number { return c.lowFreqFactor.value(); },
    get highFreqFactor(): number { return c.highFreqFactor.value(); },
  };
  const rotaryDim = (): number => Math.max(2, 2 * Math.round((st.headDim * st.frac) / 2));
  // A published model's settings (rope-presets.ts): its own scaling object
  // (LongRoPE's searched factors, DeepSeek's mscale) while every control
  // still shows that model's value.
  const presets = ropePresets(pe);
  let preset: RopePreset | undefined = presets.find((p) => p.id === getChoice('r.preset', 'custom', ['custom', ...PRESET_IDS]));
  const presetState = (p: RopePreset): Record<string, ParamValue> => {
    const l = p.layer, sc = l.scaling;
    const out: Record<string, ParamValue> = { 'r.d': l.headDim, 'r.frac': l.rotaryDim / l.headDim, 'r.base': l.base, 'r.layout': l.layout, 'r.scaling': sc.type };
    if ('factor' in sc && sc.factor !== undefined) out['r.factor'] = sc.factor;
    if ('originalMaxPositionEmbeddings' in sc) out['r.orig'] = sc.originalMaxPositionEmbeddings;
    if (sc.type === 'dynamic') out['r.orig'] = sc.maxPositionEmbeddings;
    if (sc.type === 'yarn') Object.assign(out, { 'r.bf': sc.betaFast ?? 32, 'r.bs': sc.betaSlow ?? 1 });
    if (sc.type === 'llama3') Object.assign(out, { 'r.lf': sc.lowFreqFactor, 'r.hf': sc.highFreqFactor });
    return out;
  };
  const KEYS: Record<string, keyof typeof st> = {
    'r.d': 'headDim', 'r.frac': 'frac', 'r.base': 'base', 'r.layout': 'layout', 'r.scaling': 'scaling', 'r.factor': 'factor', 'r.orig': 'orig',
    'r.bf': 'betaFast', 'r.bs': 'betaSlow', 'r.lf': 'lowFreqFactor', 'r.hf': 'highFreqFactor',
  };
  /** Whether every control shows `p`'s value. */
  const shows = (p: RopePreset): boolean => Object.entries(presetState(p)).every(([k, v]) => st[KEYS[k]!] === v);
  const scaling = (): RopeScaling => (preset !== undefined && shows(preset) ? preset.layer.scaling : makeScaling(st.scaling, st.factor, st.orig, rotaryDim(), st));

  const scoreOut = el('output', { id: 'rope-score', class: 'big' });
  const shiftedOut = el('output', { id: 'rope-score-shifted', class: 'big' });
  const lengthOut = el('output', { id: 'rope-length' });
  const shortOut = el('output', { id: 'rope-score-short', class: 'big' });
  const shortLengthOut = el('output', { id: 'rope-length-short' });
  const lengthNote = el('p', { class: 'note', id: 'rope-length-note' });
  const pairs = el('canvas', { class: 'pairs', role: 'img', 'aria-label': t('rope.pairs'), 'data-i18n-aria': 'rope.pairs' });
  // The pair names are text under the canvas (the canvas shrinks on a phone,
  // text drawn into it would shrink with it).
  const pairLabels = el('div', { class: 'pair-labels', id: 'rope-pair-labels', 'aria-hidden': 'true' });
  const pairsBox = el('div', { class: 'pairs-box' }, pairs, pairLabels);
  const angles = new AxedHeatmap({
    kind: 'sequential', label: () => t('rope.angles'), rowName: () => t('rope.pair'), colName: () => t('sinusoidal.position'), range: [0, 2 * Math.PI],
    y: 'ax.pair', x: 'ax.position', value: 'ax.angle',
  });
  angles.canvas.id = 'rope-angles';
  // Shift invariance: how much q·k at (m + s, n + s) differs from q·k at
  // (m, n), for s = 0 … S, each pair rotated with L = max(m, n) + s + 1 (one
  // sequence holding both). A change plotted on its own scale: the drift of
  // dynamic NTK and LongRoPE (a few hundredths) shows, float32 rounding (1e-6)
  // does not.
  const breakAt = (): number => st.orig - Math.max(st.m, st.n);
  // The plotted data's extent (uPlot also calls the range with its own
  // current scale, so the range is computed from these, not from its arguments).
  let shiftScore = 1, shiftLo = 0, shiftHi = 0;
  const shiftPlot = new LinePlot({
    xLabel: () => t('rope.shiftPlot.x'), yLabel: () => t('rope.shiftDiff.y'),
    series: [{ label: () => t('rope.shiftDiff.series'), color: '#1f77b4', width: 2 }],
    height: 220,
    yRange: () => {
      const r = shiftRange(shiftLo, shiftHi, 0.05 * Math.max(1, Math.abs(shiftScore)));
      shiftPlot.el.dataset.yrange = r.join(',');
      return r;
    },
    hMarkers: () => [0],
    markers: () => (LENGTH_DEPENDENT.has(st.scaling) && breakAt() >= 0 ? [breakAt()] : []),
    // No text on the dashed mark (a step would run through it); the note under the chart names it.
    hMarkerText: () => [t('rope.shiftDiff.zero')],
  });
  shiftPlot.el.id = 'rope-shift-plot';
  const shiftLook = el('p', { class: 'note look', id: 'rope-shift-look' });
  const decay = new LinePlot({ xLabel: () => t('rope.distance'), yLabel: () => 'q·k', series: [{ label: 'q·k' }], height: 220 });
  const wave = new LinePlot({
    xLabel: () => t('rope.pair'), yLabel: () => t('rope.wavelength.y'), series: [{ label: () => t('scaling.default') }, { label: () => t('rope.scaled') }], height: 220, logY: true, points: true,
    hMarkers: () => [st.orig],
  });
  const rampFigure = figure('rope.ramp', el('div'));
  const rampTitle = rampFigure.querySelector('figcaption')!;
  // The title names the selected scaling (not data-i18n: it is filled in here).
  delete rampTitle.dataset.i18n;
  rampTitle.id = 'rope-ramp-title';
  const titleRamp = (): void => {
    rampTitle.dataset.scaling = st.scaling;
    rampTitle.textContent = tf('rope.ramp.by', { method: t(`scaling.${st.scaling}` as Key) }) +
      (LENGTH_DEPENDENT.has(st.scaling) ? ` (L = ${Math.max(st.m, st.n, st.m + st.s, st.n + st.s) + 1})` : '');
  };
  onLangChange(titleRamp);
  // Its note names 1/factor for the factor set now.
  const rampLook = liveText('p', 'note look');
  rampLook.el.id = 'rope-ramp-look';
  const ramp = new LinePlot({ xLabel: () => t('rope.pair'), yLabel: () => 'θ′/θ', series: [{ label: 'θ′/θ' }], height: 200, points: true });

  // q and k are rotated in separate calls: they must share the context length
  // L (it sets the frequencies of dynamic NTK and LongRoPE).
  const rot = (v: Float32Array, pos: number, contextLength: number): Float32Array =>
    pe.applyRope(v, {
      heads: 1, seqLen: 1, headDim: st.headDim, rotaryDim: rotaryDim(), layout: st.layout, base: st.base, scaling: scaling(),
      offset: pos, contextLength,
    });
  const dot = (a: Float32Array, b: Float32Array): number => a.reduce((acc, x, i) => acc + x * b[i]!, 0);

  const drawPairs = (qm: Float32Array, kn: Float32Array): void => {
    const half = rotaryDim() / 2;
    const show = Math.min(half, 8);
    const step = Math.max(1, Math.floor(half / show));
    const size = 86, height = 76;
    const dpr = window.devicePixelRatio || 1;
    pairs.width = show * size * dpr;
    pairs.height = height * dpr;
    pairsBox.style.width = `${show * size}px`;
    pairLabels.style.gridTemplateColumns = `repeat(${show}, 1fr)`;
    pairLabels.replaceChildren(...Array.from({ length: show }, (_, s) => el('span', {}, `i\u2009=\u2009${s * step}`)));
    const c = pairs.getContext('2d');
    if (!c) return;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, show * size, height);
    const fg = cssVar('--fg');
    // Pair i is (x[i], x[i + half]) in the half layout, (x[2i], x[2i + 1]) interleaved.
    const at = (v: Float32Array, i: number): [number, number] =>
      st.layout === 'half' ? [v[i]!, v[i + half]!] : [v[2 * i]!, v[2 * i + 1]!];
    for (let s = 0; s < show; s++) {
      const i = s * step;
      const cx = s * size + size / 2, cy = height / 2, r = height / 2 - 6;
      c.strokeStyle = fg;
      c.lineWidth = 1;
      c.globalAlpha = 0.3;
      c.beginPath();
      c.arc(cx, cy, r, 0, 2 * Math.PI);
      c.stroke();
      c.globalAlpha = 1;
      for (const [v, color] of [[qm, '#1f77b4'], [kn, '#e6550d']] as const) {
        const [x, y] = at(v, i);
        const len = Math.hypot(x, y) || 1;
        c.strokeStyle = color;
        c.lineWidth = 2;
        c.beginPath();
        c.moveTo(cx, cy);
        c.lineTo(cx + (x / len) * r, cy - (y / len) * r);
        c.stroke();
      }
    }
  };

  /** q.k at (m + s, n + s) for each shift s, for scalings whose frequencies do not depend on L. */
  const shiftedScores = (q: Float32Array, k: Float32Array, shifts: readonly number[]): number[] => {
    const d = st.headDim, N = shifts.length;
    // [1, N, d]: q (or k) repeated at each shifted position.
    const tile = (v: Float32Array): Float32Array => {
      const out = new Float32Array(N * d);
      for (let i = 0; i < N; i++) out.set(v, i * d);
      return out;
    };
    const at = (v: Float32Array, p0: number): Float32Array =>
      pe.applyRope(tile(v), {
        heads: 1, seqLen: N, headDim: d, rotaryDim: rotaryDim(), layout: st.layout, base: st.base, scaling: scaling(),
        positions: Int32Array.from(shifts, (sh) => p0 + sh),
      });
    const qs = at(q, st.m), ks = at(k, st.n);
    return shifts.map((_, i) => dot(qs.subarray(i * d, (i + 1) * d), ks.subarray(i * d, (i + 1) * d)));
  };

  const drawShift = (q: Float32Array, k: Float32Array): void => {
    // Far enough past the original context to show what happens there.
    const S = Math.min(POS_MAX - Math.max(st.m, st.n), Math.max(256, 4 * st.orig));
    const N = 65;
    const grid = Array.from({ length: N }, (_, i) => Math.round((i * S) / (N - 1)));
    // The last shift inside the original context and the first past it: a
    // step (LongRoPE) is drawn upright on the dashed mark, clear of its label.
    const edge = LENGTH_DEPENDENT.has(st.scaling) && breakAt() >= 1 && breakAt() <= S ? [breakAt() - 1, breakAt()] : [];
    const xs = [...new Set([...grid, ...edge])].sort((a, b) => a - b);
    const top = Math.max(st.m, st.n);
    const ys = LENGTH_DEPENDENT.has(st.scaling)
      // Each shift is its own sequence, with its own L (and frequencies).
      ? xs.map((sh) => dot(rot(q, st.m + sh, top + sh + 1), rot(k, st.n + sh, top + sh + 1)))
      // Frequencies fixed: every shift in one call for q and one for k.
      : shiftedScores(q, k, xs);
    // Plotted: the change from s = 0, q·k at (m, n) in the sequence holding
    // just them (for dynamic NTK and LongRoPE that is not the score above,
    // whose L includes the shift control). data-value keeps the scores themselves.
    shiftScore = ys[0]!;
    const change = ys.map((y) => y - shiftScore);
    shiftLo = Math.min(...change);
    shiftHi = Math.max(...change);
    shiftPlot.setData([xs, change]);
    shiftPlot.el.dataset.value = ys.join(',');
    shiftPlot.el.dataset.shifts = xs.join(',');
    shiftPlot.el.dataset.break = LENGTH_DEPENDENT.has(st.scaling) ? String(breakAt()) : '';
    shiftLook.dataset.i18n = LENGTH_DEPENDENT.has(st.scaling) ? 'rope.shiftDiff.look.dependent' : 'rope.shiftDiff.look.fixed';
    shiftLook.textContent = t(shiftLook.dataset.i18n as Key);
  };

  const update = coalesce(() => {
    const t0 = performance.now();
    // The select names the chosen model while every setting shows its value (moved back, it names it again).
    const showing = preset !== undefined && shows(preset) ? preset.id : 'custom';
    if (presetSel.input.value !== showing) {
      presetSel.input.value = showing;
      setParam('r.preset', showing);
    }
    root.dataset.preset = showing;
    const d = st.headDim, r = rotaryDim();
    const q = seeded(d, 7), k = seeded(d, 11);
    // One sequence holds both pairs: L = its longest position + 1.
    const L = Math.max(st.m, st.n, st.m + st.s, st.n + st.s) + 1;
    const qm = rot(q, st.m, L), kn = rot(k, st.n, L);
    const score = dot(qm, kn);
    const shifted = dot(rot(q, st.m + st.s, L), rot(k, st.n + st.s, L));
    // The same (m, n) pair in a shorter sequence: only L changes.
    const Ls = Math.max(st.m, st.n) + 1;
    const short = dot(rot(q, st.m, Ls), rot(k, st.n, Ls));
    const show = (o: HTMLOutputElement, v: number, digits = 5): void => {
      o.textContent = fmtNum(v, digits);
      o.dataset.value = String(v);
    };
    show(scoreOut, score);
    show(shiftedOut, shifted);
    show(shortOut, short);
    lengthOut.textContent = String(L);
    lengthOut.dataset.value = String(L);
    shortLengthOut.textContent = String(Ls);
    // Both lengths within the original context: the same frequencies, nothing moves (say so, and how to see it move).
    const same = LENGTH_DEPENDENT.has(st.scaling) && Math.max(L, Ls) <= st.orig;
    lengthNote.dataset.i18n = same ? 'rope.length.same' : LENGTH_DEPENDENT.has(st.scaling) ? 'rope.length.dependent' : 'rope.length.fixed';
    lengthNote.textContent = tf(lengthNote.dataset.i18n as Key, { orig: st.orig });
    shortOut.classList.toggle('zero', Math.abs(short - score) < 1e-4 * Math.max(1, Math.abs(score)));
    drawPairs(qm, kn);

    // The frequency views below do not depend on m, n or the shift unless the
    // scaling reads L: redrawn only when their inputs change (a position
    // slider then costs the pair dials, the scores and the shift chart).
    const freqKey = JSON.stringify([d, r, st.base, st.layout, scaling(), LENGTH_DEPENDENT.has(st.scaling) ? L : 0]);
    if (freqKey !== lastFreqKey) {
      lastFreqKey = freqKey;
      drawFrequencies(d, r, L);
    }
    drawShift(q, k);
    root.dataset.ms = (performance.now() - t0).toFixed(2);
  });

  let lastFreqKey = '';
  // The angle map, wavelengths, ramp and long-term decay for head size d,
  // rotary size r and (for dynamic NTK and LongRoPE) context length L.
  const drawFrequencies = (d: number, r: number, L: number): void => {
    const def = pe.ropeFrequencies({ headDim: d, rotaryDim: r, base: st.base });
    const sc = pe.ropeFrequencies({ headDim: d, rotaryDim: r, base: st.base, scaling: scaling(), seqLen: L });
    const P = 256;
    const ang = new Float32Array((r / 2) * P);
    for (let i = 0; i < r / 2; i++) {
      for (let p = 0; p < P; p++) {
        const a = (p * sc.invFreq[i]!) % (2 * Math.PI);
        ang[i * P + p] = a < 0 ? a + 2 * Math.PI : a;
      }
    }
    angles.draw(ang, r / 2, P);
    const idx = Array.from({ length: r / 2 }, (_, i) => i);
    wave.setData([idx, idx.map((i) => (2 * Math.PI) / def.invFreq[i]!), idx.map((i) => (2 * Math.PI) / sc.invFreq[i]!)]);
    ramp.setData([idx, idx.map((i) => sc.invFreq[i]! / def.invFreq[i]!)]);
    // The ratios as computed (tests compare them with a model's own factors).
    ramp.el.dataset.value = idx.map((i) => sc.invFreq[i]! / def.invFreq[i]!).join(',');
    ramp.el.id = 'rope-ramp';
    rampLook.set('rope.ramp.look', { inv: fmtNum(st.scaling === 'default' ? 1 : 1 / st.factor, 3).replace(/0+$/, '').replace(/\.$/, '') });
    titleRamp();

    // Long-term decay: all-ones q and k, q at distance D, k at 0.
    const DL = 1024;
    const ones = new Float32Array(DL * d).fill(1);
    // With the chosen scaling (one context length for the whole sequence).
    const rotated = pe.applyRope(ones, { heads: 1, seqLen: DL, headDim: d, rotaryDim: r, layout: st.layout, base: st.base, scaling: scaling(), contextLength: DL });
    const dist = Array.from({ length: DL }, (_, i) => i);
    decay.setData([dist, dist.map((i) => { let acc = 0; for (let e = 0; e < d; e++) acc += rotated[i * d + e]!; return acc; })]);
  };

  // Parameters of the chosen method only.
  const yarnParams = el('div', { class: 'controls sub' },
    c.betaFast.el,
    c.betaSlow.el);
  const llamaParams = el('div', { class: 'controls sub' },
    c.lowFreqFactor.el,
    c.highFreqFactor.el);
  const scalingSel = select<ScalingName>({ label: 'rope.scaling', param: 'r.scaling', value: st.scaling, options: scalingOptions(), onChange: (v) => { st.scaling = v; showParams(); update(); } });
  scalingSel.input.id = 'rope-scaling';
  const factorSl = c.factor, origSl = c.orig;
  const finer = el('div', { class: 'controls sub' }, origSl.el, yarnParams, llamaParams);
  const showParams = (): void => {
    factorSl.el.hidden = st.scaling === 'default';
    origSl.el.hidden = st.scaling === 'default' || st.scaling === 'linear' || st.scaling === 'ntk';
    yarnParams.hidden = st.scaling !== 'yarn';
    llamaParams.hidden = st.scaling !== 'llama3';
    finer.hidden = origSl.el.hidden && yarnParams.hidden && llamaParams.hidden;
  };
  showParams();
  const presetSel = select<string>({
    label: 'rope.preset', param: 'r.preset', value: preset?.id ?? 'custom',
    options: [['custom', () => t('rope.preset.custom')] as const, ...presets.map((p) => [p.id, () => presetLabel(p)] as const)],
    onChange: (v) => {
      preset = presets.find((p) => p.id === v);
      if (preset !== undefined) applyState(presetState(preset));
      update();
    },
  });
  presetSel.input.id = 'rope-preset';
  rampFigure.querySelector('div')!.replaceWith(ramp.el, rampLook.el);
  titleRamp();
  const layoutSel = select<RopeLayout>({ label: 'rope.layout', param: 'r.layout', value: st.layout, options: [['interleaved', () => t('rope.layout.interleaved')], ['half', () => t('rope.layout.half')]], onChange: (v) => { st.layout = v; update(); } });
  layoutSel.input.id = 'rope-layout';
  more.append(
    text('rope.more', 'summary'),
    el('div', { class: 'controls' }, presetSel.el, c.headDim.el, c.frac.el, c.base.el, layoutSel.el, scalingSel.el, factorSl.el),
    finer,
    text('rope.preset.note', 'p', 'note'),
  );
  // A link, preset or prompt that sets one of these shows them.
  const MORE_KEYS = ['r.preset', ...Object.keys(KEYS)];
  if (MORE_KEYS.some((k) => getParam(k) !== undefined)) more.open = true;
  for (const k of MORE_KEYS) beforeApply(k, () => { more.open = true; });
  root.append(
    rich('rope.lesson', 'p', 'lesson-lead'),
    lab({
      sticky: 'figures',
      controls: [
        el('div', { class: 'controls' },
          c.m.el,
          c.n.el,
          c.s.el),
        el('p', { class: 'result' }, text('rope.score'), ' = ', scoreOut, ' \u2003 ', text('rope.score.shifted'), ' = ', shiftedOut,
          ' \u2003 ', byLang('(', '（'), text('rope.length'), ' L = ', lengthOut, byLang(')', '）')),
        el('p', { class: 'result' }, text('rope.score.short'), sentenceGap(), 'L = ', shortLengthOut, text('rope.score.shortAt'), shortOut),
        lengthNote,
        figure('rope.pairs', pairsBox, text('rope.pairs.look', 'p', 'note look')),
        more,
      ],
      figures: [figure('rope.shiftDiff', shiftPlot.el, shiftLook)],
    }),
    el('div', { class: 'figs' },
      figure('rope.angles', angles.el, text('rope.angles.look', 'p', 'note look')),
      figure('rope.decay', decay.el, text('rope.decay.look', 'p', 'note look'))),
    el('div', { class: 'figs' },
      figure('rope.wavelength', wave.el, text('rope.wavelength.look', 'p', 'note look')),
      rampFigure),
  );
  // A link naming a preset shows its settings, whatever else it says.
  if (preset !== undefined && !shows(preset)) applyState(presetState(preset));
  update();
}
