/**
 * "Try this" prompts (issue 13, web/src/tryit.ts): each prompt, clicked in
 * Chromium under the strict CSP,
 * - sets the section's controls (the control shows the value),
 * - writes its parameters into the URL hash,
 * - is marked pressed (and no other prompt of its section),
 * - changes the section's own result the way its text says (read from the
 *   data-value / data-y / data-ready attributes the sections expose),
 * - and does not move the page under the reader.
 * Also: the labels and the "look" line follow a language switch, and the
 * page logs no error or warning.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { num, screenshot, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

type State = Record<string, string | number | boolean>;

/** Two frames: coalesced redraws and the hash rewrite have run. */
const frames = (page: Page): Promise<void> =>
  page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => requestAnimationFrame(() => r()))));

const hashParams = (page: Page): Promise<Record<string, string>> =>
  page.evaluate(() => Object.fromEntries(new URLSearchParams(location.hash.slice(1))));

const urlForm = (v: string | number | boolean): string => (typeof v === 'boolean' ? (v ? '1' : '0') : String(v));

/** What a standard control (ui.ts, data-param) shows: its number box, else its input's value ('1' / '0' for a checkbox). */
const shown = (page: Page, param: string): Promise<string> =>
  page.$eval(`[data-param="${param}"]`, (c) => {
    const box = c.querySelector<HTMLInputElement>('input[type=number]');
    if (box) return box.value;
    const input = c.querySelector<HTMLInputElement | HTMLSelectElement>('input, select')!;
    return input instanceof HTMLInputElement && input.type === 'checkbox' ? (input.checked ? '1' : '0') : input.value;
  });

/** The state a prompt sets, read from the page (tryit.ts PROMPTS is not importable here: it is bundled). */
const promptState = async (page: Page, id: string): Promise<State> => {
  const states: Record<string, State> = {
    'order.none': { 'o.enc': 'none', 'o.causal': false },
    'order.causal': { 'o.enc': 'none', 'o.causal': true },
    'order.rope': { 'o.enc': 'rope', 'o.causal': false },
    'sin.small': { 's.base': 10, 's.dim': 64, 's.len': 256, 's.p': 128 },
    'sin.default': { 's.base': 10000, 's.dim': 64, 's.len': 256, 's.p': 128 },
    'rope.shift': { 'r.scaling': 'default', 'r.m': 12, 'r.n': 5, 'r.s': 1000 },
    'rope.linear': { 'r.scaling': 'linear', 'r.factor': 4, 'r.m': 12, 'r.n': 5, 'r.s': 1000 },
    'rope.dynamic': { 'r.scaling': 'dynamic', 'r.factor': 4, 'r.orig': 64, 'r.m': 12, 'r.n': 5, 'r.s': 100 },
    'bias.shared': { 'b.heads': 16, 'b.variant': 'paper', 'b.perhead': false },
    'bias.perhead': { 'b.heads': 16, 'b.variant': 'paper', 'b.perhead': true },
    'bias.simple': { 'b.heads': 16, 'b.variant': 'simple', 'b.perhead': false },
    'ext.none': { 'wl.model': 'tiny', 'wl.len': 1024, 'e.len': 1024, 'e.scaling': 'none' },
    'ext.yarn': { 'wl.model': 'tiny', 'wl.len': 1024, 'wl.method': 'yarn', 'wl.factor': 16, 'e.len': 1024, 'e.scaling': 'yarn', 'e.factor': 16 },
    'bugs.onlyq': { 'z.bug': 'only-q' },
    'bugs.restart': { 'z.bug': 'restart-positions' },
    'ym.gemma': { 'y.model': 'gemma-3-27b' },
    'ym.scout': { 'y.model': 'llama-4-scout' },
    'ym.qwen3vl': { 'y.model': 'qwen3-vl-8b' },
  };
  // Every prompt on the page is covered here (and nothing else).
  const onPage = await page.$$eval('[data-tryit]', (es) => es.filter((e) => e.tagName === 'BUTTON').map((e) => (e as HTMLElement).dataset.tryit!));
  assert.deepEqual([...onPage].sort(), Object.keys(states).sort());
  return states[id]!;
};

