// Axis names, end ticks and a colour bar around a Heatmap (heatmap.ts draws
// the cells only). A wrapper, so heatmap.ts can evolve on its own: the
// colour bar is itself a one-column Heatmap, so its colours are exactly the
// map's.
import { Heatmap, type HeatmapOptions } from './heatmap.js';
import { type Key } from './i18n.js';
import { el, fmtNum, text } from './ui.js';

export interface AxesOptions extends HeatmapOptions {
  /** Name of the vertical axis (rows), translated. */
  y: Key;
  /** Name of the horizontal axis (columns), translated. */
  x: Key;
  /** What the colour means (with its unit), translated. */
  value: Key;
  /** Tick value of the first row / column (default 0). */
  y0?: number;
  x0?: number;
}

const BAR_STEPS = 64;

export class AxedHeatmap {
  readonly el: HTMLElement;
  readonly map: Heatmap;
  private readonly bar: Heatmap;
  private readonly ticks: { top: HTMLElement; bottom: HTMLElement; left: HTMLElement; right: HTMLElement; hi: HTMLElement; lo: HTMLElement };
  private last: { data: ArrayLike<number>; rows: number; cols: number; range: [number, number] | undefined } | undefined;

  constructor(private readonly o: AxesOptions) {
    this.map = new Heatmap(o);
    this.bar = new Heatmap({ kind: o.kind, label: o.label, range: o.kind === 'sequential' ? [0, 1] : [-1, 1], minAspect: 0.02 });
    this.bar.canvas.classList.add('colour-bar');
    const tick = (cls: string): HTMLElement => el('span', { class: cls });
    this.ticks = { top: tick('t-top'), bottom: tick('t-bottom'), left: tick('t-left'), right: tick('t-right'), hi: tick('t-hi'), lo: tick('t-lo') };
    const readout = this.map.el.querySelector('.readout');
    // Grid: the row axis named above the map (horizontal text reads in both
    // languages), ticks left and below, the colour bar right.
    const yName = el('div', { class: 'ax-yname' }, '↓ ', text(o.y, 'span', 'ax-name'));
    const yTicks = el('div', { class: 'ax-yticks' }, this.ticks.top, this.ticks.bottom);
    const xAxis = el('div', { class: 'ax-x' }, el('div', { class: 'ax-xticks' }, this.ticks.left, this.ticks.right), el('span', {}, text(o.x, 'span', 'ax-name'), ' →'));
    const bar = el('div', { class: 'ax-bar' }, this.ticks.hi, this.bar.canvas, this.ticks.lo);
    this.el = el('div', { class: 'axed' },
      el('span', {}), yName, el('span', {}),
      yTicks, this.map.canvas, bar,
      el('span', {}), xAxis, el('span', {}),
      el('span', {}), el('div', { class: 'ax-value' }, text(o.value, 'span', 'ax-name'), ...(readout ? [readout] : [])));
    window.addEventListener('posenc-theme', () => this.redraw());
  }

  get canvas(): HTMLCanvasElement {
    return this.map.canvas;
  }

  /** data: [rows, cols] row-major, as Heatmap.draw. */
  draw(data: ArrayLike<number>, rows: number, cols: number, range?: [number, number]): void {
    this.last = { data, rows, cols, range };
    this.map.draw(data, rows, cols, range);
    const [lo, hi] = range ?? this.o.range ?? finiteRange(data);
    const y0 = this.o.y0 ?? 0, x0 = this.o.x0 ?? 0;
    this.ticks.top.textContent = String(y0);
    this.ticks.bottom.textContent = String(y0 + rows - 1);
    this.ticks.left.textContent = String(x0);
    this.ticks.right.textContent = String(x0 + cols - 1);
    // A diverging map is symmetric around 0 (Heatmap's rule).
    const amax = Math.max(Math.abs(lo), Math.abs(hi));
    this.ticks.hi.textContent = label(this.o.kind === 'sequential' ? hi : amax);
    this.ticks.lo.textContent = label(this.o.kind === 'sequential' ? lo : -amax);
    this.drawBar();
  }

  private drawBar(): void {
    // [BAR_STEPS, 1]: the top row is the top of the range.
    const v = Float32Array.from({ length: BAR_STEPS }, (_, i) => 1 - i / (BAR_STEPS - 1));
    if (this.o.kind === 'diverging') for (let i = 0; i < BAR_STEPS; i++) v[i] = 2 * v[i]! - 1;
    this.bar.draw(v, BAR_STEPS, 1);
    this.bar.canvas.style.aspectRatio = 'auto';
  }

  private redraw(): void {
    if (this.last) this.draw(this.last.data, this.last.rows, this.last.cols, this.last.range);
  }
}

function finiteRange(data: ArrayLike<number>): [number, number] {
  let lo = Infinity, hi = -Infinity;
  for (let e = 0; e < data.length; e++) {
    const v = data[e]!;
    if (Number.isFinite(v)) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return lo <= hi ? [lo, hi] : [0, 1];
}

function label(v: number): string {
  return Number.isInteger(v) ? String(v) : fmtNum(v, 2);
}
