/**
 * The page when the browser is unusual: a navigator.language that is not a
 * BCP 47 tag ("C", what WebKitGTK reports under LANG=C; a library handing it
 * to Intl at import used to stop the whole page), and a section whose code
 * fails to load (the section says so, the rest of the page works).
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';

import type { Browser } from 'playwright-core';

import { launchChromium } from './chromium.js';
import { root } from './page-harness.js';

let server: Server;
let base = '';
let browser: Browser;

before(async () => {
  const { serve } = (await import(pathToFileURL(join(root, 'tools/serve.mjs')).href)) as {
    serve: (dir: string, port: number) => Promise<{ server: Server; url: string }>;
  };
  ({ server, url: base } = await serve(process.env.POSENC_SITE_DIR ?? join(root, 'dist/site'), 0));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('the page in an unusual browser (Chromium)', () => {
  // A POSIX locale name is read as the tag it names; "C" names none (English).
  for (const [tag, lang] of [['C', 'en'], ['zh_CN.UTF-8', 'zh']] as const) {
    it(`starts when navigator.language is "${tag}", in ${lang}`, async () => {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text()); });
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.addInitScript((t) => {
        Object.defineProperty(Navigator.prototype, 'language', { configurable: true, get: () => t });
        Object.defineProperty(Navigator.prototype, 'languages', { configurable: true, get: () => [t] });
      }, tag);
      // Without the fix the tag does throw in Intl, so this test exercises the path.
      assert.throws(() => new Intl.NumberFormat(tag), RangeError);
      await page.goto(base);
      await page.waitForFunction(() => document.documentElement.dataset.ready !== undefined, null, { timeout: 120000 });
      assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), '1', problems.join('\n'));
      // The charts (uPlot, which formats numbers in the browser's language) draw.
      await page.$eval('#sinusoidal', (e) => e.scrollIntoView({ behavior: 'instant' }));
      await page.waitForSelector('#sinusoidal .plot canvas', { timeout: 60000 });
      assert.equal(await page.evaluate(() => document.documentElement.lang.slice(0, 2)), lang);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('shows a section whose code fails to load as an error, in the reader\'s language, and goes on', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // The chunk holding sections 2 onwards (the only one with the derivation
    // lesson's ids) answers 404; every other file is served as usual.
    let blocked = 0;
    await page.route('**/assets/*.js', async (route) => {
      const response = await route.fetch();
      const body = await response.text();
      if (body.includes('der-layout') && body.includes('der-rot')) {
        blocked++;
        await route.fulfill({ status: 404, body: 'gone' });
      } else {
        await route.fulfill({ response, body });
      }
    });
    await page.goto(base);
    await page.waitForFunction(() => document.documentElement.dataset.ready !== undefined, null, { timeout: 120000 });
    assert.ok(blocked > 0, 'the later sections\' chunk was requested (and refused)');
    assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), '1');
    // Section 1 mounted and works; every later section shows the failure.
    const state = await page.evaluate(() => Array.from(document.querySelectorAll('main > section')).map((s) => ({
      id: s.id, error: s.querySelector('.section-error')?.textContent ?? null, controls: s.querySelectorAll('.body input, .body button').length,
    })));
    assert.equal(state[0]!.error, null);
    assert.ok(state[0]!.controls > 0, 'section 1 has its controls');
    assert.ok(state.length > 5);
    for (const s of state.slice(1)) {
      assert.match(s.error ?? '', /^This section could not be loaded; the rest of the page works\. .*\S/, s.id);
    }
    // The language switch still works, and the errors follow it.
    await page.click('#lang-switch');
    await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
    const zh = await page.$eval('main > section:nth-of-type(2) .section-error', (e) => e.textContent ?? '');
    assert.match(zh, /^这一节没能加载/);
    assert.deepEqual(errors, []);
    // A chunk still on its way through the route when the page closes is no failure of the page.
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await page.close();
  });
});
