// Vite plugin: the page's sections, from their one registry
// (web/src/sections/index.ts, read as text: the `{ id: '<id>', ... }` lines in
// page order).
//
// - index.html: `<!-- route -->` becomes the route (every section with its
//   reading time) and `<!-- sections -->` one shell per section (its `<section id>`, its heading
//   `<id>.title` and intro `<id>.text`, an empty body, the closing line
//   `<id>.takeaway`), so the page's layout is known before the code arrives.
// - `virtual:posenc-sections`: `loaders`, id -> how to get the section's mount
//   function. The first section's mount.ts is in the page's first bundle; the
//   others are re-exported by `virtual:posenc-sections-later`, one chunk
//   fetched once the first section is on screen (or at once, for a deep link).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REGISTRY = 'web/src/sections/index.ts';
const MARKER = '<!-- sections -->';
/** Where the route goes: above the loading line, so that removing the line moves nothing in view. */
const ROUTE = '<!-- route -->';
const SECTIONS = 'virtual:posenc-sections';
const LATER = 'virtual:posenc-sections-later';

/** The section ids in page order, from the registry. */
export function sectionIds(root) {
  const src = readFileSync(join(root, REGISTRY), 'utf8');
  const ids = [...src.matchAll(/^\s*\{ id: '([a-z][a-z0-9-]*)'/gm)].map((m) => m[1]);
  if (ids.length === 0) throw new Error(`${REGISTRY}: no sections found`);
  return ids;
}

/**
 * A section's English strings (its text.ts up to `export const zh`), one per
 * key. Throws if the section lacks a string every section needs.
 */
function englishStrings(root, id) {
  const file = join(root, 'web/src/sections', id, 'text.ts');
  const en = readFileSync(file, 'utf8').split(/^export const zh/m)[0];
  const strings = new Map([...en.matchAll(/^\s*'([^']+)':\s*([`'])([\s\S]*?)\2,\s*$/gm)].map((m) => [m[1], m[3]]));
  for (const key of [`${id}.title`, `${id}.text`, `${id}.takeaway`, `nav.${id}`]) {
    if (!strings.has(key)) throw new Error(`${file}: no '${key}' string (every section has one, in en and zh)`);
  }
  return strings;
}

/**
 * Reading time of a section, in minutes: the words of its English strings
 * (formulas count as one word, markup as none) at 150 words a minute, at
 * least 2. An estimate for the route, from the text itself.
 */
export function readingMinutes(root, id) {
  const text = [...englishStrings(root, id).values()].join(' ')
    .replace(/\$\$[\s\S]*?\$\$|\$[^$]*\$/g, ' x ').replace(/<[^>]+>/g, ' ');
  return Math.max(2, Math.round(text.split(/\s+/).filter(Boolean).length / 150));
}

const vars = (v) => `data-i18n-vars='${JSON.stringify(v)}'`;

/** One section's shell in index.html: heading, intro, body, and the line saying what it showed. */
const shell = (id) =>
  `<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h" data-i18n="${id}.title"></h2>` +
  `<div class="explain" data-i18n-rich="${id}.text"></div><div class="body"></div>` +
  `<p class="section-summary" data-i18n-rich="${id}.takeaway"></p></section>`;

/** The route at the top: every section, its short name and reading time (optional sections marked), and the total. */
function route(root) {
  const ids = sectionIds(root);
  const minutes = ids.map((id) => readingMinutes(root, id));
  const total = minutes.reduce((a, b) => a + b, 0);
  // A section with an `<id>.optional` string is marked so, and its minutes are named in the title.
  const optional = ids.map((id) => englishStrings(root, id).has(`${id}.optional`));
  const skippable = minutes.reduce((a, m, i) => a + (optional[i] ? m : 0), 0);
  const items = ids.map((id, i) =>
    `<li${optional[i] ? ' class="route-optional"' : ''}><a href="#${id}" data-i18n="nav.${id}"></a> <span class="route-min" data-i18n="route.minutes" ${vars({ m: minutes[i] })}></span>` +
    `${optional[i] ? `<span class="route-opt" data-i18n="${id}.optional"></span>` : ''}</li>`);
  return `<div id="route" class="route" role="navigation" aria-labelledby="route-h"><h2 id="route-h" data-i18n="route.title" ` +
    `${vars({ sections: ids.length, minutes: total, optional: skippable })}></h2><ol>${items.join('')}</ol></div>`;
}

export function sections(root) {
  const mountOf = (id) => JSON.stringify(join(root, 'web/src/sections', id, 'mount.ts'));
  return {
    name: 'posenc-sections',
    configureServer(server) {
      server.watcher.add(join(root, REGISTRY));
    },
    transformIndexHtml: {
      order: 'pre',
      handler(html) {
        for (const m of [ROUTE, MARKER]) if (!html.includes(m)) throw new Error(`web/index.html: no ${m} marker`);
        return html.replace(ROUTE, route(root)).replace(MARKER, sectionIds(root).map(shell).join('\n      '));
      },
    },
    resolveId(id) {
      return id === SECTIONS || id === LATER ? `\0${id}` : undefined;
    },
    load(id) {
      if (id === `\0${SECTIONS}`) {
        this.addWatchFile(join(root, REGISTRY));
        const [first, ...rest] = sectionIds(root);
        return [
          `import { mount as first } from ${mountOf(first)};`,
          `const later = () => import(${JSON.stringify(LATER)});`,
          'export const loaders = {',
          `  ${JSON.stringify(first)}: () => Promise.resolve(first),`,
          ...rest.map((s) => `  ${JSON.stringify(s)}: () => later().then((m) => m[${JSON.stringify(s)}]),`),
          '};',
        ].join('\n');
      }
      if (id === `\0${LATER}`) {
        this.addWatchFile(join(root, REGISTRY));
        return sectionIds(root).slice(1).map((s) => `export { mount as ${JSON.stringify(s)} } from ${mountOf(s)};`).join('\n');
      }
      return undefined;
    },
  };
}
