// Small DOM helpers: labelled native controls (keyboard accessible as they
// are), bound to the URL state and to the language switch.
import { errorText, onLangChange, t, type Key } from './i18n.js';
import { getNumber, setParam } from './state.js';

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Array<Node | string>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

/** A span whose text follows the language. */
export function text(key: Key, tag: keyof HTMLElementTagNameMap = 'span', cls = ''): HTMLElement {
  const e = el(tag, cls ? { class: cls } : {});
  e.dataset.i18n = key;
  e.textContent = t(key);
  return e;
}

let uid = 0;
const nextId = (): string => `c${++uid}`;

/** A parameter's value as the URL holds it (booleans as 1 / 0). */
export type ParamValue = string | number | boolean;

/**
 * The controls by URL parameter: each applies a value (in its URL form) as
 * if the reader had set it: the control shows it, the hash gets it and the
 * section reacts. A control created again for the same parameter replaces
 * the older entry.
 */
const registry = new Map<string, (value: string) => void>();

/** Registers how to apply `param` (for a parameter not tied to slider, select or checkbox). */
export function bindParam(param: string, apply: (value: string) => void): void {
  registry.set(param, apply);
}

/** Runs `first` before each value applied to `param` from outside (applyState: presets, "Try this" prompts), e.g. to open the box the control sits in. */
export function beforeApply(param: string, first: () => void): void {
  const apply = registry.get(param);
  if (apply) registry.set(param, (v) => { first(); apply(v); });
}

/** Whether a control is registered for `param`. */
export const isBound = (param: string): boolean => registry.has(param);

/**
 * Applies a view: each value goes to its control, in the object's order.
 * Returns the parameters no control is registered for (none applied); in a
 * dev build those throw.
 */
