// Axis names, end ticks and a colour bar around a Heatmap (heatmap.ts draws
// the cells only). A wrapper, so heatmap.ts can evolve on its own: the
// colour bar is itself a one-column Heatmap, so its colours are exactly the
// map's.
import './charts.css';

import { Heatmap, type HeatmapOptions } from './heatmap.js';
import { t, type Key } from './i18n.js';
import { el, fmtNum, text } from './ui.js';

/**
 * How values become colours: 'linear' as they are; 'log' by log10 of the
 * value (positive data such as attention weights; the bar shows the values,
 * not their logarithms; zeros are drawn grey); 'row' each row divided by its
 * own largest value (the bar then reads 0 to 1, "share of the row's largest").
 */
export type ColourScale = 'linear' | 'log' | 'row';

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
  /** Colour scale (default 'linear'); can be changed later with setScale. */
  scale?: ColourScale;
  /** With scale 'log': the decades shown below the largest value (default 4). */
  decades?: number;
}

const BAR_STEPS = 64;

/** One absolutely placed name per row (right-aligned, centred on the row) or column (centred under it). */
function centredNames(labels: readonly string[], cls: string, along: 'rows' | 'columns'): HTMLElement[] {
  return labels.map((name, i) => {
    const s = el('span', { class: cls }, name);
    const at = (100 * (i + 0.5)) / labels.length;
    s.style.cssText = along === 'rows'
      ? `position:absolute;right:0;top:${at}%;transform:translateY(-50%);white-space:nowrap;line-height:1`
      : `position:absolute;top:0;left:${at}%;transform:translateX(-50%);white-space:nowrap;line-height:1.3`;
    return s;
  });
}

export class AxedHeatmap {
  readonly el: HTMLElement;
  readonly map: Heatmap;
  private readonly bar: Heatmap;
  private readonly ticks: { top: HTMLElement; bottom: HTMLElement; left: HTMLElement; right: HTMLElement; hi: HTMLElement; mid: HTMLElement; lo: HTMLElement };
  private readonly scaleNote: HTMLElement;
  private readonly readout: HTMLElement | null;
  private scale: ColourScale;
  private last: { data: ArrayLike<number>; rows: number; cols: number; range: [number, number] | undefined } | undefined;
  /** The row names shown (joined), to skip rebuilding them when unchanged. */
  private rowLabels: string | undefined;
  /** The column names shown (joined). */
  private colLabels: string | undefined;

  /** The colour map in use (starts as o.kind; setKind changes it). */
  private kind: AxesOptions['kind'];

  constructor(private readonly o: AxesOptions) {
    this.kind = o.kind;
    this.map = new Heatmap(o);
    this.scale = o.scale ?? 'linear';
    this.bar = new Heatmap({ kind: o.kind, label: o.label, range: o.kind === 'sequential' ? [0, 1] : [-1, 1], minAspect: 0.02 });
    this.bar.canvas.classList.add('colour-bar');
    const tick = (cls: string): HTMLElement => el('span', { class: cls });
    this.ticks = { top: tick('t-top'), bottom: tick('t-bottom'), left: tick('t-left'), right: tick('t-right'), hi: tick('t-hi'), mid: tick('t-mid'), lo: tick('t-lo') };
    this.readout = this.map.el.querySelector('.readout');
    this.scaleNote = el('span', { class: 'ax-scale' });
    // Grid: the row axis named above the map (horizontal text reads in both
    // languages), ticks left and below, the colour bar right.
    const yName = el('div', { class: 'ax-yname' }, '↓ ', text(o.y, 'span', 'ax-name'));
    const yTicks = el('div', { class: 'ax-yticks' }, this.ticks.top, this.ticks.bottom);
    const xAxis = el('div', { class: 'ax-x' }, el('div', { class: 'ax-xticks' }, this.ticks.left, this.ticks.right), el('span', {}, text(o.x, 'span', 'ax-name'), ' →'));
    // The colour bar with its values on its right: top, middle, bottom.
    // (The bar canvas sits in a wrapper that gives it the map's height: on
    // its own its 1 x 64 pixels would set the row to 64 times its width.)
    const bar = el('div', { class: 'ax-bar side' }, el('span', { class: 'ax-bar-wrap' }, this.bar.canvas), el('div', { class: 'ax-bar-ticks' }, this.ticks.hi, this.ticks.mid, this.ticks.lo));
    this.el = el('div', { class: 'axed' },
      el('span', {}), yName, el('span', {}),
      yTicks, this.map.canvas, bar,
      el('span', {}), xAxis, el('span', {}),
      el('span', {}), el('div', { class: 'ax-value' }, el('span', {}, text(o.value, 'span', 'ax-name'), this.scaleNote), ...(this.readout ? [this.readout] : [])));
    // With a transformed scale the read-out shows the value itself, not its
    // colour coordinate (this listener runs after Heatmap's own).
    this.map.canvas.addEventListener('mousemove', (e) => this.readOriginal(e));
    // No theme listener here: the map and the bar are Heatmaps, which redraw
    // themselves (with the values already transformed) when the theme changes.
  }

