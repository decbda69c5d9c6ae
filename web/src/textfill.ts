// Translated strings with live values: `{name}` placeholders filled at render
// time, and elements that re-render themselves when the language changes.
import { lang, onLangChange, t, type Key } from './i18n.js';
import { renderRich } from './tex.js';
import { el } from './ui.js';

export type Vars = Readonly<Record<string, string | number | boolean>>;

/** A CJK character or CJK punctuation (ideographs, 。，：、（） and the other full-width forms). */
const CJK = '\\u3000-\\u303f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uff00-\\uffef';
const CJK_GAP = new RegExp(`([${CJK}]) +(?=[${CJK}])`, 'g');
const AFTER_STOP = /([。，：；！？、]) +/g;
/** Spaces around full-width brackets (a seed band's range, 0.270（0.268–0.274）nats). */
const BRACKET_GAP = / +(?=（)|(?<=）) +/g;

/**
 * Chinese text joined from pieces, spaced as Chinese is written: no space
 * between two CJK characters, after 。，：；！？、, before （ or after ） (a Latin
 * name or a number keeps its spaces). English text has no CJK characters and
 * passes unchanged.
 */
export function tidyCjk(s: string): string {
  return s.replace(CJK_GAP, '$1').replace(AFTER_STOP, '$1').replace(BRACKET_GAP, '');
}

/**
 * `template` with every `{name}` (letters, digits, `_` and `.`, e.g. a URL key)
 * replaced by `vars[name]` (unknown names stay); a Chinese name filled in next
 * to Chinese text loses the template's spaces around it (tidyCjk).
 */
export function fill(template: string, vars: Vars = {}): string {
  return tidyCjk(template.replace(/\{([\w.]+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m)));
}

/** The gap between two sentences or paragraphs set side by side: a space in English, none in Chinese (a text node that follows the language). */
export function sentenceGap(): Text {
  const n = document.createTextNode('');
  const set = (): void => { n.textContent = lang() === 'zh' ? '' : ' '; };
  set();
  onLangChange(set, n);
  return n;
}

/** A text node that reads `en` in English and `zh` in Chinese (brackets, gaps), following the language. */
export function byLang(en: string, zh: string): Text {
  const n = document.createTextNode('');
  const set = (): void => { n.textContent = lang() === 'zh' ? zh : en; };
  set();
  onLangChange(set, n);
  return n;
}

/** The gap between a label and the value after it: a space after "label:", none after Chinese "标签：" (review F7). */
export const valueGap = (): Text => byLang(' ', '');

/** Values made inert for renderRich: no markup, no TeX delimiters. */
function escapeVars(vars: Vars): Vars {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(vars)) {
    out[k] = typeof v !== 'string' ? v : v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\$/g, '&#36;');
  }
  return out;
}

/** t(key) with its placeholders filled. */
export function tf(key: Key, vars: Vars = {}): string {
  return fill(t(key), vars);
}

/**
 * An element showing t(key) filled with `vars()` (TeX and inline markup
 * rendered), redrawn on every language change and whenever `update()` is called.
 */
export function liveText(tag: keyof HTMLElementTagNameMap, cls = ''): {
  el: HTMLElement;
  set(key: Key | undefined, vars?: Vars): void;
} {
  const e = el(tag, cls ? { class: cls } : {});
  let current: { key: Key | undefined; vars: Vars } = { key: undefined, vars: {} };
  const render = (): void => {
    if (current.key === undefined) e.replaceChildren();
    else renderRich(e, fill(t(current.key), escapeVars(current.vars)));
  };
  onLangChange(render, e);
  return {
    el: e,
    set(key, vars = {}) {
      current = { key, vars };
      render();
    },
  };
}

/** A block of translated rich text (TeX), re-rendered by main.ts's translate(). */
export function rich(key: Key, tag: keyof HTMLElementTagNameMap = 'div', cls = ''): HTMLElement {
  const e = el(tag, cls ? { class: cls } : {});
  e.dataset.i18nRich = key;
  renderRich(e, t(key));
  return e;
}
