/**
 * The interactive page end to end: dist/site (built by `npm run build:site`)
 * served with the strict Content-Security-Policy of tools/serve.mjs, driven in
 * Debian's Chromium by playwright-core. Every section renders without console
 * errors; the numbers the page is about behave (permutation difference 0
 * without position and not with it, the RoPE score unchanged for a shifted
 * pair, NoPE at chance, training lowers the loss, cancel stops it); phone
 * size, dark theme and Chinese work. Screenshots go to build/screenshots/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type { Browser, Page } from 'playwright-core';

import { launchChromium } from './chromium.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const shots = join(root, 'build/screenshots');
const SECTIONS = ['order', 'sinusoidal', 'rope', 'bias', 'extrapolation', 'bugs', 'train'];

let server: Server;
let base = '';
let browser: Browser;

before(async () => {
  mkdirSync(shots, { recursive: true });
  const { serve } = (await import(pathToFileURL(join(root, 'tools/serve.mjs')).href)) as {
    serve: (dir: string, port: number) => Promise<{ server: Server; url: string }>;
  };
  ({ server, url: base } = await serve(join(root, 'dist/site'), 0));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

/** Opens the page at `hash`, failing on any console error or warning. */
async function open(hash = '', viewport = { width: 1280, height: 900 }): Promise<{ page: Page; problems: string[] }> {
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
}

const num = (page: Page, sel: string): Promise<number> => page.$eval(sel, (e) => Number((e as HTMLElement).dataset.value));

async function screenshot(page: Page, name: string, selector?: string): Promise<void> {
  await page.addStyleTag({ content: 'nav { position: static !important; }' });
  if (selector) await page.locator(selector).screenshot({ path: join(shots, `${name}.png`) });
  else await page.screenshot({ path: join(shots, `${name}.png`) });
}

