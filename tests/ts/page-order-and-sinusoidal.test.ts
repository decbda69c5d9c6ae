/**
 * Sections 1 (why order matters) and sinusoidal, as a reader uses them
 * (Chromium, strict CSP):
 * - every heatmap stands alone: axis names, ticks, a colour bar with values;
 *   the token names sit on their rows;
 * - A (original order) and B (shuffled, put back) side by side: the page's
 *   max |B - A| and both maps against a float64 attention written here from
 *   the exported token vectors (~0 without position, large with sinusoidal);
 * - the PE_p . PE_q curve against sum_i sin/cos products in float64;
 * - the sentence box follows typing (no Enter), cuts 我喜欢你 into words;
 * - touch reordering with touch emulation (real touch input through CDP,
 *   which Chromium turns into pointer events).
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

import type { Browser, Page } from 'playwright-core';

import { launchChromium } from './chromium.js';
import { num, reachAndWait, root, setRange, startHarness, type Harness } from './page-harness.js';

const D = 16;
let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

type Matrix = number[][];

/** softmax(X X^T / sqrt(D)) X for X [T, D], no mask, float64. */
function attention(x: Matrix): Matrix {
  return x.map((q) => {
    const s = x.map((k) => q.reduce((acc, v, e) => acc + v * k[e]!, 0) / Math.sqrt(D));
    const m = Math.max(...s);
    const w = s.map((v) => Math.exp(v - m));
    const z = w.reduce((a, b) => a + b, 0);
    return q.map((_, e) => x.reduce((acc, k, j) => acc + (w[j]! / z) * k[e]!, 0));
  });
}

/** PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(...), float64. */
function pe(p: number, d: number, base = 10000): number[] {
  return Array.from({ length: d }, (_, c) => {
    const a = p / base ** ((2 * Math.floor(c / 2)) / d);
    return c % 2 === 0 ? Math.sin(a) : Math.cos(a);
  });
}

function rows(flat: number[], T: number): Matrix {
  return Array.from({ length: T }, (_, i) => flat.slice(i * D, (i + 1) * D));
}

function maxAbsDiff(a: Matrix, b: Matrix): number {
  let m = 0;
  a.forEach((r, i) => r.forEach((v, e) => { m = Math.max(m, Math.abs(v - b[i]![e]!)); }));
  return m;
}

/** A (original order) and B (the order `order`, rows put back) in float64, with sinusoidal added when asked. */
function reference(x: Matrix, order: number[], sinusoidal: boolean): { a: Matrix; b: Matrix } {
  const add = (m: Matrix): Matrix => (sinusoidal ? m.map((r, p) => r.map((v, e) => v + pe(p, D)[e]!)) : m);
  const a = attention(add(x));
  const cur = attention(add(order.map((src) => x[src]!)));
  const b: Matrix = new Array<number[]>(x.length);
  order.forEach((src, r) => { b[src] = cur[r]!; });
  return { a, b };
}

async function outputs(page: Page): Promise<{ x: Matrix; a: Matrix; b: Matrix; order: number[] }> {
  const d = await page.$eval('#order-outs', (e) => ({ ...(e as HTMLElement).dataset }));
  const tokens = JSON.parse(d.tokens!) as string[];
  const T = tokens.length;
  const m = (s: string | undefined): Matrix => rows(JSON.parse(s!) as number[], T);
  return { x: m(d.x), a: m(d.a), b: m(d.b), order: d.order!.split('.').map(Number) };
}

async function chipTexts(page: Page): Promise<string[]> {
  return page.$$eval('#order .chip', (cs) => cs.map((c) => c.textContent ?? ''));
}

