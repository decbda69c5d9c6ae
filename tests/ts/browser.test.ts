/**
 * The package in a real browser: Debian's Chromium (headless, driven by
 * playwright-core) loads tests/browser/index.html from a localhost server that
 * sends a strict Content-Security-Policy, imports dist/index.js (the browser
 * entry) and runs both binaries.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import type { Browser } from 'playwright-core';

import { launchChromium } from './chromium.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";
const TYPES: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm',
};

let server: Server;
let browser: Browser;
let base = '';

before(async () => {
  server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    if (!path.startsWith('/dist/') && !path.startsWith('/tests/browser/')) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(join(root, path));
      res.writeHead(200, { 'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream', 'Content-Security-Policy': CSP });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

interface Result {
  runs: Array<{ simd: boolean; target: string; row: number[]; relDiff: number; pool: { workers: number; simd: boolean; same: boolean[] } }>;
  badUrl?: string;
  error?: string;
}

describe('browser (Chromium, strict CSP)', () => {
  it('loads both binaries through the browser entry and computes', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`${base}/tests/browser/index.html`);
    await page.waitForFunction(() => (window as unknown as { __posenc?: unknown }).__posenc !== undefined, null, { timeout: 30000 });
    const result = (await page.evaluate(() => (window as unknown as { __posenc: unknown }).__posenc)) as Result;
    assert.equal(result.error, undefined, result.error);
    assert.deepEqual(result.runs.map((r) => [r.simd, r.target, r.row]), [
      [true, 'WASM', [-4, -3, -2, -1, 0]],
      [false, 'SCALAR', [-4, -3, -2, -1, 0]],
    ]);
    for (const r of result.runs) assert.ok(r.relDiff < 1e-4, `RoPE relative invariance in the browser: ${r.relDiff}`);
    // The Worker pool: two module Workers, the same bits as the calling thread's call.
    assert.deepEqual(result.runs.map((r) => r.pool), [true, false].map((simd) => ({ workers: 2, simd, same: [true, true] })));
    assert.match(result.badUrl ?? '', /index\.html is not a WebAssembly binary \(expected magic word 00 61 73 6d, found 3c 21 64 6f\)/);
    // The only console error allowed is none: a CSP violation would show here.
    assert.deepEqual(problems, []);
    await page.close();
  });
});
