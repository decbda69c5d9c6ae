// Section 2: the sinusoidal table as a heatmap, a few of its waves as
// rulers of different scale, and the position-similarity matrix PE PE^T.
import { Heatmap } from '../heatmap.js';
import { t } from '../i18n.js';
import { LinePlot } from '../plot.js';
import { getNumber } from '../state.js';
import { coalesce, el, figure, slider, text } from '../ui.js';
import type { Ctx } from './context.js';

export function mountSinusoidal(ctx: Ctx, root: HTMLElement): void {
  let base = getNumber('s.base', 10000, 10, 1e6);
  let dim = getNumber('s.dim', 64, 8, 256);
  let length = getNumber('s.len', 128, 8, 256);
  const pe = new Heatmap({ kind: 'diverging', label: () => t('sin.heatmap'), rowName: () => t('sin.position'), colName: () => t('sin.dimension'), range: [-1, 1] });
  const sim = new Heatmap({ kind: 'diverging', label: () => t('sin.sim'), rowName: 'p', colName: 'q' });
  const waves = new LinePlot({ xLabel: () => t('sin.position'), yLabel: () => 'PE', series: [], height: 220 });

  const update = coalesce(() => {
    const t0 = performance.now();
    const table = ctx.pe.sinusoidal({ length, dim, base });
    pe.draw(table, length, dim);
    // PE PE^T from the core's table.
    const s = new Float32Array(length * length);
    for (let p = 0; p < length; p++) {
      for (let q = 0; q <= p; q++) {
        let acc = 0;
        for (let e = 0; e < dim; e++) acc += table[p * dim + e]! * table[q * dim + e]!;
        s[p * length + q] = acc;
        s[q * length + p] = acc;
      }
    }
    sim.draw(s, length, length);
    // Even dims 0, d/8, d/4, d/2 - 2: sines of shorter to longer wavelength.
    const dims = [...new Set([0, 2 * Math.floor(dim / 16), 2 * Math.floor(dim / 8), 2 * Math.floor(dim / 4), dim - 2])];
    const xs = Array.from({ length }, (_, p) => p);
    waves.setData(
      [xs, ...dims.map((e) => xs.map((p) => table[p * dim + e]!))],
      dims.map((e) => ({ label: () => `${t('sin.dimension')} ${e}` })),
    );
    root.dataset.ms = (performance.now() - t0).toFixed(2);
  });
  root.append(
    el('div', { class: 'controls' },
      slider({ label: 'sin.base', param: 's.base', min: 10, max: 1e6, step: 1, value: base, log: true, format: (v) => String(Math.round(v)), onInput: (v) => { base = v; update(); } }).el,
      slider({ label: 'sin.dim', param: 's.dim', min: 8, max: 256, step: 8, value: dim, onInput: (v) => { dim = v; update(); } }).el,
      slider({ label: 'sin.length', param: 's.len', min: 8, max: 256, step: 8, value: length, onInput: (v) => { length = v; update(); } }).el),
    el('div', { class: 'figs' },
      figure('sin.heatmap', pe.el, el('p', { class: 'note' }, text('sin.heatmap.look'))),
      figure('sin.sim', sim.el, el('p', { class: 'note' }, text('sin.sim.look')))),
    figure('sin.waves', waves.el),
  );
  update();
}
