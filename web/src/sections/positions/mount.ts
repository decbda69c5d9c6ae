// Section "positions": the position id of every token, scenario by
// scenario (prefill, KV-cache decoding, left padding, sliding window, the
// restart bug), the attention map those ids produce (ctx.pe.attention and
// ctx.pe.KvCache, RoPE inside) and what wrong ids cost a shipped model (the
// Worker's `bugLoss`). Then "RoPE and left padding: when it matters".
// Text: ./text.ts.
import './style.css';

import type { AttentionOptions, Posenc } from 'posenc';

import { errorText, onLangChange, t, type Key } from '../../i18n.js';
import { MapView } from '../../mapview.js';
import { chipRow, lossTable, rename, ropeFacts, seeded, type LossSpec } from '../../poscommon.js';
import {
  cachedIds, cachedSteps, idsFromMask, inWindow, leftPadMask, prefillIds, restartIds, type Step,
} from '../../posids.js';
import { EVAL_SET } from '../../evalset.js';
import { getBool, getChoice } from '../../state.js';
import { liveText, valueGap } from '../../textfill.js';
import { checkbox, coalesce, el, fmtNum, numberControl, select, text, whenNear } from '../../ui.js';
import type { Ctx } from '../context.js';
import { mountPaddingPanel, PADS } from './padding.js';

/** Logit scale of the demo maps: sharper than 1/sqrt(d), so the band the ids draw is easy to see. */
const SCALE = 0.35;
/**
 * Head dim and RoPE base of the demo maps' vectors: a demo choice (the maps
 * are drawn at once, on the page's thread, and show the ids, not a model).
 * The loss tables below use the shipped models themselves.
 */
const HEAD_DIM = 16;
const ROPE_BASE = 10000;

const SCENARIOS = ['prefill', 'kv', 'padding', 'window', 'restart'] as const;
type Scenario = (typeof SCENARIOS)[number];

/**
 * q = k for T tokens, `[1, T, HEAD_DIM]`: one shared vector plus a little
 * per-token noise, so the scores depend mostly on the rotation, i.e. on the
 * ids: the map then shows the ids, not the content.
 */
function tokensQk(T: number): Float32Array {
  const c = seeded(HEAD_DIM, 5);
  const noise = seeded(T * HEAD_DIM, 17);
  return Float32Array.from({ length: T * HEAD_DIM }, (_, e) => 1.6 * c[e % HEAD_DIM]! + 0.35 * noise[e]!);
}

const rope = { layout: 'half', base: ROPE_BASE } as const;

/**
 * `[T, T]` weights of one self-attention call over `x: [1, T, D]` (q = k = v);
 * cells `hidden(i, j)` set to -Infinity (drawn grey).
 */
function attentionMap(pe: Posenc, x: Float32Array, T: number, extra: Partial<AttentionOptions>,
  hidden: (i: number, j: number) => boolean): Float32Array {
  const r = pe.attention({
    q: x, k: x, v: x, heads: 1, queryLength: T, keyLength: T, headDim: HEAD_DIM, scale: SCALE,
    returnWeights: true, rope, ...extra,
  });
  const w = r.weights!;  // [1, T, T]
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) if (hidden(i, j)) w[i * T + j] = -Infinity;
  return w;
}

/**
 * A cached run: each step appends its keys to a KvCache at `ids` and attends
 * its queries (at the same ids) over everything cached. Returns the stacked
 * `[L, L]` weights, future keys -Infinity.
 */
function cachedMap(pe: Posenc, ids: readonly number[], steps: readonly Step[]): Float32Array {
  const L = ids.length;
  const x = tokensQk(L);
  const out = new Float32Array(L * L).fill(-Infinity);
  const cache = new pe.KvCache({ kvHeads: 1, headDim: HEAD_DIM, rope });
  try {
    for (const s of steps) {
      const seg = x.slice(s.start * HEAD_DIM, (s.start + s.length) * HEAD_DIM);  // [1, n, D]
      const pos = Int32Array.from(ids.slice(s.start, s.start + s.length));
      cache.append(seg, seg, { positions: pos });
      const keys = s.start + s.length;
      const w = cache.attend(seg, { heads: 1, queryLength: s.length, scale: SCALE, returnWeights: true, queryPositions: pos }).weights!;
      for (let i = 0; i < s.length; i++) {
        for (let j = 0; j <= s.start + i; j++) out[(s.start + i) * L + j] = w[i * keys + j]!;
      }
    }
  } finally {
    cache.delete();
  }
  return out;
}

