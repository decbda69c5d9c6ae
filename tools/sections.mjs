// Vite plugin: the page's sections, from their one registry
// (web/src/sections/index.ts, read as text: the `{ id: '<id>', ... }` lines in
// page order).
//
// - index.html: `<!-- sections -->` becomes one shell per section (its
//   `<section id>`, its heading `<id>.title` and intro `<id>.text`, an empty
//   body), so the page's layout is known before the code arrives.
// - `virtual:posenc-sections`: `loaders`, id -> how to get the section's mount
//   function. The first section's mount.ts is in the page's first bundle; the
//   others are re-exported by `virtual:posenc-sections-later`, one chunk
//   fetched once the first section is on screen (or at once, for a deep link).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const REGISTRY = 'web/src/sections/index.ts';
const MARKER = '<!-- sections -->';
const SECTIONS = 'virtual:posenc-sections';
const LATER = 'virtual:posenc-sections-later';

/** The section ids in page order, from the registry. */
export function sectionIds(root) {
  const src = readFileSync(join(root, REGISTRY), 'utf8');
  const ids = [...src.matchAll(/^\s*\{ id: '([a-z][a-z0-9-]*)'/gm)].map((m) => m[1]);
  if (ids.length === 0) throw new Error(`${REGISTRY}: no sections found`);
  return ids;
}

/** One section's shell in index.html. */
const shell = (id) =>
  `<section id="${id}" aria-labelledby="${id}-h"><h2 id="${id}-h" data-i18n="${id}.title"></h2>` +
  `<div class="explain" data-i18n-rich="${id}.text"></div><div class="body"></div></section>`;

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
        if (!html.includes(MARKER)) throw new Error(`web/index.html: no ${MARKER} marker`);
        return html.replace(MARKER, sectionIds(root).map(shell).join('\n      '));
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
