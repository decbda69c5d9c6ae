/**
 * The page when the browser is unusual: a navigator.language that is not a
 * BCP 47 tag ("C", what WebKitGTK reports under LANG=C; a library handing it
 * to Intl at import used to stop the whole page).
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
});
