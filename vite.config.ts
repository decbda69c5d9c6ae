// The interactive page (web/): `npm start` serves a build of it, and
// `npm run build:site` writes the static site to dist/site/ (relative URLs,
// so any static host and any sub-path works; nothing from a CDN).
import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vite';

import { shippedModels } from './tools/models-plugin.mjs';
import { sections } from './tools/sections.mjs';
import { texPrerender } from './tools/tex-prerender.mjs';

export default defineConfig({
  root: fileURLToPath(new URL('./web', import.meta.url)),
  base: './',
  // The sections' shells and chunks from their registry (web/src/sections/index.ts),
  // the TeX written in the page's sources, typeset at build time (tex.ts), and
  // the shipped models (the posenc-models workspace) at models/<name>.safetensors.
  plugins: [
    sections(fileURLToPath(new URL('.', import.meta.url))),
    texPrerender(fileURLToPath(new URL('.', import.meta.url))),
    shippedModels(fileURLToPath(new URL('.', import.meta.url))),
  ],
  resolve: {
    // The page uses the package exactly as users get it: the built browser
    // entries (dist/index.js, which finds its .wasm via import.meta.url, and
    // the Worker pool's dist/pool-browser.js).
    alias: [
      { find: /^posenc$/, replacement: fileURLToPath(new URL('./dist/index.js', import.meta.url)) },
      { find: /^posenc\/pool$/, replacement: fileURLToPath(new URL('./dist/pool-browser.js', import.meta.url)) },
    ],
  },
  build: {
    outDir: fileURLToPath(new URL('./dist/site', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1200,
  },
  worker: { format: 'es' },
});
