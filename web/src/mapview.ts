// An attention map that stands alone: the heatmap with its two axis titles
// (and their ranges), a colour bar with tick values, and a swatch for the
// masked cells. Used by the "positions" section.
import { Heatmap } from './heatmap.js';
import { onLangChange, t, type Key } from './i18n.js';
import { el, fmtNum, text } from './ui.js';

export interface MapViewOptions {
  /** id of the heatmap canvas (tests read its data-* attributes). */
  id: string;
  /** Accessible name of the map. */
  label: Key;
  /** Axis titles: rows (down) and columns (across). */
  rowAxis: Key;
  colAxis: Key;
  /** What the colours mean (the colour bar's title). */
  barLabel: Key;
  range: [number, number];
  maxWidth?: number;
}

/** A 1-row heatmap used as a colour bar, with ticks at both ends and the middle. */
function colourBar(range: [number, number], label: Key, maskedLabel: Key): HTMLElement {
  const bar = new Heatmap({ kind: 'sequential', label: () => t(label), range, minAspect: 0.06, maxWidth: 220 });
  const n = 64;
  bar.draw(Float32Array.from({ length: n }, (_, i) => range[0] + ((range[1] - range[0]) * i) / (n - 1)), 1, n);
  bar.el.querySelector('.readout')?.remove();
  const [lo, hi] = range;
  const ticks = el('div', { class: 'cbar-ticks' },
    el('span', {}, fmtNum(lo, 2)), el('span', {}, fmtNum((lo + hi) / 2, 2)), el('span', {}, fmtNum(hi, 2)));
  return el('div', { class: 'cbar' },
    text(label, 'div', 'cbar-title'),
    el('div', { class: 'cbar-body' }, bar.el, ticks),
    el('div', { class: 'cbar-masked' }, el('span', { class: 'swatch masked', 'aria-hidden': 'true' }), text(maskedLabel)));
}

/**
 * The canvas of a MapView also holds the values it last drew, `[rows, cols]`
 * row-major, -Infinity where masked (a reference, no copy: tests read them
 * in the page, e.g. which keys each query sees and that each row sums to 1).
 */
export type MapCanvas = HTMLCanvasElement & { cells?: Float32Array };

export class MapView {
  readonly el: HTMLElement;
  readonly map: Heatmap;
  private readonly xTitle: HTMLElement;
  private readonly yTitle: HTMLElement;
  private rows = 0;
  private cols = 0;

  constructor(private readonly o: MapViewOptions) {
    this.map = new Heatmap({ kind: 'sequential', label: t(o.label), rowName: 'm', colName: 'n', range: o.range, maxWidth: o.maxWidth ?? 420 });
    this.map.canvas.id = o.id;
    this.xTitle = el('div', { class: 'mv-x' });
    this.yTitle = el('div', { class: 'mv-y' });
    this.el = el('div', { class: 'mapview' },
      el('div', { class: 'mv-grid' }, this.yTitle, el('div', { class: 'mv-main' }, this.xTitle, this.map.el)),
      colourBar(o.range, o.barLabel, 'positions.masked'));
    onLangChange(() => this.titles(), this);
    this.titles();
  }

  private titles(): void {
    this.map.canvas.setAttribute('aria-label', t(this.o.label));
    this.xTitle.textContent = `${t(this.o.colAxis)} (0 … ${Math.max(this.cols - 1, 0)}) →`;
    this.yTitle.textContent = `${t(this.o.rowAxis)} (0 … ${Math.max(this.rows - 1, 0)}) ↓`;
  }

  /** data: [rows, cols]; -Infinity cells are masked (drawn grey). */
  draw(data: Float32Array, rows: number, cols: number): void {
    this.rows = rows;
    this.cols = cols;
    this.map.draw(data, rows, cols);
    (this.map.canvas as MapCanvas).cells = data;
    this.titles();
  }
}
