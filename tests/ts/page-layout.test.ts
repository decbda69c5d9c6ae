/**
 * Layout and readability of the labs (issue 32), checked in Chromium:
 * - at 1280 px every lab (ui.ts lab) keeps its figures and its controls in
 *   view together: with any control scrolled up to the top of the screen
 *   the figures stand beside it (sticky figures), or with any figure so
 *   scrolled the controls do (sticky controls);
 * - at 390 px, code boxes do not wrap their lines (they scroll, with an edge shade) and the page does not scroll sideways;
 * - at 390 px, after section 1's Shuffle a map is on screen, and section
 *   5's 8-dim tables show dims 4-7 inside the screen, nothing scrolled away;
 * - the RoPE lab states its lesson before any control is touched; a
 *   published model's settings, head dim, rotary fraction, base, pair layout
 *   and scaling sit behind "More", which a link, a preset or a "Try this"
 *   prompt setting one opens; the pair layout's options fit their select;
 * - at 1280 px no line of code in section 8's step tables is cut (each has its own full-width row);
 * - section 11's generated text shows the synthetic language's tokens as
 *   words (no `w13` ids), with a note that the language is synthetic;
 * - log axes say so (section 10's wavelengths and frequency ratios, the RoPE lab's wavelengths);
 * - notes that name a number a slider sets follow it (PE_p · PE_q peaks at d/2, the RoPE ramp's 1/factor).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { reachAndWait, screenshot, startHarness, type Harness } from './page-harness.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** The share of `sel`'s box inside the viewport below the sticky bar (of its height, or of that viewport if it is taller). */
const shownShare = (page: Page, sel: string | { handle: string; index: number }): Promise<number> =>
  page.evaluate((s) => {
    const e = typeof s === 'string' ? document.querySelector(s)! : document.querySelectorAll(s.handle)[s.index]!;
    const r = e.getBoundingClientRect();
    const top = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--nav-h')) || 0;
    const seen = Math.min(r.bottom, innerHeight) - Math.max(r.top, top);
    return Math.max(0, seen) / Math.min(r.height, innerHeight - top);
  }, sel);

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

