// Line plots with uPlot: small (about 50 kB), canvas-rendered and fast
// enough to redraw on every slider event; no dependencies, no eval (works
// under a strict CSP). Colours follow the page theme.
import 'uplot/dist/uPlot.min.css';
import './charts.css';

import uPlot from 'uplot';

import { el } from './ui.js';

export const PALETTE = ['#1f77b4', '#e6550d', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

export interface LineSeries {
  /** A function is re-read when the plot is rebuilt (language change). */
  label: string | (() => string);
  color?: string;
  dash?: number[];
  width?: number;
}

export interface LinePlotOptions {
  xLabel: () => string;
  yLabel: () => string;
  series: LineSeries[];
  height?: number;
  logX?: boolean;
  logY?: boolean;
  /** Vertical marker lines at these x values (e.g. the training length). */
  markers?: () => number[];
  /** Horizontal marker lines (e.g. the entropy rate). */
  hMarkers?: () => number[];
  points?: boolean;
  /** Fixed x range (a function is re-read on every redraw). */
  xRange?: [number, number] | (() => [number, number]);
  /** Fixed x tick positions (e.g. the evaluated lengths on a log axis; a function is re-read). */
  xTicks?: number[] | (() => number[]);
  /** x takes integer values only (e.g. a pair index): ticks at whole numbers. */
  integerX?: boolean;
  /** Text drawn beside each vertical / horizontal marker line (same order as the markers). */
  markerText?: () => string[];
  hMarkerText?: () => string[];
  /** Each visible series' label drawn at the end of its line. */
  endLabels?: boolean;
  /** Hovering near a line fades the others. */
  highlight?: boolean;
  /** Legend rows to reserve before the first data arrives (default 1), so the page does not shift. */
  legendRows?: number;
  /** Fixed y range, or one computed from the data's [min, max]. */
  yRange?: [number, number] | ((min: number, max: number) => [number, number]);
}

/** Every live plot, weakly held: a plot a section drops is collected. */
const plots = new Set<WeakRef<LinePlot>>();

function xRangeOf(r: NonNullable<LinePlotOptions['xRange']>): uPlot.Range.MinMax | uPlot.Range.Function {
  return typeof r === 'function' ? () => r() : r;
}
const ticksOf = (t: NonNullable<LinePlotOptions['xTicks']>): number[] => (typeof t === 'function' ? t() : t);

function yRangeOf(r: NonNullable<LinePlotOptions['yRange']>): uPlot.Range.MinMax | uPlot.Range.Function {
  return typeof r === 'function' ? (_u: uPlot, min: number, max: number) => r(min, max) : r;
}

const labelOf = (s: LineSeries): string => (typeof s.label === 'string' ? s.label : s.label());

/** Rebuilds every plot (theme or language change). */
export function refreshPlots(): void {
  for (const ref of plots) {
    const p = ref.deref();
    if (p) p.rebuild();
    else plots.delete(ref);
  }
}

/** Width of a y axis: its widest tick label, plus room for the ticks and the gap to the axis name. */
let measurer: CanvasRenderingContext2D | null | undefined;
function yAxisSize(values: string[] | null): number {
  if (!values || values.length === 0) return 50;
  measurer ??= document.createElement('canvas').getContext('2d');
  if (!measurer) return 50;
  measurer.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  const widest = Math.max(...values.map((v) => measurer!.measureText(v ?? '').width));
  return Math.max(50, Math.ceil(widest) + 22);
}

/** Right padding of a chart with end labels: its widest label (11 px) plus the gap to the line's end, at least 84 px. */
function endLabelRoom(labels: string[]): number {
  measurer ??= document.createElement('canvas').getContext('2d');
  if (!measurer || labels.length === 0) return 84;
  measurer.font = '11px system-ui, sans-serif';
  return Math.max(84, Math.ceil(Math.max(...labels.map((l) => measurer!.measureText(l).width))) + 10);
}

// Read once per theme: getComputedStyle after a DOM change forces a style
// recalculation of the whole page (a few ms on this page), so a per-update
// read would cost more than the drawing.
const varCache = new Map<string, string>();
export function cssVar(name: string): string {
  const key = `${document.documentElement.dataset.theme ?? ''}|${name}`;
  let v = varCache.get(key);
  if (v === undefined) {
    v = getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
    varCache.set(key, v);
  }
  return v;
}

/**
 * A series colour for the current theme: on the dark background, colours
 * darker than 62% lightness (the palette's blue, purple, brown, grey; the
 * ALiBi heads' hues at 50%) are drawn lighter, same hue and saturation.
 * Plots rebuild on a theme change, so this is read at each build.
 */
export function themed(colour: string): string {
  if (document.documentElement.dataset.theme !== 'dark') return colour;
  let h: number, sat: number, l: number;
  const hsl = /^hsl\(\s*([\d.]+)\s*,\s*([\d.]+)%\s*,\s*([\d.]+)%\s*\)$/.exec(colour);
  const hex = /^#([0-9a-f]{6})$/i.exec(colour);
  if (hsl) {
    [h, sat, l] = [Number(hsl[1]), Number(hsl[2]), Number(hsl[3])];
  } else if (hex) {
    const n = parseInt(hex[1]!, 16);
    const [r, g, b] = [(n >> 16) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
    const max = Math.max(r, g, b), min = Math.min(r, g, b), d = max - min;
    l = ((max + min) / 2) * 100;
    sat = d === 0 ? 0 : (d / (1 - Math.abs(max + min - 1))) * 100;
    h = d === 0 ? 0 : max === r ? 60 * (((g - b) / d) % 6) : max === g ? 60 * ((b - r) / d + 2) : 60 * ((r - g) / d + 4);
    h = (h + 360) % 360;
  } else {
    return colour;
  }
  return l >= 62 ? colour : `hsl(${Math.round(h)}, ${Math.round(sat)}%, 62%)`;
}

export class LinePlot {
  readonly el: HTMLElement;
  private plot: uPlot | undefined;
  private data: uPlot.AlignedData = [[]];
  private series: LineSeries[];

  constructor(private readonly o: LinePlotOptions) {
    this.series = o.series;
    this.el = el('div', { class: 'plot' });
    // The final size (canvas + legend) is reserved now: charts filled later
    // by the Worker must not push the text below them down.
    this.el.style.minHeight = `${(o.height ?? 260) + 28 * (o.legendRows ?? 1)}px`;
    plots.add(new WeakRef(this));
    // The width comes from the observer, after the browser's own layout:
    // reading clientWidth while sections mount would force a layout of the
    // whole page for every chart. A chart given data before its first
    // measurement is built when the observer reports (before that frame paints).
    // It watches an empty full-width strip, not the chart: the chart's own
    // height changing in the callback (a legend wrapping) would notify again
    // in the same frame, which browsers report as a ResizeObserver loop error.
    const strip = el('div', { class: 'plot-strip' });
    this.el.append(strip);
    new ResizeObserver((entries) => {
      const w = entries[entries.length - 1]!.contentRect.width;
      if (w <= 0) return;
      this.measured = w;
      if (this.pending) {
        this.pending = false;
        this.rebuild();
      } else if (this.plot && Math.abs(this.plot.width - this.width()) > 1) {
        this.plot.setSize({ width: this.width(), height: this.o.height ?? 260 });
      }
    }).observe(strip);
  }

  /** The last width the observer reported (0: not laid out yet). */
  private measured = 0;
  /** setData came before the first measurement: build when it arrives. */
  private pending = false;

  private width(): number {
    return Math.max(240, Math.floor(this.measured || 480));
  }

  /** data[0]: x values; data[k]: series k (null = gap). */
  setData(data: uPlot.AlignedData, series?: LineSeries[]): void {
    this.data = data;
    if (series && (series.length !== this.series.length || series.some((s, i) => labelOf(s) !== labelOf(this.series[i]!) || s.color !== this.series[i]!.color))) {
      this.series = series;
      this.plot?.destroy();
      this.plot = undefined;
    }
    if (this.plot) this.plot.setData(data);
    else this.rebuild();
    this.el.dataset.points = String(data[0].length);
  }

  rebuild(): void {
    if (this.measured === 0) {
      // Not laid out yet (the observer builds it).
      this.pending = true;
      return;
    }
    this.plot?.destroy();
    const fg = cssVar('--fg'), grid = cssVar('--grid');
    // The axis titles are drawn on the canvas: the same strings here (the language test reads them).
    this.el.dataset.axes = JSON.stringify([this.o.xLabel(), this.o.yLabel()]);
    const axis = (label: string): uPlot.Axis => ({
      label, stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 },
    });
    const markers = this.o.markers, hMarkers = this.o.hMarkers;
    this.plot = new uPlot(
      {
        width: this.width(),
        height: this.o.height ?? 260,
        scales: {
          x: { time: false, distr: this.o.logX ? 3 : 1, ...(this.o.logX ? { log: 2 as const } : {}), ...(this.o.xRange ? { range: xRangeOf(this.o.xRange) } : {}) },
          y: { distr: this.o.logY ? 3 : 1, ...(this.o.yRange ? { range: yRangeOf(this.o.yRange) } : {}) },
        },
        axes: [
          {
            ...axis(this.o.xLabel()), ...(this.o.integerX ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] } : {}),
            ...(this.o.xTicks ? { space: 26, splits: (u: uPlot) => this.roomyTicks(u, ticksOf(this.o.xTicks!)), values: (_u: uPlot, splits: number[]) => this.tickLabels(splits) } : {}),
          },
          // The y axis as wide as its longest tick label (uPlot's fixed 50 px
          // lets "100,000" run into the rotated axis name).
          { ...axis(this.o.yLabel()), size: (_u: uPlot, values: string[] | null) => yAxisSize(values) },
        ],
        legend: { show: true },
        cursor: { drag: { x: false, y: false }, ...(this.o.highlight ? { focus: { prox: 24 } } : {}) },
        ...(this.o.highlight ? { focus: { alpha: 0.25 } } : {}),
        ...(this.o.endLabels ? { padding: [18, endLabelRoom(this.series.map(labelOf)), 0, 0] as uPlot.Padding } : {}),
        series: [
          { label: this.o.xLabel() },
          ...this.series.map((s, i) => ({
            label: labelOf(s),
            stroke: themed(s.color ?? PALETTE[i % PALETTE.length]!),
            width: s.width ?? 1.5,
            ...(s.dash ? { dash: s.dash } : {}),
            points: { show: this.o.points ?? false },
            spanGaps: false,
          })),
        ],
        hooks: {
          // The legend's value column only while the cursor is on the plot
          // (uPlot writes '--' placeholders otherwise).
          setCursor: [(u: uPlot) => { this.el.classList.toggle('idle', u.cursor.idx == null); }],
          draw: [
            (u: uPlot) => {
              const ctx = u.ctx;
              ctx.save();
              ctx.strokeStyle = fg;
              ctx.setLineDash([5, 4]);
              ctx.lineWidth = 1;
              for (const x of markers?.() ?? []) {
                const px = u.valToPos(x, 'x', true);
                ctx.beginPath();
                ctx.moveTo(px, u.bbox.top);
                ctx.lineTo(px, u.bbox.top + u.bbox.height);
                ctx.stroke();
              }
              for (const y of hMarkers?.() ?? []) {
                const py = u.valToPos(y, 'y', true);
                ctx.beginPath();
                ctx.moveTo(u.bbox.left, py);
                ctx.lineTo(u.bbox.left + u.bbox.width, py);
                ctx.stroke();
              }
              this.drawMarkerText(u, fg);
              if (this.o.endLabels) this.drawEndLabels(u);
              ctx.restore();
            },
          ],
        },
      },
      this.data,
      this.el,
    );
    this.el.classList.add('idle');
    // For tests and readers of the DOM: each series' label and colour.
    this.el.dataset.series = JSON.stringify(this.series.map((s, i) => [labelOf(s), s.color ?? PALETTE[i % PALETTE.length]!]));
  }

  /**
   * The given x ticks, left to right, without those whose label would touch the last one kept (on a
   * narrow chart a log axis crowds 3 and 4, or 128, 256 and 512); the first tick is always kept.
   * Each with its centre (CSS pixels) goes to data-xtick-px, as value:x, for readers of the DOM.
   */
  private roomyTicks(u: uPlot, ticks: number[]): number[] {
    // A tick label is about 7 CSS pixels a digit (12 px axis font), and needs 6 px between labels.
    const half = (v: number): number => (String(v).length * 7) / 2;
    const kept: Array<[number, number]> = [];
    for (const v of ticks) {
      const x = u.valToPos(v, 'x');
      if (!Number.isFinite(x)) continue;
      const prev = kept[kept.length - 1];
      if (prev === undefined || x - prev[1] >= half(prev[0]) + half(v) + 6) kept.push([v, x]);
    }
    this.el.dataset.xtickPx = kept.map(([v, x]) => `${v}:${Math.round(x)}`).join(',');
    return kept.map(([v]) => v);
  }

  /** Plain tick labels (no thousands separators), kept in data-xticks for readers of the DOM (the axis itself is canvas). */
  private tickLabels(splits: Array<number | null>): string[] {
    // uPlot passes null for ticks it leaves out for lack of room.
    const labels = splits.map((v) => (v == null ? '' : String(v)));
    this.el.dataset.xticks = labels.filter((l) => l !== '').join(',');
    return labels;
  }

  /** Boxes of the marker texts last drawn (canvas pixels): end labels keep clear of them. */
  private markerBoxes: Box[] = [];

  private drawMarkerText(u: uPlot, fg: string): void {
    const ctx = u.ctx;
    const dpr = window.devicePixelRatio || 1;
    const h = 11 * dpr;
    ctx.setLineDash([]);
    ctx.fillStyle = fg;
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    // A halo in the page's background under each text, so that a curve
    // passing behind it does not cut through the letters.
    ctx.strokeStyle = cssVar('--bg');
    ctx.lineWidth = 3 * dpr;
    ctx.lineJoin = 'round';
    this.markerBoxes = [];
    const vs = this.o.markers?.() ?? [], vt = this.o.markerText?.() ?? [];
    const hs = this.o.hMarkers?.() ?? [], ht = this.o.hMarkerText?.() ?? [];
    // Each text goes where the fewest drawn lines (the curves and the vertical
    // markers) run through it (the first such spot of its list), so that it
    // does not sit on the data.
    let ink: Array<[number, number, number]> | undefined;
    const crossings = (b: Box): number => {
      ink ??= [...linePoints(u, 3 * dpr), ...vs.flatMap((x) => {
        const px = u.valToPos(x, 'x', true);
        return Array.from({ length: Math.ceil(u.bbox.height / (3 * dpr)) + 1 }, (_, j): [number, number, number] => [px, u.bbox.top + j * 3 * dpr, 0]);
      })];
      return ink.filter(([x, y]) => x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1).length;
    };
    const clearest = <S extends object | number>(spots: S[], box: (s: S) => Box): S => {
      let best = spots[0]!, fewest = Infinity;
      for (const s of spots) {
        const n = crossings(box(s));
        if (n < fewest) [best, fewest] = [s, n];
      }
      return best;
    };
    // Along the vertical line, reading upwards: centred on the plot's height
    // (the corners are where lines start and end labels sit), or at its top
    // or bottom end if fewer lines cross it there.
    vs.forEach((x, k) => {
      if (!vt[k]) return;
      const w = ctx.measureText(vt[k]!).width;
      if (this.o.endLabels) {
        // A chart with end labels has a band above the plot (its top padding):
        // the text goes there, level, beside the line's top end, clear of every curve.
        const lx = u.valToPos(x, 'x', true), base = u.bbox.top - 4 * dpr;
        const x0 = lx + 3 * dpr + w <= ctx.canvas.width ? lx + 3 * dpr : lx - 3 * dpr - w;
        ctx.textAlign = 'left';
        ctx.strokeText(vt[k]!, x0, base);
        ctx.fillText(vt[k]!, x0, base);
        this.markerBoxes.push({ x0, x1: x0 + w, y0: base - h, y1: base + 2 * dpr });
        return;
      }
      const px = u.valToPos(x, 'x', true) - 4 * dpr;
      const mid = u.bbox.top + u.bbox.height / 2, room = (u.bbox.height - w) / 2 - 4 * dpr;
      const cy = room <= 0 ? mid : clearest([mid, mid - room, mid + room], (c) => ({ x0: px - h, x1: px + 2 * dpr, y0: c - w / 2, y1: c + w / 2 }));
      ctx.save();
      ctx.translate(px, cy);
      ctx.rotate(-Math.PI / 2);
      ctx.textAlign = 'center';
      ctx.strokeText(vt[k]!, 0, 0);
      ctx.fillText(vt[k]!, 0, 0);
      ctx.restore();
      // Rotated a quarter turn: the glyphs stand left of px.
      this.markerBoxes.push({ x0: px - h, x1: px + 2 * dpr, y0: cy - w / 2, y1: cy + w / 2 });
    });
    // Above the horizontal line and clear of it, descenders included, so that the dashes do not
    // run through the letters (review N12); the halo keeps a crossing curve off them too. At
    // its left end, or further right if fewer lines cross it there; or, if every spot above is
    // crossed (on a phone the loss curves crowd the entropy rate's top side), below the line
    // where fewer lines cross it (the earlier spot wins a tie).
    const hBoxes: Array<[number, number[]]> = [];
    hs.forEach((y, k) => {
      if (!ht[k]) return;
      const w = ctx.measureText(ht[k]!).width, line = u.valToPos(y, 'y', true);
      const left = u.bbox.left + 6 * dpr, room = u.bbox.width - w - 12 * dpr;
      type Spot = { x: number; base: number };
      const above = line - 7 * dpr, below = line + 3 * dpr + h;
      const box = ({ x, base }: Spot): Box => ({ x0: x - 2 * dpr, x1: x + w + 2 * dpr, y0: base === above ? base - h : line + 2 * dpr, y1: base === above ? line - 2 * dpr : base + 4 * dpr });
      // Spots along the line, every 8 px (a curve can dip through a narrow gap); above it
      // with end labels not the right end, where their column stands (the lines that end
      // near the entropy rate end just above it), below it the right end too.
      const n = Math.max(1, Math.floor(room / (8 * dpr)));
      const xs = Array.from({ length: n }, (_, j) => left + (room * j) / n);
      const spots: Spot[] = [...xs, ...(this.o.endLabels ? [] : [left + room])].map((x) => ({ x, base: above }));
      if (below + 4 * dpr <= u.bbox.top + u.bbox.height) {
        spots.push(...[...xs, left + room].map((x) => ({ x, base: below })));
        // Last, beside the line's right end in the end labels' column, if none of their
        // labels stands there: the one place no curve reaches, when every spot on the plot is crossed.
        const beside: Spot = { x: u.bbox.left + u.bbox.width + 4 * dpr, base: below };
        const labels = this.o.endLabels ? this.endLabelLayout(u).column.map((it) => labelBox(it.x, it.y, it.w, h)) : [];
        if (this.o.endLabels && box(beside).x1 <= ctx.canvas.width && !labels.some((l) => overlaps(l, box(beside)))) spots.push(beside);
      }
      // Counted over the box widened by 2 px (the lines are sampled every 3 px: one clipping
      // a corner would otherwise go uncounted), but not towards the line, which a curve
      // running level with it would then cross at every spot.
      const around = (sp: Spot): Box => {
        const b = box(sp), up = sp.base === above;
        return { x0: b.x0 - 2 * dpr, x1: b.x1 + 2 * dpr, y0: b.y0 - (up ? 2 * dpr : 0), y1: b.y1 + (up ? 0 : 2 * dpr) };
      };
      const spot = room <= 0 ? { x: left, base: above } : clearest(spots, around);
      const b = box(spot), { x: x0, base } = spot;
      ctx.textAlign = 'left';
      ctx.strokeText(ht[k]!, x0, base);
      ctx.fillText(ht[k]!, x0, base);
      this.markerBoxes.push(b);
      hBoxes.push([Math.round(line / dpr), [b.x0, b.y0, b.x1, b.y1].map((v) => Math.round(v / dpr))]);
    });
    // For tests: each horizontal marker's line (y) and its text's box (x0, y0, x1, y1), CSS pixels.
    this.el.dataset.hMarkerText = JSON.stringify(hBoxes);
  }

  /**
   * The end labels' layout: each visible series' last point, the labels of
   * the lines that end at the right as a column (placed: spread apart and
   * beside those ends), and the lines that end earlier (`inner`, still to be
   * placed). The canvas font must be the labels' (11 px).
   */
  private endLabelLayout(u: uPlot): { items: EndLabel[]; column: EndLabel[]; inner: EndLabel[]; top: number; bottom: number } {
    const ctx = u.ctx;
    const dpr = window.devicePixelRatio || 1;
    const gap = 12 * dpr, h = 11 * dpr, pad = 4 * dpr;
    const items: EndLabel[] = [];
    for (let k = 1; k < u.series.length; k++) {
      const s = u.series[k]!;
      if (!s.show) continue;
      const ys = u.data[k] as Array<number | null | undefined>;
      let last = ys.length - 1;
      while (last >= 0 && (ys[last] == null || !Number.isFinite(ys[last]!))) last--;
      if (last < 0) continue;
      const text = String(s.label ?? '');
      items.push({
        k, x: u.valToPos(u.data[0][last]!, 'x', true), y: u.valToPos(ys[last]!, 'y', true), text, w: ctx.measureText(text).width,
        color: themed(this.series[k - 1]?.color ?? PALETTE[(k - 1) % PALETTE.length]!),
      });
    }
    const top = u.bbox.top - 14 * dpr + h / 2, bottom = u.bbox.top + u.bbox.height - h / 2;
    const right = Math.max(...items.map((it) => it.x));
    // Copies: the column's labels move, the items keep their lines' ends.
    const column = items.filter((it) => it.x >= right - 1).map((it) => ({ ...it })).sort((a, b) => a.y - b.y);
    const inner = items.filter((it) => it.x < right - 1);
    // Too many for the plot's height: the ones farthest from the rest go.
    while (column.length * gap > bottom - top + gap && column.length > 1) column.splice(Math.floor(column.length / 2), 1);
    for (let k = 0; k < column.length; k++) column[k]!.y = Math.max(column[k]!.y, k ? column[k - 1]!.y + gap : top);
    for (let k = column.length - 1; k >= 0; k--) column[k]!.y = Math.min(column[k]!.y, k + 1 < column.length ? column[k + 1]!.y - gap : bottom);
    // On a narrow chart a long label ends at the canvas edge rather than past it.
    const placedColumn = column.map((it) => ({ ...it, x: Math.max(Math.min(it.x + pad, u.ctx.canvas.width - it.w - dpr), it.x - it.w) }));
    return { items, column: placedColumn, inner, top, bottom };
  }

  /**
   * Labels at the last drawn point of each visible series. Lines that end at
   * the right form a column, spread apart vertically and kept between the top
   * of the plot and the x axis; a line that ends earlier gets its label beside
   * its end point, on the first side where it overlaps neither the marker
   * texts nor another label (preferring one no line crosses), farther only if
   * every side is taken, or none (the legend names it anyway).
   */
  private drawEndLabels(u: uPlot): void {
    const ctx = u.ctx;
    const dpr = window.devicePixelRatio || 1;
    const gap = 12 * dpr, h = 11 * dpr, pad = 4 * dpr;
    ctx.setLineDash([]);
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    const { items, column, inner, top, bottom } = this.endLabelLayout(u);
    const ends = items.map((d) => [d.text, Math.round(d.x / dpr), Math.round(d.y / dpr)]);
    const placed: Box[] = [...this.markerBoxes, ...column.map((it) => labelBox(it.x, it.y, it.w, h))];
    const drawn: EndLabel[] = [...column];
    // Drawn points are obstacles too (a label must not sit on a marker).
    if (this.o.points) {
      const r = 5 * dpr;
      for (let k = 1; k < u.series.length; k++) {
        if (!u.series[k]!.show) continue;
        (u.data[k] as Array<number | null | undefined>).forEach((v, i) => {
          if (v == null || !Number.isFinite(v)) return;
          const px = u.valToPos(u.data[0][i]!, 'x', true), py = u.valToPos(v, 'y', true);
          placed.push({ x0: px - r, x1: px + r, y0: py - r, y1: py + r });
        });
      }
    }
    const lo = u.bbox.left, hi = u.bbox.left + u.bbox.width + 80 * dpr;
    // The drawn lines, as points every few pixels: a label that ends early
    // (a model that stops at its table) goes where no line runs through it
    // if there is such a spot, else where it overlaps no other text.
    const ink: Array<[number, number, number]> = inner.length === 0 ? [] : linePoints(u, 3 * dpr);
    const crossed = (b: Box): boolean => ink.some(([x, y]) => x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1);
    // Crowded: another line, or a vertical marker (the training length), runs within a margin of the
    // box. A label there, beside the points where the lines bunch, reads as a note on those points
    // (review F5: the learned model's label beside the other curves' bump just before the training
    // length); clear of them, its leader says which end it names.
    const margin = 6 * dpr;
    const vx = (this.o.markers?.() ?? []).map((v) => u.valToPos(v, 'x', true));
    const crowded = (b: Box, k: number): boolean => vx.some((x) => x >= b.x0 - margin && x <= b.x1 + margin)
      || ink.some(([x, y, s]) => s !== k && x >= b.x0 - margin && x <= b.x1 + margin && y >= b.y0 - margin && y <= b.y1 + margin);
    for (const it of inner) {
      const spots: Array<[number, number]> = [
        [it.x + pad, it.y], [it.x - it.w / 2, it.y - gap], [it.x + pad, it.y - gap], [it.x - pad - it.w, it.y - gap],
        [it.x - it.w / 2, it.y + gap], [it.x - pad - it.w, it.y], [it.x + pad, it.y + gap], [it.x - pad - it.w, it.y + gap],
      ];
      // Farther away, for the line-free search only: up to five rows above or below.
      const far: Array<[number, number]> = [];
      for (let r = 2; r <= 5; r++) {
        for (const dy of [-r * gap, r * gap]) far.push([it.x - it.w / 2, it.y + dy], [it.x - pad - it.w, it.y + dy], [it.x + pad, it.y + dy]);
      }
      // Never wholly right of the end point: that would read as the line going on.
      const free = ([x, y]: [number, number]): boolean => {
        const b = labelBox(x, y, it.w, h);
        return b.x1 <= it.x + it.w / 2 + 1 && b.x0 >= lo && b.x1 <= hi && y >= top && y <= bottom && !placed.some((p) => overlaps(p, b));
      };
      // Beside its end point first (review B8: a label rows away reads as another line's), across a
      // line if need be (the halo keeps it legible); farther only when every near spot is taken.
      const clear = (p: [number, number]): boolean => free(p) && !crossed(labelBox(p[0], p[1], it.w, h)) && !crowded(labelBox(p[0], p[1], it.w, h), it.k);
      const spot = spots.find(clear) ?? far.find(clear)
        ?? spots.find((p) => free(p) && !crossed(labelBox(p[0], p[1], it.w, h))) ?? spots.find(free)
        ?? far.find((p) => free(p) && !crossed(labelBox(p[0], p[1], it.w, h))) ?? far.find(free);
      if (!spot) continue;
      const box = labelBox(spot[0], spot[1], it.w, h);
      placed.push(box);
      // A short leader from the line's end point to the nearest point of its label (review N12),
      // so the label reads as that line's end and not as a note on a nearby point of another.
      const lx = Math.max(box.x0, Math.min(it.x, box.x1)), ly = Math.max(box.y0, Math.min(it.y, box.y1));
      drawn.push({ ...it, x: spot[0], y: spot[1], leader: [it.x, it.y, lx, ly] });
    }
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.lineJoin = 'round';
    for (const it of drawn) {
      if (!it.leader) continue;
      const [x0, y0, x1, y1] = it.leader;
      ctx.strokeStyle = it.color;
      ctx.lineWidth = 1.5 * dpr;
      ctx.beginPath();
      ctx.moveTo(x0, y0);
      ctx.lineTo(x1, y1);
      ctx.stroke();
      // The end point, ringed in the background's colour so that it stands out on the lines under it.
      ctx.fillStyle = it.color;
      ctx.strokeStyle = cssVar('--bg');
      ctx.beginPath();
      ctx.arc(x0, y0, 3.5 * dpr, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
    // The same halo as the marker texts (a label may still sit over a line
    // when no free spot was found).
    ctx.strokeStyle = cssVar('--bg');
    ctx.lineWidth = 3 * dpr;
    for (const it of drawn) {
      ctx.fillStyle = it.color;
      ctx.strokeText(it.text, it.x, it.y);
      ctx.fillText(it.text, it.x, it.y);
    }
    ctx.textBaseline = 'alphabetic';
    // For tests and readers of the DOM: the labels drawn and where (CSS pixels, left edge and middle).
    this.el.dataset.endLabels = JSON.stringify(drawn.map((d) => [d.text, Math.round(d.x / dpr), Math.round(d.y / dpr), Math.round(d.w / dpr)]));
    // Each labelled line's last point (label, x, y) and the vertical markers' x, from the data and the scales (CSS pixels).
    this.el.dataset.endPoints = JSON.stringify(ends);
    this.el.dataset.markerXs = JSON.stringify(vx.map((x) => Math.round(x / dpr)));
    // The leaders of the labels of lines that end early: label, end point (x, y), where the leader meets the label (x, y).
    this.el.dataset.endLeaders = JSON.stringify(drawn.filter((d) => d.leader).map((d) => [d.text, ...d.leader!.map((v) => Math.round(v / dpr))]));
  }
}

/** Points along every visible line of `u`, at most `step` canvas pixels apart: x, y and the series' index. */
function linePoints(u: uPlot, step: number): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  const xs = u.data[0];
  for (let k = 1; k < u.series.length; k++) {
    if (!u.series[k]!.show) continue;
    const ys = u.data[k] as Array<number | null | undefined>;
    let prev: [number, number, number] | undefined;
    for (let i = 0; i < xs.length; i++) {
      const v = ys[i];
      if (v == null || !Number.isFinite(v)) {
        prev = undefined;
        continue;
      }
      const p: [number, number, number] = [u.valToPos(xs[i]!, 'x', true), u.valToPos(v, 'y', true), k];
      if (prev) {
        const n = Math.ceil(Math.hypot(p[0] - prev[0], p[1] - prev[1]) / step);
        for (let j = 1; j < n; j++) out.push([prev[0] + ((p[0] - prev[0]) * j) / n, prev[1] + ((p[1] - prev[1]) * j) / n, k]);
      }
      out.push(p);
      prev = p;
    }
  }
  return out;
}

/** A rectangle in canvas pixels. */
interface Box { x0: number; x1: number; y0: number; y1: number }
/** An end label: anchor or drawn position (left edge, vertical middle), text and its width. */
interface EndLabel { k: number; x: number; y: number; text: string; w: number; color: string; leader?: [number, number, number, number] }

const labelBox = (x: number, y: number, w: number, h: number): Box => ({ x0: x, x1: x + w, y0: y - h / 2, y1: y + h / 2 });
const overlaps = (a: Box, b: Box): boolean => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
