// Section "bias": ALiBi's per-head bias matrices with their slopes, the T5
// bucket map, and the T5 bias the shipped language model learned.
import type { Posenc } from 'posenc';

import { AxedHeatmap } from '../../axes.js';
import { errorText, onLangChange, t, type Key } from '../../i18n.js';
import { LinePlot, type LineSeries } from '../../plot.js';
import { band, bandOf, combine, ENTROPY_RATE, fmtBand, overlaps, SEEDS, TRAIN_LEN } from '../../seedbands.js';
import { getBool, getChoice } from '../../state.js';
import { liveText, sentenceGap, tf, tidyCjk } from '../../textfill.js';
import { checkbox, coalesce, el, figure, lab, lazyPanel, numberControl, select, text } from '../../ui.js';
import type { Ctx } from '../context.js';

/**
 * ALiBi's in-distribution cost: how far its language models' loss at the
 * training length stays above the generator's floor, against RoPE's, over
 * the seed bands (data/seed-bands.json), and whether the two ranges overlap.
 */
function costText(): HTMLElement {
  const excess = (e: string) => bandOf(band('language', e, TRAIN_LEN)!.values.map((v) => v - ENTROPY_RATE));
  const alibi = excess('alibi'), rope = excess('rope'), ratio = combine(alibi, rope, (a, r) => a / r);
  const apart = !overlaps(alibi, rope);
  const main = liveText('span'), tail = liveText('span');
  // The bands are formatted for the language shown (full-width brackets in Chinese).
  const showMain = (): void => main.set('bias.cost', { seeds: SEEDS.length, len: TRAIN_LEN, alibi: fmtBand(alibi, 3), rope: fmtBand(rope, 3), ratio: fmtBand(ratio, 1) });
  showMain();
  onLangChange(showMain, main.el);
  tail.set(apart ? 'bias.cost.apart' : 'bias.cost.overlap');
  const p = el('p', { class: 'look', id: 'bias-cost' }, main.el, sentenceGap(), tail.el);
  p.dataset.overlap = String(!apart);
  for (const [k, b] of [['alibi', alibi], ['rope', rope], ['ratio', ratio]] as const) p.dataset[k] = JSON.stringify([b.mean, b.min, b.max]);
  return p;
}

/** Small multiples, one map per head (the colour's name is said once, in the figure's caption and note, not under every map). */
function grid(maps: AxedHeatmap[], labels: string[], wide = false): HTMLElement {
  return el('div', { class: `axed-grid heads${wide ? ' wide' : ''}` }, ...maps.map((m, i) => el('div', { class: 'cell' }, el('div', { class: 'cell-label' }, labels[i]!), m.el)));
}

/** Head h's line colour: hues from the steepest head (blue) through purple to the gentlest (red-orange), no pale yellows. */
export function headColour(h: number, heads: number): string {
  const f = heads > 1 ? h / (heads - 1) : 0;
  return `hsl(${Math.round(230 + 150 * f) % 360}, 72%, 50%)`;
}

const queryKey = { rowName: (): string => t('ax.query'), colName: (): string => t('ax.key'), y: 'ax.query', x: 'ax.key' } as const;

/** Smallest and largest id over the cells of [L, L] bucket ids where keep(i, j) holds. */
function idRange(b: Int32Array, L: number, keep: (i: number, j: number) => boolean): [number, number] {
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < L; i++) for (let j = 0; j < L; j++) if (keep(i, j)) { lo = Math.min(lo, b[i * L + j]!); hi = Math.max(hi, b[i * L + j]!); }
  return [lo, hi];
}

