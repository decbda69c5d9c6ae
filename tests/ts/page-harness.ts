/**
 * What every page test shares: the built site (dist/site, or the folder in
 * POSENC_SITE_DIR) served with the strict Content-Security-Policy of
 * tools/serve.mjs, one Debian Chromium, and `open()`, which loads the page
 * at a hash and collects console errors and warnings.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { Browser, Page } from 'playwright-core';

import { launchChromium } from './chromium.js';

export const root = fileURLToPath(new URL('../../../../', import.meta.url));
export const shots = join(root, 'build/screenshots');

export interface Harness {
  /** Opens the page at `hash`; `problems` collects console errors and warnings. */
  open(hash?: string, viewport?: { width: number; height: number }): Promise<{ page: Page; problems: string[] }>;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  mkdirSync(shots, { recursive: true });
  const { serve } = (await import(pathToFileURL(join(root, 'tools/serve.mjs')).href)) as {
    serve: (dir: string, port: number) => Promise<{ server: Server; url: string }>;
  };
  const { server, url: base } = await serve(process.env.POSENC_SITE_DIR ?? join(root, 'dist/site'), 0);
  const browser: Browser = await launchChromium();
  return {
    async open(hash = '', viewport = { width: 1280, height: 900 }) {
      const page = await browser.newPage({ viewport });
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${String(e)}`));
      await page.goto(`${base}${hash}`);
      await page.waitForFunction(() => document.documentElement.dataset.ready !== undefined, null, { timeout: 60000 });
      assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), '1', problems.join('\n'));
      return { page, problems };
    },
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The number in an element's data-value. */
export const num = (page: Page, sel: string): Promise<number> => page.$eval(sel, (e) => Number((e as HTMLElement).dataset.value));

/** A canvas read back: its size and its pixels as [r, g, b, a, ...] row by row. */
export interface CanvasPixels { width: number; height: number; data: number[] }

/**
 * The pixels of every canvas matching `sel`, in document order. Each is
 * copied to a scratch canvas made for reading (reading the page's own
 * canvas back repeatedly makes Chromium warn, which fails the test).
 */
export const canvasPixels = (page: Page, sel: string): Promise<CanvasPixels[]> =>
  page.$$eval(sel, (cs) => cs.map((c) => {
    const src = c as HTMLCanvasElement;
    const copy = document.createElement('canvas');
    copy.width = src.width;
    copy.height = src.height;
    const ctx = copy.getContext('2d', { willReadFrequently: true })!;
    ctx.drawImage(src, 0, 0);
    return { width: copy.width, height: copy.height, data: Array.from(ctx.getImageData(0, 0, copy.width, copy.height).data) };
  }));

/** Sets a range input's value and fires `input`, as a drag would. */
export async function setRange(page: Page, sel: string, value: number): Promise<void> {
  await page.$eval(sel, (e, v) => {
    const input = e as HTMLInputElement;
    input.value = String(v);
    input.dispatchEvent(new Event('input'));
  }, value);
}

/**
 * Scrolls `selector` to the middle of the viewport at once (no smooth
 * scrolling, which a following scroll would cut short) and waits for
 * `ready` (a selector, by default `selector` itself) to appear. What the
 * page loads "when near" (ui.ts whenNear) is started by this scroll, so a
 * test never depends on an earlier scroll having passed by slowly enough.
 */
export async function reachAndWait(page: Page, selector: string, ready = selector, timeout = 60000): Promise<void> {
  await page.$eval(selector, (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
  await page.waitForSelector(ready, { timeout });
}

export async function screenshot(page: Page, name: string, selector?: string): Promise<void> {
  await page.addStyleTag({ content: 'nav { position: static !important; }' });
  if (selector) await page.locator(selector).screenshot({ path: join(shots, `${name}.png`) });
  else await page.screenshot({ path: join(shots, `${name}.png`) });
}
