/**
 * Controls, navigation, theme and language switching of the page (issue 13):
 * - heatmaps redraw when the theme changes (canvas pixels read back), and
 *   on the dark theme no cell takes the page's background colour;
 * - the nav marks the section in view (aria-current) and the URL follows;
 * - deep links (`#section=id` and a plain `#id`) land on their section, top
 *   in the viewport just below the sticky nav, other parameters kept;
 * - the number box beside a slider and the slider stay in sync both ways,
 *   and out-of-range input is refused;
 * - arrow keys move a log slider to the next round value (Base 10000 ->
 *   20000, not 10069); a drag stops at round step counts (2000, not 1990);
 * - en -> zh -> en leaves no stale string in the bugs and training sections.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { canvasPixels, screenshot, setRange, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

/** All pixels of the first canvas matching `sel` as [r, g, b, a, ...]. */
const pixels = async (page: Page, sel: string): Promise<number[]> => {
  const [c] = await canvasPixels(page, sel);
  assert.ok(c, `no canvas ${sel}`);
  return c.data;
};

const paramOf = (page: Page, key: string): Promise<string | null> =>
  page.evaluate((k) => new URLSearchParams(location.hash.slice(1)).get(k), key);

/** Waits for the hash to be rewritten (once per frame). */
const frames = (page: Page): Promise<void> => page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

