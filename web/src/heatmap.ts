// Heatmaps on canvas: one pixel per cell, scaled by CSS (crisp), with a
// diverging (around 0) or sequential colour map and a hover read-out.
import { onLangChange } from './i18n.js';
import { el, fmtNum } from './ui.js';

type Rgb = [number, number, number];

// Sequential: dark blue -> teal -> yellow (perceptually ordered, in the
// spirit of viridis; our own anchor points). On the dark theme the low end
// is lifted so that it stays apart from the page background (#15171c).
const SEQ_LIGHT: Rgb[] = [[38, 24, 92], [44, 92, 146], [33, 145, 140], [94, 201, 98], [250, 231, 33]];
const SEQ_DARK: Rgb[] = [[74, 58, 150], [52, 108, 170], [38, 158, 150], [112, 208, 100], [252, 234, 70]];

/** Colours of one theme: sequential anchors, diverging ends and middle, masked cells. */
interface Palette { seq: Rgb[]; neg: Rgb; pos: Rgb; mid: Rgb; masked: Rgb }
const LIGHT: Palette = { seq: SEQ_LIGHT, neg: [49, 104, 196], pos: [203, 54, 48], mid: [247, 247, 247], masked: [128, 128, 128] };
// Dark: brighter ends, and a middle (value 0) lighter than the background so
// that zero cells read as cells, not as holes.
const DARK: Palette = { seq: SEQ_DARK, neg: [96, 150, 255], pos: [255, 104, 92], mid: [62, 66, 80], masked: [128, 128, 128] };

export function palette(): Palette {
  return document.documentElement.dataset.theme === 'dark' ? DARK : LIGHT;
}

function ramp(anchors: Rgb[], x: number): Rgb {
  const p = Math.min(Math.max(x, 0), 1) * (anchors.length - 1);
  const i = Math.min(Math.floor(p), anchors.length - 2);
  const f = p - i;
  const a = anchors[i]!, b = anchors[i + 1]!;
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f];
}

const str = (s: string | (() => string)): string => (typeof s === 'string' ? s : s());

/** Every live heatmap, redrawn when the theme changes (weakly held: maps a section drops are collected). */
const live = new Set<WeakRef<Heatmap>>();
let listening = false;

function watchTheme(h: Heatmap): void {
  live.add(new WeakRef(h));
  if (listening) return;
  listening = true;
  window.addEventListener('posenc-theme', () => {
    for (const ref of live) {
      const m = ref.deref();
      if (m) m.redraw();
      else live.delete(ref);
    }
  });
}

// [256 * 3] RGB entries per kind and palette, built once.
const tables = new Map<string, Uint8Array>();
function colourTable(kind: 'diverging' | 'sequential', pal: ReturnType<typeof palette>): Uint8Array {
  const key = `${kind}|${pal === DARK ? 'dark' : 'light'}`;
  let lut = tables.get(key);
  if (lut) return lut;
  lut = new Uint8Array(256 * 3);
  const m = pal.mid;
  for (let k = 0; k < 256; k++) {
    let c: Rgb;
    if (kind === 'sequential') c = ramp(pal.seq, k / 255);
    else {
      const x = (k - 127.5) / 127.5;
      const end: Rgb = x < 0 ? pal.neg : pal.pos;
      const f = Math.abs(x);
      c = [m[0] + (end[0] - m[0]) * f, m[1] + (end[1] - m[1]) * f, m[2] + (end[2] - m[2]) * f];
    }
    lut[3 * k] = c[0];
    lut[3 * k + 1] = c[1];
    lut[3 * k + 2] = c[2];
  }
  tables.set(key, lut);
  return lut;
}

export interface HeatmapOptions {
  /** 'diverging' centres the map at 0 (blue negative, red positive). */
  kind: 'diverging' | 'sequential';
  /** Fixed colour range; default: from the data (finite values only). */
  range?: [number, number];
  /** Accessible description (a function follows the language). */
  label: string | (() => string);
  /** Axis names for the read-out (functions follow the language). */
  rowName?: string | (() => string);
  colName?: string | (() => string);
  /** Smallest displayed height / width (default 0.35). */
  minAspect?: number;
  /** Largest CSS width in pixels. */
  maxWidth?: number;
}

export class Heatmap {
  readonly el: HTMLElement;
  readonly canvas: HTMLCanvasElement;
  private readonly readout: HTMLElement;
  private data: ArrayLike<number> = [];
  private img: ImageData | undefined;
  private rows = 0;
  private cols = 0;
  private range: [number, number] | undefined;
  private theme = '';

  /** The colour map in use (starts as o.kind; setKind changes it). */
  private kind: HeatmapOptions['kind'];

