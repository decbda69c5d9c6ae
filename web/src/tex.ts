// Text with inline TeX ($...$, $$...$$) rendered by KaTeX into an element.
// The strings are ours (i18n.ts), so their small inline markup is trusted.
//
// The TeX written in the page's sources is typeset at build time
// (tools/tex-prerender.mjs): the shell's and section 1's spans are in the
// first bundle (virtual:posenc-tex), so the first section draws without
// KaTeX. The other sections' spans (virtual:posenc-tex-later) and KaTeX
// itself (its own chunk, for what is built at run time: numbers in
// formulas) are loaded by loadTex(), which main.ts calls once the first
// section is on screen.
import 'katex/dist/katex.min.css';

import type katexModule from 'katex';
import prerendered from 'virtual:posenc-tex';

const TEX = /\$\$([^$]+)\$\$|\$([^$]+)\$/g;

/**
 * What each element shows now: its source text and the nodes renderRich put
 * there (so that content set some other way since is not mistaken for it).
 * The same text is not typeset twice into one element.
 */
const shown = new WeakMap<HTMLElement, { text: string; first: ChildNode | null; last: ChildNode | null }>();

/**
 * Typeset TeX spans by source ('$' or '$$' + TeX), beyond the prerendered
 * ones: the same formulas recur (labels rebuilt on every update). Bounded:
 * it is emptied when it grows past MAX_CACHED (texts built from changing
 * numbers).
 */
const typeset = new Map<string, string>();
const MAX_CACHED = 4000;

let katex: typeof katexModule | undefined;
let later: Readonly<Record<string, string>> = {};
let loading: Promise<void> | undefined;

/** Loads KaTeX and the other sections' prerendered spans (once); resolves when every span can be typeset. */
export function loadTex(): Promise<void> {
  loading ??= Promise.all([import('katex'), import('virtual:posenc-tex-later')]).then(([k, l]) => {
    katex = k.default;
    later = l.default;
  });
  return loading;
}

/** HTML of one span, or undefined while KaTeX is not loaded and the span was not prerendered. */
function typesetSpan(tex: string, display: boolean): string | undefined {
  const key = `${display ? '$$' : '$'}${tex}`;
  const pre = prerendered[key] ?? later[key];
  if (pre !== undefined) return pre;
  let html = typeset.get(key);
  if (html === undefined) {
    if (!katex) return undefined;
    html = katex.renderToString(tex, { displayMode: display, throwOnError: true, output: 'html' });
    if (typeset.size >= MAX_CACHED) typeset.clear();
    typeset.set(key, html);
  }
  return html;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"]/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[c]!};`);

/** Sets el's content to `text` with every TeX span typeset (nothing to do if el already shows `text`). */
export function renderRich(el: HTMLElement, text: string): void {
  const was = shown.get(el);
  if (was && was.text === text && was.first === el.firstChild && was.last === el.lastChild) return;
  let pending = false;
  el.innerHTML = text.replace(TEX, (_, display: string | undefined, inline: string | undefined) => {
    const html = typesetSpan(display ?? inline ?? '', display !== undefined);
    if (html !== undefined) return html;
    // Built at run time before KaTeX has loaded (rare: main.ts loads it
    // before the second section mounts): the source for now, typeset once
    // KaTeX is there, if the element still shows this text.
    pending = true;
    return `<span class="tex-pending">${escapeHtml(display ?? inline ?? '')}</span>`;
  });
  shown.set(el, { text, first: el.firstChild, last: el.lastChild });
  if (pending) {
    void loadTex().then(() => {
      const now = shown.get(el);
      if (now?.text === text && now.first === el.firstChild && now.last === el.lastChild) {
        shown.delete(el);
        renderRich(el, text);
      }
    });
  }
}