  get canvas(): HTMLCanvasElement {
    return this.map.canvas;
  }

  /**
   * Names every row (e.g. its token) in place of the two end ticks, each name
   * centred on its row whatever the map's height; undefined brings the ticks
   * back. The names are data (sample text): marked data-sample.
   */
  setRowLabels(labels: readonly string[] | undefined): void {
    const key = labels?.join('\u0000');
    if (key === this.rowLabels) return;
    this.rowLabels = key;
    const column = this.ticks.top.parentElement!;
    column.querySelector('.ax-rowlabels')?.remove();
    this.ticks.top.hidden = this.ticks.bottom.hidden = labels !== undefined;
    if (!labels) return;
    // Absolutely placed names do not size the column: an invisible copy of
    // the longest one gives it its width.
    const longest = labels.reduce((a, b) => (b.length > a.length ? b : a), '');
    const sizer = el('span', { 'aria-hidden': 'true' }, longest);
    sizer.style.cssText = 'display:block;visibility:hidden;height:0;overflow:hidden;white-space:nowrap';
    const box = el('div', { class: 'ax-rowlabels', 'data-sample': '' }, sizer);
    box.style.cssText = 'position:relative;flex:1 1 auto;min-height:0';
    box.append(...centredNames(labels, 'ax-rowlabel', 'rows'));
    column.append(box);
  }

  /**
   * Names every column (e.g. the key tokens) in place of the two end ticks,
   * each name centred under its column; undefined brings the ticks back.
   * For a few columns only (a name needs room under its column). Data
   * (sample text): marked data-sample.
   */
  setColLabels(labels: readonly string[] | undefined): void {
    const key = labels?.join('\u0000');
    if (key === this.colLabels) return;
    this.colLabels = key;
    const row = this.ticks.left.parentElement!;
    row.querySelector('.ax-collabels')?.remove();
    this.ticks.left.hidden = this.ticks.right.hidden = false;
    if (!labels) return;
    // Only when every name fits its column (widths estimated at the tick
    // font: about 0.6 em a Latin letter, 1 em a CJK character).
    const colWidth = (this.map.canvas.getBoundingClientRect().width || 200) / labels.length;
    const fontPx = parseFloat(getComputedStyle(row).fontSize) || 12;
    const em = (name: string): number => Array.from(name).reduce((w, c) => w + (/[\u3000-\u9fff\uff00-\uffef]/.test(c) ? 1 : 0.6), 0);
    if (!labels.every((name) => em(name) * fontPx <= colWidth - 2)) return;
    this.ticks.left.hidden = this.ticks.right.hidden = true;
    const box = el('div', { class: 'ax-collabels', 'data-sample': '' });
    box.style.cssText = 'position:relative;width:100%;height:1.3em';
    box.append(...centredNames(labels, 'ax-collabel', 'columns'));
    row.append(box);
  }

  /**
   * Diverging (around 0) or sequential, for data whose sign can change with
   * the controls; used from the next draw (the caller draws next).
   */
  setKind(kind: AxesOptions['kind']): void {
    if (kind === this.kind) return;
    this.kind = kind;
    this.map.setKind(kind);
    this.bar.setKind(kind);
    this.barDrawn = false;
  }

  /** Changes the colour scale and redraws (unless `redraw` is false: the caller draws next). */
  setScale(scale: ColourScale, redraw = true): void {
    this.scale = scale;
    if (redraw) this.redraw();
  }

