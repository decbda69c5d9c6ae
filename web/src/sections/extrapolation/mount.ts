// Section "extrapolation": train short, test long. Per-position loss of the shipped
// language models up to 1024 tokens (the Worker evaluates them), RoPE
// scaling applied live, retrieval accuracy by length, and attention maps of
// a long sequence; then the eight families side by side, with the band of
// three training seeds for every number (families.ts).
import type { RopeScaling, TaskReference } from 'posenc';

import './style.css';
import { AxedHeatmap, type ColourScale } from '../../axes.js';
import { encodingLabel, scalingLabel } from '../../encname.js';
import { errorText, isKey, onLangChange, t, type Key } from '../../i18n.js';
import { LinePlot, type LineSeries } from '../../plot.js';
import { CUSTOM, SHIPPED } from '../../protocol.js';
import { SEEDS } from '../../seedbands.js';
import { getChoice } from '../../state.js';
import { liveText, tf, tidyCjk } from '../../textfill.js';
import { coalesce, el, figure, lazyPanel, numberControl, select, showError, text, whenNear } from '../../ui.js';
import type { Ctx } from '../context.js';
import { makeScaling } from '../rope/mount.js';
import { mountFamilies } from './families.js';
import { mountWavelengths } from './wavelengths.js';

const LENGTHS = [64, 128, 256, 512, 1024] as const;
const EXT_SCALINGS = ['none', 'linear', 'ntk', 'dynamic', 'yarn'] as const;
type ExtScaling = (typeof EXT_SCALINGS)[number];

/**
 * One colour per encoding, the same in every chart of the page section
 * (also when the reader's own model is added). The RoPE model with a live
 * scaling has its own colour (SCALED_COLOUR, olive, used by no encoding), dashed.
 */
export const ENCODING_COLOURS: Readonly<Record<string, string>> = {
  nope: '#7f7f7f', sinusoidal: '#9467bd', learned: '#8c564b', rope: '#1f77b4', alibi: '#2ca02c',
  t5: '#e6550d', shaw: '#e377c2', xpos: '#17becf', [CUSTOM]: '#d62728',
};

export const SCALED_COLOUR = '#bcbd22';

/** The encoding name of a model id ('language-rope' -> 'rope'; CUSTOM stays). */
const encodingOf = (model: string): string => model.replace(/^(language|retrieval)-/, '');
const seriesOf = (model: string): LineSeries => {
  const e = encodingOf(model);
  return { label: e === CUSTOM ? () => t('extrapolation.yours') : () => encodingLabel(e), color: ENCODING_COLOURS[e] ?? '#000000', width: 1.75 };
};

/** The scaled RoPE curve's legend: `rope + yarn ×4` in English (the API's ids), `RoPE + YaRN ×4` in Chinese. */
const scaledLabel = (s: string, f: number): () => string => () => `${encodingLabel('rope')} + ${scalingLabel(s)} ×${f}`;

/** Ticks of a power-of-two axis from `lo` to `hi`. */
const powersOfTwo = (lo: number, hi: number): number[] => {
  const out: number[] = [];
  for (let v = lo; v <= hi; v *= 2) out.push(v);
  return out;
};

/**
 * Means of `v` over log-spaced bins of the 1-based position x = index + 1
 * (four bins per doubling), placed at each bin's geometric centre; `xs` are
 * the centres for `length` positions, shorter curves end with nulls.
 */
export function logBins(length: number): Array<[number, number]> {
  const edges: number[] = [1];
  for (let k = 1; edges[edges.length - 1]! <= length; k++) {
    const e = Math.round(2 ** (k / 4));
    if (e > edges[edges.length - 1]!) edges.push(Math.min(e, length + 1));
    if (e > length) break;
  }
  const bins: Array<[number, number]> = [];
  for (let b = 0; b + 1 < edges.length; b++) bins.push([edges[b]!, edges[b + 1]!]);
  return bins;
}
function binLog(v: Float64Array, bins: Array<[number, number]>): Array<number | null> {
  return bins.map(([a, b]) => {
    let sum = 0, n = 0;
    for (let x = a; x < b && x - 1 < v.length; x++) if (Number.isFinite(v[x - 1]!)) { sum += v[x - 1]!; n++; }
    return n ? sum / n : null;
  });
}

