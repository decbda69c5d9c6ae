/**
 * Language and theme switches, the RoPE lab's charts, section 1's labels, Chinese mode:
 * - switching language or theme from the sticky bar keeps the reader's place
 *   (item 1): what was just below the bar, and a heading at the top, stay
 *   where they were on screen, at 1280 and 390 px, in both directions;
 * - the RoPE shift chart plots the change of q·k on a scale where the drift
 *   of dynamic NTK shows, the zero line off the middle (item 4); the ramp
 *   chart's title names the selected scaling (item 5);
 * - §1: the text box and the chips have their own labels, and the reader's
 *   words that the word-order models do not know are named (item 14);
 * - Chinese mode: 动态 NTK, and a Chinese sentence before the English error
 *   quoted in the quiz (items 12, 13).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { reachAndWait, screenshot, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

/** Two animation frames. */
const frames = (page: Page): Promise<void> => page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

/**
 * Marks the block found just below the sticky bar and its ancestors
 * (data-probe = depth) and returns their tops, relative to the viewport.
 * Only one line can stay put when text changes language: the one at the top
 * of the view, what the reader was reading.
 */
async function probe(page: Page): Promise<{ tops: number[]; section: string }> {
  return page.evaluate(() => {
    for (const old of Array.from(document.querySelectorAll('[data-probe]'))) old.removeAttribute('data-probe');
    const nb = document.getElementById('nav')!.getBoundingClientRect().bottom;
    const main = document.querySelector('main')!.getBoundingClientRect();
    let e: Element | null = null;
    // The first block just below the bar: the top line of what the reader sees.
    for (let dy = 8; !e && dy < 400; dy += 24) {
      let hit = document.elementFromPoint(main.left + main.width / 2, nb + dy);
      // The block the reader reads (a word inside a paragraph moves as the paragraph rewraps).
      while (hit && getComputedStyle(hit).display.startsWith('inline')) hit = hit.parentElement;
      if (hit && !['MAIN', 'SECTION', 'BODY', 'HTML'].includes(hit.tagName)) e = hit;
    }
    const tops: number[] = [];
    for (let p: Element | null = e; p && p.tagName !== 'MAIN'; p = p.parentElement) {
      p.setAttribute('data-probe', String(tops.length));
      tops.push(p.getBoundingClientRect().top);
    }
    return { tops, section: e!.closest('main > section')?.id ?? '' };
  });
}

/** The innermost marked element still in the page (a widget may have been rebuilt): its depth and top. */
const probed = (page: Page): Promise<[number, number]> => page.evaluate(() => {
  const es = Array.from(document.querySelectorAll<HTMLElement>('[data-probe]')).sort((a, b) => Number(a.dataset.probe) - Number(b.dataset.probe));
  return [Number(es[0]!.dataset.probe), es[0]!.getBoundingClientRect().top];
});

const topOf = (page: Page, sel: string): Promise<number> => page.$eval(sel, (e) => e.getBoundingClientRect().top);

/** Clicks a switch in the sticky bar and waits until the page has settled (1.2 s: keepPlace follows redraws for 1 s). */
async function flip(page: Page, which: 'lang' | 'theme'): Promise<void> {
  await page.click(`#nav-${which}-switch`);
  await page.waitForTimeout(1200);
  await frames(page);
}

