// Section 3: the RoPE lab. Every rotation comes from pe.applyRope, every
// frequency from pe.ropeFrequencies (with the chosen scaling).
import type { RopeLayout, RopeScaling } from 'posenc';

import { Heatmap } from '../heatmap.js';
import { t } from '../i18n.js';
import { LinePlot } from '../plot.js';
import { getChoice, getNumber } from '../state.js';
import { coalesce, el, figure, fmtNum, select, slider, text } from '../ui.js';
import type { Ctx } from './context.js';

export const SCALINGS = ['default', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope'] as const;
export type ScalingName = (typeof SCALINGS)[number];

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

export function mountRope(ctx: Ctx, root: HTMLElement): void {
  const pe = ctx.pe;
  const st = {
    headDim: getNumber('r.d', 64, 8, 128),
    frac: getNumber('r.frac', 1, 0.25, 1),
    base: getNumber('r.base', 10000, 100, 1e6),
    layout: getChoice<RopeLayout>('r.layout', 'half', ['half', 'interleaved'] as const),
    scaling: getChoice<ScalingName>('r.scaling', 'default', SCALINGS),
    factor: getNumber('r.factor', 4, 1, 64),
    orig: getNumber('r.orig', 2048, 64, 32768),
    m: getNumber('r.m', 12, 0, 8192),
    n: getNumber('r.n', 5, 0, 8192),
    s: getNumber('r.s', 100, 0, 8192),
    betaFast: getNumber('r.bf', 32, 1, 128),
    betaSlow: getNumber('r.bs', 1, 0.25, 16),
    lowFreqFactor: getNumber('r.lf', 1, 0.25, 8),
    highFreqFactor: getNumber('r.hf', 4, 1, 32),
  };
  const rotaryDim = (): number => Math.max(2, 2 * Math.round((st.headDim * st.frac) / 2));
  const scaling = (): RopeScaling => makeScaling(st.scaling, st.factor, st.orig, rotaryDim(), st);

  const scoreOut = el('output', { id: 'rope-score', class: 'big' });
  const shiftedOut = el('output', { id: 'rope-score-shifted', class: 'big' });
  const pairs = el('canvas', { class: 'pairs', role: 'img', 'aria-label': 'rotation of each pair' });
  const angles = new Heatmap({ kind: 'sequential', label: 'RoPE angles', rowName: 'pair', colName: 'position', range: [0, 2 * Math.PI] });
  const decay = new LinePlot({ xLabel: () => t('rope.distance'), yLabel: () => 'q·k', series: [{ label: 'q·k' }], height: 220 });
  const wave = new LinePlot({
    xLabel: () => t('rope.pair'), yLabel: () => 'λ', series: [{ label: 'default' }, { label: 'scaled' }], height: 220, logY: true, points: true,
    hMarkers: () => [st.orig],
  });
  const ramp = new LinePlot({ xLabel: () => t('rope.pair'), yLabel: () => 'θ′/θ', series: [{ label: 'θ′/θ' }], height: 200, points: true });

  const rot = (v: Float32Array, pos: number): Float32Array =>
    pe.applyRope(v, { heads: 1, seqLen: 1, headDim: st.headDim, rotaryDim: rotaryDim(), layout: st.layout, base: st.base, scaling: scaling(), offset: pos });
  const dot = (a: Float32Array, b: Float32Array): number => a.reduce((acc, x, i) => acc + x * b[i]!, 0);

  const drawPairs = (qm: Float32Array, kn: Float32Array): void => {
    const half = rotaryDim() / 2;
    const show = Math.min(half, 8);
    const step = Math.max(1, Math.floor(half / show));
    const size = 86;
    const dpr = window.devicePixelRatio || 1;
    pairs.width = show * size * dpr;
    pairs.height = size * dpr;
    pairs.style.width = `${show * size}px`;
    const c = pairs.getContext('2d');
    if (!c) return;
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.clearRect(0, 0, show * size, size);
    const fg = getComputedStyle(document.documentElement).getPropertyValue('--fg').trim() || '#333';
    // Pair i is (x[i], x[i + half]) in the half layout, (x[2i], x[2i + 1]) interleaved.
    const at = (v: Float32Array, i: number): [number, number] =>
      st.layout === 'half' ? [v[i]!, v[i + half]!] : [v[2 * i]!, v[2 * i + 1]!];
    for (let s = 0; s < show; s++) {
      const i = s * step;
      const cx = s * size + size / 2, cy = size / 2 - 6, r = size / 2 - 14;
      c.strokeStyle = fg;
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
      c.fillStyle = fg;
      c.font = '11px system-ui, sans-serif';
      c.textAlign = 'center';
      c.fillText(`i=${i}`, cx, size - 3);
    }
  };

  const update = coalesce(() => {
    const t0 = performance.now();
    const d = st.headDim, r = rotaryDim();
    const q = seeded(d, 7), k = seeded(d, 11);
    const qm = rot(q, st.m), kn = rot(k, st.n);
    const score = dot(qm, kn);
    const shifted = dot(rot(q, st.m + st.s), rot(k, st.n + st.s));
    scoreOut.textContent = fmtNum(score, 5);
    scoreOut.dataset.value = String(score);
    shiftedOut.textContent = fmtNum(shifted, 5);
    shiftedOut.dataset.value = String(shifted);
    drawPairs(qm, kn);

    const seqLen = Math.max(st.m, st.n, st.m + st.s, st.n + st.s) + 1;
    const def = pe.ropeFrequencies({ headDim: d, rotaryDim: r, base: st.base });
    const sc = pe.ropeFrequencies({ headDim: d, rotaryDim: r, base: st.base, scaling: scaling(), seqLen });
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

    // Long-term decay: all-ones q and k, q at distance D, k at 0.
    const L = 1024;
    const ones = new Float32Array(L * d).fill(1);
    const rotated = pe.applyRope(ones, { heads: 1, seqLen: L, headDim: d, rotaryDim: r, layout: st.layout, base: st.base });
    const dist = Array.from({ length: L }, (_, i) => i);
    decay.setData([dist, dist.map((i) => { let acc = 0; for (let e = 0; e < d; e++) acc += rotated[i * d + e]!; return acc; })]);
    root.dataset.ms = (performance.now() - t0).toFixed(2);
  });

  const sl = (label: Parameters<typeof slider>[0]['label'], param: string, key: keyof typeof st, min: number, max: number, step: number, log = false) =>
    slider({ label, param, min, max, step, log, value: st[key] as number, onInput: (v) => { (st[key] as number) = v; update(); } });
  // Parameters of the chosen method only.
  const yarnParams = el('div', { class: 'controls sub' },
    sl('rope.betaFast', 'r.bf', 'betaFast', 1, 128, 1, true).el,
    sl('rope.betaSlow', 'r.bs', 'betaSlow', 0.25, 16, 0.25, true).el);
  const llamaParams = el('div', { class: 'controls sub' },
    sl('rope.lowFreq', 'r.lf', 'lowFreqFactor', 0.25, 8, 0.25, true).el,
    sl('rope.highFreq', 'r.hf', 'highFreqFactor', 1, 32, 0.25, true).el);
  const showParams = (): void => {
    yarnParams.hidden = st.scaling !== 'yarn';
    llamaParams.hidden = st.scaling !== 'llama3';
  };
  showParams();
  root.append(
    el('div', { class: 'controls' },
      sl('rope.m', 'r.m', 'm', 0, 8192, 1).el,
      sl('rope.n', 'r.n', 'n', 0, 8192, 1).el,
      sl('rope.shift', 'r.s', 's', 0, 8192, 1).el),
    el('p', { class: 'result' }, text('rope.score'), ' = ', scoreOut, ' \u2003 ', text('rope.score.shifted'), ' = ', shiftedOut),
    figure('rope.pairs', pairs),
    el('div', { class: 'controls' },
      sl('rope.headDim', 'r.d', 'headDim', 8, 128, 8).el,
      sl('rope.rotary', 'r.frac', 'frac', 0.25, 1, 0.25).el,
      sl('rope.base', 'r.base', 'base', 100, 1e6, 1, true).el,
      select<RopeLayout>({ label: 'rope.layout', param: 'r.layout', value: st.layout, options: [['half', 'half (GPT-NeoX, Llama)'], ['interleaved', 'interleaved (GPT-J, RoFormer)']], onChange: (v) => { st.layout = v; update(); } }).el,
      select<ScalingName>({ label: 'rope.scaling', param: 'r.scaling', value: st.scaling, options: SCALINGS.map((s) => [s, s] as const), onChange: (v) => { st.scaling = v; showParams(); update(); } }).el,
      sl('rope.factor', 'r.factor', 'factor', 1, 64, 1, true).el,
      sl('rope.orig', 'r.orig', 'orig', 64, 32768, 64, true).el,
      yarnParams, llamaParams),
    el('div', { class: 'figs' }, figure('rope.angles', angles.el), figure('rope.decay', decay.el)),
    el('div', { class: 'figs' }, figure('rope.wavelength', wave.el), figure('rope.ramp', ramp.el)),
  );
  update();
}
