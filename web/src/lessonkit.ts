// Small pieces shared by the "examples" and "derivation" sections: seeded
// inputs, vector helpers, numbers the tests read (data-value), rich text
// that follows the language, and code panels (posenc TS / PyTorch) in tabs.
import { onLangChange, t, type Key } from './i18n.js';
import { renderRich } from './tex.js';
import { el, fmtNum, text } from './ui.js';

/**
 * `n` seeded values, uniform in [-scale, scale): xorshift32 from a hashed
 * seed. Deterministic, so a test can rebuild the same inputs.
 */
export function seeded(n: number, seed: number, scale = 1): Float32Array {
  let s = Math.imul(seed, 0x9e3779b1) >>> 0 || 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (s ^ (s << 13)) >>> 0;
    s = (s ^ (s >>> 17)) >>> 0;
    s = (s ^ (s << 5)) >>> 0;
    out[i] = ((s / 4294967296) * 2 - 1) * scale;
  }
  return out;
}

/** `[rows, cols] x [cols]` (row-major matrix). */
export function matVec(w: ArrayLike<number>, x: ArrayLike<number>, rows: number, cols: number): Float32Array {
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let c = 0; c < cols; c++) s += (w[r * cols + c] as number) * (x[c] as number);
    out[r] = s;
  }
  return out;
}

/** An <output> the tests read: full precision in data-value, rounded in the text. */
export function valueOut(id: string, cls = ''): HTMLOutputElement {
  return el('output', { id, ...(cls ? { class: cls } : {}) });
}

export function setValue(o: HTMLElement, v: number, digits = 4): void {
  o.dataset.value = String(v);
  o.textContent = fmtNum(v, digits);
}

/** An element whose content is a translated string with TeX (re-rendered by main.ts on language change). */
export function rich(key: Key, tag: keyof HTMLElementTagNameMap = 'p', cls = ''): HTMLElement {
  const e = el(tag, cls ? { class: cls } : {});
  e.dataset.i18nRich = key;
  renderRich(e, t(key));
  return e;
}

/** A label and its value on one line: "label  value". */
export function readout(label: Node | string, ...value: Array<Node | string>): HTMLElement {
  return el('div', { class: 'lesson-readout' }, typeof label === 'string' ? el('span', {}, label) : label, ...value);
}

export interface CodePanels {
  el: HTMLElement;
  /** Re-renders the code (after a parameter or the language changed). */
  refresh(): void;
  /** Shows the tab with this key. */
  select(key: string): void;
}

/** One tab of `codeTabs`: its id suffix, label, code (rebuilt on every refresh) and a note shown under it. */
export interface CodeTab {
  key: string;
  label: Key;
  code: () => string;
  note?: Key;
}

/**
 * Code panels in tabs (the first shown), each `<pre id="<id>-<key>">`, with a
 * copy button. The code is built by functions, so its numbers and comments
 * follow the controls and the language.
 */
export function codeTabs(id: string, tabs: readonly CodeTab[]): CodePanels {
  const codes = tabs.map(() => el('code'));
  const pres = codes.map((c, i) => el('pre', { class: 'code', id: `${id}-${tabs[i]!.key}`, tabindex: '0' }, c));
  const notes = tabs.map((tab) => (tab.note === undefined ? undefined : text(tab.note, 'p', 'note')));
  const buttons = tabs.map((tab, i) => {
    const b = el('button', { type: 'button', role: 'tab', 'aria-selected': String(i === 0), 'aria-controls': `${id}-${tab.key}` });
    b.append(text(tab.label));
    b.addEventListener('click', () => show(i));
    return b;
  });
  const copy = el('button', { type: 'button', class: 'copy' });
  copy.append(text('examples.copy'));
  let current = 0;
  const show = (i: number): void => {
    current = i;
    buttons.forEach((b, j) => b.setAttribute('aria-selected', String(i === j)));
    pres.forEach((p, j) => (p.hidden = i !== j));
    notes.forEach((n, j) => { if (n) n.hidden = i !== j; });
  };
  copy.addEventListener('click', () => {
    const code = codes[current]?.textContent ?? '';
    void navigator.clipboard?.writeText(code).then(() => {
      copy.dataset.copied = '1';
      setTimeout(() => delete copy.dataset.copied, 1200);
    });
  });
  const refresh = (): void => tabs.forEach((tab, i) => { codes[i]!.textContent = tab.code(); });
  refresh();
  show(0);
  onLangChange(refresh);
  const bar = el('div', { class: 'code-tabs', role: 'tablist' }, ...buttons, copy);
  const select = (key: string): void => {
    const i = tabs.findIndex((tab) => tab.key === key);
    if (i < 0) throw new RangeError(`codeTabs ${id}: no tab ${key}`);
    show(i);
  };
  return { el: el('div', { class: 'code-panels' }, bar, ...pres, ...notes.filter((n): n is HTMLElement => n !== undefined)), refresh, select };
}

/**
 * Two code panels in tabs: the posenc call this page runs (TypeScript) and an
 * equivalent PyTorch snippet, labelled as not run here.
 */
export function codePanels(id: string, ts: () => string, py: () => string): CodePanels {
  return codeTabs(id, [
    { key: 'ts', label: 'examples.tab.ts', code: ts },
    { key: 'py', label: 'examples.tab.py', code: py, note: 'examples.py.note' },
  ]);
}

/** `[a, b, ...]` with `digits` decimals (for short inline vectors). */
export function vecText(v: ArrayLike<number>, digits = 3): string {
  return `(${Array.from(v, (x) => x.toFixed(digits)).join(', ')})`;
}
