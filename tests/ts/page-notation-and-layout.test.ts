/**
 * Notation, scrolling blocks and small layout rules, checked in Chromium under the strict CSP:
 * - notation: positions are m, n (never i, j) and pairs are i, in text and in
 *   the KaTeX sources, in both languages; Chinese mode says loss (not 损失)
 *   and 偏置 (not bias), and the padding panel's rows are 默认 RoPE / 动态 NTK;
 * - the order section at 256 tokens: the weights map is not one flat colour,
 *   and the sentence box follows a shuffle and a keyboard move;
 * - code and tensor blocks scroll sideways (overflow-x auto) at 1280 and 390;
 * - the RoPE pair labels are text of at least 10 px, side by side, at 390 px;
 * - an axed heatmap is drawn once per theme switch;
 * - the ALiBi head captions stay on one line at 16 heads;
 * - the core's RangeError gets a Chinese sentence before it in Chinese mode.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { reachAndWait, root, screenshot, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

/** Scrolls through every section (instantly) so that lazily built parts render. */
async function visitAll(page: Page): Promise<void> {
  await page.addStyleTag({ content: 'html { scroll-behavior: auto !important; }' });
  const ids = await page.$$eval('main > section', (ss) => ss.map((s) => s.id));
  for (const id of ids) {
    await page.$eval(`#${id}`, (e) => e.scrollIntoView({ behavior: 'instant' }));
    await page.waitForTimeout(120);
  }
}

/**
 * The page's visible text, line by line (the "try this" prompts are left out:
 * web/src/text/tryit.ts is another helper's, checked by its own tests).
 */
function pageText(page: Page, o: { code?: boolean } = {}): Promise<string> {
  return page.evaluate((code) => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const skip = `[hidden], .tryit, .tryit-look, script, style${code ? '' : ', pre.code'}`;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const p = n.parentElement;
      if (!p || p.closest(skip)) continue;
      const t = n.textContent?.trim();
      if (t) out.push(t);
    }
    return out.join('\n');
  }, o.code ?? true);
}

/**
 * The TeX between $...$ in the page's text tables, both languages (KaTeX
 * renders HTML only, so the page keeps no source to read back).
 */
function texSources(): string[] {
  const dir = join(root, 'web/src/text');
  const sections = join(root, 'web/src/sections');
  const files = [
    ...readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'tryit.ts').map((f) => join(dir, f)),
    ...readdirSync(sections, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(sections, d.name, 'text.ts')),
  ];
  return files.flatMap((f) => Array.from(readFileSync(f, 'utf8').matchAll(/\$\$?([^$]+)\$\$?/g), (m) => m[1]!.replace(/\\\\/g, '\\')));
}

/**
 * Every string of the page's text tables (both languages, web/src/text and
 * each section's text.ts), with its key.
 */
function textStrings(): Array<{ key: string; text: string }> {
  const dir = join(root, 'web/src/text');
  const sections = join(root, 'web/src/sections');
  const files = [
    ...readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => join(dir, f)),
    ...readdirSync(sections, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(sections, d.name, 'text.ts')),
  ];
  return files.flatMap((f) => Array.from(readFileSync(f, 'utf8').matchAll(/^\s*'([^']+)':\s*([`'"])([\s\S]*?)\2,\s*$/gm), (m) => ({ key: m[1]!, text: m[3]! })));
}

/** Distinct colours of a canvas's pixels (the heatmap canvas holds one pixel per cell). */
function distinctColours(page: Page, sel: string): Promise<number> {
  return page.$eval(sel, (c) => {
    const canvas = c as HTMLCanvasElement;
    const d = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    const seen = new Set<number>();
    for (let p = 0; p < d.length; p += 4) seen.add((d[p]! << 16) | (d[p + 1]! << 8) | d[p + 2]!);
    return seen.size;
  });
}