describe('page layout', () => {
  it('section 11: the generated text reads as words, not token ids', async () => {
    for (const lang of ['en', 'zh']) {
      const { page, problems } = await h.open(`#lang=${lang}&section=bugs&z.bug=only-q`);
      await reachAndWait(page, '#bugs .body', '#bugs .body[data-ready$=":only-q"]', 120000);
      const shown = await page.$eval('#bug-texts', (e) => e.textContent ?? '');
      assert.doesNotMatch(shown, /\bw\d+\b/, shown);
      const words = await page.$$eval('#bug-text-clean .tok', (ts) => ts.map((t) => t.textContent ?? ''));
      assert.ok(words.length >= 20 && words.every((w) => /^[a-z]{4,6}$/.test(w)), words.join(' '));
      // The same token is the same word in every line (and in the prompt).
      const pairs = await page.$$eval('#bug-texts .tok', (ts) => ts.map((t) => [(t as HTMLElement).dataset.token ?? '', t.textContent ?? ''] as const));
      const word = new Map<string, string>();
      for (const [tok, w] of pairs) {
        assert.ok(!word.has(tok) || word.get(tok) === w, `${tok}: ${word.get(tok)} and ${w}`);
        word.set(tok, w);
      }
      assert.ok(new Set(word.values()).size === word.size, 'distinct tokens, distinct words');
      const prompt = await page.$eval('#bug-prompt', (e) => e.textContent ?? '');
      assert.ok(prompt.split(' ').every((w) => w === '<bos>' || /^[a-z]{4,6}$/.test(w)), prompt);
      assert.match(await page.$eval('#bug-texts', (e) => e.textContent ?? ''), lang === 'en' ? /synthetic language/ : /合成语言/);
      if (lang === 'en') await screenshot(page, 'layout-bugs-text', '#bug-texts');
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('1280 px: each lab keeps its figures and its controls in view together', async () => {
    const { page, problems } = await h.open('#lang=en', DESKTOP);
    await page.addStyleTag({ content: 'html { scroll-behavior: auto !important; }' });
    for (const id of ['order', 'sinusoidal', 'derivation', 'rope', 'bias']) {
      await reachAndWait(page, `#${id}`, `#${id} .lab`);
      // The controls behind More too (the RoPE lab's), as a reader who opened it sees them.
      await page.$$eval(`#${id} .lab details.more`, (ds) => ds.forEach((d) => { (d as HTMLDetailsElement).open = true; }));
      const labs = await page.$$eval(`#${id} .lab`, (ls) => ls.map((l) => l.classList.contains('sticky-figures') ? 'figures' : 'controls'));
      assert.ok(labs.length >= 1, `${id}: a lab`);
      for (let li = 0; li < labs.length; li++) {
        // The reader works through one column (each control, or each figure);
        // the other (the sticky one) must stay in view all along.
        const [through, beside] = labs[li] === 'figures' ? ['.lab-controls .control', 'lab-figures'] : ['.lab-figures > :is(figure, .figs, .layout-cards)', 'lab-controls'];
        const n = await page.evaluate(([s, i, t]) => document.querySelectorAll(s!)[Number(i)]!.querySelectorAll(t!).length, [`#${id} .lab`, String(li), through]);
        assert.ok(n >= 1, `${id} lab ${li}: ${through}`);
        // Each shown item scrolled to the top, the middle or the bottom of
        // the screen: in one of these the item is whole and the other
        // column at least 90 % in view. (A control column taller than the
        // screen passes only if its figures follow it down.)
        for (let k = 0; k < n; k++) {
          const seen: string[] = [];
          for (const at of ['start', 'center', 'end']) {
            const r = await page.evaluate(([s, i, t, kk, where, o]) => {
              const lab = document.querySelectorAll(s!)[Number(i)]!;
              const item = lab.querySelectorAll(t!)[Number(kk)]! as HTMLElement;
              if (item.offsetParent === null || item.closest('details:not([open])') !== null) return undefined; // hidden (a method's parameter)
              const nav = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--nav-h')) || 0;
              item.scrollIntoView({ block: where as ScrollLogicalPosition, behavior: 'instant' });
              if (where === 'start') scrollBy({ top: -nav - 8, behavior: 'instant' });
              const share = (e: Element): number => {
                const b = e.getBoundingClientRect();
                return Math.max(0, Math.min(b.bottom, innerHeight) - Math.max(b.top, nav)) / Math.min(b.height, innerHeight - nav);
              };
              return { item: share(item), other: share(lab.querySelector(`:scope > .${o!}`)!) };
            }, [`#${id} .lab`, String(li), through, String(k), at, beside]);
            if (r === undefined) break;
            seen.push(`${at}: ${(r.item * 100).toFixed(0)} % / ${(r.other * 100).toFixed(0)} %`);
            if (r.item > 0.99 && r.other > 0.9) {
              seen.length = 0;
              break;
            }
          }
          assert.deepEqual(seen, [], `${id} lab ${li}: ${through} #${k} and .${beside} never in view together`);
        }
      }
    }
    await page.$eval('#rope-scaling', (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
    await page.waitForTimeout(300);
    await screenshot(page, 'layout-rope-1280');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('390 px: after Shuffle a map of section 1 is on screen', async () => {
    const { page, problems } = await h.open('#lang=en&section=order', PHONE);
    await page.addStyleTag({ content: 'html { scroll-behavior: auto !important; }' });
    // The reader has just scrolled the button up from the bottom edge.
    await page.$eval('#order button.shuffle', (e) => e.scrollIntoView({ block: 'end', behavior: 'instant' }));
    const before = await page.$eval('#order-input', (e) => (e as HTMLInputElement).value);
    await page.click('#order button.shuffle');
    await page.waitForFunction((b) => (document.getElementById('order-input') as HTMLInputElement).value !== b, before);
    await page.waitForTimeout(200);
    const shares = await Promise.all(['#order-a', '#order-b', '#order-delta', '#order-weights'].map((s) => shownShare(page, s)));
    assert.ok(shares.some((x) => x > 0.9), `maps in view: ${shares.map((x) => x.toFixed(2)).join(' ')}`);
    assert.ok((await shownShare(page, '#order button.shuffle')) > 0.9, 'the button stays in view');
    await screenshot(page, 'layout-order-shuffle-390');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('390 px: code boxes keep each line of code on one line and scroll sideways; the page does not (review F3)', async () => {
    for (const lang of ['zh', 'en']) {
      const { page, problems } = await h.open(`#lang=${lang}&section=examples`, PHONE);
      await page.addStyleTag({ content: 'html { scroll-behavior: auto !important; }' });
      await reachAndWait(page, '#examples', '#ex-rope-py:not([hidden])');
      const ids = await page.$$eval('main > section', (ss) => ss.map((s) => s.id));
      for (const id of ids) {
        await page.$eval(`#${id}`, (e) => e.scrollIntoView({ behavior: 'instant' }));
        await page.waitForTimeout(100);
      }
      // Every code listing (the code panels, both tabs, and each line of the step tables): white-space pre,
      // no more line boxes than lines of text, and what is wider than the box scrolls inside it.
      const boxes = await page.$$eval('pre.code, table.code-steps td:first-child > code', (es) => es.map((e) => {
        const hidden = e.closest('[hidden]') as HTMLElement | null;
        if (hidden) hidden.hidden = false;
        const cs = getComputedStyle(e);
        const range = document.createRange();
        range.selectNodeContents(e);
        const tops = new Set(Array.from(range.getClientRects()).filter((r) => r.height > 0).map((r) => Math.round(r.top)));
        const out = {
          id: e.id || (e.closest('[id]')?.id ?? '?'), ws: cs.whiteSpace, ox: cs.overflowX, shade: cs.backgroundImage.includes('radial-gradient'),
          lines: (e.textContent ?? '').replace(/\n$/, '').split('\n').length, boxes: tops.size,
          sw: e.scrollWidth, cw: e.clientWidth, right: e.getBoundingClientRect().right,
        };
        if (hidden) hidden.hidden = true;
        return out;
      }));
      assert.ok(boxes.length >= 20, `${lang}: ${boxes.length} code boxes`);
      assert.ok(boxes.some((b) => b.sw > b.cw + 20), `${lang}: some line is wider than a phone`);
      for (const b of boxes) {
        const what = `${lang} ${b.id}: ${JSON.stringify(b)}`;
        assert.equal(b.ws, 'pre', what);
        assert.ok(b.boxes >= 1 && b.boxes <= b.lines, `${what}: a wrapped line`);
        assert.ok(b.ox === 'auto' || b.ox === 'scroll', `${what}: scrolls sideways`);
        assert.ok(b.shade, `${what}: the edge shade`);
        assert.ok(b.right <= PHONE.width + 0.5, `${what}: inside the screen`);
      }
      const doc = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      assert.ok(doc[0]! <= doc[1]!, `${lang}: the page is ${doc[0]} px wide at ${doc[1]}`);
      if (lang === 'zh') {
        await page.$eval('#ex-rope-py', (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
        await screenshot(page, 'layout-code-390', '#ex-rope-py');
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('1280 px: no line of code in section 8\'s step tables is cut: each has the table\'s full width (review N5)', async () => {
    for (const lang of ['en', 'zh']) {
      const { page, problems } = await h.open(`#lang=${lang}&section=examples`, DESKTOP);
      await page.addStyleTag({ content: 'html { scroll-behavior: auto !important; }' });
      await reachAndWait(page, '#examples', '#ex-rope-py:not([hidden])');
      const tabs = await page.$$eval('#examples [role=tablist]', (ls) => Math.max(...ls.map((l) => l.querySelectorAll('[role=tab]').length)));
      assert.ok(tabs >= 2, `${lang}: ${tabs} tabs`);
      for (let tab = 0; tab < tabs; tab++) {
        await page.$$eval('#examples [role=tablist]', (ls, k) => ls.forEach((l) => (l.querySelectorAll('[role=tab]')[k] as HTMLElement | undefined)?.click()), tab);
        await page.waitForTimeout(100);
        const cells = await page.$$eval('table.code-steps td > code', (es) => es.map((e) => ({
          id: e.closest('table')!.id, code: e.textContent ?? '', sw: e.scrollWidth, cw: e.clientWidth, shown: (e as HTMLElement).offsetParent !== null,
        })));
        assert.ok(cells.length >= 30, `${lang} tab ${tab}: ${cells.length} code cells`);
        assert.ok(cells.every((c) => c.shown), `${lang} tab ${tab}: every step table is shown`);
        const cut = cells.filter((c) => c.sw > c.cw);
        assert.deepEqual(cut, [], `${lang} tab ${tab}: code cells cut`);
      }
      if (lang === 'en') {
        await page.$eval('#ex-sinmod-steps', (e) => e.scrollIntoView({ block: 'start', behavior: 'instant' }));
        await screenshot(page, 'layout-code-steps-1280', '#ex-sinmod-steps');
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('desktop: section 5\'s 8-dim tables keep one line per row, with no two-line legend', async () => {
    const { page, problems } = await h.open('#section=derivation', DESKTOP);
    assert.equal(await page.$eval('#der-layout .pairs-stack', (e) => (e as HTMLElement).offsetParent === null), true);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('390 px: section 5\'s 8-dim tables show dims 4-7 inside the screen', async () => {
    for (const lang of ['en', 'zh']) {
      const { page, problems } = await h.open(`#lang=${lang}&section=derivation`, PHONE);
      for (const layout of ['half', 'interleaved']) {
        const table = `#der-table-${layout}`;
        await page.$eval(table, (e) => e.scrollIntoView({ block: 'start', behavior: 'instant' }));
        const cells = await page.$$eval(`${table} tr`, (rows) => rows.flatMap((r) => Array.from(r.children).slice(1).map((c, j) => {
          const b = c.getBoundingClientRect();
          return { row: (r as HTMLElement).dataset.row ?? r.firstElementChild?.textContent ?? '', dim: j, left: b.left, right: b.right };
        })));
        assert.equal(cells.length % 8, 0);
        for (const c of cells) assert.ok(c.left >= 0 && c.right <= PHONE.width, `${lang} ${layout}: ${c.row} dim ${c.dim} at ${c.left.toFixed(0)}-${c.right.toFixed(0)}`);
        const box = await page.$eval(table, (e) => { const s = e.parentElement!; return [s.scrollWidth, s.clientWidth]; });
        assert.ok(box[0]! <= box[1]! + 1, `${lang} ${layout}: no sideways scroll (${box.join(' > ')})`);
        // The pair row: in the half layout dim j and dim j + 4 stand in one column.
        if (layout === 'half') {
          const heads = await page.$$eval(`${table} thead tr:first-child > *`, (hs) => hs.slice(1).map((h) => h.getBoundingClientRect().left));
          for (let j = 0; j < 4; j++) assert.ok(Math.abs(heads[j]! - heads[j + 4]!) < 1, `dims ${j} and ${j + 4} share a column`);
        }
      }
      // The stacking is said in words above the tables (review N14).
      const stack = await page.$eval('#der-layout .pairs-stack', (e) => ({ shown: (e as HTMLElement).offsetParent !== null, text: e.textContent ?? '' }));
      assert.ok(stack.shown, `${lang}: the two-line legend is shown at 390 px`);
      assert.match(stack.text, lang === 'zh' ? /第 0–3 维.*第 4–7 维/ : /dims 0–3 .*dims 4–7/);
      if (lang === 'en') await screenshot(page, 'layout-derivation-half-390', '#der-table-half');
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('390 px: section 5 step 2\'s matrix product, result included, fits the screen (review D1)', async () => {
    for (const lang of ['en', 'zh']) {
      const { page, problems } = await h.open(`#lang=${lang}&section=derivation`, PHONE);
      await page.$eval('#der-product', (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
      await page.waitForSelector('#der-product .katex');
      const { right, scroll } = await page.$eval('#der-product', (e) => {
        const boxes = Array.from(e.querySelectorAll('.katex-html *')).map((x) => x.getBoundingClientRect()).filter((b) => b.width > 0);
        const s = e.closest('.tex-scroll') ?? e;
        return { right: Math.max(...boxes.map((b) => b.right)), scroll: [s.scrollWidth, s.clientWidth] };
      });
      assert.ok(right <= PHONE.width, `${lang}: the product ends at ${right.toFixed(0)} px`);
      assert.ok(scroll[0]! <= scroll[1]! + 1, `${lang}: no sideways scroll (${scroll.join(' > ')})`);
      if (lang === 'zh') await screenshot(page, 'layout-derivation-product-390', '#der-product');
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('RoPE lab: the lesson is stated up front; a published model\'s settings, rotary fraction, base, layout and scaling behind More, opened by a link, a preset or a prompt (review N6)', async () => {
    const inMore = ['#rope-preset', '#rope [data-param="r.d"]', '#rope [data-param="r.frac"]', '#rope-r-base', '#rope-layout', '#rope-scaling'];
    for (const lang of ['en', 'zh']) {
      const { page, problems } = await h.open(`#lang=${lang}&section=rope`, DESKTOP);
      const lead = await page.$eval('#rope .lesson-lead', (e) => (e as HTMLElement).innerText);
      assert.match(lead, lang === 'en' ? /shift chart.*flat at zero.*Dynamic NTK and LongRoPE/s : /平移图.*贴着 0.*动态 NTK 和 LongRoPE/s);
      assert.ok(await page.isVisible('#rope .lesson-lead'));
      assert.equal(await page.$eval('#rope-more', (e) => (e as HTMLDetailsElement).open), false);
      for (const id of ['#rope-r-m', '#rope-r-n', '#rope-r-s']) assert.ok(await page.isVisible(id), `${id} stays out`);
      for (const id of inMore) {
        assert.equal(await page.$eval(id, (e) => e.closest('#rope-more') !== null), true, `${id} is inside More`);
        assert.ok(!(await page.isVisible(id)), `${id} is behind More`);
      }
      assert.match(await page.$eval('#rope-more > summary', (e) => e.textContent ?? ''), lang === 'en' ? /^More: .*published model.*partial rotary.*scaling/ : /^更多：.*已发布模型.*部分旋转.*缩放/);
      await page.click('#rope-more > summary');
      for (const id of inMore) assert.ok(await page.isVisible(id), `${id} shown once More is open`);
      await page.selectOption('#rope-scaling', 'yarn');
      assert.ok(await page.isVisible('#rope-r-factor'));
      assert.ok(await page.isVisible('#rope-r-bf'));
      assert.ok(await page.isVisible('#rope-r-orig'));
      // Each pair layout's text fits its select (it used to clip: "… as the articles' rotat…").
      // The select as wide as its longest option would be (a copy with no width limit) is no wider than it is.
      const fits = await page.$eval('#rope-layout', (s) => {
        const copy = s.cloneNode(true) as HTMLSelectElement;
        copy.removeAttribute('id');
        copy.style.cssText = 'width: auto; max-width: none; min-width: 0; flex: none; position: absolute; visibility: hidden;';
        s.parentElement!.append(copy);
        const out = { options: Array.from((s as HTMLSelectElement).options, (o) => o.text), natural: copy.getBoundingClientRect().width, width: s.getBoundingClientRect().width };
        copy.remove();
        return out;
      });
      assert.ok(fits.natural <= fits.width + 0.5, `${lang}: ${JSON.stringify(fits)}`);
      assert.deepEqual(problems, []);
      await page.close();
    }
    // A link that sets one of them opens More.
    for (const hash of ['r.scaling=yarn&r.bf=8', 'r.base=500000', 'r.layout=half', 'r.frac=0.5']) {
      const { page, problems } = await h.open(`#lang=en&section=rope&${hash}`, DESKTOP);
      assert.equal(await page.$eval('#rope-more', (e) => (e as HTMLDetailsElement).open), true, `${hash} opens More`);
      if (hash.includes('r.bf')) {
        assert.ok(await page.isVisible('#rope-r-bf'));
        assert.equal(await page.$eval('#rope-r-bf', (e) => (e.parentElement!.querySelector('input[type=number]') as HTMLInputElement).value), '8');
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
    // A "Try this" prompt that sets the scaling opens More.
    let { page, problems } = await h.open('#lang=en&section=rope', DESKTOP);
    const prompt = await page.$$eval('#tryit-rope [data-tryit]', (bs) => bs.map((b) => (b as HTMLElement).dataset.tryit!).find((k) => /linear|dynamic/.test(k)));
    assert.ok(prompt !== undefined, 'a prompt that sets the scaling');
    await page.click(`#tryit-rope [data-tryit="${prompt}"]`);
    await page.waitForTimeout(100);
    assert.equal(await page.$eval('#rope-more', (e) => (e as HTMLDetailsElement).open), true, `${prompt} opens More`);
    assert.ok(await page.isVisible('#rope-scaling'));
    assert.deepEqual(problems, []);
    await page.close();
    // A preset chosen (More open, then closed again) opens it.
    ({ page, problems } = await h.open('#lang=en&section=rope', DESKTOP));
    await page.click('#rope-more > summary');
    const llama = await page.$$eval('#rope-preset option', (os) => os.map((o) => (o as HTMLOptionElement).value).find((v) => /llama-3/.test(v)));
    assert.ok(llama !== undefined);
    await page.click('#rope-more > summary');
    assert.equal(await page.$eval('#rope-more', (e) => (e as HTMLDetailsElement).open), false);
    await page.$eval('#rope-preset', (s, v) => { (s as HTMLSelectElement).value = v; s.dispatchEvent(new Event('change')); }, llama);
    await page.waitForTimeout(100);
    assert.equal(await page.$eval('#rope-more', (e) => (e as HTMLDetailsElement).open), true, `${llama} opens More`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('log axes say they are logarithmic', async () => {
    for (const lang of ['en', 'zh']) {
      const { page, problems } = await h.open(`#lang=${lang}&section=extrapolation`, DESKTOP);
      await reachAndWait(page, '#wl-ratio', '#wl-ratio[data-axes]');
      const word = lang === 'en' ? 'log' : '对数';
      for (const sel of ['#wl-ratio', '#wl-lambdas']) {
        const axes = await page.$eval(sel, (e) => (e as HTMLElement).dataset.axes ?? '');
        assert.ok(axes.includes(word), `${lang} ${sel}: ${axes}`);
      }
      await page.$eval('#rope', (e) => e.scrollIntoView({ behavior: 'instant' }));
      const wave = await page.$$eval('#rope .plot[data-axes]', (ps) => ps.map((p) => (p as HTMLElement).dataset.axes ?? '').filter((a) => a.includes('λ')));
      assert.ok(wave.length === 1 && wave[0]!.includes(word), `${lang} RoPE wavelengths: ${wave.join(' | ')}`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('notes that name a number a slider sets follow the slider', async () => {
    for (const lang of ['en', 'zh']) {
      const { page, problems } = await h.open(`#lang=${lang}&section=sinusoidal&s.dim=32&r.scaling=linear&r.factor=4`, DESKTOP);
      const look = (sel: string): Promise<string> => page.$eval(sel, (e) => (e as HTMLElement).innerText.replace(/\s+/g, ' '));
      await page.waitForFunction(() => (document.getElementById('sin-dot-look')?.textContent ?? '') !== '');
      assert.match(await look('#sin-dot-look'), /d\s*\/\s*2\s*=\s*16/);
      await page.$eval('#sinusoidal [data-param="s.dim"] input[type=range]', (e) => {
        (e as HTMLInputElement).value = '128';
        e.dispatchEvent(new Event('input'));
      });
      await page.waitForFunction(() => /=\s*64/.test(document.getElementById('sin-dot-look')?.innerText ?? ''));
      await page.waitForFunction(() => (document.getElementById('rope-ramp-look')?.textContent ?? '') !== '');
      assert.match(await look('#rope-ramp-look'), /0\.25/);
      await page.fill('#rope [data-param="r.factor"] input[type=number]', '8');
      await page.waitForFunction(() => /0\.125/.test(document.getElementById('rope-ramp-look')?.textContent ?? ''));
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
});