  /** data: [rows, cols] row-major, as Heatmap.draw (range: of the values, for scale 'linear'). */
  draw(data: ArrayLike<number>, rows: number, cols: number, range?: [number, number]): void {
    this.last = { data, rows, cols, range };
    const y0 = this.o.y0 ?? 0, x0 = this.o.x0 ?? 0;
    setText(this.ticks.top, String(y0));
    setText(this.ticks.bottom, String(y0 + rows - 1));
    setText(this.ticks.left, String(x0));
    setText(this.ticks.right, String(x0 + cols - 1));
    this.el.dataset.scale = this.scale;
    this.el.dataset.kind = this.kind;
    this.scaleNote.dataset.i18n = `axes.scale.${this.scale}`;
    setText(this.scaleNote, t(`axes.scale.${this.scale}` as Key));
    let lo: number, hi: number, mid: string;
    if (this.scale === 'log') {
      const [top, decades] = logTop(data, this.o.decades ?? 4);
      const shown = Float32Array.from(data, (v) => (v > 0 ? Math.max(Math.log10(v), top - decades) : -Infinity));
      this.map.draw(shown, rows, cols, [top - decades, top]);
      [lo, hi] = [10 ** (top - decades), 10 ** top];
      mid = fmtNum(10 ** (top - decades / 2), 2);
    } else if (this.scale === 'row') {
      this.map.draw(rowShare(data, rows, cols), rows, cols, this.kind === 'sequential' ? [0, 1] : [-1, 1]);
      [lo, hi] = this.kind === 'sequential' ? [0, 1] : [-1, 1];
      mid = this.kind === 'sequential' ? '0.5' : '0';
    } else {
      this.map.draw(data, rows, cols, range);
      [lo, hi] = range ?? this.o.range ?? finiteRange(data);
      // A diverging map is symmetric around 0 (Heatmap's rule).
      if (this.kind === 'diverging') {
        hi = Math.max(Math.abs(lo), Math.abs(hi));
        lo = -hi;
      }
      mid = label((lo + hi) / 2);
    }
    setText(this.ticks.hi, label(hi));
    setText(this.ticks.mid, mid);
    setText(this.ticks.lo, label(lo));
    this.el.dataset.lo = String(lo);
    this.el.dataset.hi = String(hi);
    // The bar's values never change (the Heatmap redraws it on a theme change).
    if (!this.barDrawn) this.drawBar();
  }
  private barDrawn = false;

  private readOriginal(e: MouseEvent): void {
    if (!this.last || this.scale === 'linear' || !this.readout) return;
    const { data, rows, cols } = this.last;
    const r = this.map.canvas.getBoundingClientRect();
    const j = Math.floor(((e.clientX - r.left) / r.width) * cols);
    const i = Math.floor(((e.clientY - r.top) / r.height) * rows);
    if (i < 0 || i >= rows || j < 0 || j >= cols) return;
    const name = (n: string | (() => string) | undefined, fallback: string): string => (n === undefined ? fallback : typeof n === 'string' ? n : n());
    this.readout.textContent = `${name(this.o.rowName, 'row')} ${(this.o.y0 ?? 0) + i}, ${name(this.o.colName, 'col')} ${(this.o.x0 ?? 0) + j}: ${fmtNum(data[i * cols + j]!, 4)}`;
  }

  private drawBar(): void {
    // [BAR_STEPS, 1]: the top row is the top of the range.
    const v = Float32Array.from({ length: BAR_STEPS }, (_, i) => 1 - i / (BAR_STEPS - 1));
    if (this.kind === 'diverging') for (let i = 0; i < BAR_STEPS; i++) v[i] = 2 * v[i]! - 1;
    this.bar.draw(v, BAR_STEPS, 1, this.kind === 'sequential' ? [0, 1] : [-1, 1]);
    this.bar.canvas.style.aspectRatio = 'auto';
    this.barDrawn = true;
  }

  private redraw(): void {
    if (this.last) this.draw(this.last.data, this.last.rows, this.last.cols, this.last.range);
  }
}

/** log10 of the largest positive value, and the decades to show below it (fewer if the data span fewer). */
function logTop(data: ArrayLike<number>, decades: number): [number, number] {
  let hi = 0, lo = Infinity;
  for (let e = 0; e < data.length; e++) {
    const v = data[e]!;
    if (v > 0 && Number.isFinite(v)) {
      hi = Math.max(hi, v);
      lo = Math.min(lo, v);
    }
  }
  if (!(hi > 0)) return [0, decades];
  const top = Math.log10(hi);
  return [top, Math.max(Math.min(decades, top - Math.log10(lo)), 1e-6)];
}

/** Each row divided by its largest |value| (rows of zeros stay zero; ±Infinity kept as masked). */
function rowShare(data: ArrayLike<number>, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    let m = 0;
    for (let j = 0; j < cols; j++) {
      const v = data[i * cols + j]!;
      if (Number.isFinite(v)) m = Math.max(m, Math.abs(v));
    }
    for (let j = 0; j < cols; j++) {
      const v = data[i * cols + j]!;
      out[i * cols + j] = Number.isFinite(v) ? (m > 0 ? v / m : 0) : -Infinity;
    }
  }
  return out;
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

/** Writes text only when it differs (an equal write still invalidates layout). */
function setText(e: HTMLElement, s: string): void {
  if (e.textContent !== s) e.textContent = s;
}

function label(v: number): string {
  return Number.isInteger(v) ? String(v) : fmtNum(v, 2);
}
