// Why RoPE fails past its training length (mounted by the extrapolation
// section): the wavelength of each pair of the shipped RoPE model against
// the training length, the largest angle each pair met in training against
// the one it meets at an evaluation length, and what each scaling method
// does to each pair (frequencies from ctx.pe.ropeFrequencies).
// Text: the 'wl.*' keys of ./text.ts.
import '../positions/style.css';

import { ROPE_SCALINGS, type RopeScalingType } from 'posenc';

import { scalingLabel } from '../../encname.js';
import { onLangChange, t, type Key } from '../../i18n.js';
import { LinePlot, type LineSeries } from '../../plot.js';
import { getChoice, getParam } from '../../state.js';
import { sentenceGap, tf, tidyCjk, valueGap } from '../../textfill.js';
import { applyState, coalesce, el, figure, fmtNum, numberControl, select, showError, text, whenNear } from '../../ui.js';
import { ropeFacts } from '../../poscommon.js';
import type { Ctx } from '../context.js';
import { PRESET_IDS, presetLabel, ropePresets, type RopePreset } from '../../rope-presets.js';
import { makeScaling } from '../rope/mount.js';

type Method = Exclude<RopeScalingType, 'default' | 'proportional'>;
const METHODS = ROPE_SCALINGS.filter((s): s is Method => s !== 'default' && s !== 'proportional');
const TWO_PI = 2 * Math.PI;

/** The RoPE settings of a model: head dim, rotary dim, base, training length (and the published model's layer, for a preset). */
interface RopeModel {
  headDim: number;
  rotaryDim: number;
  base: number;
  trainLen: number;
  preset?: RopePreset;
}

const TINY = 'tiny';
const LEN_MAX = 2 ** 20;

/**
 * The angle range a pair covers over `len` tokens, len·θ, capped at one full
 * turn (beyond it every angle has been met). len·θ rather than (len-1)·θ, so
 * that linear scaling by len/trainLen maps the range exactly back.
 */
export const largestAngle = (invFreq: number, len: number): number => Math.min(len * invFreq, TWO_PI);

/** Pairs whose largest angle at `len` (frequencies `inv`) goes past what training (`base`, `trainLen`) covered. */
function outOfRange(base: Float32Array, inv: Float32Array, trainLen: number, len: number): number {
  let n = 0;
  for (let i = 0; i < base.length; i++) if (largestAngle(inv[i]!, len) > largestAngle(base[i]!, trainLen) * (1 + 1e-6)) n++;
  return n;
}

/**
 * Lays the panel out at once (its final height, so nothing below it moves)
 * and fills it when the shipped model's settings arrive.
 */