/** Mean over the query rows of the attended distance, sum_j w_ij (i - j), in tokens (masked cells skipped). */
function lookback(w: Float32Array, n: number): number {
  let sum = 0, rows = 0;
  for (let i = 0; i < n; i++) {
    let row = 0, mass = 0;
    for (let j = 0; j < n; j++) {
      const v = w[i * n + j]!;
      if (v === -Infinity) continue;
      row += v * (i - j);
      mass += v;
    }
    if (mass > 0) {
      sum += row;
      rows++;
    }
  }
  return rows ? sum / rows : 0;
}

/** Token names: letters (content, not position). */
const tokenName = (i: number): string => String.fromCharCode(65 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : '');

/** The loss table of a scenario: padding puts the counting shown above first; window evaluates with the window W. */
function lossSpec(st: State, trainLen: number): LossSpec {
  switch (st.sc) {
    case 'prefill':
    case 'kv':
      return { bug: 'none', models: ['language-rope'], length: trainLen };
    case 'padding':
      // The counted ids (pads … trainLen − 1) stay inside the trained positions.
      return {
        bug: 'left-padding-in-positions', models: ['language-sinusoidal', 'language-learned', 'language-rope'], length: trainLen - PADS,
        current: st.count ? 'buggy' : 'clean',
      };
    case 'window':
      return { bug: 'none', models: ['language-rope', 'language-alibi', 'language-sinusoidal', 'language-learned'], length: trainLen, window: st.W };
    case 'restart':
      return { bug: 'restart-positions', models: ['language-rope', 'language-xpos', 'language-sinusoidal', 'language-learned'], length: trainLen };
  }
}

interface State {
  sc: Scenario;
  T: number;
  N: number;
  G: number;
  step: number;
  W: number;
  P: number;
  count: boolean;
}

/** The chip rows and the maps of one scenario. */
function scenarioView(pe: Posenc, st: State): { rows: HTMLElement[]; maps: Array<{ data: Float32Array; n: number; caption: Key }>; diff?: number } {
  const { T } = st;
  switch (st.sc) {
    case 'prefill': {
      const ids = prefillIds(T);
      return {
        rows: [chipRow({ id: 'pos-ids', tokens: ids.map(tokenName), ids, cls: [] })],
        maps: [{ data: attentionMap(pe, tokensQk(T), T, {}, (i, j) => j > i), n: T, caption: 'positions.map.main' }],
      };
    }
    case 'kv':
    case 'restart': {
      const steps = cachedSteps(st.N, st.G, st.step);
      const ids = st.sc === 'kv' ? cachedIds(steps) : restartIds(steps);
      const L = ids.length;
      const cls = ids.map((_, i) => {
        const k = steps.findIndex((s) => i >= s.start && i < s.start + s.length);
        return k === 0 ? 'prompt' : `gen${k % 2 ? ' odd' : ''}${st.sc === 'restart' ? ' bad' : ''}`;
      });
      return {
        rows: [chipRow({ id: 'pos-ids', tokens: ids.map((_, i) => tokenName(i)), ids, cls, ...(st.N > 10 ? { elide: [3, st.N - 3] as [number, number] } : {}) })],
        maps: [{ data: cachedMap(pe, ids, steps), n: L, caption: 'positions.map.main' }],
      };
    }
    case 'padding': {
      const maskB = leftPadMask(T, st.P);
      const idsB = st.count ? prefillIds(T) : idsFromMask(maskB);
      const idsA = idsFromMask(leftPadMask(T, 0));
      const hiddenB = (i: number, j: number): boolean => j > i || !maskB[j] || !maskB[i];
      // Row B holds row A's first T - P tokens after P zero pads.
      const xA = tokensQk(T);
      const xB = new Float32Array(T * HEAD_DIM);
      xB.set(xA.subarray(0, (T - st.P) * HEAD_DIM), st.P * HEAD_DIM);
      const padded = (positionsFromPadding: boolean): Float32Array => attentionMap(pe, xB, T, {
        keyPadding: Uint8Array.from(maskB), rope: { ...rope, ...(positionsFromPadding ? { positionsFromPadding: true } : {}) },
      }, hiddenB);
      const shown = padded(!st.count);
      // How much the map moves when the pads are counted (RoPE: float rounding only).
      const other = padded(st.count);
      let diff = 0;
      for (let e = 0; e < shown.length; e++) if (Number.isFinite(shown[e]!)) diff = Math.max(diff, Math.abs(shown[e]! - other[e]!));
      return {
        rows: [
          chipRow({ id: 'pos-ids-a', tokens: idsA.map(tokenName), ids: idsA, cls: [], mask: leftPadMask(T, 0), label: 'positions.rowA' }),
          chipRow({
            id: 'pos-ids', tokens: maskB.map((m, i) => (m ? tokenName(i - st.P) : '<pad>')), ids: idsB,
            cls: maskB.map((m) => (m ? (st.count ? 'bad' : '') : 'pad')), mask: maskB, label: 'positions.rowB',
          }),
        ],
        maps: [
          { data: attentionMap(pe, xA, T, {}, (i, j) => j > i), n: T, caption: 'positions.map.rowA' },
          { data: shown, n: T, caption: 'positions.map.rowB' },
        ],
        diff,
      };
    }
    case 'window': {
      const ids = prefillIds(T);
      const cls = ids.map((_, j) => (inWindow(T - 1, j, st.W) ? '' : 'dropped'));
      return {
        rows: [chipRow({ id: 'pos-ids', tokens: ids.map(tokenName), ids, cls })],
        maps: [{ data: attentionMap(pe, tokensQk(T), T, { window: st.W }, (i, j) => !inWindow(i, j, st.W)), n: T, caption: 'positions.map.window' }],
      };
    }
  }
}

