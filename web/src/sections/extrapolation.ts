// Section 5: train short, test long. Per-position loss of the shipped
// language models up to 1024 tokens (the Worker evaluates them), RoPE
// scaling applied live, retrieval accuracy by length, and attention maps of
// a long sequence.
import type { RopeScaling } from 'posenc';

import { Heatmap } from '../heatmap.js';
import { t } from '../i18n.js';
import { LinePlot, PALETTE } from '../plot.js';
import { CUSTOM, SHIPPED } from '../protocol.js';
import { getChoice, getNumber } from '../state.js';
import { coalesce, el, figure, select, slider, text, whenNear } from '../ui.js';
import type { Ctx } from './context.js';
import { makeScaling } from './rope.js';
import { mountWavelengths } from './wavelengths.js';

const LENGTHS = [64, 128, 256, 512, 1024] as const;
const EXT_SCALINGS = ['none', 'linear', 'ntk', 'dynamic', 'yarn'] as const;
type ExtScaling = (typeof EXT_SCALINGS)[number];

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

export function mountExtrapolation(ctx: Ctx, root: HTMLElement): void {
  // The references come from the task generators in the core, not from measurement.
  const language = ctx.pe.taskReference('language');
  const retrieval = ctx.pe.taskReference('retrieval');
  const ENTROPY = language.entropyRate!;
  let length = getNumber('e.len', 512, 64, 1024);
  let scaling = getChoice<ExtScaling>('e.scaling', 'yarn', EXT_SCALINGS);
  let factor = getNumber('e.factor', 4, 1, 32);
  const status = el('p', { class: 'status', 'aria-live': 'polite' });
  const lossPlot = new LinePlot({
    xLabel: () => t('ext.position'), yLabel: () => t('plot.loss'), series: [], height: 300,
    markers: () => [64], hMarkers: () => [ENTROPY],
  });
  lossPlot.el.id = 'ext-loss';
  const retrievalPlot = new LinePlot({ xLabel: () => t('ext.length'), yLabel: () => t('plot.accuracy'), series: [], height: 260, logX: true, points: true, markers: () => [64], hMarkers: () => [retrieval.chanceAccuracy], xRange: [56, 1200], xTicks: [...LENGTHS] });
  retrievalPlot.el.id = 'ext-retrieval';
  const map = new Heatmap({ kind: 'sequential', label: () => t('ext.maps'), rowName: 'query', colName: 'key', range: [0, 0.25] });
  map.canvas.id = 'ext-map';

  const scalingSpec = (): RopeScaling | undefined =>
    scaling === 'none' ? undefined : makeScaling(scaling, factor, 64, 16);

  let generation = 0;
  const runLoss = coalesce(() => {
    const gen = ++generation;
    const names = [...SHIPPED.language.map((e) => `language-${e}`)];
    if (ctx.custom?.task === 'language') names.push(CUSTOM);
    // The scaled RoPE curve only when a scaling is chosen (else it would repeat rope's).
    const labels = [...names.map((n) => n.replace('language-', '')), ...(scaling === 'none' ? [] : [`rope + ${scaling} ×${factor}`])];
    const curves: Array<Float64Array | undefined> = labels.map(() => undefined);
    const draw = (): void => {
      const w = Math.max(1, Math.round(length / 64));
      const xs = bin(new Float64Array(length), w).x;
      lossPlot.setData(
        [xs, ...curves.map((c) => (c ? bin(c, w).y.concat(new Array<null>(Math.max(0, xs.length - Math.ceil(c.length / w))).fill(null)) : xs.map(() => null)))],
        labels.map((l, i) => ({ label: l, color: PALETTE[i % PALETTE.length]!, ...(i === labels.length - 1 ? { dash: [6, 3], width: 2 } : {}) })),
      );
    };
    status.textContent = t('ext.running');
    const examples = length >= 512 ? 6 : 12;
    const jobs = names.map((name, i) => async () => {
      const info = await ctx.worker.call('describe', { model: name });
      const L = Math.min(length, info.config.encoding === 'learned' ? info.config.maxLen : length);
      const [r] = await ctx.worker.call('evaluate', { model: name, lengths: [L], examples });
      if (gen === generation) curves[i] = r!.positionLoss;
    });
    if (scaling !== 'none') jobs.push(async () => {
      const s = scalingSpec();
      const [r] = await ctx.worker.call('evaluate', { model: 'language-rope', lengths: [length], examples, ...(s ? { scaling: s } : {}) });
      if (gen === generation) curves[labels.length - 1] = r!.positionLoss;
    });
    void (async () => {
      for (const job of jobs) {
        if (gen !== generation) return;
        await job();
        if (gen === generation) draw();
      }
      if (gen === generation) {
        status.textContent = '';
        lossPlot.el.dataset.ready = String(length);
      }
    })().catch((e: unknown) => { status.textContent = String(e); });
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
      retrievalPlot.setData([[...LENGTHS], ...acc], names.map((n) => ({ label: n.replace('retrieval-', '') })));
    }
    retrievalPlot.el.dataset.ready = '1';
  };

  // Attention maps of one task sequence.
  let mapModel = getChoice('e.map', 'language-alibi', SHIPPED.language.map((e) => `language-${e}`));
  let layer = getNumber('e.layer', 1, 0, 1);
  let head = getNumber('e.head', 0, 0, 3);
  let mapLen = getNumber('e.mapLen', 256, 64, 512);
  let maps: { maps: Float32Array; layers: number; heads: number; T: number } | undefined;
  const drawMap = (): void => {
    if (!maps) return;
    const { T } = maps;
    const l = Math.min(layer, maps.layers - 1), h = Math.min(head, maps.heads - 1);
    map.draw(maps.maps.subarray(((l * maps.heads) + h) * T * T, ((l * maps.heads) + h + 1) * T * T), T, T);
  };
  const loadMaps = coalesce(() => {
    void (async () => {
      const tokens = ctx.pe.sampleTask({ task: 'language', length: mapLen, seed: 7 }).tokens;
      const r = await ctx.worker.call('maps', { model: mapModel, tokens });
      maps = { ...r, T: mapLen };
      drawMap();
    })().catch((e: unknown) => { map.canvas.title = String(e); });
  });

  // First why RoPE breaks (each pair's wavelength against the training
  // length), then what the models measure.
  const why = el('div', { id: 'wavelengths' });
  mountWavelengths(ctx, why);
  root.append(
    why,
    el('h3', {}, text('ext.measured')),
    el('div', { class: 'controls' },
      select<string>({ label: 'ext.length', param: 'e.len', value: String(length), options: LENGTHS.map((L) => [String(L), String(L)] as const), onChange: (v) => { length = Number(v); runLoss(); } }).el,
      select<ExtScaling>({ label: 'ext.scaling', param: 'e.scaling', value: scaling, options: EXT_SCALINGS.map((s) => [s, () => t(`scaling.${s}`)] as const), onChange: (v) => { scaling = v; runLoss(); } }).el,
      slider({ label: 'ext.factor', param: 'e.factor', min: 1, max: 32, step: 1, value: factor, log: true, onInput: (v) => { factor = v; runLoss(); } }).el),
    status,
    figure('ext.loss', lossPlot.el),
    el('p', { class: 'note' }, text('ext.trainLen'), text('colon'), '64 · ', text('ext.entropy'), text('colon'),
      el('output', { id: 'ext-entropy', 'data-value': String(ENTROPY) }, ENTROPY.toFixed(3)), ' nats'),
    el('div', { class: 'figs' },
      figure('ext.retrieval', retrievalPlot.el,
        el('p', { class: 'note', 'data-i18n-rich': 'ext.retrieval.about' }),
        el('p', { class: 'note' }, text('ext.chance'), text('colon'), el('output', { id: 'ext-chance', 'data-value': String(retrieval.chanceAccuracy) }, `${(100 * retrieval.chanceAccuracy).toFixed(1)}%`))),
      figure('ext.maps',
        el('div', { class: 'controls' },
          select<string>({ label: 'ext.mapModel', param: 'e.map', value: mapModel, options: SHIPPED.language.filter((e) => e !== 'learned').map((e) => [`language-${e}`, e] as const), onChange: (v) => { mapModel = v; loadMaps(); } }).el,
          slider({ label: 'ext.length', param: 'e.mapLen', min: 64, max: 512, step: 64, value: mapLen, onInput: (v) => { mapLen = v; loadMaps(); } }).el,
          slider({ label: 'ext.mapLayer', param: 'e.layer', min: 0, max: 1, step: 1, value: layer, onInput: (v) => { layer = v; drawMap(); } }).el,
          slider({ label: 'ext.mapHead', param: 'e.head', min: 0, max: 3, step: 1, value: head, onInput: (v) => { head = v; drawMap(); } }).el),
        map.el, el('p', { class: 'note' }, text('ext.maps.look')))),
  );
  ctx.onCustomModel(() => {
    runLoss();
    if (ctx.custom?.task === 'retrieval') void runRetrieval();
  });
  // Models load when the reader gets near.
  whenNear(root, () => {
    runLoss();
    loadMaps();
    void runRetrieval().catch((e: unknown) => { retrievalPlot.el.textContent = String(e); });
  });
}