function build(ctx: Ctx, box: HTMLElement, tiny: () => Promise<RopeModel>, status: HTMLElement): () => void {
  // A sliding-window layer never meets distances past its window, so the panel's question (angles past
  // the training length) is not its own: those presets are the RoPE lab's only.
  const presets = ropePresets(ctx.pe).filter((p) => p.kind !== 'local');
  const lenControl = numberControl({ label: 'wl.len', param: 'wl.len', min: 64, max: LEN_MAX, step: 1, log: true, initial: 256 }, () => update());
  const factorControl = numberControl({ label: 'wl.factor', param: 'wl.factor', min: 1, max: 64, step: 0.5, log: true, initial: 4 }, () => update());
  const st = {
    model: getChoice<string>('wl.model', TINY, [TINY, ...PRESET_IDS.filter((id) => !id.endsWith('-local'))]),
    get len(): number { return lenControl.value(); },
    method: getChoice<Method>('wl.method', 'yarn', METHODS),
    get factor(): number { return factorControl.value(); },
  };
  let m: RopeModel | undefined;
  let half = 0;
  let pairs: number[] = [];
  let def: Float32Array = new Float32Array(0);
  /** The published model's own scaling, when the method and factor chosen are its own. */
  const own = (rm: RopeModel): RopePreset | undefined => {
    const sc = rm.preset?.layer.scaling;
    return sc !== undefined && sc.type === st.method && 'factor' in sc && sc.factor === st.factor ? rm.preset : undefined;
  };
  const freqs = (rm: RopeModel, scaled: boolean): { invFreq: Float32Array; attentionFactor: number } => ctx.pe.ropeFrequencies({
    headDim: rm.headDim, rotaryDim: rm.rotaryDim, base: rm.base, seqLen: st.len,
    ...(scaled ? { scaling: own(rm)?.layer.scaling ?? makeScaling(st.method, st.factor, rm.trainLen, rm.rotaryDim) } : {}),
  });

  // Wavelengths (these do not move with the controls).
  const wave = new LinePlot({
    xLabel: () => t('wl.pair'), yLabel: () => t('wl.lambda.y'), series: [{ label: 'λᵢ', color: '#1f77b4' }],
    height: 230, logY: true, points: true, integerX: true, hMarkers: () => (m ? [m.trainLen] : []),
  });
  wave.el.id = 'wl-lambdas';
  const count = el('output', { id: 'wl-count', class: 'big' });

  const angleSeries = (): LineSeries[] => [
    { label: t('wl.angle.train'), color: '#9ecae1', width: 7 },
    { label: t('wl.angle.eval'), color: '#d62728', dash: [5, 4] },
    { label: tf('wl.angle.scaled', { m: scalingLabel(st.method) }), color: '#2ca02c', width: 2 },
  ];
  const angles = new LinePlot({
    xLabel: () => t('wl.pair'), yLabel: () => t('wl.angle.y'), series: angleSeries(), height: 240, points: true, integerX: true,
    hMarkers: () => [TWO_PI],
  });
  angles.el.id = 'wl-angles';
  const ratio = new LinePlot({
    xLabel: () => t('wl.pair'), yLabel: () => t('wl.ratio.y'), series: [{ label: 'θ′/θ', color: '#2ca02c' }], height: 220, points: true, integerX: true,
    logY: true, hMarkers: () => [1, 1 / st.factor],
  });
  ratio.el.id = 'wl-ratio';
  const outNone = el('output', { id: 'wl-out-none', class: 'big' });
  const outScaled = el('output', { id: 'wl-out-scaled', class: 'big' });
  const methodText = el('p', { class: 'explain', id: 'wl-method' });
  const modelNote = text('wl.model.note', 'p', 'note');
  modelNote.id = 'wl-model-note';
  modelNote.hidden = true;
  const extra = el('p', { class: 'note', id: 'wl-extra' });

  const update = coalesce(() => {
    const rm = m;
    if (!rm) return;
    const sc = freqs(rm, true);
    const inv = sc.invFreq;
    angles.setData([pairs, pairs.map((i) => largestAngle(def[i]!, rm.trainLen)), pairs.map((i) => largestAngle(def[i]!, st.len)),
      pairs.map((i) => largestAngle(inv[i]!, st.len))], angleSeries());
    const r = pairs.map((i) => inv[i]! / def[i]!);
    ratio.setData([pairs, r]);
    ratio.el.dataset.value = r.join(',');
    // The scaled frequencies θ′ and the attention factor as computed (tests read them).
    ratio.el.dataset.inv = Array.from(inv).join(',');
    const a = outOfRange(def, def, rm.trainLen, st.len), b = outOfRange(def, inv, rm.trainLen, st.len);
    outNone.textContent = `${a} / ${half}`;
    outNone.dataset.value = String(a);
    outScaled.textContent = `${b} / ${half}`;
    outScaled.dataset.value = String(b);
    outScaled.classList.toggle('zero', b === 0);
    // The tiny model's YaRN text counts its 8 pairs; a published model's LongRoPE uses its own factors.
    const variant = (st.method === 'yarn' && rm.preset !== undefined) || (st.method === 'longrope' && own(rm) !== undefined) ? '.model' : '';
    methodText.textContent = t(`wl.m.${st.method}${variant}` as Key);
    methodText.dataset.key = `wl.m.${st.method}${variant}`;
    ratio.el.dataset.own = String(own(rm) !== undefined);
    extra.textContent = tidyCjk(`${t('wl.step')} ${fmtNum(def[0]!, 3)} → ${fmtNum(inv[0]!, 3)} rad · ${t('wl.attnFactor')} ${fmtNum(sc.attentionFactor, 4)}`);
    extra.dataset.attention = String(sc.attentionFactor);
    box.dataset.len = String(st.len);
    box.dataset.method = st.method;
  });
  onLangChange(update);

  box.append(
    el('div', { class: 'controls' },
      select<string>({
        label: 'wl.model.label', param: 'wl.model', value: st.model,
        options: [[TINY, () => t('wl.model.tiny')] as const,
          ...presets.map((p) => [p.id, () => tf('wl.model.option', { name: presetLabel(p), M: p.context })] as const)],
        onChange: (v) => { st.model = v; choose(); },
      }).el,
      lenControl.el,
      select<Method>({ label: 'wl.method.label', param: 'wl.method', value: st.method, options: METHODS.map((x) => [x, () => t(`scaling.${x}`)] as const), onChange: (v) => { st.method = v; update(); } }).el,
      factorControl.el),
    modelNote,
    el('div', { class: 'figs' },
      el('div', {},
        figure('wl.lambda.fig', wave.el),
        el('p', { class: 'result' }, text('wl.count'), valueGap(), count),
        text('wl.lambda.look', 'p', 'note')),
      el('div', {},
        figure('wl.angle.fig', angles.el),
        el('p', { class: 'result' }, text('wl.out'), sentenceGap(), text('wl.out.none'), ' ', outNone, ' \u2003 ', text('wl.out.scaled'), ' ', outScaled),
        text('wl.angle.look', 'p', 'note'))),
    methodText,
    el('div', { class: 'figs' }, el('div', {}, figure('wl.ratio.fig', ratio.el), text('wl.ratio.look', 'p', 'note'), extra)),
  );
  /** Shows `rm`: its wavelengths (fixed), then the controls' view. */
  const show = (rm: RopeModel): void => {
    m = rm;
    half = rm.rotaryDim / 2;
    pairs = Array.from({ length: half }, (_, i) => i);
    def = freqs(rm, false).invFreq;
    const lambdas = Array.from(def, (f) => TWO_PI / f);
    const long = lambdas.filter((l) => l > rm.trainLen).length;
    wave.el.dataset.value = lambdas.join(',');
    wave.setData([pairs, lambdas]);
    count.textContent = `${long} / ${half}`;
    count.dataset.value = String(long);
    box.dataset.model = rm.preset?.id ?? TINY;
    update();
    box.dataset.ready = '1';
  };
  /**
   * The chosen model: the tiny one (from the Worker), or a published one,
   * with its own method, factor and length set on the controls (a link that
   * names them keeps its own).
   */
  let first = true;
  const choose = (): void => {
    const p = presets.find((x) => x.id === st.model);
    const linked = first;
    first = false;
    modelNote.hidden = p === undefined;
    if (p === undefined) {
      // Back from a published model: the tiny model's own view.
      if (!linked) applyState({ 'wl.len': 256, 'wl.method': 'yarn', 'wl.factor': 4 });
      tiny().then((rm) => { if (st.model === TINY) show(rm); }, (e: unknown) => showError(status, e));
      return;
    }
    const sc = p.layer.scaling;
    const view: Record<string, string | number> = {
      ...(METHODS.some((x) => x === sc.type) ? { 'wl.method': sc.type } : {}),
      ...('factor' in sc && sc.factor !== undefined ? { 'wl.factor': sc.factor } : {}),
      'wl.len': Math.min(p.length, LEN_MAX),
    };
    // A link keeps the settings it names.
    applyState(Object.fromEntries(Object.entries(view).filter(([k]) => !linked || getParam(k) === undefined)));
    show({ headDim: p.layer.headDim, rotaryDim: p.layer.rotaryDim, base: p.layer.base, trainLen: p.context, preset: p });
  };
  return choose;
}

/** Mounts the wavelength panel into `root`; reads the model's settings only when the reader comes near. */
export function mountWavelengths(ctx: Ctx, root: HTMLElement): void {
  const status = el('p', { class: 'status', 'aria-live': 'polite' });
  const box = el('div', { id: 'wl-panel', class: 'wl' },
    el('h3', {}, text('wl.title')), el('div', { class: 'explain', 'data-i18n-rich': 'wl.text' }), status);
  root.append(box);
  // The layout now (while the section mounts hidden), the model's settings
  // only when the reader comes near (the tiny model's from the Worker, once).
  const tiny = (): Promise<RopeModel> => ropeFacts(ctx);
  whenNear(box, build(ctx, box, tiny, status));
}
