/**
 * Three places that did not fit a phone (390 px) or read as cut text, checked
 * in Chromium, English and Chinese:
 * - section 2's table of the families fits the screen at 390 px (no sideways
 *   scroll, light and dark), each cell under the name of its column;
 * - section 12's extend table: its column heads show whole (no cell cut, no
 *   "…" standing in for the old length before the first run), at 1280 and 390 px;
 * - section 10's loss chart: no curve and not the training length's line runs
 *   through the entropy rate's text, at 390 and 1280 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { canvasPixels, reachAndWait, screenshot, startHarness, type Harness } from './page-harness.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

describe('the page on a phone', () => {
  it('section 2: the families table fits 390 px without scrolling sideways, each cell naming its column', async () => {
    for (const lang of ['en', 'zh']) {
      for (const theme of ['light', 'dark']) {
        const { page, problems } = await h.open(`#lang=${lang}&theme=${theme}&section=taxonomy`, PHONE);
        await reachAndWait(page, '#taxonomy', '#tax-table[data-ready="1"]', 300000);
        const fit = await page.$eval('#tax-table', (t) => ({
          scroll: t.parentElement!.scrollWidth, client: t.parentElement!.clientWidth,
          table: t.getBoundingClientRect().right, page: document.documentElement.scrollWidth,
        }));
        assert.ok(fit.scroll <= fit.client, `${lang} ${theme}: the table's box scrolls: ${JSON.stringify(fit)}`);
        assert.ok(fit.table <= PHONE.width && fit.page <= PHONE.width, `${lang} ${theme}: ${JSON.stringify(fit)}`);
        // With the column heads out of view, every body cell shows its column's name (the head's text).
        const heads = await page.$$eval('#tax-table thead th', (ths) => ths.slice(1).map((th) => th.textContent ?? ''));
        assert.equal(heads.length, 3);
        const named = await page.$$eval('#tax-table tbody tr', (rows) => rows.map((r) => Array.from(r.querySelectorAll('td'), (td) => {
          const n = td.querySelector<HTMLElement>('.col-name');
          return n && n.offsetHeight > 0 ? n.textContent ?? '' : '';
        })));
        assert.equal(named.length, 8);
        for (const row of named) assert.deepEqual(row, heads);
        if (theme === 'dark') await screenshot(page, `phone-taxonomy-${lang}`, '#tax-table');
        assert.deepEqual(problems, []);
        await page.close();
      }
    }
  });

  it('section 12: the extend table\'s column heads show whole before any run, at 1280 and 390 px', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      for (const lang of ['en', 'zh']) {
        const { page, problems } = await h.open(`#lang=${lang}&section=train`, viewport);
        await page.$eval('#extend-table', (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
        const heads = await page.$$eval('#extend-table thead th', (ths) => ths.slice(1).map((th) => ({
          text: th.textContent ?? '', scroll: th.scrollWidth, client: th.clientWidth,
        })));
        assert.equal(heads.length, 2);
        for (const c of heads) {
          assert.ok(c.text.trim() !== '' && !c.text.includes('…'), `${lang} ${viewport.width}: head "${c.text}"`);
          assert.ok(c.scroll <= c.client, `${lang} ${viewport.width}: head "${c.text}" cut: ${c.scroll} > ${c.client}`);
        }
        const table = await page.$eval('#extend-table', (t) => ({ right: t.getBoundingClientRect().right, page: document.documentElement.scrollWidth }));
        assert.ok(table.right <= viewport.width && table.page <= viewport.width, `${lang} ${viewport.width}: ${JSON.stringify(table)}`);
        assert.deepEqual(problems, []);
        await page.close();
      }
    }
  });

  it('section 10: no curve runs through the entropy rate\'s text, at 390 and 1280 px', async () => {
    for (const [viewport, lang] of [[PHONE, 'zh'], [PHONE, 'en'], [DESKTOP, 'zh']] as const) {
      const { page, problems } = await h.open(`#lang=${lang}&section=extrapolation`, viewport);
      await reachAndWait(page, '#ext-loss', '#ext-loss[data-ready]', 300000);
      const marks = JSON.parse(await page.$eval('#ext-loss', (e) => (e as HTMLElement).dataset.hMarkerText ?? '[]')) as Array<[number, number[]]>;
      assert.equal(marks.length, 1, `${lang} ${viewport.width}: one horizontal marker text`);
      const [, box] = marks[0]!;
      const [x0, y0, x1, y1] = box as [number, number, number, number];
      const dpr = await page.evaluate(() => window.devicePixelRatio);
      // The chart's canvas (the one uPlot draws: the plot's only canvas).
      const [c] = await canvasPixels(page, '#ext-loss canvas');
      assert.ok(c && c.width > 0, `${lang} ${viewport.width}: the chart's canvas`);
      // The text is drawn in the page's grey foreground over a halo of its background; the
      // grid and the dashed markers are grey too. Any strongly coloured pixel in the
      // text's box is a curve (every series but NoPE's is coloured).
      let coloured = 0;
      for (let y = Math.floor(y0 * dpr); y < Math.ceil(y1 * dpr); y++) {
        for (let x = Math.floor(x0 * dpr); x < Math.ceil(x1 * dpr); x++) {
          const i = (y * c.width + x) * 4;
          const [r, g, b] = [c.data[i]!, c.data[i + 1]!, c.data[i + 2]!];
          if (Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
        }
      }
      assert.equal(coloured, 0, `${lang} ${viewport.width}: ${coloured} curve pixels in the entropy rate's text box ${JSON.stringify(box)}`);
      // Nor the training length's dashed line.
      const markerXs = JSON.parse(await page.$eval('#ext-loss', (e) => (e as HTMLElement).dataset.markerXs ?? '[]')) as number[];
      assert.equal(markerXs.length, 1, `${lang} ${viewport.width}: the training length's line`);
      for (const mx of markerXs) assert.ok(x1 < mx || x0 > mx, `${lang} ${viewport.width}: the training length's line at ${mx} runs through ${JSON.stringify(box)}`);
      if (viewport === PHONE) await screenshot(page, `phone-ext-loss-${lang}`, '#ext-loss');
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
});
