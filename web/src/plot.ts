// Line plots with uPlot: small (about 50 kB), canvas-rendered and fast
// enough to redraw on every slider event; no dependencies, no eval (works
// under a strict CSP). Colours follow the page theme.
import 'uplot/dist/uPlot.min.css';

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
  /** Fixed x range. */
  xRange?: [number, number];
  /** Fixed x tick positions (e.g. the evaluated lengths on a log axis). */
  xTicks?: number[];
  /** x takes integer values only (e.g. a pair index): ticks at whole numbers. */
  integerX?: boolean;
}

const plots = new Set<LinePlot>();

const labelOf = (s: LineSeries): string => (typeof s.label === 'string' ? s.label : s.label());

/** Rebuilds every plot (theme or language change). */
export function refreshPlots(): void {
  for (const p of plots) p.rebuild();
}

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

export class LinePlot {
  readonly el: HTMLElement;
  private plot: uPlot | undefined;
  private data: uPlot.AlignedData = [[]];
  private series: LineSeries[];

  constructor(private readonly o: LinePlotOptions) {
    this.series = o.series;
    this.el = el('div', { class: 'plot' });
    plots.add(this);
    new ResizeObserver(() => {
      const w = this.width();
      if (this.plot && Math.abs(this.plot.width - w) > 1) this.plot.setSize({ width: w, height: this.o.height ?? 260 });
    }).observe(this.el);
  }

  private width(): number {
    return Math.max(240, Math.floor(this.el.clientWidth || 480));
  }

  /** data[0]: x values; data[k]: series k (null = gap). */
  setData(data: uPlot.AlignedData, series?: LineSeries[]): void {
    this.data = data;
    if (series && (series.length !== this.series.length || series.some((s, i) => labelOf(s) !== labelOf(this.series[i]!)))) {
      this.series = series;
      this.plot?.destroy();
      this.plot = undefined;
    }
    if (this.plot) this.plot.setData(data);
    else this.rebuild();
    this.el.dataset.points = String(data[0].length);
  }

  rebuild(): void {
    this.plot?.destroy();
    const fg = cssVar('--fg'), grid = cssVar('--grid');
    const axis = (label: string): uPlot.Axis => ({
      label, stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 },
    });
    const markers = this.o.markers, hMarkers = this.o.hMarkers;
    this.plot = new uPlot(
      {
        width: this.width(),
        height: this.o.height ?? 260,
        scales: {
          x: { time: false, distr: this.o.logX ? 3 : 1, ...(this.o.logX ? { log: 2 as const } : {}), ...(this.o.xRange ? { range: this.o.xRange } : {}) },
          y: { distr: this.o.logY ? 3 : 1 },
        },
        axes: [
          {
            ...axis(this.o.xLabel()), ...(this.o.integerX ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] } : {}),
            ...(this.o.xTicks ? { splits: () => this.o.xTicks! } : {}),
          },
          axis(this.o.yLabel()),
        ],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        series: [
          { label: this.o.xLabel() },
          ...this.series.map((s, i) => ({
            label: labelOf(s),
            stroke: s.color ?? PALETTE[i % PALETTE.length]!,
            width: s.width ?? 1.5,
            ...(s.dash ? { dash: s.dash } : {}),
            points: { show: this.o.points ?? false },
            spanGaps: false,
          })),
        ],
        hooks: {
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
              ctx.restore();
            },
          ],
        },
      },
      this.data,
      this.el,
    );
  }
}