/** Clicks prompt `id`; checks the pressed marks, the controls and the hash. Returns the button's move in px (page scroll). */
async function press(page: Page, id: string, settle: () => Promise<void> = () => frames(page)): Promise<number> {
  const sel = `button[data-tryit="${id}"]`;
  await page.$eval(sel, (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
  await frames(page);
  const top = await page.$eval(sel, (e) => e.getBoundingClientRect().top);
  await page.click(sel);
  await settle();
  await frames(page);
  const pressed = await page.$eval(sel, (b) =>
    Array.from(b.parentElement!.querySelectorAll('button'), (x) => [x.dataset.tryit, x.getAttribute('aria-pressed')]));
  for (const [other, p] of pressed) assert.equal(p, String(other === id), `${id}: aria-pressed of ${other}`);
  const look = await page.$eval(sel, (b) => {
    const l = b.closest('.tryit')!.nextElementSibling as HTMLElement;
    return { text: l.textContent ?? '', hidden: l.hidden, id: l.dataset.tryit };
  });
  assert.equal(look.hidden, false, `${id}: the look line shows`);
  assert.equal(look.id, id);
  assert.ok(look.text.length > 20);
  const state = await promptState(page, id);
  const hash = await hashParams(page);
  for (const [k, v] of Object.entries(state)) {
    assert.equal(hash[k], urlForm(v), `${id}: ${k} in the hash`);
    if (!k.startsWith('r.m') && !['r.n', 'r.s', 'r.factor', 'r.orig'].includes(k)) assert.equal(await shown(page, k), urlForm(v), `${id}: control ${k}`);
  }
  return (await page.$eval(sel, (e) => e.getBoundingClientRect().top)) - top;
}

describe('"Try this" prompts (Chromium, strict CSP)', () => {
  it('synchronous sections: order, sinusoidal, RoPE lab, ALiBi', async () => {
    const { page, problems } = await h.open('#lang=en');

    // Order: shuffled without positions B = A; causal mask or RoPE: B != A.
    const verdict = (): Promise<string | undefined> => page.$eval('#order-verdict', (e) => (e as HTMLElement).dataset.i18n);
    const identity = async (): Promise<boolean> => (await page.$eval('#order-outs', (e) => (e as HTMLElement).dataset.order!)).split('.').every((v, i) => Number(v) === i);
    assert.equal(await identity(), true, 'the page opens in the original order');
    assert.ok(Math.abs(await press(page, 'order.none')) < 1, 'no scroll');
    assert.equal(await identity(), false, 'shuffled');
    assert.ok((await num(page, '#order-diff')) < 1e-5);
    assert.equal(await verdict(), 'order.verdict.same');
    assert.match((await hashParams(page))['o.perm'] ?? '', /^\d+(\.\d+)+$/);
    await press(page, 'order.causal');
    assert.ok((await num(page, '#order-diff')) > 1e-3);
    assert.equal(await verdict(), 'order.verdict.differ');
    await press(page, 'order.rope');
    assert.ok((await num(page, '#order-diff')) > 1e-3);
    assert.equal(await verdict(), 'order.verdict.differ');

    // Sinusoidal: a small base collapses PE_p . PE_q within a few offsets; the default falls off gradually.
    const dots = async (): Promise<(dx: number) => number> => {
      const xs = JSON.parse(await page.$eval('#sin-dots', (e) => (e as HTMLElement).dataset.x!)) as number[];
      const ys = JSON.parse(await page.$eval('#sin-dots', (e) => (e as HTMLElement).dataset.y!)) as number[];
      return (dx) => ys[xs.indexOf(dx)]!;
    };
    const mean = (f: (dx: number) => number, lo: number, hi: number): number => {
      let s = 0;
      for (let d = lo; d <= hi; d++) s += f(d);
      return s / (hi - lo + 1);
    };
    assert.ok(Math.abs(await press(page, 'sin.small')) < 1, 'no scroll');
    let y = await dots();
    for (let dx = 8; dx <= 127; dx++) assert.ok(Math.abs(y(dx)) < y(0) / 3, `small base: |PE_p·PE_q| at ${dx} = ${y(dx)}`);
    await press(page, 'sin.default');
    y = await dots();
    assert.ok(y(8) > y(0) / 2, `default base: ${y(8)} at offset 8`);
    assert.ok(mean(y, 1, 16) > mean(y, 64, 127), 'small offsets score higher than large ones');

    // RoPE lab: plain and linear are shift invariant; dynamic NTK depends on L.
    const scores = async (): Promise<{ score: number; shifted: number; short: number; line: number[]; shifts: number[] }> => ({
      score: await num(page, '#rope-score'),
      shifted: await num(page, '#rope-score-shifted'),
      short: await num(page, '#rope-score-short'),
      line: await page.$eval('#rope-shift-plot', (e) => (e as HTMLElement).dataset.value!.split(',').map(Number)),
      shifts: await page.$eval('#rope-shift-plot', (e) => (e as HTMLElement).dataset.shifts!.split(',').map(Number)),
    });
    const close = (a: number, b: number): boolean => Math.abs(a - b) < 1e-4 * Math.max(1, Math.abs(a));
    const ropeShown = (p: string): Promise<string> => page.$eval(`#rope-${p.replace('.', '-')}`, (r) => (r.parentElement!.querySelector('input[type=number]') as HTMLInputElement | null)?.value ?? r.getAttribute('aria-valuetext')!);
    assert.ok(Math.abs(await press(page, 'rope.shift')) < 1, 'no scroll');
    const plain = await scores();
    assert.deepEqual([await ropeShown('r.m'), await ropeShown('r.n'), await ropeShown('r.s')], ['12', '5', '1000']);
    assert.ok(close(plain.shifted, plain.score), `${plain.shifted} vs ${plain.score}`);
    for (const v of plain.line) assert.ok(close(v, plain.score), 'a flat shift line');
    await press(page, 'rope.linear');
    const linear = await scores();
    assert.equal(await ropeShown('r.factor'), '4');
    assert.ok(Math.abs(linear.score - plain.score) > 1e-3, 'the score changes');
    assert.ok(close(linear.shifted, linear.score));
    for (const v of linear.line) assert.ok(close(v, linear.score), 'still a flat shift line');
    await press(page, 'rope.dynamic');
    const dyn = await scores();
    assert.deepEqual([await ropeShown('r.orig'), await ropeShown('r.factor'), await ropeShown('r.s')], ['64', '4', '100']);
    assert.ok(close(dyn.shifted, dyn.score), 'one shared L: shifted equals unshifted');
    assert.ok(Math.abs(dyn.short - dyn.score) > 1e-3, `a shorter L changes the score: ${dyn.short} vs ${dyn.score}`);
    const brk = Number(await page.$eval('#rope-shift-plot', (e) => (e as HTMLElement).dataset.break));
    assert.equal(brk, 64 - 12, 'the dashed mark where L passes the original context');
    // The line rotates each shifted pair with L = max(m, n) + s + 1: at s = 0 that is the short sequence.
    dyn.shifts.forEach((s, i) => { if (s < brk) assert.ok(close(dyn.line[i]!, dyn.short), `flat before the mark (s = ${s})`); });
    assert.ok(dyn.line.some((v, i) => dyn.shifts[i]! >= brk && Math.abs(v - dyn.short) > 1e-3), 'leaves the flat line past the mark');

    // ALiBi: 16 heads; one shared scale or one per head; the tutorial's slopes vanish.
    const slopes = (): Promise<number[]> => page.$$eval('#alibi-maps .cell-label', (es) => es.map((e) => Number((e as HTMLElement).dataset.value)));
    const alibiLook = (): Promise<string | undefined> => page.$eval('#alibi-look', (e) => (e as HTMLElement).dataset.i18n);
    assert.ok(Math.abs(await press(page, 'bias.shared')) < 1, 'no scroll');
    let m = await slopes();
    assert.equal(m.length, 16);
    assert.equal(await alibiLook(), 'bias.alibi.look.shared');
    assert.ok(Math.min(...m) / Math.max(...m) < 0.01, 'the gentlest head’s range is under 1 % of the shared scale');
    await press(page, 'bias.perhead');
    assert.equal((await slopes()).length, 16);
    assert.equal(await alibiLook(), 'bias.alibi.look.perHead');
    await press(page, 'bias.simple');
    m = await slopes();
    assert.ok(Math.abs(m[0]! - 1) < 1e-6, 'head 0: slope 1');
    const lines = JSON.parse(await page.$eval('#alibi-lines', (e) => (e as HTMLElement).dataset.value!)) as number[][];
    const reach = (row: number[]): number => Math.max(...row.map(Math.abs));
    assert.ok(reach(lines[15]!) < 0.01 * reach(lines[0]!), 'the last head’s line lies on zero');
    assert.equal(await alibiLook(), 'bias.alibi.look.shared');

    // The labels and the look line follow the language, with the values the prompts set.
    const texts = (): Promise<string[]> => page.$$eval('.tryit button, .tryit-label, .tryit-look:not([hidden])', (es) => es.map((e) => e.textContent ?? ''));
    const en = await texts();
    assert.ok(en.some((s) => s.includes('16 heads')));
    await page.click('#lang-switch');
    await frames(page);
    const zh = await texts();
    assert.equal(zh.length, en.length);
    for (const s of zh) assert.match(s, /[\u4e00-\u9fff]/, `Chinese: ${s}`);
    assert.ok(zh.some((s) => s.includes('16 个 head')));
    assert.equal(await page.$eval('#tryit-bias', (e) => e.getAttribute('aria-label')), '试一试：一键切到最能说明本节要点的设置');
    await screenshot(page, 'tryit-bias-zh', '#bias');
    await page.click('#lang-switch');
    await frames(page);
    assert.deepEqual(await texts(), en);

    // A reader's own change releases the prompt.
    await page.focus('[data-param="b.heads"] input[type=range]');
    await page.keyboard.press('ArrowLeft');
    await frames(page);
    assert.equal(await page.$eval('button[data-tryit="bias.simple"]', (e) => e.getAttribute('aria-pressed')), 'false');
    assert.equal(await page.$eval('#tryit-bias + .tryit-look', (e) => (e as HTMLElement).hidden), true);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('model sections: extrapolation and bugs', async () => {
    const { page, problems } = await h.open('#lang=en&section=extrapolation');
    await page.waitForSelector('#wl-panel[data-ready]', { timeout: 60000 });
    // The loss run is done when the status line is empty and the chart holds the expected series.
    const lossDone = (withYarn: boolean) => () => page.waitForFunction((y) => {
      const series = document.querySelector<HTMLElement>('#ext-loss')?.dataset.series ?? '';
      return !document.querySelector<HTMLElement>('#extrapolation .status')?.dataset.i18n
        && document.querySelector<HTMLElement>('#ext-loss')?.dataset.ready === '1024'
        && series.includes('"RoPE"') && series.includes('RoPE + YaRN') === y;
    }, withYarn, { timeout: 300000 }).then(() => undefined);
    await press(page, 'ext.none', lossDone(false));
    const outNone = await num(page, '#wl-out-none');
    assert.ok(outNone > 0, 'pairs pushed past the trained angles');
    assert.match(await page.$eval('#ext-loss', (e) => (e as HTMLElement).dataset.xticks ?? ''), /1,?024$/);
    await press(page, 'ext.yarn', lossDone(true));
    assert.equal(await num(page, '#wl-out-none'), outNone);
    assert.equal(await num(page, '#wl-out-scaled'), 0, 'scaled: no pair out of range');
    await screenshot(page, 'tryit-ext', '#ext-loss');

    const bugDone = (bug: string) => () => page.waitForFunction((b) => document.querySelector<HTMLElement>('#bugs .body')?.dataset.ready?.endsWith(`:${b}`) === true, bug, { timeout: 120000 }).then(() => undefined);
    await press(page, 'bugs.onlyq', bugDone('only-q'));
    const [clean, onlyQ] = [await num(page, '#bug-loss-clean'), await num(page, '#bug-loss-buggy')];
    assert.ok(onlyQ > 1.5 * clean, `only Q: ${clean} -> ${onlyQ}`);
    assert.equal(await num(page, '#bug-symptom'), -1, 'cached == uncached');
    assert.ok((await num(page, '#bug-diverge')) >= 0, 'the text goes wrong');
    await press(page, 'bugs.restart', bugDone('restart-positions'));
    assert.ok((await num(page, '#bug-loss-buggy')) > clean);
    assert.equal(await num(page, '#bug-diverge-uncached'), -1, 'without the cache: the correct text');
    assert.ok((await num(page, '#bug-diverge')) >= 0, 'through the cache: parts from it');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('"Your model": Gemma 3\'s two RoPEs, Llama 4 Scout\'s layers without RoPE, Qwen3-VL\'s pairs in turn', async () => {
    const { page, problems } = await h.open('#lang=en&section=yourmodel&y.model=llama-2-7b');
    await page.waitForSelector('#yourmodel .body[data-state="ok"]', { timeout: 60000 });
    const plan = (): Promise<string> => page.$eval('#ym-strip', (e) => (e as HTMLElement).dataset.plan ?? '');
    const settled = (id: string) => () => page.waitForFunction((want) => document.querySelector<HTMLSelectElement>('#ym-pick')?.value === want, id).then(() => undefined);
    await press(page, 'ym.gemma', settled('gemma-3-27b'));
    // Five sliding layers (base 10,000) for each global one (base 1,000,000, linear x8): the global wavelength is 100^(2i/128) times the local one, 8 times that with the scaling (dashed).
    const p = await plan();
    assert.equal(p.length, 62);
    for (const [i, c] of [...p].entries()) assert.equal(c, i % 6 === 5 ? 'B' : 'A', `layer ${i}`);
    const [local, global] = JSON.parse(await page.$eval('#ym-wl', (e) => (e as HTMLElement).dataset.value!)) as number[][];
    const [scaled] = JSON.parse(await page.$eval('#ym-wl', (e) => (e as HTMLElement).dataset.scaled!)) as number[][];
    for (const i of [0, 20, 63]) {
      const want = 100 ** ((2 * i) / 128);
      assert.ok(Math.abs(global![i]! / local![i]! - want) <= 1e-6 * want, `pair ${i}: ${global![i]! / local![i]!} vs ${want}`);
      assert.ok(Math.abs(scaled![i]! / local![i]! - 8 * want) <= 8e-6 * want, `pair ${i}, scaled: ${scaled![i]! / local![i]!} vs ${8 * want}`);
    }
    await press(page, 'ym.scout', settled('llama-4-scout'));
    assert.equal(await plan(), 'AAA.'.repeat(12));
    assert.match(await page.textContent('#ym-qs') ?? '', /on 12 of the layers/);
    assert.deepEqual(await page.$$eval('#ym-plan tbody tr', (trs) => trs.map((tr) => tr.children[1]!.textContent)),
      [Array.from({ length: 12 }, (_, k) => `${4 * k}-${4 * k + 2}`).join(', '), Array.from({ length: 12 }, (_, k) => 4 * k + 3).join(', ')]);
    await press(page, 'ym.qwen3vl', settled('qwen3-vl-8b'));
    // 64 pairs: temporal, height, width in turn for 60 pairs, then 4 temporal (24 / 20 / 20).
    assert.equal(await page.$eval('#ym-mrope-R1', (e) => (e as HTMLElement).dataset.rows), '012'.repeat(20) + '0000');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('every URL key belongs to one control (a prompt or a link sets exactly one)', async () => {
    const { page, problems } = await h.open('');
    const params = await page.$$eval('.control[data-param]', (cs) => cs.map((c) => (c as HTMLElement).dataset.param!));
    assert.ok(params.length > 30, `controls found: ${params.length}`);
    const seen = new Map<string, number>();
    for (const p of params) seen.set(p, (seen.get(p) ?? 0) + 1);
    assert.deepEqual([...seen].filter(([, n]) => n > 1), []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('phone, dark, Chinese: the prompts wrap inside the page', async () => {
    const { page, problems } = await h.open('#lang=zh&theme=dark&section=rope', { width: 390, height: 844 });
    await press(page, 'rope.dynamic');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no horizontal scroll (${overflow}px)`);
    for (const r of await page.$$eval('.tryit button', (es) => es.map((e) => e.getBoundingClientRect().right))) assert.ok(r <= 390);
    await screenshot(page, 'tryit-rope-zh-dark-390', '#rope');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