describe('switches keep the place, lab charts, labels (Chromium, strict CSP)', () => {
  for (const width of [1280, 390]) {
    it(`language and theme switches keep the reader's place (${width} px)`, async () => {
      const { page, problems } = await h.open('#lang=en&theme=light', { width, height: width > 600 ? 900 : 844 });
      for (const id of ['rope', 'extrapolation']) {
        // Let the section mount its widgets and (for §10) its charts first.
        await reachAndWait(page, `#${id} h2`);
        await page.waitForTimeout(2500);
        // The middle of the section: its heading well above the bar.
        const middle = await page.$eval(`#${id}`, (s) => s.getBoundingClientRect().top + window.scrollY + s.getBoundingClientRect().height / 2);
        await page.evaluate((y) => window.scrollTo({ top: y, behavior: 'instant' }), middle);
        await page.waitForTimeout(600);
        assert.equal(await page.isVisible(`#nav-lang-switch`), true, 'the switches are in the bar once the header is gone');
        for (const which of ['lang', 'theme', 'lang', 'theme'] as const) {
          const lang = await page.evaluate(() => document.documentElement.lang);
          const before = await probe(page);
          const heading = await topOf(page, `#${id} h2`);
          assert.equal(before.section, id, `the middle of #${id} is in view`);
          await flip(page, which);
          const [depth, after] = await probed(page);
          assert.ok(Math.abs(after - before.tops[depth]!) <= 3, `${width}px #${id} ${which} (from ${lang}): what was below the bar moved ${before.tops[depth]} → ${after}`);
          if (which === 'theme') {
            assert.ok(Math.abs((await topOf(page, `#${id} h2`)) - heading) <= 3, `${width}px #${id}: the theme moved the heading`);
          }
        }
        // The section's heading right under the bar: it stays there.
        await page.$eval(`#${id}`, (s) => s.scrollIntoView({ block: 'start', behavior: 'instant' }));
        await page.waitForTimeout(600);
        for (const which of ['lang', 'lang', 'theme'] as const) {
          const before = await topOf(page, `#${id} h2`);
          await flip(page, which);
          const after = await topOf(page, `#${id} h2`);
          assert.ok(Math.abs(after - before) <= 3, `${width}px #${id} heading ${which}: ${before} → ${after}`);
        }
      }
      await page.$eval('#rope h2', (e) => e.scrollIntoView({ block: 'start', behavior: 'instant' }));
      await page.click('#nav-lang-switch');
      await page.waitForTimeout(1200);
      await page.screenshot({ path: `build/screenshots/fix1-keep-place-${width}.png` });
      assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('RoPE lab: the shift chart shows the drift of dynamic NTK; the ramp title follows the scaling', async () => {
    for (const [lang, theme, width] of [['en', 'light', 1280], ['zh', 'dark', 390]] as const) {
      const { page, problems } = await h.open(`#lang=${lang}&theme=${theme}&section=rope&r.orig=64&r.m=12&r.n=5&r.factor=4`, { width, height: 900 });
      for (const s of ['default', 'linear', 'ntk', 'yarn', 'llama3', 'dynamic', 'longrope']) {
        await page.selectOption('#rope-scaling', s);
        await page.waitForTimeout(200);
        const { ys, range, title, option } = await page.evaluate(() => {
          const p = document.getElementById('rope-shift-plot')!;
          const sel = document.getElementById('rope-scaling') as HTMLSelectElement;
          return {
            ys: p.dataset.value!.split(',').map(Number), range: p.dataset.yrange!.split(',').map(Number),
            title: document.getElementById('rope-ramp-title')!.textContent!, option: sel.selectedOptions[0]!.textContent!,
          };
        });
        // The plotted change: q·k(m+s, n+s) − q·k(m, n), from the scores the page reports.
        const change = ys.map((y) => y - ys[0]!);
        const [lo, hi] = range as [number, number];
        for (const c of change) assert.ok(c >= lo && c <= hi, `${s}: the change ${c} is inside the y range ${lo}..${hi}`);
        const zeroAt = (0 - lo) / (hi - lo);
        assert.ok(zeroAt > 0.6 || zeroAt < 0.4, `${s}: the zero line (at ${zeroAt.toFixed(2)} of the height) off the middle, the data on one side`);
        const drift = Math.max(...change.map(Math.abs));
        if (s === 'dynamic' || s === 'longrope') {
          assert.ok(drift / (hi - lo) > 0.2, `${s}: the drift ${drift} spans over a fifth of the y range ${hi - lo}`);
        } else {
          assert.ok(drift / (hi - lo) < 1e-3, `${s}: a flat line (${drift} of ${hi - lo})`);
        }
        assert.ok(title.includes(option), `${lang} ${s}: ramp title "${title}" names "${option}"`);
        if (s === 'dynamic') await screenshot(page, `fix1-rope-shift-${lang}-${theme}-${width}`, '#rope-shift-plot');
      }
      if (lang === 'zh') {
        assert.equal(await page.$eval('#rope-scaling option[value="dynamic"]', (o) => o.textContent), '动态 NTK');
        const look = await page.$eval('#rope-shift-look', (e) => e.textContent!);
        assert.ok(look.includes('逐渐偏离') && !look.includes('跳变'), look);
      } else {
        const look = await page.$eval('#rope-shift-look', (e) => e.textContent!);
        assert.ok(look.includes('drifts away gradually'), look);
      }
      // The "Try this" prompt for dynamic NTK says "drifts", not "jumps".
      await page.click('button[data-tryit="rope.dynamic"]');
      await frames(page);
      const tryLook = await page.$eval('.tryit-look[data-tryit="rope.dynamic"]', (e) => e.textContent!);
      assert.ok(lang === 'en' ? /drifts away gradually/.test(tryLook) && !/jump/.test(tryLook) : tryLook.includes('逐渐偏离') && !tryLook.includes('不再水平'), tryLook);
      if (lang === 'zh') assert.match(await page.$eval('button[data-tryit="rope.dynamic"]', (e) => e.textContent!), /^动态 NTK/);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('§1: labels of the text box and the chips; unknown words named, in both languages', async () => {
    const { page, problems } = await h.open('#lang=en', { width: 1280, height: 900 });
    const label = await page.$eval('#order-input', (i) => i.closest('label')?.textContent ?? '');
    assert.ok(label.startsWith('Sentence'), label);
    assert.match(await page.$eval('#order .chips-label', (e) => e.textContent!), /^Drag a token/);
    assert.equal(await page.$eval('#order .chips-label', (e) => e.nextElementSibling?.classList.contains('chips')), true, 'the drag hint sits on the chips');
    assert.equal(await page.isVisible('#order-unknown'), false, 'the sample sentence: no note');
    await page.fill('#order-input', 'Alice likes zebra qwerty');
    await page.waitForFunction(() => !(document.getElementById('order-unknown') as HTMLElement).hidden, null, { timeout: 20000 });
    assert.equal(await page.$eval('#order-unknown', (e) => (e as HTMLElement).dataset.words), 'zebra qwerty');
    assert.match(await page.$eval('#order-unknown', (e) => e.textContent!), /zebra, qwerty/);
    await page.click('#lang-switch');
    await frames(page);
    assert.match(await page.$eval('#order-unknown', (e) => e.textContent!), /词表里没有.*zebra、qwerty/);
    await screenshot(page, 'fix1-order-unknown-zh', '#order .body');
    // Words the models know (the sentences of their own table): no note.
    await page.fill('#order-input', 'Bob likes Alice');
    await page.waitForFunction(() => (document.getElementById('order-unknown') as HTMLElement).hidden, null, { timeout: 20000 });
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('quiz in Chinese: the quoted error of the learned table comes with a Chinese sentence', async () => {
    const { page, problems } = await h.open('#lang=zh&section=quiz', { width: 1280, height: 900 });
    await page.$eval('#quiz-learned', (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
    await page.click('#quiz-learned input[type=radio]');
    await page.waitForFunction(() => (document.getElementById('quiz-learned-value')?.textContent ?? '').length > 10, null, { timeout: 10000 });
    const check = await page.$eval('#quiz-learned-value', (e) => e.textContent!);
    assert.ok(check.includes('超出了表的行数') && /“.+”/.test(check), check);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