describe('controls, navigation, theme (Chromium, strict CSP)', () => {
  it('a heatmap redraws on a theme change; dark cells stay apart from the background', async () => {
    const { page, problems } = await h.open('#theme=light&section=sinusoidal');
    const sel = '#sinusoidal canvas.heatmap';
    const light = await pixels(page, sel);
    assert.ok(light.length > 4 * 64, 'the map is drawn');
    await page.click('#theme-switch');
    await frames(page);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    const dark = await pixels(page, sel);
    assert.equal(dark.length, light.length, 'same size');
    let changed = 0;
    for (let i = 0; i < light.length; i += 4) if (light[i] !== dark[i] || light[i + 1] !== dark[i + 1] || light[i + 2] !== dark[i + 2]) changed++;
    assert.ok(changed > light.length / 8, `${changed} of ${light.length / 4} pixels changed`);
    // The page background of the dark theme, as the browser computed it.
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor.match(/\d+/g)!.map(Number));
    let nearest = Infinity;
    for (let i = 0; i < dark.length; i += 4) {
      nearest = Math.min(nearest, Math.abs(dark[i]! - bg[0]!) + Math.abs(dark[i + 1]! - bg[1]!) + Math.abs(dark[i + 2]! - bg[2]!));
    }
    assert.ok(nearest >= 60, `closest cell colour to the background differs by ${nearest} (sum over r, g, b)`);
    await screenshot(page, 'controls-dark-sinusoidal', '#sinusoidal');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the nav marks the section in view and the URL follows the reader', async () => {
    const { page, problems } = await h.open('#lang=en&s.base=500');
    for (const id of ['rope', 'bugs', 'taxonomy']) {
      await page.$eval(`#${id}`, (e) => e.scrollIntoView({ behavior: 'instant' }));
      await page.waitForFunction((want) => document.querySelector('#nav a[aria-current]')?.getAttribute('data-section') === want, id, { timeout: 5000 });
      assert.equal(await page.$$eval('#nav a[aria-current]', (as) => as.length), 1, 'one current link');
      await frames(page);
      assert.equal(await paramOf(page, 'section'), id);
    }
    assert.equal(await paramOf(page, 's.base'), '500', 'other parameters kept');
    assert.equal(await paramOf(page, 'lang'), 'en');
    // A nav click: the heading clears the sticky bar.
    await page.click('#nav a[data-section="positions"]');
    await page.waitForTimeout(2500);
    const [top, navBottom] = await page.evaluate(() => [
      document.getElementById('positions')!.getBoundingClientRect().top, document.getElementById('nav')!.getBoundingClientRect().bottom]);
    assert.ok(top >= navBottom - 1 && top <= navBottom + 40, `section top ${top}, nav bottom ${navBottom}`);
    assert.equal(await paramOf(page, 'section'), 'positions');
    assert.deepEqual(problems, []);
    await page.close();
  });

  for (const [hash, id] of [['#section=sinusoidal', 'sinusoidal'], ['#bias', 'bias'], ['#lang=zh&extrapolation', 'extrapolation']] as const) {
    it(`deep link ${hash} lands on its section below the sticky nav`, async () => {
      const { page, problems } = await h.open(hash);
      await page.waitForTimeout(1500);
      const r = await page.evaluate((s) => ({
        top: document.getElementById(s)!.getBoundingClientRect().top,
        nav: document.getElementById('nav')!.getBoundingClientRect().bottom,
        vh: innerHeight,
        current: document.querySelector('#nav a[aria-current]')?.getAttribute('data-section'),
      }), id);
      assert.ok(r.top >= r.nav - 1 && r.top <= r.nav + 40 && r.top < r.vh, `${id}: top ${r.top}, nav ${r.nav}`);
      assert.equal(r.current, id);
      if (hash.includes('lang=zh')) assert.equal(await paramOf(page, 'lang'), 'zh');
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  it('number box and slider stay in sync; invalid input is refused', async () => {
    const { page, problems } = await h.open('#s.base=10000');
    const control = '#sinusoidal .control:has(input.num)';
    const range = `${control} input[type="range"]`;
    const box = `${control} input.num`;
    assert.equal(await page.inputValue(box), '10000');
    // Slider -> box (log slider: position log2(value), stops at round values).
    await setRange(page, range, Math.log2(1000));
    assert.equal(await page.inputValue(box), '1000');
    await frames(page);
    assert.equal(await paramOf(page, 's.base'), '1000');
    const before = await pixels(page, '#sinusoidal canvas.heatmap');
    // Box -> slider: an exact value that is no stop of the slider.
    await page.fill(box, '12345');
    await frames(page);
    assert.equal(await paramOf(page, 's.base'), '12345');
    const pos = Number(await page.inputValue(range));
    assert.ok(Math.abs(pos - Math.log2(12345)) < 0.01, `slider at log2 ${pos}`);
    await frames(page);
    assert.notDeepEqual(await pixels(page, '#sinusoidal canvas.heatmap'), before, 'the map follows the box');
    // Out of range (min 10): marked invalid, the value in effect stays.
    await page.fill(box, '5');
    assert.equal(await page.getAttribute(box, 'aria-invalid'), 'true');
    await frames(page);
    assert.equal(await paramOf(page, 's.base'), '12345');
    await page.press(box, 'Tab');
    assert.equal(await page.inputValue(box), '12345', 'leaving the box shows the value in effect');
    assert.equal(await page.getAttribute(box, 'aria-invalid'), null);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('arrow keys move log sliders to round values; Steps stops at round counts', async () => {
    const { page, problems } = await h.open('#s.base=10000&t.steps=200');
    const base = '#sinusoidal .control:has(input.num)';
    await page.focus(`${base} input[type="range"]`);
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.inputValue(`${base} input.num`), '20000');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await page.inputValue(`${base} input.num`), '5000');
    await frames(page);
    assert.equal(await paramOf(page, 's.base'), '5000');
    // Train your own: a drag near 1990 gives 2000; keys step 200 -> 100 -> 50.
    const steps = '#train .control:has(input.num)';
    await setRange(page, `${steps} input[type="range"]`, Math.log2(1990));
    assert.equal(await page.inputValue(`${steps} input.num`), '2000');
    await setRange(page, `${steps} input[type="range"]`, Math.log2(200));
    await page.focus(`${steps} input[type="range"]`);
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.inputValue(`${steps} input.num`), '100');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.inputValue(`${steps} input.num`), '50');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('section 11, YaRN applied twice: the text names the setting and the attention factors the page computes (review F8)', async () => {
    for (const lang of ['en', 'zh']) {
      const { page, problems } = await h.open(`#lang=${lang}&section=bugs&z.bug=yarn-magnitude-twice`);
      await page.waitForSelector('#bugs .body[data-ready$=":yarn-magnitude-twice"]', { timeout: 120000 });
      const about = await page.$eval('#bug-about', (e) => ({ text: e.textContent ?? '', attention: (e as HTMLElement).dataset.attention ?? '' }));
      // YaRN's attention factor, 0.1 ln s + 1 (Peng et al.), at ×16 and ×4, as the page prints it.
      const want = [16, 4].map((s) => (0.1 * Math.log(s) + 1).toFixed(3));
      assert.equal(about.attention, want.join(','), about.text);
      const expect = lang === 'en'
        ? `Shown at 256 tokens with YaRN ×16, which stretches the 64 trained positions to 1024: the larger the factor, the larger the attention factor (${want[0]} at ×16, ${want[1]} at ×4)`
        : `这里在 256 个 token 上用 YaRN ×16 演示，它把训练时的 64 个位置拉伸到 1024 个：倍数越大，注意力因子越大（×16 时为 ${want[0]}，×4 时为 ${want[1]}）`;
      assert.ok(about.text.includes(expect), `${lang}: ${about.text}`);
      assert.match(about.text, lang === 'en' ? /“Correct” here is the same model with YaRN ×16 applied once/ : /“正确”指同一个模型只用一次 YaRN ×16/);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('en -> zh -> en: bugs and training leave no stale string', async () => {
    const { page, problems } = await h.open('#lang=en&section=bugs&z.bug=qk-position-mismatch&t.steps=20&t.task=word-order');
    await page.waitForSelector('#bugs .body[data-ready]', { timeout: 120000 });
    await page.$eval('#train', (e) => e.scrollIntoView({ behavior: 'instant' }));
    await page.click('#train-start');
    await page.waitForSelector('#train-status[data-done]', { timeout: 120000 });
    // Texts built from data and options, read by id or selector.
    const read = (): Promise<string[]> => page.evaluate(() => {
      const out: string[] = [];
      for (const id of ['bug-about', 'bug-symptom', 'bug-diverge', 'bug-diverge-uncached', 'train-status', 'runtime']) {
        out.push(`${id}: ${document.getElementById(id)?.textContent ?? '(missing)'}`);
      }
      for (const o of Array.from(document.querySelectorAll<HTMLOptionElement>('#bugs option, #train option'))) out.push(`option ${o.value}: ${o.text}`);
      for (const e of Array.from(document.querySelectorAll('#bugs [aria-label], #train [aria-label]'))) out.push(`aria ${e.getAttribute('aria-label')}`);
      return out;
    });
    const cjk = (s: string): boolean => /[\u4e00-\u9fff]/.test(s);
    const en1 = await read();
    assert.deepEqual(en1.filter(cjk), [], 'English at the start');
    await page.click('#lang-switch');
    await page.waitForTimeout(300);
    const zh = await read();
    // In Chinese every one of these carries Chinese text (option values are
    // ids; their labels are translated).
    // Names that read the same in both languages (NTK-aware, YaRN, lengths) are exempt.
    const names = /^option (ntk|yarn|128|256):/;
    const stale = zh.filter((s) => !cjk(s.replace(/^[^:]*: /, '')) && !/^aria /.test(s) && !names.test(s));
    assert.deepEqual(stale, [], 'English left in Chinese mode');
    assert.ok(zh.some((s) => s.startsWith('bug-about') && cjk(s)));
    await page.click('#lang-switch');
    await page.waitForTimeout(300);
    const en2 = await read();
    assert.deepEqual(en2.filter(cjk), [], 'Chinese left after switching back');
    assert.deepEqual(en2, en1, 'the same English text as before the round trip');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('section 10: the factor is disabled while no scaling is chosen, and enabled with one', async () => {
    const { page, problems } = await h.open('#section=extrapolation&e.scaling=none');
    const factor = '#extrapolation [data-param="e.factor"] input';
    await page.waitForSelector(factor, { state: 'attached' });
    const disabled = (): Promise<boolean[]> => page.$$eval(factor, (is) => is.map((i) => (i as HTMLInputElement).disabled));
    assert.ok((await disabled()).every(Boolean), 'disabled with no scaling');
    await page.selectOption('#extrapolation [data-param="e.scaling"] select', 'linear');
    assert.ok((await disabled()).every((d) => !d), 'enabled with linear');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('phone width: one-line nav, current link visible; screenshots', async () => {
    for (const [lang, theme] of [['en', 'light'], ['zh', 'dark']] as const) {
      const { page, problems } = await h.open(`#lang=${lang}&theme=${theme}&section=rope`, { width: 390, height: 844 });
      await page.waitForTimeout(800);
      const nav = await page.$eval('#nav', (n) => {
        const a = n.querySelector('a[aria-current]')!.getBoundingClientRect();
        const r = n.getBoundingClientRect();
        return { height: r.height, left: a.left, right: a.right, navLeft: r.left, navRight: r.right };
      });
      assert.ok(nav.height < 48, `nav height ${nav.height}`);
      assert.ok(nav.left >= nav.navLeft - 1 && nav.right <= nav.navRight + 1, 'current link visible in the strip');
      await page.screenshot({ path: `build/screenshots/controls-phone-${lang}-${theme}.png` });
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
});
