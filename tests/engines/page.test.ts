/**
 * The page in Firefox ESR and WebKitGTK (a smoke test; tests/ts/page*.test.ts
 * test it in depth in Chromium): the built site under the strict CSP of
 * tools/serve.mjs, every section mounted and drawn once scrolled to, the
 * Worker's results in, a switch to Chinese, one short training run, and not
 * one script error, console error or warning on the way (ResizeObserver loop
 * errors included). WebKit runs with LANG=C, so its navigator.language is not
 * a valid BCP 47 tag.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';

import { ENGINES, launchEngine, type Engine, type EnginePage } from './engines.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
let server: Server;
let base = '';

before(async () => {
  // The built page with the error recorder loaded before anything else.
  const site = join(root, 'build/engines-site');
  rmSync(site, { recursive: true, force: true });
  cpSync(process.env.POSENC_SITE_DIR ?? join(root, 'dist/site'), site, { recursive: true });
  cpSync(join(root, 'tests/browser/record-errors.js'), join(site, 'record-errors.js'));
  const index = readFileSync(join(site, 'index.html'), 'utf8');
  const withRecorder = index.replace(/<head>/, '<head><script src="./record-errors.js"></script>');
  assert.notEqual(withRecorder, index, 'index.html has a <head>');
  writeFileSync(join(site, 'index.html'), withRecorder);
  const { serve } = (await import(pathToFileURL(join(root, 'tools/serve.mjs')).href)) as {
    serve: (dir: string, port: number) => Promise<{ server: Server; url: string }>;
  };
  ({ server, url: base } = await serve(site, 0));
});

after(async () => { await new Promise((resolve) => server?.close(resolve)); });

/** Opens the page at `hash` and waits until it has mounted every section. */
async function open(engine: Engine, hash: string): Promise<EnginePage> {
  const page = await engine.newPage();
  await page.goto(`${base}${hash}`);
  const ready = await page.waitFor(() => document.documentElement.dataset.ready, undefined, 180000, 'the page to mount');
  assert.equal(ready, '1', (await page.errors()).join('\n'));
  return page;
}

for (const id of ENGINES) {
  describe(`the page (${id}, strict CSP)`, () => {
    let engine: Engine;
    before(async () => { engine = await launchEngine(id); });
    after(async () => { await engine?.close(); });

    it('every section mounts and draws, in English and Chinese, without a script error', async (t) => {
      const page = await open(engine, '');
      t.diagnostic(engine.name);
      const sections = await page.run(() => Array.from(document.querySelectorAll('main > section[id]'), (s) => s.id), undefined);
      assert.ok(sections.length >= 10, `sections: ${sections.join(',')}`);
      // Each section comes on screen in turn, as a reader scrolling would bring it.
      for (const s of sections) {
        await page.run((sid) => document.getElementById(sid)!.scrollIntoView({ block: 'start', behavior: 'instant' }), s);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const empty = await page.run(() => Array.from(document.querySelectorAll('main > section[id]'))
        .filter((s) => (s.querySelector('.body')?.childElementCount ?? 0) === 0).map((s) => s.id), undefined);
      assert.deepEqual(empty, [], 'sections with nothing mounted');
      // The Worker's results, each brought into view before waiting on it.
      for (const [target, ready] of [
        ['#order-answers', '#order-answers[data-ready="1"]'],
        ['#ext-loss', '#ext-loss[data-ready]'],
        ['#bugs .body', '#bugs .body[data-ready]'],
      ] as const) {
        await page.run((sel) => document.querySelector(sel)!.scrollIntoView({ block: 'center', behavior: 'instant' }), target);
        await page.waitFor((sel) => document.querySelector(sel) !== null, ready, 240000, ready);
      }
      // Every heatmap drawn with data (its rows; a map of zeros is a right answer, not a blank one).
      const rows = await page.run(() => Array.from(document.querySelectorAll<HTMLCanvasElement>('canvas.heatmap'),
        (c) => [c.id || c.closest('section')?.id || '?', c.width > 0 && c.height > 0 ? Number(c.dataset.rows ?? 0) : 0] as const), undefined);
      assert.ok(rows.length >= 6, `heatmaps: ${rows.length}`);
      assert.deepEqual(rows.filter(([, r]) => !(r > 0)).map(([name]) => name), [], 'heatmaps without data');
      // The other language: headings and the switch follow.
      await page.run(() => document.getElementById('lang-switch')!.click(), undefined);
      const heading = await page.waitFor(() => {
        const h = document.querySelector('main > section > h2')?.textContent ?? '';
        return /[\u4e00-\u9fff]/.test(h) ? h : '';
      }, undefined, 30000, 'Chinese headings');
      assert.match(heading, /^1\. /);
      assert.deepEqual(await page.errors(), []);
      await page.close();
    });

    it('trains a small model on every core', async () => {
      const page = await open(engine, '#t.task=word-order&t.enc=rope&t.steps=20');
      await page.run(() => {
        document.getElementById('train')!.scrollIntoView({ block: 'start', behavior: 'instant' });
        document.getElementById('train-start')!.click();
      }, undefined);
      const done = await page.waitFor(() => document.getElementById('train-status')!.dataset.done, undefined, 240000, 'the run to end');
      const status = await page.run(() => document.getElementById('train-status')!.textContent, undefined);
      assert.equal(done, '1', status ?? '');
      assert.match(status ?? '', /20 steps in \d+\.\d s/);
      // Through the page Worker's pool (Workers started from a Worker): one per core, at most 4.
      const cores = await page.run(() => [document.getElementById('train-status')!.dataset.cores, Math.min(4, navigator.hardwareConcurrency)], undefined);
      assert.equal(Number(cores[0]), cores[1], `cores used: ${status ?? ''}`);
      assert.deepEqual(await page.errors(), []);
      await page.close();
    });
  });
}