describe('notation and layout (Chromium, strict CSP)', () => {
  it('notation: positions m, n and pairs i, in text and formulas; loss, 偏置 and the padding rows in Chinese', async () => {
    const { page, problems } = await h.open('');
    await visitAll(page);
    await reachAndWait(page, '.pad-scores');
    // A position called i or j, in words or in TeX.
    const positionsAsIJ = /\b(query|key|Row|row) [ij]\b|\b[ij] − [ij]\b|turns by \$?[ij]\b|token i\b/;
    const texAsIJ = /\([ij] ?- ?[ij]\)|[qkv]_[ij](?![=\w])|_\{ij\}|R_[ij]\b|m_h|[ij]\\,\\theta\b|\b[ij] > [ij]\b|clip\}?\([ij]-[ij]\)/;
    const tex = texSources();
    assert.ok(tex.length > 100, `${tex.length} formulas`);
    assert.deepEqual(tex.filter((s) => texAsIJ.test(s)), [], 'formulas with positions called i or j');
    // The pair index stays i: θ_i is still in the RoPE formulas.
    assert.ok(tex.some((s) => /\\theta_i\b/.test(s)), 'θ_i for pairs');
    assert.doesNotMatch(await pageText(page), positionsAsIJ);

    await page.click('#lang-switch');
    await page.waitForTimeout(500);
    await visitAll(page);
    await page.waitForTimeout(300);
    const zh = { text: await pageText(page) };
    assert.doesNotMatch(zh.text, /第 [ij] 行|第 [ij] 列|query [ij]\b|key [ij]\b|[ij] − [ij]/);
    // One word for the loss, and 偏置 for a bias, in Chinese sentences.
    assert.ok(!zh.text.includes('损失'), 'Chinese mode writes loss, not 损失');
    // (Code blocks are code: their variable may be called bias.)
    const biasInChinese = (await pageText(page, { code: false })).split('\n').filter((l) => /[\u4e00-\u9fff]/.test(l) && /\bbias\b/.test(l));
    assert.deepEqual(biasInChinese, []);
    // The padding panel's rows and legend (English-only words before).
    const rows = await page.$$eval('.pad-scores tbody tr td:first-child', (ts) => ts.map((t) => t.textContent));
    assert.deepEqual(rows, ['默认 RoPE', '动态 NTK']);
    const legend = await page.$eval('.pad-scores', (t) => t.parentElement!.querySelector('.plot')?.getAttribute('data-series') ?? '');
    assert.doesNotMatch(legend, /default|dynamic/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('one sign for the distance: query m, key n, distance m − n in both languages (R_{n−m} only where the derivation turns by it)', () => {
    const strings = textStrings();
    assert.ok(strings.length > 500, `${strings.length} strings`);
    // n − m in words or in TeX: "n − m", "n−m", "n - m", "n-m".
    const nMinusM = /(?<![\w{])n\s*[−-]\s*m(?![\w}])/;
    // Left alone: the derivation's rotation R_{n−m} (Rₙ₋ₘ in headings) and its
    // angle (n − m)θ, which applyRope is called at; Shaw's clip(n − m, …), a
    // signed relative index (key minus query) as pe.shawIndices numbers it, not a distance.
    const allowed = /R_\{n-m\}|\(n-m\)\\\\theta|applyRope (?:at|在) \$n-m\$|clip\}?\(n\s*[−-]\s*m\b/g;
    const offenders = strings.filter(({ text }) => nMinusM.test(text.replace(allowed, '')));
    assert.deepEqual(offenders.map((o) => o.key), [], 'n − m used as a distance (the page writes m − n)');
    // The distance is still written, as m − n, in both languages.
    const mMinusN = /(?<![\w{])m\s*[−-]\s*n(?![\w}])/;
    const both = (lang: 'en' | 'zh'): number => strings.filter((s) => /[\u4e00-\u9fff]/.test(s.text) === (lang === 'zh') && mMinusN.test(s.text)).length;
    assert.ok(both('en') >= 10 && both('zh') >= 10, `m − n in ${both('en')} English and ${both('zh')} Chinese strings`);
    // A regression is caught: the old wording of the summary fails the check.
    assert.ok(nMinusM.test('the score depends only on $n-m$'.replace(allowed, '')));
    assert.ok(!nMinusM.test('$R_m^\\top R_n = R_{n-m}$'.replace(allowed, '')));
  });

  it('256 tokens: the weights map has many colours (per-row scale), and the sentence box follows the order', async () => {
    const { page, problems } = await h.open('#section=order');
    const boxShowsOrder = async (): Promise<void> => {
      const { value, order, tokens } = await page.evaluate(() => {
        const outs = document.querySelector<HTMLElement>('#order-outs')!;
        return {
          value: document.querySelector<HTMLInputElement>('#order input.wide')!.value,
          order: outs.dataset.order!.split('.').map(Number),
          tokens: JSON.parse(outs.dataset.tokens!) as string[],
        };
      });
      assert.equal(value, order.map((i) => tokens[i]).join(' '));
    };
    // (A shuffle can give the same order back: shuffle until it does not.)
    for (let k = 0; k < 5 && await page.$eval('#order-outs', (e) => (e as HTMLElement).dataset.order) === '0.1.2.3.4.5'; k++) {
      await page.click('button.shuffle');
      await page.waitForTimeout(200);
    }
    assert.notEqual(await page.$eval('#order-outs', (e) => (e as HTMLElement).dataset.order), '0.1.2.3.4.5', 'shuffled');
    await boxShowsOrder();
    // A keyboard move of the first chip.
    await page.focus('#order .chip >> nth=0');
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(200);
    await boxShowsOrder();

    await page.click('#order-long');
    await page.waitForFunction(() => document.querySelector<HTMLCanvasElement>('#order-weights')?.width === 256);
    await page.click('button.shuffle');
    await page.waitForTimeout(300);
    await boxShowsOrder();
    assert.equal(await page.$eval('#order-weights', (c) => c.closest('.axed')?.getAttribute('data-scale')), 'row');
    // On one 0..1 scale every weight (about 1/256) would be the same dark colour.
    const colours = await distinctColours(page, '#order-weights');
    assert.ok(colours >= 16, `the 256-token weights map shows ${colours} colours`);
    // The button says what it is for.
    assert.match(await page.textContent('#order') ?? '', /256 tokens” swaps in a long sequence/);
    await screenshot(page, 'nits-order-256', '#order-outs');
    assert.deepEqual(problems, []);
    await page.close();
  });

  for (const width of [1280, 390]) {
    it(`code and tensor blocks scroll sideways at ${width} px`, async () => {
      const { page, problems } = await h.open('#section=examples', { width, height: 900 });
      await visitAll(page);
      const blocks = await page.$$eval('#examples pre.code, #examples pre.tensor', (ps) => ps.map((p) => ({
        overflowX: getComputedStyle(p).overflowX,
        scrolls: p.scrollWidth > p.clientWidth,
        right: p.getBoundingClientRect().right,
      })));
      assert.ok(blocks.length >= 4, `${blocks.length} blocks`);
      assert.deepEqual(blocks.filter((b) => b.overflowX !== 'auto'), [], 'overflow-x auto everywhere');
      // At phone width some block (a wide tensor) is wider than its box: it scrolls, and stays inside
      // the page. (The code wraps, so at 1280 px nothing may need to.)
      if (width < 600) assert.ok(blocks.some((b) => b.scrolls), 'a block wider than its box');
      assert.deepEqual(blocks.filter((b) => b.right > width + 0.5), [], 'no block runs past the page');
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('RoPE pair labels: text of at least 10 px, side by side, at 390 px and 1280 px', async () => {
    for (const width of [390, 1280]) {
      const { page, problems } = await h.open('#section=rope&lang=zh', { width, height: 900 });
      const labels = await page.$$eval('#rope-pair-labels span', (ss) => ss.map((s) => {
        const r = s.getBoundingClientRect();
        return { text: s.textContent ?? '', size: parseFloat(getComputedStyle(s).fontSize), left: r.left, right: r.left + s.scrollWidth };
      }));
      assert.equal(labels.length, 8);
      assert.deepEqual(labels.map((l) => l.text.replace(/\s/g, '')), [0, 4, 8, 12, 16, 20, 24, 28].map((i) => `i=${i}`));
      for (const l of labels) assert.ok(l.size >= 10, `${width}px: ${l.text} at ${l.size}px`);
      for (let k = 1; k < labels.length; k++) assert.ok(labels[k]!.left >= labels[k - 1]!.left, 'in order');
      const right = await page.$eval('#rope-pair-labels', (e) => e.getBoundingClientRect().right);
      assert.ok(right <= width, `${width}px: the labels end at ${right}`);
      await screenshot(page, `nits-rope-pairs-${width}`, '#rope .pairs-box');
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('an axed heatmap is drawn once per theme switch', async () => {
    const { page, problems } = await h.open('#section=rope');
    await page.evaluate(() => {
      const counts: Record<string, number> = {};
      (window as unknown as { drawCounts: Record<string, number> }).drawCounts = counts;
      const put = CanvasRenderingContext2D.prototype.putImageData;
      CanvasRenderingContext2D.prototype.putImageData = function (this: CanvasRenderingContext2D, ...args: Parameters<typeof put>) {
        const id = this.canvas.id || '?';
        counts[id] = (counts[id] ?? 0) + 1;
        put.apply(this, args);
      } as typeof put;
    });
    const before = await page.$eval('#rope-angles', (c) => (c as HTMLCanvasElement).dataset.theme ?? '');
    for (let k = 1; k <= 2; k++) {
      await page.click('#theme-switch');
      await page.waitForTimeout(300);
      const counts = await page.evaluate(() => (window as unknown as { drawCounts: Record<string, number> }).drawCounts);
      assert.equal(counts['rope-angles'], k, `switch ${k}: the RoPE angle map drawn ${counts['rope-angles']} times in all`);
    }
    assert.equal(await page.$eval('#rope-angles', (c) => (c as HTMLCanvasElement).dataset.theme ?? ''), before, 'back to the first theme');
    assert.deepEqual(problems, []);
    await page.close();
  });

  for (const [width, lang] of [[1280, 'en'], [390, 'zh']] as const) {
    it(`ALiBi at 16 heads: one-line head captions at ${width} px (${lang})`, async () => {
      const { page, problems } = await h.open(`#section=bias&b.heads=16&lang=${lang}`, { width, height: 900 });
      const captions = await page.$$eval('#alibi-maps .cell-label', (ls) => ls.map((l) => ({
        text: l.textContent ?? '', lines: Math.round(l.getBoundingClientRect().height / parseFloat(getComputedStyle(l).lineHeight || '16')),
        clipped: l.scrollWidth > l.clientWidth + 1,
      })));
      assert.equal(captions.length, 16);
      assert.deepEqual(captions.filter((c) => c.lines > 1 || c.clipped), [], 'each caption on one line, whole');
      // The colour's name is said once (the figure), not under each of the 16 maps.
      const shownNames = await page.$$eval('#alibi-maps .ax-value .ax-name', (ns) => ns.filter((n) => (n as HTMLElement).offsetParent !== null).length);
      assert.equal(shownNames, 0);
      await screenshot(page, `nits-alibi16-${width}-${lang}`, '#alibi-maps');
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('the core\'s RangeError comes after a Chinese sentence in Chinese mode (message kept)', async () => {
    const { page, problems } = await h.open('#section=bugs&lang=zh');
    const fig = await page.$eval('#odd-error', (e) => e.closest('figure')!.innerText);
    assert.match(fig, /[\u4e00-\u9fff][^\n]*\n+RangeError: headDim/);
    assert.match(await page.textContent('#odd-error') ?? '', /headDim/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  // Learner review 5: these settings threw an uncaught error and left the old map.
  it('T5 bucket controls: a setting the core refuses shows its error, and a valid one draws again', async () => {
    const { page, problems } = await h.open('#section=bias&b.buckets=2&b.bidir=1');
    await reachAndWait(page, '#t5-split');
    await page.waitForFunction(() => /numBuckets/.test(document.getElementById('t5-split')?.textContent ?? ''));
    assert.ok(await page.$eval('#t5-split', (e) => e.classList.contains('error')));
    const { page: ok } = await h.open('#section=bias&b.buckets=32&b.bidir=1');
    await reachAndWait(ok, '#t5-split');
    assert.doesNotMatch(await ok.textContent('#t5-split') ?? '', /must/);
    assert.deepEqual(problems, []);
    await page.close();
    await ok.close();
  });
});
