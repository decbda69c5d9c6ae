// Vite plugin: the page's fixed TeX, typeset at build time.
//
// Every `$...$` / `$$...$$` span written in the page's sources (the strings
// of web/src/i18n.ts, web/src/text/*.ts and the sections) is rendered here
// with the same KaTeX the page ships, and the page gets them as the module
// `virtual:posenc-tex` (TeX source with its delimiters -> HTML). tex.ts uses
// them first, so the first section draws without evaluating KaTeX (about a
// quarter of a second of start-up on a 2-core machine); KaTeX itself loads
// afterwards, for the spans built from numbers at run time.
//
// The sources are scanned as text: a span is whatever the page's own TEX
// pattern (tex.ts) matches after JS string escapes are undone (`\\` -> `\`).
// Matches that are not TeX (code around template literals) fail to typeset
// and are skipped; a span missed here is only typeset at run time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import katex from 'katex';

const ID = 'virtual:posenc-tex';
const RESOLVED = `\0${ID}`;
// The same pattern as web/src/tex.ts.
const TEX = /\$\$([^$]+)\$\$|\$([^$]+)\$/g;

/** TeX key ('$' or '$$' + source) -> HTML, for every span in the .ts files under `dirs`. */
export function prerender(root, dirs) {
  const files = dirs.flatMap((d) => readdirSync(join(root, d)).filter((f) => f.endsWith('.ts')).map((f) => join(root, d, f)));
  const out = {};
  for (const file of files) {
    const src = readFileSync(file, 'utf8').replace(/\\\\/g, '\\');
    for (const m of src.matchAll(TEX)) {
      const display = m[1] !== undefined;
      const tex = m[1] ?? m[2];
      const key = `${display ? '$$' : '$'}${tex}`;
      if (key in out || tex.includes('${')) continue;
      try {
        out[key] = katex.renderToString(tex, { displayMode: display, throwOnError: true, strict: 'ignore', output: 'html' });
      } catch {
        // Not TeX (a match across code): nothing to store.
      }
    }
  }
  return out;
}

export function texPrerender(root) {
  return {
    name: 'posenc-tex-prerender',
    resolveId(id) {
      return id === ID ? RESOLVED : undefined;
    },
    load(id) {
      if (id !== RESOLVED) return undefined;
      const spans = prerender(root, ['web/src', 'web/src/text', 'web/src/sections']);
      for (const d of ['web/src', 'web/src/text', 'web/src/sections']) this.addWatchFile?.(join(root, d));
      // A JSON string parses faster than the same object as a literal.
      return `export default JSON.parse(${JSON.stringify(JSON.stringify(spans))});`;
    },
  };
}
