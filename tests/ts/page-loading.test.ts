/**
 * Opening the page (issue 13, "open fast"): before the reader scrolls, at
 * most 1.5 MB and 14 requests, the .wasm fetched and compiled once and
 * no Worker or model fetched; the layout does not shift (top of the page,
 * deep link, phone); a deep link's section stays where it landed; scrolling
 * through the whole page fetches each model at most once, the Worker starts
 * from the page's compiled module (no second fetch or compile of the core
 * .wasm; the Worker alone fetches and compiles the models module)
 * and every section's work starts. Runs on each page open() gives, reloaded
 * with the listeners attached first (a fresh document: `?load=N` in the URL).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page, Request } from 'playwright-core';

import { reachAndWait, startHarness, type Harness } from './page-harness.js';

const MAX_BYTES = 1.5e6;
// 13 today: the page, its CSS and JS, the wasm and its loader, KaTeX with
// its fonts, the later sections' chunk (JS + CSS) and their typeset TeX.
const MAX_REQUESTS = 14;
const MAX_SHIFT = 0.1;
/** The network is quiet when nothing was requested for this long (ms). */
const QUIET = 1500;

let h: Harness;
let loads = 0;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

interface Load {
  page: Page;
  problems: string[];
  /** Every request, page and Worker, in order. */
  requests: Request[];
  /** Bytes of every finished response (headers and body). */
  bytes: () => Promise<number>;
  lastRequest: () => number;
}

