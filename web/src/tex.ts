// Text with inline TeX ($...$, $$...$$) rendered by KaTeX into an element.
// The strings are ours (i18n.ts), so their small inline markup is trusted.
import 'katex/dist/katex.min.css';

import katex from 'katex';

const TEX = /\$\$([^$]+)\$\$|\$([^$]+)\$/g;

/** Sets el's content to `text` with every TeX span typeset. */
export function renderRich(el: HTMLElement, text: string): void {
  el.innerHTML = text.replace(TEX, (_, display: string | undefined, inline: string | undefined) =>
    katex.renderToString(display ?? inline ?? '', { displayMode: display !== undefined, throwOnError: true, output: 'html' }),
  );
}
