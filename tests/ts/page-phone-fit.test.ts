/**
 * Places that did not fit a phone (390 px) or read as cut text, checked in
 * Chromium, English and Chinese:
 * - section 2's table of the families fits the screen at 390 px (no sideways
 *   scroll, light and dark), each cell under the name of its column;
 * - section 12's extend table: its column heads show whole (no cell cut, no
 *   "…" standing in for the old length before the first run), at 1280 and 390 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { reachAndWait, screenshot, startHarness, type Harness } from './page-harness.js';

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
});