/** The sentence under the bucket map, from the drawn ids: which ids each side of the diagonal uses, and the last bucket past Max distance. */
function splitText(b: Int32Array, L: number, maxDistance: number, bidirectional: boolean): string {
  const [pLo, pHi] = idRange(b, L, (i, j) => j < i);
  const [fLo, fHi] = idRange(b, L, (i, j) => j > i);
  const r = (lo: number, hi: number): string => (lo === hi ? String(lo) : `${lo}–${hi}`);
  let s = L < 2 ? '' : tf(bidirectional ? 'bias.split.bidir' : 'bias.split.causal', { past: r(pLo, pHi), future: r(fLo, fHi) });
  const [xLo, xHi] = idRange(b, L, (i, j) => i - j >= maxDistance);
  s += ' ' + (xLo <= xHi ? tf('bias.split.far', { d: String(maxDistance), ids: r(xLo, xHi) }) : tf('bias.split.short', { d: String(maxDistance) }));
  return tidyCjk(s); // no space after 。 in Chinese
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  const pe: Posenc = ctx.pe;
  const headsControl = numberControl({ param: 'b.heads', label: 'bias.heads', initial: 8, min: 1, max: 16, step: 1 }, () => update());
  let variant = getChoice('b.variant', 'paper', ['paper', 'simple'] as const);
  const lengthControl = numberControl({ param: 'b.len', label: 'bias.length', initial: 32, min: 4, max: 256, step: 4 }, () => update());
  // The bucket map has its own length, by default past Max distance, so
  // that the last bucket (every distance from Max distance on) shows.
  const bucketLenControl = numberControl({ param: 'b.tlen', label: 'bias.bucketLength', initial: 160, min: 8, max: 512, step: 8 }, () => update());
  const bucketsControl = numberControl({ param: 'b.buckets', label: 'bias.buckets', initial: 32, min: 2, max: 64, step: 2 }, () => update());
  const maxDistanceControl = numberControl({ param: 'b.maxd', label: 'bias.maxDistance', initial: 128, min: 2, max: 1024, step: 1, log: true }, () => update());
  // Unidirectional by default, as in the shipped causal models, the learned map beside it and the quiz.
  let bidirectional = getBool('b.bidir', false);
  // One colour scale shared by all heads by default, so that the heads'
  // slopes show as different darkness (per head, every map looks the same);
  // the checkbox gives each head its own scale, for the gentle heads of a
  // 16-head model, which look nearly blank on the shared one.
  let perHead = getBool('b.perhead', false);

  const alibiBox = el('div', { id: 'alibi-maps' });
  let alibiMaps: AxedHeatmap[] = [];
  let alibiLabels: HTMLElement[] = [];
  const alibiLook = el('p', { class: 'note look', id: 'alibi-look' });
  const bucketMap = new AxedHeatmap({ kind: 'sequential', label: () => t('bias.bucketMap'), ...queryKey, value: 'ax.bucket' });
  bucketMap.canvas.id = 't5-buckets';
  const bucketSplit = el('p', { class: 'note look', id: 't5-split' });
  const lines = new LinePlot({ xLabel: () => t('bias.lines.x'), yLabel: () => t('bias.lines.y'), series: [], height: 260, highlight: true, integerX: true });
  lines.el.id = 'alibi-lines';
  const learnedBox = el('div', { id: 't5-learned' });

  const update = coalesce(() => {
    const t0 = performance.now();
    const heads = headsControl.value(), length = lengthControl.value();
    const bucketLen = bucketLenControl.value(), buckets = bucketsControl.value(), maxDistance = maxDistanceControl.value();
    const slopes = pe.alibiSlopes(heads, { variant });
    const bias = pe.alibiBias({ heads, queryLength: length, keyLength: length, variant, causal: true });
    // The maps are kept while the head count stays (no DOM rebuild per update).
    if (alibiMaps.length !== heads) {
      // ALiBi never adds anything positive: a one-sided scale from -max to 0.
      alibiMaps = Array.from({ length: heads }, () => new AxedHeatmap({ kind: 'sequential', label: () => t('bias.alibi'), ...queryKey, value: 'ax.bias' }));
      alibiLabels = alibiMaps.map(() => el('div', { class: 'cell-label' }));
      alibiBox.replaceChildren(el('div', { class: 'axed-grid heads' }, ...alibiMaps.map((m, i) => el('div', { class: 'cell' }, alibiLabels[i]!, m.el))));
    }
    const maps = alibiMaps;
    // |bias| is largest at the farthest key: slope * (length - 1). One range
    // for all heads shows the slopes against each other; one per head shows
    // every head's pattern.
    const reach = Math.max(length - 1, 1);
    const shared = Math.max(...slopes) * reach;
    maps.forEach((m, h) => {
      const amax = perHead ? slopes[h]! * reach : shared;
      m.draw(bias.subarray(h * length * length, (h + 1) * length * length), length, length, [-amax, 0]);
    });
    alibiLook.dataset.i18n = perHead ? 'bias.alibi.look.perHead' : 'bias.alibi.look.shared';
    alibiLook.textContent = t(alibiLook.dataset.i18n as Key);
    // Bias against distance: the last query row, key j at distance length-1-j. [heads][length]
    const dist = Array.from({ length }, (_, d) => d);
    const perDistance = Array.from(slopes, (_, h) => dist.map((d) => bias[h * length * length + (length - 1) * length + (length - 1 - d)]!));
    const series: LineSeries[] = Array.from(slopes, (m, h) => ({ label: `${t('bias.head')} ${h} (s = ${m.toPrecision(3)})`, color: headColour(h, heads), width: 2 }));
    lines.setData([dist, ...perDistance], series);
    lines.el.dataset.value = JSON.stringify(perDistance);
    slopes.forEach((m, h) => {
      alibiLabels[h]!.textContent = `${t('bias.head')} ${h}: s = ${m.toPrecision(3)}`;
      alibiLabels[h]!.dataset.value = String(m);
    });
    // Some slider combinations are not a valid T5 bucketing (for example 2
    // buckets, bidirectional: no exact bucket left): the core's error is
    // shown where the split is described, and the map is greyed out.
    try {
      const b = pe.t5Buckets({ queryLength: bucketLen, keyLength: bucketLen, numBuckets: buckets, maxDistance, bidirectional });  // [bucketLen, bucketLen]
      bucketMap.draw(b, bucketLen, bucketLen);
      bucketSplit.textContent = splitText(b, bucketLen, maxDistance, bidirectional);
      bucketSplit.classList.remove('error');
      bucketMap.el.style.opacity = '';
    } catch (e) {
      bucketSplit.textContent = errorText(e);
      bucketSplit.classList.add('error');
      bucketMap.el.style.opacity = '0.3';
    }
    root.dataset.ms = (performance.now() - t0).toFixed(2);
  });

  const learnedLines = new LinePlot({
    xLabel: () => t('bias.learnedLines.x'), yLabel: () => t('bias.learnedLines.y'), series: [], height: 260, highlight: true, integerX: true,
    markers: () => learnedMarks, markerText: () => [t('extrapolation.marker.train'), t('bias.maxDistance')],
  });
  learnedLines.el.id = 't5-learned-lines';
  let learnedMarks: number[] = [];
  const learnedLook = el('p', { class: 'note look', id: 't5-learned-look' });
  // The shipped T5 language model's learned table, through pe.t5Bias.
  const loadLearned = () => Promise.all([
    ctx.worker.call('describe', { model: 'language-t5' }),
    ctx.worker.call('tensor', { model: 'language-t5', name: 't5.bias' }),
  ]);
  lazyPanel(learnedBox, loadLearned, ([info, { shape, data }]) => {
    // Maps over the training length of the model.
    const H = shape[1]!, L = info.config.trainLen;
    const c = info.config;
    const bias = pe.t5Bias({ table: data, heads: H, queryLength: L, keyLength: L, numBuckets: c.t5Buckets, maxDistance: c.t5MaxDistance, bidirectional: false });
    let amax = 0;
    for (const v of data) amax = Math.max(amax, Math.abs(v));
    const maps = Array.from({ length: H }, (_, h) => {
      const m = new AxedHeatmap({ kind: 'diverging', label: () => t('bias.learned'), ...queryKey, value: 'ax.bias', range: [-amax, amax] });
      const slice = bias.subarray(h * L * L, (h + 1) * L * L).slice();
      for (let i = 0; i < L; i++) for (let j = i + 1; j < L; j++) slice[i * L + j] = -Infinity; // causal model
      m.draw(slice, L, L);
      return m;
    });
    const labels = (): string[] => maps.map((_, h) => `${t('bias.head')} ${h}`);
    // Few heads (the shipped models have 4): two to a row, larger maps.
    learnedBox.replaceChildren(grid(maps, labels(), true));
    onLangChange(() => learnedBox.querySelectorAll('.cell-label').forEach((e, h) => { e.textContent = labels()[h]!; }));
    // Bias against distance d = 0 .. D-1: the last query row of a D x D map. [H][D]
    const D = 2 * c.t5MaxDistance;
    const far = pe.t5Bias({ table: data, heads: H, queryLength: D, keyLength: D, numBuckets: c.t5Buckets, maxDistance: c.t5MaxDistance, bidirectional: false });
    const dist = Array.from({ length: D }, (_, d) => d);
    const perDistance = Array.from({ length: H }, (_, h) => dist.map((d) => far[h * D * D + (D - 1) * D + (D - 1 - d)]!));
    learnedMarks = [c.trainLen, c.t5MaxDistance];
    // The first distance from which every head's bias is exactly 0 up to D - 1 (D: none).
    let zeroFrom = D;
    while (zeroFrom > 0 && perDistance.every((line) => line[zeroFrom - 1] === 0)) zeroFrom--;
    const lineSeries = (): LineSeries[] => perDistance.map((_, h) => ({ label: `${t('bias.head')} ${h}`, color: headColour(h, H), width: 2 }));
    learnedLines.setData([dist, ...perDistance], lineSeries());
    // Every number of the sentence from the model's config.
    const look = (): void => {
      learnedLook.textContent = tidyCjk(tf('bias.learnedLines.look', { exact: String(c.t5Buckets / 2 - 1), maxd: String(c.t5MaxDistance), len: String(c.trainLen), last: String(c.trainLen - 1) })
        + (zeroFrom < D ? ` ${tf('bias.learnedLines.zero', { z: String(zeroFrom) })}` : ''));
    };
    look();
    onLangChange(() => {
      learnedLines.setData([dist, ...perDistance], lineSeries());
      look();
    });
    learnedLines.el.dataset.value = JSON.stringify(perDistance);
    learnedBox.dataset.ready = '1';
  });

  root.append(
    lab({
      sticky: 'controls',
      controls: [
        el('div', { class: 'controls' },
          headsControl.el,
          select({ label: 'bias.variant', param: 'b.variant', value: variant, options: [['paper', () => t('bias.variant.paper')], ['simple', () => t('bias.variant.simple')]] as const, onChange: (v) => { variant = v; update(); } }).el,
          lengthControl.el),
        el('div', { class: 'controls' },
          checkbox({ label: 'bias.perHead', param: 'b.perhead', value: perHead, onChange: (v) => { perHead = v; update(); } }).el),
      ],
      figures: [
        figure('bias.alibi', alibiBox, alibiLook),
        figure('bias.lines', lines.el, text('bias.lines.look', 'p', 'note look')),
      ],
    }),
    costText(),
    lab({
      sticky: 'controls',
      controls: [
        el('div', { class: 'controls' },
          bucketLenControl.el,
          bucketsControl.el,
          maxDistanceControl.el,
          checkbox({ label: 'bias.bidirectional', param: 'b.bidir', value: bidirectional, onChange: (v) => { bidirectional = v; update(); } }).el),
      ],
      figures: [figure('bias.bucketMap', bucketMap.el, text('bias.bucketMap.look', 'p', 'note look'), bucketSplit)],
    }),
    el('div', { class: 'figs' },
      figure('bias.learned', learnedBox, text('bias.learned.look', 'p', 'note look')),
      figure('bias.learnedLines', learnedLines.el, learnedLook)),
  );
  onLangChange(update);
  update();
}
