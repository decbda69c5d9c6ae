// Text with inline TeX ($...$, $$...$$) rendered by KaTeX into an element.
// The strings are ours (i18n.ts), so their small inline markup is trusted.
import 'katex/dist/katex.min.css';

import katex from 'katex';

const TEX = /\$\$([^$]+)\$\$|\$([^$]+)\$/g;

/**
 * What each element shows now: its source text and the nodes renderRich put
 * there (so that content set some other way since is not mistaken for it).
 * The same text is not typeset twice into one element.
 */
const shown = new WeakMap<HTMLElement, { text: string; first: ChildNode | null; last: ChildNode | null }>();

/**
 * Typeset TeX spans by source ('$' or '$$' + TeX). KaTeX is the costliest
 * part of start-up and of a language switch, and the same formulas recur
 * (each language's strings, labels rebuilt on every update). Bounded: it is
 * emptied when it grows past MAX_CACHED (texts built from changing numbers).
 */
const typeset = new Map<string, string>();
const MAX_CACHED = 4000;

function typesetSpan(tex: string, display: boolean): string {
  const key = `${display ? '$$' : '$'}${tex}`;
  let html = typeset.get(key);
  if (html === undefined) {
    html = katex.renderToString(tex, { displayMode: display, throwOnError: true, output: 'html' });
    if (typeset.size >= MAX_CACHED) typeset.clear();
    typeset.set(key, html);
  }
  return html;
}

/** Sets el's content to `text` with every TeX span typeset (nothing to do if el already shows `text`). */
export function renderRich(el: HTMLElement, text: string): void {
  const was = shown.get(el);
  if (was && was.text === text && was.first === el.firstChild && was.last === el.lastChild) return;
  el.innerHTML = text.replace(TEX, (_, display: string | undefined, inline: string | undefined) =>
    typesetSpan(display ?? inline ?? '', display !== undefined),
  );
  shown.set(el, { text, first: el.firstChild, last: el.lastChild });
}