/** Means of `v` over bins of `w` positions (NaN bins skipped in the mean). */
export function bin(v: Float64Array, w: number): { x: number[]; y: Array<number | null> } {
  const x: number[] = [];
  const y: Array<number | null> = [];
  for (let s = 0; s < v.length; s += w) {
    let sum = 0, n = 0;
    for (let i = s; i < Math.min(s + w, v.length); i++) if (Number.isFinite(v[i]!)) { sum += v[i]!; n++; }
    x.push(s + (Math.min(w, v.length - s) - 1) / 2);
    y.push(n ? sum / n : null);
  }
  return { x, y };
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  // The references come from the task generators in the core, not from measurement.
  // The references come from the task generators (in the Worker, which has the models module).
  let ENTROPY = NaN;
  const retrieval = { chanceAccuracy: NaN };
  // A select over LENGTHS (not a slider): the URL value must be one of them.
  let length = Number(getChoice('e.len', '512', LENGTHS.map(String)));
  let scaling = getChoice<ExtScaling>('e.scaling', 'yarn', EXT_SCALINGS);
  const factorControl = numberControl({ param: 'e.factor', label: 'extrapolation.factor', initial: 4, min: 1, max: 32, step: 1, log: true }, () => runLoss());
  const status = el('p', { class: 'status', 'aria-live': 'polite' });
  // The training length, read from the models as they load (all share it).
  let TRAIN = NaN;
  const trainOut = el('output', { id: 'ext-train' }, '…');
  // The log x axis starts at the first position that has a loss (the task scores
  // from its third token on), not at 1: no empty stretch at the left (review N12).
  let firstX = 1;
  const lossPlot = new LinePlot({
    xLabel: () => t('extrapolation.x.position'), yLabel: () => t('plot.loss'), series: [], height: 320, logX: true,
    xTicks: () => [firstX, ...powersOfTwo(1, length).filter((v) => v > firstX)], xRange: () => [firstX, length],
    markers: () => (Number.isFinite(TRAIN) ? [TRAIN] : []), hMarkers: () => (Number.isFinite(ENTROPY) ? [ENTROPY] : []),
    markerText: () => [t('extrapolation.marker.train')], hMarkerText: () => [t('extrapolation.marker.entropy')],
    endLabels: true, highlight: true,
  });
  lossPlot.el.id = 'ext-loss';
  const retrievalPlot = new LinePlot({
    xLabel: () => t('extrapolation.x.length'), yLabel: () => t('plot.accuracy'), series: [], height: 280, logX: true, points: true,
    markers: () => (Number.isFinite(TRAIN) ? [TRAIN] : []), hMarkers: () => (Number.isFinite(retrieval.chanceAccuracy) ? [retrieval.chanceAccuracy] : []), markerText: () => [t('extrapolation.marker.train')], hMarkerText: () => [t('extrapolation.marker.chance')],
    xRange: [56, 1200], xTicks: [...LENGTHS], yRange: [0, 1.02], endLabels: true, highlight: true, legendRows: 2,
  });
  retrievalPlot.el.id = 'ext-retrieval';
  let mapScale = getChoice<ColourScale>('e.mapScale', 'log', ['log', 'row']);
  const map = new AxedHeatmap({ kind: 'sequential', label: () => t('extrapolation.maps'), rowName: () => t('ax.query'), colName: () => t('ax.key'), y: 'ax.query', x: 'ax.key', value: 'ax.weight', scale: mapScale, decades: 4 });
  map.canvas.id = 'ext-map';
  map.el.id = 'ext-map-axes';
  const mapLook = el('p', { class: 'note look', id: 'ext-map-look' });
  const showMapLook = (): void => {
    mapLook.dataset.i18n = `extrapolation.maps.look.${mapScale}`;
    mapLook.textContent = t(mapLook.dataset.i18n as Key);
  };
  showMapLook();
  // Where each model's line ends (learned: its table size), from the models themselves.
  const stops = el('p', { class: 'note', id: 'ext-stops' });
  const stopInfo = new Map<string, number>();
  // The encoding's name as the text names it (正弦位置编码 / 可学习位置编码 in Chinese).
  const stopName = (name: string): string => {
    const key = `pipeline.name.${name}`;
    return isKey(key) ? t(key) : name;
  };
  const showStops = (): void => {
    stops.textContent = tidyCjk([...stopInfo].map(([name, n]) => `${t('extrapolation.stops')}${t('colon')}${stopName(name)} ${tf('extrapolation.stops.learned', { n: String(n) })}`).join(' '));
    stops.dataset.value = JSON.stringify(Object.fromEntries(stopInfo));
  };
  onLangChange(showStops);
  const chanceText = el('p', { class: 'note', id: 'ext-chance' });
  const showChance = (): void => {
    if (!Number.isFinite(retrieval.chanceAccuracy)) return;
    chanceText.dataset.value = String(retrieval.chanceAccuracy);
    const v = Math.round(1 / retrieval.chanceAccuracy);
    chanceText.textContent = tf('extrapolation.chance.explain', { v: String(v), p: `${(100 * retrieval.chanceAccuracy).toFixed(1)}%` });
  };
  showChance();
  onLangChange(showChance);

  /** The chosen scaling of the shipped RoPE model (its training length and rotary dim from the Worker's describe). */
  const scalingSpec = async (): Promise<RopeScaling | undefined> => {
    if (scaling === 'none') return undefined;
    const { config } = await ctx.worker.call('describe', { model: 'language-rope' });
    return makeScaling(scaling, factorControl.value(), config.trainLen, config.rotaryDim);
  };

  let generation = 0;
  const runLoss = coalesce(() => {
    const gen = ++generation;
    const factor = factorControl.value();
    const names = [...SHIPPED.language.map((e) => `language-${e}`)];
    if (ctx.custom?.task === 'language') names.push(CUSTOM);
    // The scaled RoPE curve only when a scaling is chosen (else it would repeat rope's).
    const series: LineSeries[] = [...names.map(seriesOf),
      ...(scaling === 'none' ? [] : [{ label: scaledLabel(scaling, factor), color: SCALED_COLOUR, dash: [6, 3], width: 2.25 }])];
    const curves: Array<Float64Array | undefined> = series.map(() => undefined);
    const draw = (): void => {
      const bins = logBins(length);
      const xs = bins.map(([a, b]) => Math.sqrt(a * (b - 1)));
      const ys = curves.map((c) => (c ? binLog(c, bins) : xs.map(() => null)));
      const first = xs.findIndex((_, k) => ys.some((y) => y[k] != null));
      if (first >= 0) firstX = xs[first]!;
      lossPlot.el.dataset.firstX = String(firstX);
      lossPlot.setData([xs, ...ys], series);
    };
    status.classList.remove('error');
    status.textContent = t('extrapolation.running');
    status.dataset.i18n = 'extrapolation.running';
    const examples = length >= 512 ? 6 : 12;
    const jobs = names.map((name, i) => async () => {
      const info = await ctx.worker.call('describe', { model: name });
      const L = Math.min(length, info.config.encoding === 'learned' ? info.config.maxLen : length);
      if (name !== CUSTOM) {
        TRAIN = info.config.trainLen;
        trainOut.textContent = String(TRAIN);
      }
      if (info.config.encoding === 'learned') {
        stopInfo.set(encodingOf(name) === CUSTOM ? t('extrapolation.yours') : encodingOf(name), info.config.maxLen);
        showStops();
      }
      const [r] = await ctx.worker.call('evaluate', { model: name, lengths: [L], examples });
      if (gen === generation) curves[i] = r!.positionLoss;
    });
    if (scaling !== 'none') jobs.push(async () => {
      const s = await scalingSpec();
      const [r] = await ctx.worker.call('evaluate', { model: 'language-rope', lengths: [length], examples, ...(s ? { scaling: s } : {}) });
      if (gen === generation) curves[series.length - 1] = r!.positionLoss;
    });
    void (async () => {
      for (const job of jobs) {
        if (gen !== generation) return;
        await job();
        if (gen === generation) draw();
      }
      if (gen === generation) {
        status.textContent = '';
        delete status.dataset.i18n;
        lossPlot.el.dataset.ready = String(length);
      }
    })().catch((e: unknown) => showError(status, e));
  });

  const runRetrieval = async (): Promise<void> => {
    const names = SHIPPED.retrieval.map((e) => `retrieval-${e}`);
    if (ctx.custom?.task === 'retrieval') names.push(CUSTOM);
    const acc: Array<Array<number | null>> = names.map(() => LENGTHS.map(() => null));
    for (let i = 0; i < names.length; i++) {
      const info = await ctx.worker.call('describe', { model: names[i]! });
      const lengths = LENGTHS.filter((L) => info.config.encoding !== 'learned' || L <= info.config.maxLen);
      const res = await ctx.worker.call('evaluate', { model: names[i]!, lengths, examples: 8 });
      for (const r of res) acc[i]![LENGTHS.indexOf(r.length as (typeof LENGTHS)[number])] = r.accuracy;
      retrievalPlot.setData([[...LENGTHS], ...acc], names.map(seriesOf));
    }
    retrievalPlot.el.dataset.ready = '1';
  };

  // Attention maps of one task sequence.
  let mapModel = getChoice('e.map', 'language-alibi', SHIPPED.language.map((e) => `language-${e}`));
  const layerControl = numberControl({ param: 'e.layer', label: 'extrapolation.mapLayer', initial: 1, min: 0, max: 1, step: 1 }, () => drawMap());
  const headControl = numberControl({ param: 'e.head', label: 'extrapolation.mapHead', initial: 0, min: 0, max: 3, step: 1 }, () => drawMap());
  const mapLenControl = numberControl({ param: 'e.mapLen', label: 'extrapolation.length', initial: 256, min: 64, max: 512, step: 64 }, () => loadMaps());
  let maps: { maps: Float32Array; layers: number; heads: number; T: number } | undefined;
  const drawMap = (): void => {
    if (!maps) return;
    const { T } = maps;
    const l = Math.min(layerControl.value(), maps.layers - 1), h = Math.min(headControl.value(), maps.heads - 1);
    map.draw(maps.maps.subarray(((l * maps.heads) + h) * T * T, ((l * maps.heads) + h + 1) * T * T), T, T);
    map.el.dataset.ready = String(T);
  };
  const loadMaps = coalesce(() => {
    const mapLen = mapLenControl.value();
    void (async () => {
      const tokens = await ctx.worker.call('sample', { task: 'language', length: mapLen, seed: 7 });
      const r = await ctx.worker.call('maps', { model: mapModel, tokens });
      maps = { ...r, T: mapLen };
      drawMap();
    })().catch((e: unknown) => { map.canvas.title = errorText(e); });
  });

  // The factor means nothing without a scaling: its slider and box are disabled then.
  const syncFactor = (): void => {
    for (const i of factorControl.el.querySelectorAll('input')) i.disabled = scaling === 'none';
  };
  const extScaling = select<ExtScaling>({ label: 'extrapolation.scaling', param: 'e.scaling', value: scaling, options: EXT_SCALINGS.map((s) => [s, () => t(`scaling.${s}`)] as const), onChange: (v) => { scaling = v; syncFactor(); runLoss(); } });
  syncFactor();
  extScaling.input.id = 'ext-scaling';
  // First why RoPE breaks (each pair's wavelength against the training
  // length), then what the models measure.
  const entropyOut = el('output', { id: 'ext-entropy' }, '…');
  const showReferences = ([language, ret]: TaskReference[]): void => {
    ENTROPY = language!.entropyRate!;
    retrieval.chanceAccuracy = ret!.chanceAccuracy;
    entropyOut.dataset.value = String(ENTROPY);
    entropyOut.textContent = ENTROPY.toFixed(3);
    showChance();
    // The plots drawn before the references came get their reference lines.
    for (const p of [lossPlot, retrievalPlot]) if (p.el.dataset.points !== undefined) p.rebuild();
  };
  // The eight families side by side, each number a band over three training seeds.
  const families = el('div', { id: 'families' });
  mountFamilies(ctx, families);
  const why = el('div', { id: 'wavelengths' });
  mountWavelengths(ctx, why);
  // The charts are the shipped models, one run of each recipe; the families table has the seed bands.
  const oneSeed = liveText('p', 'note');
  oneSeed.el.id = 'ext-one-seed';
  oneSeed.set('extrapolation.oneSeed', { seeds: SEEDS.length });
  root.append(
    why,
    el('h3', {}, text('extrapolation.measured')),
    oneSeed.el,
    el('div', { class: 'controls', id: 'ext-controls' },
      select<string>({ label: 'extrapolation.length', param: 'e.len', value: String(length), options: LENGTHS.map((L) => [String(L), String(L)] as const), onChange: (v) => { length = Number(v); runLoss(); } }).el,
      extScaling.el,
      factorControl.el),
    // Not the wavelength panel's length and factor: this row has its own (review N12).
    text('extrapolation.controls.note', 'p', 'note hint'),
    status,
    figure('extrapolation.loss',
      text('extrapolation.loss.key', 'p', 'chart-key'),
      el('p', { class: 'chart-key' }, text('extrapolation.trainLen'), text('colon'), trainOut, ' · ', text('extrapolation.entropy'), text('colon'),
        entropyOut, ' nats'),
      lossPlot.el, stops, text('extrapolation.loss.look', 'p', 'note look')),
    el('div', { class: 'figs' },
      figure('extrapolation.retrieval',
        el('p', { class: 'chart-key', 'data-i18n-rich': 'extrapolation.retrieval.about' }),
        text('extrapolation.retrieval.key', 'p', 'chart-key'),
        retrievalPlot.el,
        chanceText,
        text('extrapolation.retrieval.look', 'p', 'note look')),
      figure('extrapolation.maps',
        el('div', { class: 'controls' },
          select<string>({ label: 'extrapolation.mapModel', param: 'e.map', value: mapModel, options: SHIPPED.language.filter((e) => e !== 'learned').map((e) => [`language-${e}`, () => encodingLabel(e)] as const), onChange: (v) => { mapModel = v; loadMaps(); } }).el,
          mapLenControl.el,
          layerControl.el,
          headControl.el,
          select<ColourScale>({ label: 'extrapolation.maps.scale', param: 'e.mapScale', value: mapScale, options: [['log', () => t('extrapolation.maps.scale.log')], ['row', () => t('extrapolation.maps.scale.row')]], onChange: (v) => { mapScale = v; map.setScale(v); showMapLook(); } }).el),
        map.el, mapLook)),
    families,
  );
  ctx.onCustomModel(() => {
    runLoss();
    if (ctx.custom?.task === 'retrieval') void runRetrieval();
  });
  // Models load when the reader gets near (the Worker starts then, not at page load).
  lazyPanel(root, () => ctx.worker.call('references', { tasks: ['language', 'retrieval'] }), showReferences, { errorBox: entropyOut });
  whenNear(root, () => {
    runLoss();
    loadMaps();
  });
  lazyPanel(root, runRetrieval, () => {}, { errorBox: retrievalPlot.el });
}