/** Opens the page, then loads it again at `hash` with request and layout-shift listeners in place. */
async function load(hash: string, viewport = { width: 1280, height: 900 }): Promise<Load> {
  const { page, problems } = await h.open('', viewport);
  const requests: Request[] = [];
  const sizes: Array<Promise<number>> = [];
  let last = Date.now();
  page.context().on('request', (r) => {
    requests.push(r);
    last = Date.now();
  });
  page.context().on('requestfinished', (r) => {
    sizes.push(r.sizes().then((s) => s.responseHeadersSize + s.responseBodySize));
  });
  await page.addInitScript(() => {
    const w = window as unknown as { shifts: number };
    w.shifts = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as Array<{ value: number; hadRecentInput: boolean }>) {
        if (!e.hadRecentInput) w.shifts += e.value;
      }
    }).observe({ type: 'layout-shift', buffered: true });
  });
  const base = page.url().replace(/[?#].*$/, '');
  await page.goto(`${base}?load=${++loads}${hash}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready !== undefined, null, { timeout: 60000 });
  assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), '1', problems.join('\n'));
  return {
    page, problems, requests,
    bytes: async () => (await Promise.all(sizes)).reduce((a, b) => a + b, 0),
    lastRequest: () => last,
  };
}

async function quiet(l: Load): Promise<void> {
  const t0 = Date.now();
  while (Date.now() - l.lastRequest() < QUIET && Date.now() - t0 < 30000) await l.page.waitForTimeout(200);
}

const shifts = (page: Page): Promise<number> => page.evaluate(() => (window as unknown as { shifts: number }).shifts);
const paths = (rs: Request[], re: RegExp): string[] => rs.map((r) => new URL(r.url()).pathname).filter((p) => re.test(p));

describe('opening the page (Chromium, strict CSP)', () => {
  it('before scrolling: at most 1.5 MB, the wasm fetched once, no Worker, no model, no layout shift', async () => {
    const l = await load('');
    await quiet(l);
    const bytes = await l.bytes();
    const all = l.requests.map((r) => new URL(r.url()).pathname);
    assert.ok(bytes <= MAX_BYTES, `${bytes} bytes before scrolling: ${all.join(' ')}`);
    assert.ok(l.requests.length <= MAX_REQUESTS, `${l.requests.length} requests: ${all.join(' ')}`);
    assert.equal(paths(l.requests, /\.wasm$/).length, 1, all.join(' '));
    assert.equal(paths(l.requests, /posenc-(simd|scalar)-[^/]*\.js$/).length, 1, 'the Emscripten loader once');
    assert.deepEqual(paths(l.requests, /worker|\.safetensors$/), [], 'no Worker and no model before the reader comes near one');
    assert.ok(await shifts(l.page) <= MAX_SHIFT, `layout shift ${await shifts(l.page)}`);
    assert.match(await l.page.textContent('#runtime') ?? '', /wasm SIMD/);
    assert.deepEqual(l.problems, []);
    await l.page.close();
  });

  it('does not shift at phone size, in Chinese, in dark mode either', async () => {
    for (const [hash, viewport] of [['#lang=zh', { width: 390, height: 844 }], ['#theme=dark', { width: 1280, height: 900 }]] as const) {
      const l = await load(hash, viewport);
      await quiet(l);
      assert.ok(await shifts(l.page) <= MAX_SHIFT, `${hash}: layout shift ${await shifts(l.page)}`);
      assert.ok((await l.bytes()) <= MAX_BYTES, `${hash}: ${await l.bytes()} bytes`);
      await l.page.close();
    }
  });

  /** Lands on `id` and checks it stays there without layout shift. */
  async function deepLink(id: string): Promise<void> {
    {
      const l = await load(`#${id}`);
      const top = (): Promise<number> => l.page.$eval(`#${id}`, (e) => e.getBoundingClientRect().top);
      const navBottom = await l.page.$eval('#nav', (e) => e.getBoundingClientRect().bottom);
      const landed = await top();
      assert.ok(landed >= navBottom - 1 && landed <= navBottom + 40, `#${id} at ${landed}, nav ends at ${navBottom}`);
      await quiet(l);
      await l.page.waitForTimeout(1000);
      assert.ok(Math.abs((await top()) - landed) <= 2, `#${id} moved from ${landed} to ${await top()}`);
      assert.ok(await shifts(l.page) <= MAX_SHIFT, `#${id}: layout shift ${await shifts(l.page)}`);
      assert.deepEqual(l.problems, []);
      await l.page.close();
    }
  }

  it('a deep link lands on its section, which then stays in place, without layout shift', async () => {
    await deepLink('sinusoidal');
    await deepLink('bias');
  });

  // Its loss and wavelength charts grow when the Worker's results arrive.
  it('a deep link to section 10 (charts filled by the Worker) does not shift', async () => {
    await deepLink('extrapolation');
  });

  it('the examples\' learned model, the position-ids loss table and the padding losses wait for the reader, then load', async () => {
    // Each part on a fresh page: reaching one part brings the next within reach too.
    const parts = [
      // Section 8's learned-table example: language-learned, evaluated in the Worker.
      { target: '#ex-learned', ready: '#ex-learned-model', readyValue: '1', model: 'language-learned' },
      // Section 9's loss table (KV-cache scenario: the shipped RoPE model).
      { target: '#positions .body', ready: '#pos-loss', readyValue: 'kv', model: 'language-rope' },
      // The padding panel's losses of the absolute encodings (the sinusoidal model is used nowhere above it).
      { target: '#pad-absolute', ready: '#pad-absolute', readyValue: '1', model: 'language-sinusoidal' },
    ];
    for (const part of parts) {
      const l = await load('');
      const { page } = l;
      const models = (): string[] => paths(l.requests, /\.safetensors$/).map((p) => p.replace(/^.*\/([\w-]+)\.safetensors$/, '$1'));
      const ready = (): Promise<string | undefined> => page.$eval(part.ready, (e) => (e as HTMLElement).dataset.ready);
      await page.waitForSelector(part.target, { state: 'attached' });
      await quiet(l);
      assert.deepEqual(models().filter((m) => /^language-/.test(m)), [], 'no language model at the top');
      // Each part loads when it comes within 800 px of the viewport (ui.ts whenNear): stand 1800 px short of it.
      const y = await page.$eval(part.target, (e) => e.getBoundingClientRect().top + window.scrollY - window.innerHeight - 1800);
      assert.ok(y > 0, `${part.target} is far below the top`);
      await page.evaluate((top) => window.scrollTo({ top, behavior: 'instant' }), y);
      await page.waitForTimeout(1500);
      await quiet(l);
      assert.equal(await ready(), undefined, `${part.target}: not run before the reader comes near`);
      assert.ok(!models().includes(part.model), `${part.model} requested before ${part.target} was near: ${models().join(' ')}`);
      // Attached, not necessarily visible: section 9's loss table runs for the default scenario but stays hidden (nothing to compare).
      await page.$eval(part.target, (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
      await page.waitForSelector(`${part.ready}[data-ready="${part.readyValue}"]`, { state: 'attached', timeout: 120000 });
      assert.ok(models().includes(part.model), `${part.model} fetched once ${part.target} was reached`);
      assert.deepEqual(l.problems, []);
      await page.close();
    }
  });

  it('scrolling through the page: each model fetched once, the Worker from the page\'s compiled module', async () => {
    const l = await load('');
    const browser = l.page.context().browser()!;
    await browser.startTracing(l.page, { categories: ['v8.wasm'] });
    const height = await l.page.evaluate(() => document.documentElement.scrollHeight);
    for (let y = 0; y < height; y += 500) {
      await l.page.evaluate((top) => window.scrollTo({ top, behavior: 'instant' }), y);
      await l.page.waitForTimeout(150);
    }
    await reachAndWait(l.page, '#t5-learned', '#t5-learned[data-ready="1"]');
    await l.page.waitForSelector('#tax-table[data-ready="1"]', { timeout: 120000 });
    await quiet(l);
    const trace = JSON.parse((await browser.stopTracing()).toString('utf8')) as { traceEvents: Array<{ name: string; ph: string }> };
    const compiles = trace.traceEvents.filter((e) => /^wasm\.(SyncCompile|AsyncCompile|StartStreamingCompilation|StreamingCompile)$/.test(e.name));
    // The Worker compiles one module: the models module, which the page itself never loads (the
    // pool's Workers get both modules compiled).
    assert.ok(compiles.length <= 1, `the Worker compiled the core wasm again: ${compiles.map((e) => e.name).join(', ')}`);

    const models = paths(l.requests, /\.safetensors$/);
    assert.ok(models.length >= 10, `models fetched: ${models.join(' ')}`);
    const twice = models.filter((p, i) => models.indexOf(p) !== i);
    assert.deepEqual(twice, [], 'a model fetched twice');
    assert.equal(paths(l.requests, /\/posenc-simd[^/]*\.wasm$/).length, 1, 'the Worker fetched the core wasm again');
    assert.equal(paths(l.requests, /\/posenc-models-simd[^/]*\.wasm$/).length, 1, 'the models wasm, once (the Worker)');
    assert.equal(paths(l.requests, /\/worker-[^/]*\.js$/).length, 1, 'one page Worker');
    // The page Worker's pool (training and long evaluations): one Worker per core, at most 4, made
    // from the same compiled modules (no compile above), each loading the pool's script.
    const cores = await l.page.evaluate(() => Math.min(4, navigator.hardwareConcurrency));
    assert.equal(paths(l.requests, /\/pool-worker-[^/]*\.js$/).length, cores, 'the pool\'s Workers');
    assert.match(await l.page.textContent('#runtime') ?? '', /Worker SIMD/);
    assert.deepEqual(l.problems, []);
    await l.page.close();
  });
});