describe('sections 1 and sinusoidal (Chromium, strict CSP)', () => {
  it('"who does it?": the default pair is in the page\'s language, o.pair picks another, rows name the encodings (review B4)', async () => {
    for (const [hash, want] of [['', ['Alice likes Bob', 'Bob likes Alice']], ['lang=zh', ['我喜欢你', '你喜欢我']], ['o.pair=3', ['Carol really sees Dave', 'Dave really sees Carol']]] as const) {
      const { page, problems } = await h.open(`#${hash}`);
      await reachAndWait(page, '#order-answers', '#order-answers[data-ready="1"]', 120000);
      const heads = await page.$$eval('#order-answers thead th[data-sample]', (es) => es.map((e) => e.textContent));
      assert.deepEqual(heads, want, hash);
      const rows = await page.$$eval('#order-answers tbody tr > th', (es) => es.map((e) => e.textContent ?? ''));
      assert.ok(rows.includes('RoPE') && rows.includes('ALiBi') && !rows.includes('rope'), `${hash}: ${rows.join(', ')}`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('every heatmap has named axes, ticks and a colour bar with values; token names sit on their rows', async () => {
    const { page, problems } = await h.open('#o.text=the+cat+sat+on+the+mat&o.perm=2.0.1.3.5.4');
    await page.$eval('#sinusoidal', (e) => e.scrollIntoView());
    await page.waitForTimeout(300);
    const maps = await page.$$eval('#order canvas.heatmap:not(.colour-bar), #sinusoidal canvas.heatmap:not(.colour-bar)', (cs) =>
      cs.map((c) => {
        const ax = c.closest('.axed');
        const txt = (sel: string): string => ax?.querySelector(sel)?.textContent?.trim() ?? '';
        const nums = Array.from(ax?.querySelectorAll('.t-hi, .t-lo') ?? []).map((e) => Number(e.textContent?.replace('−', '-')));
        return {
          id: c.id, axed: !!ax, y: txt('.ax-yname'), x: txt('.ax-x'), value: txt('.ax-value'),
          bar: !!ax?.querySelector('canvas.colour-bar'), nums,
          xticks: Array.from(ax?.querySelectorAll('.t-left:not([hidden]), .t-right:not([hidden])') ?? []).map((e) => e.textContent).join(' '),
          cols: Array.from(ax?.querySelectorAll('.ax-collabel') ?? []).map((e) => e.textContent ?? ''),
        };
      }));
    assert.ok(maps.length >= 6, `maps: ${maps.map((m) => m.id).join(',')}`);
    for (const m of maps) {
      assert.ok(m.axed && m.bar, `${m.id}: axes and colour bar`);
      assert.ok(m.y.length > 2 && m.x.length > 2 && m.value.length > 2, `${m.id}: axis names ${JSON.stringify(m)}`);
      assert.ok(m.nums.length === 2 && m.nums.every(Number.isFinite) && m.nums[0]! > m.nums[1]!, `${m.id}: bar values ${m.nums.join(' ')}`);
      // End ticks, or (few key tokens) the keys' names under their columns.
      if (m.cols.length === 0) assert.match(m.xticks, /^0\s*\d+$/, `${m.id}: x ticks`);
      else assert.equal(m.xticks, '', `${m.id}: names replace the ticks`);
    }
    // Row names: the tokens in the original order on A, B, B - A; the current order on the weights.
    const placed = await page.$$eval('#order .axed', (axs) => axs.map((ax) => {
      const c = ax.querySelector('canvas.heatmap:not(.colour-bar)')!.getBoundingClientRect();
      const labels = Array.from(ax.querySelectorAll('.ax-rowlabel')).map((l) => {
        const r = l.getBoundingClientRect();
        return { text: l.textContent ?? '', mid: (r.top + r.bottom) / 2 };
      });
      const cols = Array.from(ax.querySelectorAll('.ax-collabel')).map((l) => {
        const r = l.getBoundingClientRect();
        return { text: l.textContent ?? '', mid: (r.left + r.right) / 2 };
      });
      return { top: c.top, height: c.height, left: c.left, width: c.width, labels, cols };
    }));
    assert.equal(placed.length, 4);
    const original = ['the', 'cat', 'sat', 'on', 'the', 'mat'];
    const current = [2, 0, 1, 3, 5, 4].map((i) => original[i]!);
    placed.forEach((m, k) => {
      assert.deepEqual(m.labels.map((l) => l.text), k < 3 ? original : current, `map ${k}: names`);
      m.labels.forEach((l, i) => {
        const rowMid = m.top + ((i + 0.5) * m.height) / m.labels.length;
        assert.ok(Math.abs(l.mid - rowMid) < 2, `map ${k} row ${i}: name at ${l.mid}, row centre ${rowMid}`);
      });
    });
    // The weights map also names its columns (the keys, current order), each under its column.
    const w = placed[3]!;
    assert.deepEqual(w.cols.map((c) => c.text), current, 'weights map: key names');
    w.cols.forEach((c, j) => {
      const colMid = w.left + ((j + 0.5) * w.width) / w.cols.length;
      assert.ok(Math.abs(c.mid - colMid) < 2, `key ${j}: name at ${c.mid}, column centre ${colMid}`);
    });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('A and B side by side: max |B - A| ~0 without position, large with sinusoidal (float64 reference)', async () => {
    const { page, problems } = await h.open('#o.text=the+cat+sat+on+the+mat&o.perm=5.2.0.4.1.3&o.enc=none');
    const none = await outputs(page);
    assert.deepEqual(none.order, [5, 2, 0, 4, 1, 3]);
    const refNone = reference(none.x, none.order, false);
    assert.ok(maxAbsDiff(none.a, refNone.a) < 1e-4, `A against float64: ${maxAbsDiff(none.a, refNone.a)}`);
    assert.ok(maxAbsDiff(none.b, refNone.b) < 1e-4, `B against float64: ${maxAbsDiff(none.b, refNone.b)}`);
    const dNone = await num(page, '#order-diff');
    assert.ok(dNone < 1e-5, `NoPE: max |B - A| = ${dNone}`);
    assert.ok(maxAbsDiff(refNone.a, refNone.b) < 1e-12, 'float64: B = A without position');
    assert.equal(await page.$eval('#order-verdict', (e) => (e as HTMLElement).dataset.i18n), 'order.verdict.same');

    await page.selectOption('#order select', 'sinusoidal');
    await page.waitForTimeout(150);
    const sin = await outputs(page);
    const refSin = reference(sin.x, sin.order, true);
    const want = maxAbsDiff(refSin.a, refSin.b);
    const got = await num(page, '#order-diff');
    assert.ok(want > 0.05, `float64 says order matters with sinusoidal: ${want}`);
    assert.ok(Math.abs(got - want) < 1e-4, `sinusoidal: page ${got}, float64 ${want}`);
    assert.ok(maxAbsDiff(sin.b, refSin.b) < 1e-4, 'B with sinusoidal against float64');
    assert.equal(await page.$eval('#order-verdict', (e) => (e as HTMLElement).dataset.i18n), 'order.verdict.differ');
    // The B - A map is not blank: its colour bar reads the difference.
    const hi = await page.$eval('#order-delta', (c) => Number((c.closest('.axed') as HTMLElement).dataset.hi));
    assert.ok(Math.abs(hi - want) < 1e-3, `B - A colour bar top ${hi}`);
    for (const enc of ['rope', 'alibi']) {
      await page.selectOption('#order select', enc);
      await page.waitForTimeout(150);
      assert.ok((await num(page, '#order-diff')) > 1e-3, `${enc}: order matters`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('PE_p . PE_q against p - q equals sum_i sin/cos products (float64) and is symmetric', async () => {
    const d = 32, len = 64, base = 10000;
    const { page, problems } = await h.open(`#s.dim=${d}&s.len=${len}&s.p=40`);
    const read = async (): Promise<{ p: number; x: number[]; y: number[] }> => page.$eval('#sin-dots', (e) => {
      const s = (e as HTMLElement).dataset;
      return { p: Number(s.p), x: JSON.parse(s.x!) as number[], y: JSON.parse(s.y!) as number[] };
    });
    const dot = (p: number, q: number): number => {
      let acc = 0;
      for (let i = 0; i < d / 2; i++) {
        const w = base ** ((-2 * i) / d);
        acc += Math.sin(p * w) * Math.sin(q * w) + Math.cos(p * w) * Math.cos(q * w);
      }
      return acc;
    };
    for (const p of [40, 7]) {
      if (p !== 40) {
        await setRange(page, '#sinusoidal .sin-p input[type="range"]', p);
        await page.waitForTimeout(150);
      }
      const r = await read();
      assert.equal(r.p, p);
      assert.equal(r.x.length, len);
      assert.deepEqual([r.x[0], r.x[len - 1]], [p - (len - 1), p], 'offsets from p - (L - 1) to p');
      for (const k of [0, 5, len - 1 - p, len - 2, len - 1]) {
        const q = p - r.x[k]!;
        assert.ok(Math.abs(r.y[k]! - dot(p, q)) < 1e-4, `p ${p}, q ${q}: page ${r.y[k]}, float64 ${dot(p, q)}`);
      }
      const at = (dx: number): number => r.y[r.x.indexOf(dx)]!;
      assert.ok(Math.abs(at(0) - d / 2) < 1e-4, 'd/2 at offset 0');
      for (const dx of [1, 3, 6]) assert.ok(Math.abs(at(dx) - at(-dx)) < 1e-4, `symmetric at ±${dx}`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('in Chinese the default sentence and the samples are written without spaces, and the box cuts the shown text into the same words (review N9)', async () => {
    const { page, problems } = await h.open('#lang=zh');
    const box = '#order input[type="text"]';
    const shown = await page.$eval(box, (e) => (e as HTMLInputElement).value);
    assert.doesNotMatch(shown, /\s/, `the default sentence: "${shown}"`);
    const words = await chipTexts(page);
    assert.ok(words.length > 1, words.join(' | '));
    assert.equal(words.join(''), shown, 'the chips are the words of the sentence shown');
    const samples = await page.$$eval('#order .sample', (bs) => bs.map((b) => b.textContent ?? ''));
    for (const s of samples) assert.doesNotMatch(s, /\s/, `sample "${s}"`);
    // So are the word-order models' sentences: the selector's options and the table's header (review F7).
    const pairs = await page.$$eval('#order-pair option', (os) => os.map((o) => o.textContent ?? ''));
    assert.ok(pairs.some((p) => p.includes('我喜欢你') && p.includes('你喜欢我')) && pairs.some((p) => p.includes('小明常常帮助小红')), pairs.join(' | '));
    for (const p of pairs) assert.doesNotMatch(p, /[\u4e00-\u9fff]\s+[\u4e00-\u9fff]/, `option "${p}"`);
    await reachAndWait(page, '#order-answers', '#order-answers[data-ready="1"]', 120000);
    const heads = await page.$$eval('#order-answers thead th[data-sample]', (es) => es.map((e) => e.textContent ?? ''));
    assert.deepEqual(heads, ['我喜欢你', '你喜欢我']);
    await page.selectOption('#order-pair', '2');
    await page.waitForFunction(() => (document.querySelector('#order-answers thead th[data-sample]')?.textContent ?? '') === '小明常常帮助小红', null, { timeout: 60000 });
    await page.$eval('#order', (e) => e.scrollIntoView({ block: 'start', behavior: 'instant' }));
    // The text shown, typed back in, is cut into the same words (the vocabulary's longest match).
    await page.fill(box, '');
    await page.type(box, shown, { delay: 10 });
    await page.waitForFunction((n) => document.querySelectorAll('#order .chip').length === n && document.querySelector('#order .chip')?.textContent !== '', words.length, { timeout: 20000 });
    await page.waitForTimeout(400);
    assert.deepEqual(await chipTexts(page), words);
    // A shuffle shows the new order in the box, still without spaces.
    await page.click('#order button.shuffle');
    await page.waitForTimeout(300);
    const after = await page.$eval(box, (e) => (e as HTMLInputElement).value);
    assert.doesNotMatch(after, /\s/, `after a shuffle: "${after}"`);
    assert.equal(after, (await chipTexts(page)).join(''));
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the sentence box follows typing; 我喜欢你 typed without spaces becomes the model’s words', async () => {
    const { page, problems } = await h.open('#lang=zh');
    const box = '#order input[type="text"]';
    await page.fill(box, '');
    await page.type(box, 'the dog ran', { delay: 20 });
    await page.waitForFunction(() => document.querySelectorAll('#order .chip').length === 3, null, { timeout: 5000 });
    assert.deepEqual(await chipTexts(page), ['the', 'dog', 'ran']);
    await page.fill(box, '');
    await page.type(box, '我喜欢你', { delay: 20 });
    // No Enter, no blur: the chips follow (after the vocabulary comes from the Worker).
    await page.waitForFunction(() => document.querySelector('#order .chip')?.textContent === '我'
      && document.querySelectorAll('#order .chip').length === 3, null, { timeout: 20000 });
    assert.deepEqual(await chipTexts(page), ['我', '喜欢', '你']);
    assert.equal(await page.$eval(box, (e) => (e as HTMLInputElement).value), '我喜欢你', 'the box keeps what was typed');
    // Longer text with punctuation and a name of the vocabulary.
    await page.fill(box, '小明常常帮助小红，Alice很喜欢Bob');
    await page.waitForFunction(() => document.querySelectorAll('#order .chip').length > 6, null, { timeout: 5000 });
    assert.deepEqual(await chipTexts(page), ['小明', '常常', '帮助', '小红', '，', 'Alice', '很', '喜欢', 'Bob']);
    // Row names follow the tokens.
    assert.deepEqual(await page.$$eval('#order-outs figure:first-child .ax-rowlabel', (ls) => ls.map((l) => l.textContent)),
      ['小明', '常常', '帮助', '小红', '，', 'Alice', '很', '喜欢', 'Bob']);
    // A sample sentence of each language; it follows the language switch.
    const samples = await page.$$eval('#order .sample', (bs) => bs.map((b) => b.textContent ?? ''));
    assert.ok(samples.length >= 2 && samples.every((s) => /[\u4e00-\u9fff]/.test(s)), samples.join(' / '));
    await page.click('#order .sample:nth-of-type(2)');
    await page.waitForFunction(() => document.querySelectorAll('#order .chip').length === 4, null, { timeout: 5000 });
    await page.click('#lang-switch');
    await page.waitForFunction(() => document.querySelector('#order .chip')?.textContent === 'Alice', null, { timeout: 5000 });
    assert.deepEqual(await chipTexts(page), ['Alice', 'likes', 'Bob']);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('touch: dragging a token with a finger reorders it (touch emulation)', async () => {
    const { serve } = (await import(pathToFileURL(join(root, 'tools/serve.mjs')).href)) as {
      serve: (dir: string, port: number) => Promise<{ server: Server; url: string }>;
    };
    const { server, url } = await serve(process.env.POSENC_SITE_DIR ?? join(root, 'dist/site'), 0);
    const browser: Browser = await launchChromium();
    try {
      const context = await browser.newContext({ hasTouch: true, isMobile: true, viewport: { width: 390, height: 844 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.goto(`${url}#o.text=the+cat+sat+on+the+mat`);
      await page.waitForFunction(() => document.documentElement.dataset.ready === '1', null, { timeout: 60000 });
      await page.$eval('#order .chips', (e) => e.scrollIntoView({ block: 'center' }));
      // The page scrolls smoothly: wait until the chips stand still.
      let last = NaN;
      for (let k = 0; k < 40; k++) {
        await page.waitForTimeout(100);
        const top = await page.$eval('#order .chip', (c) => c.getBoundingClientRect().top);
        if (top === last) break;
        last = top;
      }
      const centre = async (pos: number): Promise<{ x: number; y: number }> => page.$eval(`#order .chip[data-pos="${pos}"]`, (c) => {
        const r = c.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      });
      const a = await centre(0), b = await centre(2);
      const cdp = await context.newCDPSession(page);
      const touch = async (type: 'touchStart' | 'touchMove' | 'touchEnd', p: { x: number; y: number }): Promise<void> => {
        await cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x: p.x, y: p.y, id: 1 }] });
      };
      const scroll0 = await page.evaluate(() => window.scrollY);
      await touch('touchStart', a);
      for (let k = 1; k <= 8; k++) await touch('touchMove', { x: a.x + ((b.x - a.x) * k) / 8, y: a.y + ((b.y - a.y) * k) / 8 });
      await touch('touchEnd', b);
      await page.waitForTimeout(150);
      assert.deepEqual(await chipTexts(page), ['cat', 'sat', 'the', 'on', 'the', 'mat'], 'token 0 moved to place 2');
      assert.equal(await page.evaluate(() => window.scrollY), scroll0, 'the drag did not scroll the page');
      assert.ok((await num(page, '#order-diff')) < 1e-5, 'NoPE: still B = A');
      assert.match(page.url(), /o\.perm=1\.2\.0\.3\.4\.5/);
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