  constructor(private readonly o: HeatmapOptions) {
    this.kind = o.kind;
    this.canvas = el('canvas', { role: 'img', 'aria-label': str(o.label), class: 'heatmap' });
    if (typeof o.label !== 'string') onLangChange(() => this.canvas.setAttribute('aria-label', str(o.label)), this);
    this.readout = el('div', { class: 'readout', 'aria-live': 'off' }, '\u00a0');
    this.el = el('div', { class: 'heatmap-wrap' }, this.canvas, this.readout);
    if (o.maxWidth) this.canvas.style.maxWidth = `${o.maxWidth}px`;
    this.canvas.addEventListener('mousemove', (e) => {
      const r = this.canvas.getBoundingClientRect();
      const j = Math.floor(((e.clientX - r.left) / r.width) * this.cols);
      const i = Math.floor(((e.clientY - r.top) / r.height) * this.rows);
      if (i >= 0 && i < this.rows && j >= 0 && j < this.cols) {
        const v = this.data[i * this.cols + j]!;
        this.readout.textContent = `${str(this.o.rowName ?? 'row')} ${i}, ${str(this.o.colName ?? 'col')} ${j}: ${fmtNum(v)}`;
      }
    });
    this.canvas.addEventListener('mouseleave', () => { this.readout.textContent = '\u00a0'; });
    watchTheme(this);
  }

  /** Switches between the diverging and the sequential map (used from the next draw). */
  setKind(kind: HeatmapOptions['kind']): void {
    this.kind = kind;
  }

  /** Draws the last data again (after a theme change), if the colours changed. */
  redraw(): void {
    if (this.rows > 0 && this.theme !== (document.documentElement.dataset.theme ?? '')) {
      this.draw(this.data, this.rows, this.cols, this.range);
    }
  }

  /** data: [rows, cols] row-major; -Infinity cells (masked) are drawn neutral grey. */
  draw(source: ArrayLike<number>, rows: number, cols: number, range?: [number, number]): void {
    this.data = source;
    this.range = range;
    this.theme = document.documentElement.dataset.theme ?? '';
    this.canvas.dataset.theme = this.theme;
    // The loops below see only Float32Array: fed several array kinds (the
    // page passes Int32Array and Float64Array too), V8 compiles them
    // polymorphic and they run about three times slower.
    const data = source instanceof Float32Array ? source : Float32Array.from(source);
    this.rows = rows;
    this.cols = cols;
    if (this.canvas.width !== cols || this.canvas.height !== rows) {
      // Resizing reallocates the canvas and relays out the page: only on change.
      this.canvas.width = cols;
      this.canvas.height = rows;
      // Cells need not be square: keep very tall or very wide maps readable.
      const ratio = Math.min(Math.max(rows / cols, this.o.minAspect ?? 0.35), 1.25);
      this.canvas.style.aspectRatio = `1 / ${ratio}`;
      this.canvas.dataset.rows = String(rows);
      this.canvas.dataset.cols = String(cols);
    }
    let [lo, hi] = range ?? this.o.range ?? [Infinity, -Infinity];
    if (!range && !this.o.range) {
      for (let e = 0, n = rows * cols; e < n; e++) {
        const v = data[e]!;
        if (v < lo) lo = v;
        if (v > hi && v !== Infinity) hi = v;
      }
      if (lo === -Infinity) {  // masked cells: the smallest finite value
        lo = Infinity;
        for (let e = 0, n = rows * cols; e < n; e++) if (data[e]! > -Infinity && data[e]! < lo) lo = data[e]!;
      }
    }
    if (!(hi > lo)) hi = lo + 1;
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    // The pixel buffer is kept between draws of the same size (a fresh
    // megabyte per update costs more than filling it).
    if (!this.img || this.img.width !== cols || this.img.height !== rows) this.img = ctx.createImageData(cols, rows);
    const img = this.img;
    // A 256-entry colour table for this kind and theme; each cell picks its entry.
    const pal = palette();
    const lut = colourTable(this.kind, pal);
    // Diverging maps are symmetric around 0: [-amax, amax].
    const amax = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
    const off = this.kind === 'sequential' ? lo : -amax;
    const scale = 255 / (this.kind === 'sequential' ? hi - lo : 2 * amax);
    const px = img.data;
    for (let e = 0, n = rows * cols; e < n; e++) {
      const v = data[e]!;
      const o = 4 * e;
      if (v === v && v !== Infinity && v !== -Infinity) {
        const k = 3 * Math.min(255, Math.max(0, Math.round((v - off) * scale)));
        px[o] = lut[k]!;
        px[o + 1] = lut[k + 1]!;
        px[o + 2] = lut[k + 2]!;
      } else {
        px[o] = pal.masked[0];
        px[o + 1] = pal.masked[1];
        px[o + 2] = pal.masked[2];
      }
      px[o + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  }
}
