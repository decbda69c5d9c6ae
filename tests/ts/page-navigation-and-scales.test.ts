/**
 * Navigation names, colour scales and Chinese axis names:
 * - the navigation shows short section names, numbered like the headings,
 *   with the whole heading as the link's title, in both languages;
 * - §1: B − A has its own colour scale even when it is all zero (a tenth of
 *   the outputs' scale, not a fallback of ±1);
 * - §4: the PE·PEᵀ map is sequential while every dot product is positive
 *   and diverging (around 0) once some are negative (a small base);
 * - §9: the vertical axis name of the attention maps turns Chinese glyphs
 *   with the Latin ones (text-orientation: sideways), not upside down;
 * - §3 and §1: the encoding names are translated in Chinese;
 * - the route at the top lists every section with its reading time and the
 *   total, and every section ends with its takeaway, in both languages.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { reachAndWait, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

describe('navigation and scales (Chromium, strict CSP)', () => {
  it('nav links: number + short name, the heading as title, in both languages', async () => {
    for (const lang of ['en', 'zh']) {
      const { page, problems } = await h.open(`#lang=${lang}`);
      const links = await page.$$eval('#nav a[data-section]', (as) => as.map((a) => ({
        text: a.textContent ?? '',
        title: a.getAttribute('title') ?? '',
        heading: document.querySelector(`#${(a as HTMLElement).dataset.section} h2`)?.textContent ?? '',
      })));
      const sections = await page.$$eval('main > section', (ss) => ss.length);
      assert.ok(sections >= 14, `${sections} sections`);
      assert.equal(links.length, sections, 'one link per section');
      links.forEach((l, i) => {
        assert.equal(l.title, l.heading, `${lang}: link ${i + 1} has the heading as title`);
        assert.ok(l.text.startsWith(`${i + 1}. `), `${lang}: link ${i + 1} is numbered: ${l.text}`);
        assert.ok(l.text.length <= l.heading.length, `${lang}: link ${i + 1} is no longer than its heading`);
      });
      // Two rows at most on a desktop (the bar stays small).
      const rows = await page.$$eval('#nav a[data-section]', (as) => new Set(as.map((a) => Math.round(a.getBoundingClientRect().top))).size);
      assert.ok(rows <= 2, `${lang}: ${rows} rows of links at 1280 px`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('the route: every section in page order with its reading time and the total; each section closes with its takeaway', async () => {
    for (const lang of ['en', 'zh'] as const) {
      const { page, problems } = await h.open(`#lang=${lang}`);
      const route = await page.evaluate(() => ({
        title: document.getElementById('route-h')?.textContent ?? '',
        items: Array.from(document.querySelectorAll('#route li')).map((li) => ({
          href: li.querySelector('a')?.getAttribute('href') ?? '',
          name: li.querySelector('a')?.textContent ?? '',
          minutes: li.querySelector('.route-min')?.textContent ?? '',
          optional: li.querySelector('.route-opt')?.textContent ?? '',
        })),
        sections: Array.from(document.querySelectorAll('main > section')).map((s) => s.id),
        nav: Array.from(document.querySelectorAll('#nav a[data-section]')).map((a) => (a.textContent ?? '').replace(/^\d+\.\s*/, '')),
        takeaways: Array.from(document.querySelectorAll('main > section')).map((s) => {
          const last = s.lastElementChild;
          return last?.classList.contains('section-summary') ? (last.textContent ?? '') : '';
        }),
      }));
      assert.deepEqual(route.items.map((i) => i.href), route.sections.map((id) => `#${id}`), `${lang}: one item per section, in page order`);
      assert.deepEqual(route.items.map((i) => i.name), route.nav, `${lang}: the items carry the navigation's names`);
      const unit = lang === 'en' ? / min$/ : / 分钟$/;
      const minutes = route.items.map((i) => {
        assert.match(i.minutes, unit, `${lang}: ${i.href} time`);
        return Number.parseInt(i.minutes, 10);
      });
      for (const m of minutes) assert.ok(Number.isInteger(m) && m >= 2, `${lang}: ${m} minutes`);
      const total = minutes.reduce((a, b) => a + b, 0);
      const [sections, said, optionalSaid] = (route.title.match(/\d+/g) ?? []).map(Number);
      assert.equal(sections, route.sections.length, `${lang}: ${route.title}`);
      assert.equal(said, total, `${lang}: the total is the sum of the items: ${route.title}`);
      // The reference section (the articles' code, recomputed) is marked optional, and the title names its minutes.
      const optional = route.items.flatMap((item, i) => (item.optional ? [i] : []));
      assert.deepEqual(optional.map((i) => route.items[i]!.href), ['#examples'], `${lang}: the optional sections`);
      assert.ok(route.items[optional[0]!]!.optional.length > 0, `${lang}: the optional mark has text`);
      assert.equal(optionalSaid, optional.reduce((a, i) => a + minutes[i]!, 0), `${lang}: the optional minutes: ${route.title}`);
      route.takeaways.forEach((t, i) => assert.ok(t.length > (lang === 'en' ? 60 : 25), `${lang}: ${route.sections[i]} ends with its takeaway: "${t}"`));
      assert.equal(new Set(route.takeaways).size, route.takeaways.length, `${lang}: every takeaway is its own`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('§1: B − A is scaled to a tenth of the outputs when it is all zero', async () => {
    const { page, problems } = await h.open('');
    const ranges = await page.evaluate(() => {
      const axed = (id: string): { lo: number; hi: number } => {
        const a = document.getElementById(id)!.closest<HTMLElement>('.axed')!;
        return { lo: Number(a.dataset.lo), hi: Number(a.dataset.hi) };
      };
      return { a: axed('order-a'), d: axed('order-delta') };
    });
    assert.equal(await page.$eval('#order-diff', (e) => Number((e as HTMLElement).dataset.value)), 0, 'not shuffled: B − A = 0');
    assert.ok(ranges.a.hi > 0, 'outputs have a scale');
    assert.ok(Math.abs(ranges.d.hi - ranges.a.hi / 10) < 1e-6 * ranges.a.hi, `B − A scale ${ranges.d.hi} = a tenth of ${ranges.a.hi}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('§4: PE·PEᵀ sequential while positive, diverging with negative dot products', async () => {
    for (const [base, positive] of [[10000, true], [10, false]] as const) {
      const { page, problems } = await h.open(`#s.base=${base}&s.len=64&s.dim=64`);
      await reachAndWait(page, '#sin-sim');
      const st = await page.evaluate(() => {
        const a = document.getElementById('sin-sim')!.closest<HTMLElement>('.axed')!;
        // The dot products of row p, from the PE_p · PE_q chart (computed apart from the map).
        const ys = JSON.parse(document.getElementById('sin-dots')!.dataset.y!) as number[];
        return { kind: a.dataset.kind!, lo: Number(a.dataset.lo), min: Math.min(...ys) };
      });
      if (positive) {
        assert.ok(st.min > 0, `base ${base}: every dot product of row p is positive (${st.min})`);
        assert.equal(st.kind, 'sequential');
        assert.ok(st.lo > 0, 'the scale starts at the smallest value, not at 0 or below');
      } else {
        assert.ok(st.min < 0, `base ${base}: some dot products are negative (${st.min})`);
        assert.equal(st.kind, 'diverging');
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('中文: the attention maps’ vertical axis name is turned sideways; encoding names translated', async () => {
    const { page, problems } = await h.open('#lang=zh');
    const orientation = await page.$eval('.mv-y', (e) => getComputedStyle(e).textOrientation);
    assert.equal(orientation, 'sideways');
    const names = await page.$$eval('#pipe-picker button', (bs) => bs.map((b) => b.textContent ?? ''));
    assert.ok(names.includes('正弦位置编码') && names.includes('可学习位置编码'), names.join(', '));
    const option = await page.$eval('#order select option[value="sinusoidal"]', (o) => o.textContent ?? '');
    assert.ok(!/[A-Za-z]/.test(option), `§1 option in Chinese: ${option}`);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