function mountScenarios(ctx: Ctx, root: HTMLElement): void {
  /** The window the loss table was last run with. */
  let lossW = NaN;
  /** A pending runLoss after a window change (runLossSoon). */
  let timer: ReturnType<typeof setTimeout> | undefined;
  const sl = (label: Key, param: string, key: 'T' | 'N' | 'G' | 'step' | 'W' | 'P', min: number, max: number, initial: number) => {
    const c = numberControl({ label, param, min, max, step: 1, initial }, () => {
      clampState();
      update();
      if (st.sc === 'window' && st.W !== lossW) runLossSoon();
    });
    rename(c, `pos-${key}`);
    return c;
  };
  const ctl = {
    T: sl('positions.T', 'p.T', 'T', 4, 64, 16),
    N: sl('positions.N', 'p.N', 'N', 1, 128, 8),
    G: sl('positions.G', 'p.G', 'G', 1, 16, 8),
    step: sl('positions.step', 'p.step', 'step', 1, 16, 1),
    W: sl('positions.W', 'p.W', 'W', 1, 64, 4),
    P: sl('positions.P', 'p.P', 'P', 1, 60, 5),
  };
  const st: State = {
    sc: getChoice<Scenario>('p.sc', 'kv', SCENARIOS),
    get T() { return ctl.T.value(); },
    get N() { return ctl.N.value(); },
    get G() { return ctl.G.value(); },
    get step() { return ctl.step.value(); },
    get W() { return ctl.W.value(); },
    get P() { return ctl.P.value(); },
    count: getBool('p.count', false),
  };
  const about = el('p', { class: 'explain', id: 'pos-about' });
  const rowsBox = el('div', { class: 'pos-rows', 'aria-live': 'polite' });
  const legend = el('p', { class: 'note pos-legend' });
  const mapViews = [0, 1].map((k) => new MapView({
    id: k === 0 ? 'pos-map' : 'pos-map-2', label: 'positions.map.main', rowAxis: 'positions.axis.query', colAxis: 'positions.axis.key',
    barLabel: 'positions.bar', range: [0, 1],
  }));
  const captions = [0, 1].map(() => el('figcaption'));
  const lookbacks = [0, 1].map((k) => el('output', { id: k === 0 ? 'pos-lookback' : 'pos-lookback-2' }));
  const figs = mapViews.map((m, k) => el('figure', { class: 'pos-fig' }, captions[k]!, m.el,
    el('p', { class: 'note' }, text('positions.lookback'), valueGap(), lookbacks[k]!)));
  const look = el('p', { class: 'note', id: 'pos-look' });
  const diffOut = el('output', { id: 'pos-pad-diff', class: 'big zero' });
  const diffLine = el('p', { class: 'result' }, text('positions.pad.diff'), valueGap(), diffOut);
  const lossBox = el('div', { id: 'pos-loss' });
  // The table's title per scenario: the window keeps the ids and limits the keys instead (review N11).
  const lossTitle = text('positions.loss.title', 'h3');
  lossTitle.id = 'pos-loss-title';
  const lossPart = el('div', { id: 'pos-loss-part', hidden: '' }, lossTitle, lossBox);
  let near = false;

  const countBox = checkbox({ label: 'positions.count', param: 'p.count', value: st.count, onChange: (v) => { st.count = v; update(); runLoss(); } });
  rename(countBox, 'pos-count');
  const clampState = (): void => {
    if (st.P > st.T - 1) ctl.P.set(st.T - 1);
    if (st.W > st.T) ctl.W.set(st.T);
  };
  clampState();
  const showControls = (): void => {
    const used: Record<Scenario, Array<keyof typeof ctl | 'count'>> = {
      prefill: ['T'], kv: ['N', 'G', 'step'], restart: ['N', 'G', 'step'], padding: ['T', 'P', 'count'], window: ['T', 'W'],
    };
    for (const [k, c] of Object.entries(ctl)) c.el.hidden = !used[st.sc].includes(k as keyof typeof ctl);
    countBox.el.hidden = !used[st.sc].includes('count');
  };

  // Each table replaces the one before; only the latest marks the box ready.
  let generation = 0;
  const runLoss = (): void => {
    clearTimeout(timer);
    delete lossBox.dataset.ready;
    const gen = ++generation;
    lossW = st.W;
    if (!near) return;
    const sc = st.sc;
    // The tables' length is the shipped models' training length (Worker describe).
    ropeFacts(ctx).then(({ trainLen }) => {
      if (gen !== generation) return;
      const spec = lossSpec(st, trainLen);
      const about = liveText('p', 'note');
      // The ids the model was trained with have nothing to compare against: the table waits (hidden)
      // for a scenario with wrong ids or a window, whose 'correct' column is this same number (review B7).
      const reference = spec.bug === 'none' && spec.window === undefined;
      lossPart.hidden = reference;
      lossTitle.dataset.i18n = sc === 'window' ? 'positions.loss.title.window' : 'positions.loss.title';
      lossTitle.textContent = t(lossTitle.dataset.i18n as Key);
      about.set(reference ? 'positions.loss.reference' : `positions.loss.about.${sc}` as Key,
        { M: trainLen, n: trainLen - PADS, pads: PADS, last: trainLen - 1, count: EVAL_SET.examples });
      lossBox.replaceChildren(about.el, lossTable(ctx, spec, 'pos-loss', () => { if (gen === generation) lossBox.dataset.ready = sc; }));
    }, (e: unknown) => {
      if (gen !== generation) return;
      lossPart.hidden = false;
      const fail = el('p', { class: 'error' });
      const show = (): void => { fail.textContent = errorText(e); };
      show();
      onLangChange(show, fail);
      lossBox.replaceChildren(fail);
    });
  };

  // A dragged window slider asks for one table, once it rests (each table is 4 models on the whole evaluation set).
  const runLossSoon = (): void => {
    delete lossBox.dataset.ready;
    lossW = st.W;
    clearTimeout(timer);
    timer = setTimeout(runLoss, 250);
  };

  const update = coalesce(() => {
    const t0 = performance.now();
    const v = scenarioView(ctx.pe, st);
    rowsBox.replaceChildren(...v.rows);
    v.maps.forEach((m, k) => {
      mapViews[k]!.draw(m.data, m.n, m.n);
      const d = lookback(m.data, m.n);
      lookbacks[k]!.textContent = fmtNum(d, 3);
      lookbacks[k]!.dataset.value = String(d);
      captions[k]!.dataset.i18n = m.caption;
      captions[k]!.textContent = t(m.caption);
    });
    figs[1]!.hidden = v.maps.length < 2;
    // The unused second map still holds a drawing (every canvas on the page has data).
    if (v.maps.length < 2) mapViews[1]!.draw(v.maps[0]!.data, v.maps[0]!.n, v.maps[0]!.n);
    diffLine.hidden = v.diff === undefined;
    if (v.diff !== undefined) {
      diffOut.textContent = fmtNum(v.diff, 3);
      diffOut.dataset.value = String(v.diff);
    }
    root.dataset.scenario = st.sc;
    root.dataset.ms = (performance.now() - t0).toFixed(2);
  });
  const describe = (): void => {
    about.textContent = t(`positions.sc.${st.sc}` as Key);
    look.textContent = t(`positions.look.${st.sc}` as Key);
    legend.textContent = t(`positions.legend.${st.sc}` as Key);
  };
  onLangChange(describe);

  const scSel = select<Scenario>({
    label: 'positions.scenario', param: 'p.sc', value: st.sc,
    options: SCENARIOS.map((s) => [s, () => t(`positions.scenario.${s}` as Key)] as const),
    onChange: (v) => { st.sc = v; showControls(); describe(); update(); runLoss(); },
  });
  rename(scSel, 'pos-scenario');
  root.append(
    el('div', { class: 'controls' }, scSel.el, ...Object.values(ctl).map((c) => c.el), countBox.el),
    about, rowsBox, legend,
    el('div', { class: 'figs' }, ...figs),
    look, diffLine,
    lossPart,
  );
  showControls();
  describe();
  update();
  runLoss();
  whenNear(root, () => {
    near = true;
    runLoss();
  });
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  mountScenarios(ctx, root);
  mountPaddingPanel(ctx, root);
}
