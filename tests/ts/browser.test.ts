/**
 * The package in a real browser: Debian's Chromium (headless, driven by
 * playwright-core) loads tests/browser/index.html from a localhost server that
 * sends a strict Content-Security-Policy, imports dist/index.js (the browser
 * entry) and runs both binaries. tests/engines/ runs the same page in Firefox
 * and WebKit.
 */
import { after, before, describe, it } from 'node:test';

import type { Browser } from 'playwright-core';

import { checkBrowserResult, type BrowserResult } from './browser-result.js';
import { servePackage, type PackageServer } from './browser-server.js';
import { launchChromium } from './chromium.js';

let server: PackageServer;
let browser: Browser;

before(async () => {
  server = await servePackage();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

describe('browser (Chromium, strict CSP)', () => {
  it('loads both binaries through the browser entry and computes', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`${server.base}/tests/browser/index.html`);
    await page.waitForFunction(() => (window as unknown as { __posenc?: unknown }).__posenc !== undefined, null, { timeout: 120000 });
    const result = (await page.evaluate(() => (window as unknown as { __posenc: unknown }).__posenc)) as BrowserResult;
    problems.push(...await page.evaluate(() => (window as unknown as { __errors: string[] }).__errors));
    checkBrowserResult(result, problems);
    await page.close();
  });
});