export function applyState(state: Readonly<Record<string, ParamValue>>): string[] {
  const missing = Object.keys(state).filter((k) => !registry.has(k));
  if (missing.length > 0 && import.meta.env.DEV) throw new Error(`applyState: no control for ${missing.join(', ')}`);
  for (const [k, v] of Object.entries(state)) {
    registry.get(k)?.(typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  }
  return missing;
}

export interface Slider {
  el: HTMLElement;
  input: HTMLInputElement;
  /** The number box beside the slider (when shown). */
  box?: HTMLInputElement;
  value(): number;
  set(v: number): void;
}

export interface SliderOptions {
  label: Key;
  param: string;
  min: number;
  max: number;
  step: number;
  value: number;
  /** Shows the value (default: as is). */
  format?: (v: number) => string;
  /** The slider moves over log2(value) (for bases and factors) and stops at round values. */
  log?: boolean;
  /**
   * Log sliders: the values the slider stops at, by drag and by arrow keys.
   * Default: the powers of two when max / min is one (factors, lengths),
   * else 1-2-5 steps (10, 20, 50, 100, ...), and always min and max.
   */
  stops?: readonly number[];
  /**
   * A number box beside the slider for exact values (same URL parameter,
   * kept in sync both ways). Default: on for log sliders and for sliders
   * with more than 400 positions, where a drag cannot hit every value.
   */
  numeric?: boolean;
  onInput: (v: number) => void;
}

/** Rounds away binary noise (0.30000000000000004 -> 0.3). */
const clean = (v: number): number => Number(v.toPrecision(12));

const onGrid = (v: number, step: number): boolean => Math.abs(v / step - Math.round(v / step)) < 1e-9;

/** Default stops of a log slider: powers of two from min, or 1-2-5 steps; min and max included. */
export function logStops(min: number, max: number, step: number): number[] {
  const out = new Set<number>([min, max]);
  const octaves = Math.log2(max / min);
  if (Math.abs(octaves - Math.round(octaves)) < 1e-9) {
    for (let k = 1; k < Math.round(octaves); k++) out.add(clean(min * 2 ** k));
  } else {
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
      for (const m of [1, 2, 5]) {
        const v = clean(m * 10 ** e);
        if (v > min && v < max && onGrid(v, step)) out.add(v);
      }
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** The stop nearest to v on a log scale. */
function nearestStop(stops: readonly number[], v: number): number {
  let best = stops[0]!;
  for (const s of stops) if (Math.abs(Math.log(s / v)) < Math.abs(Math.log(best / v))) best = s;
  return best;
}

/** `n` stops up (n > 0) or down (n < 0) from v (v need not be a stop). */
function moveStops(stops: readonly number[], v: number, n: number): number {
  if (n > 0) {
    const up = stops.filter((s) => s > v * (1 + 1e-9));
    return up.length ? up[Math.min(n, up.length) - 1]! : stops[stops.length - 1]!;
  }
  const down = stops.filter((s) => s < v * (1 - 1e-9));
  return down.length ? down[Math.max(down.length + n, 0)]! : stops[0]!;
}

const KEY_MOVES: Record<string, number> = {
  ArrowUp: 1, ArrowRight: 1, ArrowDown: -1, ArrowLeft: -1, PageUp: 3, PageDown: -3, Home: -1e9, End: 1e9,
};

export function slider(o: SliderOptions): Slider {
  const id = nextId();
  const toPos = (v: number): number => (o.log ? Math.log2(v) : v);
  const stops = o.log ? (o.stops ?? logStops(o.min, o.max, o.step)) : [];
  /** A value typed or read from a position, on the slider's grid and range (undefined if not a number). */
  const toGrid = (v: number): number | undefined => {
    if (!Number.isFinite(v) || v < o.min - 1e-9 || v > o.max + 1e-9) return undefined;
    const g = o.log ? (o.step >= 1 ? Math.round(v / o.step) * o.step : v) : Math.round((v - o.min) / o.step) * o.step + o.min;
    return clean(Math.min(o.max, Math.max(o.min, g)));
  };
  const input = el('input', {
    type: 'range', id, min: String(toPos(o.min)), max: String(toPos(o.max)),
    step: String(o.log ? 0.01 : o.step), value: String(toPos(o.value)),
  });
  const out = el('output', { for: id });
  const fmt = o.format ?? ((v: number) => String(v));
  const numeric = o.numeric ?? (o.log === true || (o.max - o.min) / o.step > 400);
  const box = numeric
    ? el('input', { type: 'number', class: 'num', min: String(o.min), max: String(o.max), step: String(o.step), inputmode: o.step < 1 ? 'decimal' : 'numeric' })
    : undefined;
  let value = o.value;
  const show = (fromBox = false): void => {
    out.textContent = fmt(value);
    input.setAttribute('aria-valuetext', fmt(value));
    if (box && !fromBox) {
      box.value = String(value);
      box.removeAttribute('aria-invalid');
    }
  };
  show();
  /** A new value from the reader: slider, keys or box. */
  const commit = (v: number, fromBox = false): void => {
    value = v;
    if (o.log || fromBox) input.value = String(toPos(v));
    show(fromBox);
    setParam(o.param, value);
    o.onInput(value);
  };
  input.addEventListener('input', () => {
    const p = Number(input.value);
    // Log sliders stop at round values (no Base of 10069, no 1990 steps).
    commit(o.log ? nearestStop(stops, 2 ** p) : (toGrid(p) ?? value));
  });
  if (o.log) {
    // Native arrow keys would move log2(value) by 0.01: too little for a
    // factor (4 stays 4) and odd for a base (10000 -> 10069). One key press
    // moves one stop instead.
    input.addEventListener('keydown', (e) => {
      const n = KEY_MOVES[e.key];
      if (n === undefined || e.altKey || e.ctrlKey || e.metaKey) return;
      e.preventDefault();
      const v = moveStops(stops, value, n);
      if (v !== value) commit(v);
    });
  }
  const label = el('label', { for: id, id: `${id}-label` });
  label.append(text(o.label));
  let row: HTMLElement = input;
  if (box) {
    box.setAttribute('aria-labelledby', `${id}-label`);
    box.addEventListener('input', () => {
      const v = box.value.trim() === '' ? undefined : toGrid(Number(box.value));
      if (v === undefined) {
        box.setAttribute('aria-invalid', 'true');
        return;
      }
      box.removeAttribute('aria-invalid');
      if (v !== value) commit(v, true);
    });
    // Leaving the box (or Enter) shows the value in effect.
    box.addEventListener('change', () => show());
    out.hidden = true;
    row = el('div', { class: 'slider-row' }, input, box);
  }
  bindParam(o.param, (s) => {
    const v = toGrid(Number(s));
    if (v === undefined) throw new RangeError(`${o.param}: ${s} is not in [${o.min}, ${o.max}]`);
    // The URL gets the value even when it is already in effect (a prompt writes its whole view).
    setParam(o.param, v);
    // The thumb is placed again even for the value in effect: a section that
    // narrows the range (as another value changes) may have clamped it.
    input.value = String(toPos(v));
    if (v === value) return;
    value = v;
    show();
    o.onInput(v);
  });
  return {
    el: el('div', { class: 'control', 'data-param': o.param }, label, row, out),
    input,
    ...(box ? { box } : {}),
    value: () => value,
    set(v: number) {
      value = v;
      input.value = String(toPos(v));
      show();
      setParam(o.param, v);
    },
  };
}

/**
 * A numeric control declared once: its URL key, label, default and range
 * (and the slider's other options). Its value starts from the URL (if valid)
 * or the default; `value()` is the live value.
 */
export type NumberSpec = Omit<SliderOptions, 'value' | 'onInput'> & { initial: number };

/** The slider of `spec`, starting from the URL's value; `onInput` on every change by the reader or a prompt. */
export function numberControl(spec: NumberSpec, onInput: (v: number) => void): Slider {
  const { initial, ...o } = spec;
  return slider({ ...o, value: getNumber(o.param, initial, o.min, o.max), onInput });
}

export interface SelectOptions<T extends string> {
  label: Key;
  param: string;
  /** [value, label]: a label given as a function is re-read on every language change. */
  options: ReadonlyArray<readonly [T, string | (() => string)]>;
  value: T;
  onChange: (v: T) => void;
}

export function select<T extends string>(o: SelectOptions<T>): { el: HTMLElement; input: HTMLSelectElement; value(): T } {
  const id = nextId();
  const input = el('select', { id });
  const show = (label: string | (() => string)): string => (typeof label === 'string' ? label : label());
  for (const [v, label] of o.options) input.append(el('option', { value: v }, show(label)));
  if (o.options.some(([, label]) => typeof label !== 'string')) {
    onLangChange(() => o.options.forEach(([, label], i) => { input.options[i]!.text = show(label); }), input);
  }
  input.value = o.value;
  input.addEventListener('change', () => {
    setParam(o.param, input.value);
    o.onChange(input.value as T);
  });
  bindParam(o.param, (s) => {
    if (!o.options.some(([v]) => v === s)) throw new RangeError(`${o.param}: no option ${s}`);
    setParam(o.param, s);
    if (s === input.value) return;
    input.value = s;
    o.onChange(s as T);
  });
  const label = el('label', { for: id });
  label.append(text(o.label));
  return { el: el('div', { class: 'control', 'data-param': o.param }, label, input), input, value: () => input.value as T };
}

export function checkbox(o: { label: Key; param: string; value: boolean; onChange: (v: boolean) => void }): {
  el: HTMLElement;
  input: HTMLInputElement;
} {
  const id = nextId();
  const input = el('input', { type: 'checkbox', id });
  input.checked = o.value;
  input.addEventListener('change', () => {
    setParam(o.param, input.checked);
    o.onChange(input.checked);
  });
  bindParam(o.param, (s) => {
    if (s !== '1' && s !== '0') throw new RangeError(`${o.param}: ${s} is not 1 or 0`);
    setParam(o.param, s === '1');
    if ((s === '1') === input.checked) return;
    input.checked = s === '1';
    o.onChange(input.checked);
  });
  const label = el('label', { for: id });
  label.append(text(o.label));
  return { el: el('div', { class: 'control check', 'data-param': o.param }, input, label), input };
}

export function button(label: Key, onClick: () => void, cls = ''): HTMLButtonElement {
  const b = el('button', { type: 'button', ...(cls ? { class: cls } : {}) });
  b.append(text(label));
  b.addEventListener('click', onClick);
  return b;
}

/**
 * A lab: its controls beside the figures they drive. On a wide screen (the
 * CSS: at least 1000 px) the two columns stand side by side and the one
 * named `sticky` (the shorter) stays in view while the reader works down the
 * other; on a narrow screen the controls come first, then the figures.
 */
export function lab(o: { controls: Node[]; figures: Node[]; sticky: 'figures' | 'controls'; id?: string }): HTMLElement {
  return el('div', { class: `lab sticky-${o.sticky}`, ...(o.id ? { id: o.id } : {}) },
    el('div', { class: 'lab-controls' }, ...o.controls),
    el('div', { class: 'lab-figures' }, ...o.figures));
}

/** A titled figure: caption (translated) above the content. */
export function figure(caption: Key, ...content: Node[]): HTMLElement {
  return el('figure', {}, text(caption, 'figcaption'), ...content);
}

/** Runs `fn` at most once per animation frame, with the latest arguments. */
/**
 * `fn`, timed: each run records its main-thread time (ms) in the data-ms of
 * the element with id `id` (tests/bench/bench_page.mjs reads it as the work
 * of one update).
 */
export function timed(id: string, fn: () => void): () => void {
  return () => {
    const t0 = performance.now();
    fn();
    const e = document.getElementById(id);
    if (e) e.dataset.ms = (performance.now() - t0).toFixed(2);
  };
}

export function coalesce(fn: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      fn();
    });
  };
}

