// Translated strings with live values: `{name}` placeholders filled at render
// time, and elements that re-render themselves when the language changes.
import { onLangChange, t, type Key } from './i18n.js';
import { renderRich } from './tex.js';
import { el } from './ui.js';

export type Vars = Readonly<Record<string, string | number | boolean>>;

/** `template` with every `{name}` (letters, digits, `_` and `.`, e.g. a URL key) replaced by `vars[name]` (unknown names stay). */
export function fill(template: string, vars: Vars = {}): string {
  return template.replace(/\{([\w.]+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m));
}

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
