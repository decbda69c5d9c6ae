// Section "sinusoidal": the sinusoidal table as a heatmap, a few of its waves as
// rulers of different scale, the position-similarity matrix PE PE^T, and
// PE_p . PE_q against the offset p - q for one chosen p (all from the table
// the core returns).

import '../order/style.css';

import { AxedHeatmap } from '../../axes.js';
import { t } from '../../i18n.js';
import { LinePlot } from '../../plot.js';
import { liveText } from '../../textfill.js';
import { coalesce, el, figure, lab, numberControl, text } from '../../ui.js';
import type { Ctx } from '../context.js';

/** PE PE^T: [length, length] from the table [length, dim]. */
function similarity(table: Float32Array, length: number, dim: number): Float32Array {
  const s = new Float32Array(length * length);
  for (let p = 0; p < length; p++) {
    for (let q = 0; q <= p; q++) {
      let acc = 0;
      for (let e = 0; e < dim; e++) acc += table[p * dim + e]! * table[q * dim + e]!;
      s[p * length + q] = acc;
      s[q * length + p] = acc;
    }
  }
  return s;
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  const baseControl = numberControl({ param: 's.base', label: 'sinusoidal.base', initial: 10000, min: 10, max: 1e6, step: 1, log: true, format: (v) => String(Math.round(v)) }, () => update());
  const dimControl = numberControl({ param: 's.dim', label: 'sinusoidal.dim', initial: 64, min: 8, max: 256, step: 8 }, () => update());
  const lengthControl = numberControl({ param: 's.len', label: 'sinusoidal.length', initial: 128, min: 8, max: 256, step: 8 }, () => { clampP(); update(); });
  // p's default is the middle of the table (its range follows the length: clampP).
  const pSlider = numberControl({ label: 'sinusoidal.p', param: 's.p', min: 0, max: 255, step: 1, initial: Math.floor(lengthControl.value() / 2) }, () => update());
  const pe = new AxedHeatmap({
    kind: 'diverging', label: () => t('sinusoidal.heatmap'), rowName: () => t('sinusoidal.position'), colName: () => t('sinusoidal.dimension'), range: [-1, 1],
    y: 'sinusoidal.ax.pos', x: 'sinusoidal.ax.dim', value: 'sinusoidal.ax.pe',
  });
  const sim = new AxedHeatmap({
    kind: 'diverging', label: () => t('sinusoidal.sim'), rowName: 'p', colName: 'q',
    y: 'sinusoidal.ax.pos', x: 'sinusoidal.ax.posq', value: 'sinusoidal.ax.dot',
  });
  pe.canvas.id = 'sin-table';
  sim.canvas.id = 'sin-sim';
  const waves = new LinePlot({ xLabel: () => t('sinusoidal.position'), yLabel: () => 'PE', series: [], height: 220 });
  const dots = new LinePlot({
    xLabel: () => t('sinusoidal.dx'), yLabel: () => 'PE_p · PE_q', series: [{ label: () => t('sinusoidal.series') }], height: 240,
    markers: () => [0],
  });
  dots.el.id = 'sin-dots';
  // Its note names the peak d/2 for the dimension set now.
  const dotLook = liveText('p', 'note');
  dotLook.el.id = 'sin-dot-look';

  pSlider.el.classList.add('sin-p');
  // The p slider's range follows the length at once (not at the next
  // redraw): a view that sets the length and then p gets both.
  const clampP = (): void => {
    const length = lengthControl.value();
    pSlider.input.max = String(length - 1);
    if (pSlider.value() > length - 1) pSlider.set(length - 1);
  };

  const update = coalesce(() => {
    const t0 = performance.now();
    clampP();
    const length = lengthControl.value(), dim = dimControl.value(), base = baseControl.value(), p = pSlider.value();
    const table = ctx.pe.sinusoidal({ length, dim, base });  // [length, dim]
    pe.draw(table, length, dim);
    const s = similarity(table, length, dim);  // [length, length]
    // PE_p · PE_q can be negative (a small base): then a diverging map around
    // 0; with every value positive, a sequential map over their range shows
    // the stripes with full contrast.
    let smin = Infinity;
    for (let e = 0; e < s.length; e++) smin = Math.min(smin, s[e]!);
    sim.setKind(smin >= 0 ? 'sequential' : 'diverging');
    sim.draw(s, length, length);
    // Row p of PE PE^T against p - q, the offsets in increasing order (q from length - 1 down to 0).
    const xs = Array.from({ length }, (_, k) => p - (length - 1) + k);
    const ys = xs.map((dx) => s[p * length + (p - dx)]!);
    dots.setData([xs, ys]);
    dots.el.dataset.p = String(p);
    dots.el.dataset.x = JSON.stringify(xs);
    dots.el.dataset.y = JSON.stringify(ys);
    dotLook.set('sinusoidal.dot.look', { half: dim / 2 });
    // Even dims 0, d/8, d/4, d/2 - 2: sines of shorter to longer wavelength.
    const dims = [...new Set([0, 2 * Math.floor(dim / 16), 2 * Math.floor(dim / 8), 2 * Math.floor(dim / 4), dim - 2])];
    const ps = Array.from({ length }, (_, k) => k);
    waves.setData(
      [ps, ...dims.map((e) => ps.map((k) => table[k * dim + e]!))],
      dims.map((e) => ({ label: () => `${t('sinusoidal.dimension')} ${e}` })),
    );
    root.dataset.ms = (performance.now() - t0).toFixed(2);
  });
  // The table's three controls stay beside the figures on a wide screen
  // (the base changes all four); p sits just above the one figure it moves.
  root.append(lab({
    sticky: 'controls',
    controls: [
      el('div', { class: 'controls' },
        baseControl.el,
        dimControl.el,
        lengthControl.el),
    ],
    figures: [
      el('div', { class: 'figs' },
        figure('sinusoidal.heatmap', pe.el, el('p', { class: 'note' }, text('sinusoidal.heatmap.look'))),
        figure('sinusoidal.sim', sim.el, el('p', { class: 'note' }, text('sinusoidal.sim.look')))),
      el('div', { class: 'controls' }, pSlider.el),
      figure('sinusoidal.dot', dots.el, dotLook.el),
      figure('sinusoidal.waves', waves.el, el('p', { class: 'note' }, text('sinusoidal.waves.look'))),
    ],
  }));
  update();
}
