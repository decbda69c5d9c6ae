/**
 * The package in Firefox ESR and WebKitGTK: the same page and checks as
 * tests/ts/browser.test.ts runs in Chromium (both wasm flavours through the
 * browser entry under a strict CSP, the Worker pool's bits, the error for a
 * .wasm URL that serves HTML).
 */
import { after, before, describe, it } from 'node:test';

import { checkBrowserResult, type BrowserResult } from '../ts/browser-result.js';
import { servePackage, type PackageServer } from '../ts/browser-server.js';
import { ENGINES, launchEngine } from './engines.js';

let server: PackageServer;
before(async () => { server = await servePackage(); });
after(async () => { await server?.close(); });

for (const id of ENGINES) {
  describe(`browser (${id}, strict CSP)`, () => {
    it('loads both binaries through the browser entry and computes', async (t) => {
      const engine = await launchEngine(id);
      try {
        const page = await engine.newPage();
        await page.goto(`${server.base}/tests/browser/index.html`);
        const poll = (): BrowserResult | undefined => (window as unknown as { __posenc?: BrowserResult }).__posenc;
        const result = (await page.waitFor(poll, undefined, 120000, 'tests/browser/main.js'))!;
        t.diagnostic(engine.name);
        checkBrowserResult(result, await page.errors());
        await page.close();
      } finally {
        await engine.close();
      }
    });
  });
}
