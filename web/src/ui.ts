// Small DOM helpers: labelled native controls (keyboard accessible as they
// are), bound to the URL state and to the language switch.
import { onLangChange, t, type Key } from './i18n.js';
import { setParam } from './state.js';

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

export interface Slider {
  el: HTMLElement;
  input: HTMLInputElement;
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
  /** The slider moves over log2(value) (for bases and factors). */
  log?: boolean;
  onInput: (v: number) => void;
}

export function slider(o: SliderOptions): Slider {
  const id = nextId();
  const toPos = (v: number): number => (o.log ? Math.log2(v) : v);
  const fromPos = (p: number): number => {
    if (!o.log) return p;
    const v = 2 ** p;
    return Math.min(o.max, Math.max(o.min, o.step >= 1 ? Math.round(v / o.step) * o.step : Math.round(v * 1000) / 1000));
  };
  const input = el('input', {
    type: 'range', id, min: String(toPos(o.min)), max: String(toPos(o.max)),
    step: String(o.log ? 0.01 : o.step), value: String(toPos(o.value)),
  });
  const out = el('output', { for: id });
  const fmt = o.format ?? ((v: number) => String(v));
  let value = o.value;
  const show = (): void => {
    out.textContent = fmt(value);
    input.setAttribute('aria-valuetext', fmt(value));
  };
  show();
  input.addEventListener('input', () => {
    value = fromPos(Number(input.value));
    if (!o.log) value = Math.round(value / o.step) * o.step;
    show();
    setParam(o.param, value);
    o.onInput(value);
  });
  const label = el('label', { for: id });
  label.append(text(o.label));
  return {
    el: el('div', { class: 'control' }, label, input, out),
    input,
    value: () => value,
    set(v: number) {
      value = v;
      input.value = String(toPos(v));
      show();
      setParam(o.param, v);
    },
  };
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
    onLangChange(() => o.options.forEach(([, label], i) => { input.options[i]!.text = show(label); }));
  }
  input.value = o.value;
  input.addEventListener('change', () => {
    setParam(o.param, input.value);
    o.onChange(input.value as T);
  });
  const label = el('label', { for: id });
  label.append(text(o.label));
  return { el: el('div', { class: 'control' }, label, input), input, value: () => input.value as T };
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
  const label = el('label', { for: id });
  label.append(text(o.label));
  return { el: el('div', { class: 'control check' }, input, label), input };
}

export function button(label: Key, onClick: () => void, cls = ''): HTMLButtonElement {
  const b = el('button', { type: 'button', ...(cls ? { class: cls } : {}) });
  b.append(text(label));
  b.addEventListener('click', onClick);
  return b;
}

/** A titled figure: caption (translated) above the content. */
export function figure(caption: Key, ...content: Node[]): HTMLElement {
  return el('figure', {}, text(caption, 'figcaption'), ...content);
}

/** Runs `fn` at most once per animation frame, with the latest arguments. */
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