describe('the page (Chromium, strict CSP)', () => {
  it('renders every section from the wasm core without console errors', async () => {
    const { page, problems } = await open('#e.len=128');
    for (const id of SECTIONS) {
      const children = await page.$eval(`#${id} .body`, (e) => e.childElementCount);
      assert.ok(children > 0, `section ${id} rendered`);
    }
    // The Worker's results arrive asynchronously.
    await page.waitForSelector('#order-answers[data-ready="1"]', { timeout: 60000 });
    await page.waitForSelector('#ext-loss[data-ready="128"]', { timeout: 120000 });
    await page.waitForSelector('#ext-retrieval[data-ready="1"]', { timeout: 120000 });
    await page.waitForSelector('#t5-learned[data-ready="1"]', { timeout: 60000 });
    await page.waitForSelector('#ext-map[data-rows]', { timeout: 60000 });
    await page.waitForSelector('#bugs .body[data-ready]', { timeout: 60000 });
    // Every heatmap drawn with data.
    const canvases = await page.$$eval('canvas.heatmap', (cs) => cs.map((c) => Number((c as HTMLElement).dataset.rows ?? 0)));
    assert.ok(canvases.length >= 6 && canvases.every((r) => r > 0), `heatmaps: ${canvases.join(',')}`);
    assert.match(await page.textContent('#runtime') ?? '', /wasm SIMD/);
    for (const id of SECTIONS) await screenshot(page, `section-${id}`, `#${id}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('permutation: difference 0 without position, non-zero with the causal mask or an encoding', async () => {
    const { page, problems } = await open('#o.text=the+cat+sat+on+the+mat');
    assert.equal(await num(page, '#order-diff'), 0, 'unpermuted');
    // Keyboard: move the first token two places right.
    await page.focus('#order .chip[data-pos="0"]');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    const chips = await page.$$eval('#order .chip', (cs) => cs.map((c) => c.textContent));
    assert.deepEqual(chips, ['cat', 'sat', 'the', 'on', 'the', 'mat']);
    await page.waitForTimeout(100);
    const none = await num(page, '#order-diff');
    assert.ok(none < 1e-6, `no position, no mask: ${none}`);
    await page.selectOption('#order select', 'rope');
    await page.waitForTimeout(100);
    const rope = await num(page, '#order-diff');
    assert.ok(rope > 1e-3, `RoPE: ${rope}`);
    await page.selectOption('#order select', 'sinusoidal');
    await page.waitForTimeout(100);
    assert.ok((await num(page, '#order-diff')) > 1e-3, 'sinusoidal');
    await page.selectOption('#order select', 'none');
    await page.check('#order input[type="checkbox"]');
    await page.waitForTimeout(100);
    const causal = await num(page, '#order-diff');
    assert.ok(causal > 1e-3, `causal mask: ${causal}`);
    // The state is in the URL.
    assert.match(page.url(), /o\.perm=1\.2\.0\.3\.4\.5/);
    assert.match(page.url(), /o\.causal=1/);

    // The word-order models: NoPE gives one answer to a sentence and its mirror, the others two.
    await page.waitForSelector('#order-answers[data-ready="1"]', { timeout: 60000 });
    const same = await page.$$eval('#order-answers tbody tr', (rows) => rows.map((r) => [(r as HTMLElement).dataset.model, (r as HTMLElement).dataset.same]));
    assert.deepEqual(same.find(([m]) => m === 'word-order-nope'), ['word-order-nope', 'true']);
    for (const [m, s] of same) if (m !== 'word-order-nope') assert.equal(s, 'false', `${m} tells the mirror apart`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('RoPE lab: q.k is unchanged when both positions shift', async () => {
    const { page, problems } = await open('#r.m=100&r.n=37&r.s=1000');
    const a = await num(page, '#rope-score');
    const b = await num(page, '#rope-score-shifted');
    assert.ok(Math.abs(a) > 1e-3, `a non-trivial score ${a}`);
    assert.ok(Math.abs(a - b) < 1e-4 * Math.max(1, Math.abs(a)), `${a} vs ${b}`);
    // Moving only one position changes it.
    await page.$eval('#rope input[type="range"]', (e) => {
      const input = e as HTMLInputElement;
      input.value = '140';
      input.dispatchEvent(new Event('input'));
    });
    await page.waitForTimeout(100);
    assert.ok(Math.abs((await num(page, '#rope-score')) - a) > 1e-4, 'a different m - n gives a different score');
    assert.match(page.url(), /r\.m=140/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('bug zoo: each RoPE bug raises the loss of the shipped model; left padding is invisible to RoPE', async () => {
    const { page, problems } = await open('#z.bug=rotate-v');
    const result = async (bug: string, model?: string): Promise<[number, number]> => {
      await page.selectOption('#bug-select', bug);
      if (model) await page.selectOption('#bug-model', model);
      const m = model ?? await page.$eval('#bug-model', (e) => (e as HTMLSelectElement).value);
      await page.waitForSelector(`#bugs .body[data-ready="${m}:${bug}"]`, { timeout: 120000 });
      return [await num(page, '#bug-loss-clean'), await num(page, '#bug-loss-buggy')];
    };
    for (const bug of ['rotate-v', 'only-q', 'layout-mismatch', 'wrong-base', 'restart-positions', 'partial-rotary-freq-over-head-dim', 'yarn-magnitude-twice']) {
      const [clean, buggy] = await result(bug);
      // YaRN's doubled magnitude is a small effect on a model this size (+0.08 nats measured).
      assert.ok(buggy > clean + (bug === 'yarn-magnitude-twice' ? 0.02 : 0.05), `${bug}: ${clean} -> ${buggy}`);
    }
    const [ropeClean, ropePadded] = await result('left-padding-in-positions', 'language-rope');
    assert.ok(Math.abs(ropePadded - ropeClean) < 1e-3, `RoPE ignores a uniform shift: ${ropeClean} vs ${ropePadded}`);
    const [sinClean, sinPadded] = await result('left-padding-in-positions', 'language-sinusoidal');
    assert.ok(Math.abs(sinPadded - sinClean) > 0.01, `sinusoidal sees shifted positions: ${sinClean} vs ${sinPadded}`);
    assert.match(page.url(), /z\.bug=left-padding-in-positions/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('train your own: the loss falls, the model joins section 1; cancel stops a run', async () => {
    const { page, problems } = await open('#t.task=word-order&t.enc=rope&t.steps=60');
    await page.click('#train-start');
    await page.waitForSelector('#train-status[data-done]', { timeout: 120000 });
    assert.equal(await page.$eval('#train-status', (e) => (e as HTMLElement).dataset.done), '1');
    const first = Number(await page.$eval('#train-status', (e) => (e as HTMLElement).dataset.first));
    const last = Number(await page.$eval('#train-status', (e) => (e as HTMLElement).dataset.last));
    assert.ok(last < first * 0.8, `loss ${first} -> ${last}`);
    await page.waitForSelector('#order-answers tr[data-model="yours"]', { timeout: 60000 });

    await page.selectOption('#train select >> nth=0', 'language');
    await page.$eval('#train input[type="range"]', (e) => {
      const input = e as HTMLInputElement;
      input.value = String(Math.log2(5000));
      input.dispatchEvent(new Event('input'));
    });
    await page.click('#train-start');
    await page.waitForFunction(() => Number((document.getElementById('train-progress') as HTMLProgressElement).value) > 0, null, { timeout: 60000 });
    await page.click('#train-cancel');
    await page.waitForSelector('#train-status[data-done="cancelled"]', { timeout: 60000 });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('phone size, dark theme and Chinese: no horizontal overflow, text translated', async () => {
    const { page, problems } = await open('#lang=zh&theme=dark', { width: 390, height: 844 });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await page.textContent('#order-h'), '1. 为什么顺序重要');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `horizontal overflow ${overflow}px`);
    await screenshot(page, 'phone-dark-zh');
    await page.click('#lang-switch');
    assert.equal(await page.textContent('#order-h'), '1. Why order matters');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