export function fmtNum(v: number, digits = 3): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e4 || a < 1e-3 ? v.toExponential(2) : v.toFixed(digits);
}

/**
 * Runs `fn` once, when `target` comes within `margin` of the viewport (or at
 * once without IntersectionObserver). Sections use it for anything that
 * fetches a model or costs real time, so nothing loads before the reader
 * gets near it.
 */
export function whenNear(target: Element, fn: () => void, margin = '800px'): void {
  if (typeof IntersectionObserver === 'undefined') {
    fn();
    return;
  }
  const io = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) {
      io.disconnect();
      fn();
    }
  }, { rootMargin: margin });
  io.observe(target);
}

/**
 * A panel that loads when the reader gets near: once `target` comes within
 * `margin` of the viewport, `load()` runs (Worker calls, usually) and `draw`
 * gets its result. A failure of either is shown in `errorBox` (default:
 * `target`) after a sentence in the reader's language, and follows
 * language changes.
 */
export function lazyPanel<T>(target: HTMLElement, load: () => Promise<T>, draw: (value: T) => void, o: { margin?: string; errorBox?: HTMLElement } = {}): void {
  whenNear(target, () => {
    load().then(draw).catch((e: unknown) => showError(o.errorBox ?? target, e));
  }, o.margin);
}

/**
 * Shows `e` in `box` (replacing its content): the core's or the Worker's
 * message after a sentence in the reader's language, following language
 * changes, with the class `error`.
 */
export function showError(box: HTMLElement, e: unknown): void {
  // The box's own translated text (a "loading" line) no longer applies.
  delete box.dataset.i18n;
  delete box.dataset.i18nRich;
  let shown = errorText(e);
  box.textContent = shown;
  box.classList.add('error');
  const off = onLangChange(() => {
    // Once the box shows something else (a later run drew it), the error is not re-shown.
    if (box.textContent !== shown) return off();
    shown = errorText(e);
    box.textContent = shown;
  }, box);
}
