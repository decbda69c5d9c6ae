// Vite plugin: the page's fixed TeX, typeset at build time.
//
// Every `$...$` / `$$...$$` span written in the page's sources (the strings
// of web/src/text/*.ts and of the sections' folders, and their code) is rendered here
// with the same KaTeX the page ships, as two modules (TeX source with its
// delimiters -> HTML): `virtual:posenc-tex`, the spans of the page's shell
// and the first section (web/src/*.ts, web/src/text/*.ts, its folder), in the first bundle, so
// the first section draws without evaluating KaTeX (about a quarter of a
// second of start-up on a 2-core machine); and `virtual:posenc-tex-later`,
// every other span (about 340 KB of HTML), which tex.ts loads with KaTeX
// itself once section 1 is on screen (KaTeX then also typesets the spans
// built from numbers at run time).
//
// The sources are scanned as text: a span is whatever the page's own TEX
// pattern (tex.ts) matches after JS string escapes are undone (`\\` -> `\`).
// Matches that are not TeX (code around template literals) fail to typeset
// and are skipped; a span missed here is only typeset at run time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import katex from 'katex';

import { sectionIds } from './sections.mjs';

const FIRST = 'virtual:posenc-tex';
const LATER = 'virtual:posenc-tex-later';
/** The folders scanned: the page's, its shared strings', the sections' and each section's (from the registry). */
const dirs = (root) => ['web/src', 'web/src/text', 'web/src/sections', ...sectionIds(root).map((id) => `web/src/sections/${id}`)];
// The same pattern as web/src/tex.ts.
const TEX = /\$\$([^$]+)\$\$|\$([^$]+)\$/g;

/** The .ts files directly in `dir` (relative to root). */
const tsFiles = (root, dir) => readdirSync(join(root, dir)).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f));

/** The files whose spans go into the first bundle: the shell and section 1. */
const firstFiles = (root) => [...tsFiles(root, 'web/src'), ...tsFiles(root, 'web/src/text'), ...tsFiles(root, `web/src/sections/${sectionIds(root)[0]}`)];

/** TeX key ('$' or '$$' + source) -> HTML, for every span in `files` (relative to root). */
export function prerender(root, files) {
  const out = {};
  for (const file of files) {
    const src = readFileSync(join(root, file), 'utf8').replace(/\\\\/g, '\\');
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
      return id === FIRST || id === LATER ? `\0${id}` : undefined;
    },
    load(id) {
      if (id !== `\0${FIRST}` && id !== `\0${LATER}`) return undefined;
      const first = prerender(root, firstFiles(root));
      let spans = first;
      if (id === `\0${LATER}`) {
        const all = prerender(root, dirs(root).flatMap((d) => tsFiles(root, d)));
        spans = Object.fromEntries(Object.entries(all).filter(([k]) => !(k in first)));
      }
      for (const d of dirs(root)) this.addWatchFile?.(join(root, d));
      // A JSON string parses faster than the same object as a literal.
      return `export default JSON.parse(${JSON.stringify(JSON.stringify(spans))});`;
    },
  };
}
