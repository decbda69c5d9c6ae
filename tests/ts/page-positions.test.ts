/**
 * The "positions" section and the wavelength panel of the extrapolation
 * section, in Chromium: the position ids of every scenario follow the rule
 * (computed here), the attention map follows the ids, the restart bug raises
 * a shipped model's loss, counting pads changes q·k under dynamic NTK and not
 * under default RoPE (float64 reference), and the wavelengths are
 * 2π·base^(2i/r) for the shipped RoPE model's settings (read here from its
 * safetensors header). Phone width, dark theme and Chinese work.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { num, root, screenshot, setRange, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);
const ids = (page: Page, sel: string): Promise<number[]> =>
  page.$eval(sel, (e) => ((e as HTMLElement).dataset.ids ?? '').split(',').map(Number));
const pick = async (page: Page, value: string): Promise<void> => {
  await page.selectOption('#pos-scenario', value);
  await page.waitForFunction((v) => document.querySelector<HTMLElement>('#positions .body')?.dataset.scenario === v, value);
};

/** Metadata of a shipped model (the safetensors JSON header). */
function metadata(name: string): Record<string, string> {
  const b = readFileSync(join(root, 'web/public/models', `${name}.safetensors`));
  const n = Number(b.readBigUInt64LE(0));
  return (JSON.parse(b.subarray(8, 8 + n).toString('utf8')) as { __metadata__: Record<string, string> }).__metadata__;
}

/** Float64 RoPE, half layout: x rotated at position p with inverse frequencies `inv`. */
function rotate(x: number[], p: number, inv: number[]): number[] {
  const h2 = inv.length;
  const y = x.slice();
  for (let i = 0; i < h2; i++) {
    const a = x[i]!, b = x[i + h2]!, c = Math.cos(p * inv[i]!), s = Math.sin(p * inv[i]!);
    y[i] = a * c - b * s;
    y[i + h2] = b * c + a * s;
  }
  return y;
}

/** Dynamic NTK (Hugging Face): base' = base (s L / M - (s - 1))^(r / (r - 2)) once L > M. */
function invFreq(r: number, base: number, dyn?: { s: number; M: number; L: number }): number[] {
  const b = dyn && dyn.L > dyn.M ? base * (dyn.s * dyn.L / dyn.M - (dyn.s - 1)) ** (r / (r - 2)) : base;
  return Array.from({ length: r / 2 }, (_, i) => b ** (-2 * i / r));
}

describe('positions section (Chromium, strict CSP)', () => {
  it('shows the position ids of each scenario as the rules give them', async () => {
    const { page, problems } = await h.open('#p.sc=prefill&p.T=12');
    assert.deepEqual(await ids(page, '#pos-ids'), range(0, 12), 'prefill: 0 .. T-1');
    await page.close();

    // KV cache: a 128-token prompt, then 4 tokens one at a time.
    const { page: kv, problems: more } = await h.open('#p.sc=kv&p.N=128&p.G=4&p.step=1');
    assert.deepEqual(await ids(kv, '#pos-ids'), range(0, 132));
    assert.equal(await num(kv, '#pos-ids .pos-chip[data-slot="128"] .pid'), 128, 'first generated token after 128 prompt tokens');
    // The restart bug with 3 tokens per step: the prompt at 0 .. N-1, then 0, 1, 2, 0.
    await pick(kv, 'restart');
    await setRange(kv, '#pos-step', 3);
    await kv.waitForFunction(() => document.querySelector('#pos-ids')?.getAttribute('data-ids')?.endsWith(',0,1,2,0'));
    assert.deepEqual(await ids(kv, '#pos-ids'), [...range(0, 128), 0, 1, 2, 0]);

    // Left padding: row B has 3 pads; ids = cumsum(mask) - 1, pads 1.
    await pick(kv, 'padding');
    const T = await kv.$eval('#pos-ids', (e) => (e as HTMLElement).dataset.ids!.split(',').length);
    const mask = await kv.$eval('#pos-ids', (e) => (e as HTMLElement).dataset.mask!.split(',').map(Number));
    const pads = mask.filter((m) => m === 0).length;
    assert.ok(pads >= 1 && mask.slice(0, pads).every((m) => m === 0) && mask.slice(pads).every((m) => m === 1), `left-padded mask ${mask}`);
    let sum = 0;
    const rule = mask.map((m) => ((sum += m), m ? sum - 1 : 1));
    assert.deepEqual(await ids(kv, '#pos-ids'), rule, 'cumsum(mask) - 1');
    assert.deepEqual(await ids(kv, '#pos-ids-a'), range(0, T), 'unpadded row');
    // RoPE does not see a uniform shift: the map moves by float rounding only.
    assert.ok((await num(kv, '#pos-pad-diff')) < 1e-5);
    await kv.check('#pos-count');
    await kv.waitForFunction(() => document.querySelector('#pos-ids')?.getAttribute('data-ids')?.startsWith('0,1,2'));
    assert.deepEqual(await ids(kv, '#pos-ids'), range(0, T), 'pads counted: 0 .. T-1');

    // Sliding window: absolute ids, T - W keys dropped for the last query.
    await pick(kv, 'window');
    const Tw = (await ids(kv, '#pos-ids')).length;
    assert.deepEqual(await ids(kv, '#pos-ids'), range(0, Tw));
    const dropped = await kv.$$eval('#pos-ids .pos-chip.dropped', (cs) => cs.length);
    const W = Number(await kv.$eval('#pos-W', (i) => (i as HTMLInputElement).value));
    assert.equal(dropped, Tw - W);
    assert.deepEqual([...problems, ...more], []);
    await kv.close();
  });

  it('the attention map follows the ids', async () => {
    const { page, problems } = await h.open('#p.sc=prefill&p.T=16&p.N=8&p.G=8&p.step=1');
    const look = (): Promise<number> => num(page, '#pos-lookback');
    const image = (): Promise<string> => page.$eval('#pos-map', (c) => (c as HTMLCanvasElement).toDataURL());
    const prefill = { d: await look(), img: await image() };
    await pick(page, 'kv');
    const kv = { d: await look(), img: await image() };
    await pick(page, 'restart');
    const restart = { d: await look(), img: await image() };
    // Decoding through the cache with the right ids gives the prefill's map.
    assert.ok(Math.abs(kv.d - prefill.d) < 1e-4, `kv ${kv.d} vs prefill ${prefill.d}`);
    assert.notEqual(restart.img, kv.img, 'restart map differs');
    assert.ok(Math.abs(restart.d - kv.d) > 0.5, `restart look-back ${restart.d} vs ${kv.d}`);
    await pick(page, 'window');
    assert.notEqual(await image(), prefill.img, 'window map differs');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the restart bug raises the loss of the shipped RoPE model', async () => {
    const { page, problems } = await h.open('#p.sc=restart');
    await page.locator('#positions .body').scrollIntoViewIfNeeded();
    await page.waitForSelector('#pos-loss[data-ready="restart"]', { timeout: 120000 });
    const clean = await num(page, '#pos-loss-clean-language-rope');
    const buggy = await num(page, '#pos-loss-buggy-language-rope');
    assert.ok(clean > 0 && buggy > clean + 0.1, `clean ${clean}, restarted ${buggy}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('counting 16 pads changes q·k under dynamic NTK, not under default RoPE (float64 reference)', async () => {
    const { page, problems } = await h.open('#section=positions');
    const d = await page.$eval('#pad-dynamic', (e) => ({ ...(e as HTMLElement).dataset }));
    const q = d.q!.split(',').map(Number), k = d.k!.split(',').map(Number);
    const T = Number(d.t), n = Number(d.n), m = Number(d.m), P = Number(d.pads), s = Number(d.factor), M = Number(d.max);
    const base = Number(d.base), r = Number(d.dim);
    assert.equal(P, 16);
    assert.ok(T > M, 'the demo length passes the trained length');
    const qk = (shift: number, dyn: boolean): number => {
      const inv = invFreq(r, base, dyn ? { s, M, L: T + shift } : undefined);
      const a = rotate(q, m + shift, inv), b = rotate(k, n + shift, inv);
      return a.reduce((acc, x, e) => acc + x * b[e]!, 0);
    };
    const got = {
      d0: await num(page, '#pad-default-0'), d16: await num(page, '#pad-default-16'),
      y0: await num(page, '#pad-dynamic-0'), y16: await num(page, '#pad-dynamic-16'),
    };
    const ref = { d0: qk(0, false), d16: qk(P, false), y0: qk(0, true), y16: qk(P, true) };
    for (const key of ['d0', 'd16', 'y0', 'y16'] as const) {
      assert.ok(Math.abs(got[key] - ref[key]) < 2e-4 * (1 + Math.abs(ref[key])), `${key}: ${got[key]} vs ${ref[key]}`);
    }
    assert.ok(Math.abs(got.d0 - got.d16) < 1e-4, `default RoPE: ${got.d0} vs ${got.d16}`);
    assert.ok(Math.abs(ref.y0 - ref.y16) > 0.05, `reference: dynamic differs (${ref.y0} vs ${ref.y16})`);
    assert.ok(Math.abs(got.y0 - got.y16) > 0.05, `dynamic NTK: ${got.y0} vs ${got.y16}`);
    // (c) prefill counts the pads, decode does not: the new token lands at N, after ids up to 16 + N - 1.
    const wrong = await ids(page, '#pad-ids-wrong');
    const N = wrong.length - 1 - P;
    assert.deepEqual(wrong, [...range(0, P + N), N]);
    assert.deepEqual(await ids(page, '#pad-ids-correct'), [...new Array<number>(P).fill(1), ...range(0, N), N]);
    assert.equal(await num(page, '#pad-gap'), N - (P + N - 1));
    assert.notEqual(await num(page, '#pad-mismatch-correct'), await num(page, '#pad-mismatch-wrong'));
    // (b) Inside the trained positions the learned table pays for the shift; past them the sinusoidal
    // model does too (and the learned one cannot run); RoPE does not move.
    await page.locator('#pad-absolute').scrollIntoViewIfNeeded();
    await page.waitForSelector('#pad-absolute[data-ready="1"]', { timeout: 120000 });
    const loss = async (L: number, m: string): Promise<[number, number]> =>
      [await num(page, `#pad-loss-${L}-clean-language-${m}`), await num(page, `#pad-loss-${L}-buggy-language-${m}`)];
    const [lc, lb] = await loss(48, 'learned');
    assert.ok(lb > lc + 0.05, `learned at 48: ${lc} -> ${lb}`);
    const [sc, sb] = await loss(64, 'sinusoidal');
    assert.ok(sb > sc + 0.05, `sinusoidal at 64: ${sc} -> ${sb}`);
    for (const L of [48, 64]) {
      const [rc, rb] = await loss(L, 'rope');
      assert.ok(Math.abs(rb - rc) < 1e-3, `rope at ${L}: ${rc} -> ${rb}`);
    }
    assert.match(await page.$eval('#pad-loss-64-buggy-language-learned', (e) => (e as HTMLElement).dataset.error ?? ''), /learned position table/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the wavelengths are 2π·base^(2i/r) of the shipped RoPE model', async () => {
    const meta = metadata('language-rope');
    const headDim = Number(meta.d_model) / Number(meta.heads);
    const r = Number(meta.rotary_dim) || headDim, base = Number(meta.rope_base), trainLen = Number(meta.train_len);
    const { page, problems } = await h.open('#wl.len=256&wl.method=linear&wl.factor=4');
    await page.locator('#wl-panel').scrollIntoViewIfNeeded();
    await page.waitForSelector('#wl-panel[data-ready="1"]', { timeout: 60000 });
    const lambdas = await page.$eval('#wl-lambdas', (e) => (e as HTMLElement).dataset.value!.split(',').map(Number));
    const ref = Array.from({ length: r / 2 }, (_, i) => 2 * Math.PI * base ** (2 * i / r));
    assert.equal(lambdas.length, ref.length);
    lambdas.forEach((l, i) => assert.ok(Math.abs(l / ref[i]! - 1) < 1e-6, `λ_${i}: ${l} vs ${ref[i]}`));
    assert.equal(await num(page, '#wl-count'), ref.filter((l) => l > trainLen).length);
    // Linear ×4: every θ′/θ is 1/4, and at L = 256 = 4·64 every pair is back in range.
    const ratio = await page.$eval('#wl-ratio', (e) => (e as HTMLElement).dataset.value!.split(',').map(Number));
    ratio.forEach((x, i) => assert.ok(Math.abs(x - 0.25) < 1e-6, `θ′/θ of pair ${i}: ${x}`));
    const angle = (len: number, l: number): number => Math.min(len * (2 * Math.PI / l), 2 * Math.PI);
    const out = ref.filter((l) => angle(256, l) > angle(trainLen, l) * (1 + 1e-6)).length;
    assert.equal(await num(page, '#wl-out-none'), out);
    assert.equal(await num(page, '#wl-out-scaled'), 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('works at 390 px, in the dark theme and in Chinese', async () => {
    const { page, problems } = await h.open('#theme=dark&lang=zh&p.sc=padding', { width: 390, height: 844 });
    await page.locator('#positions').scrollIntoViewIfNeeded();
    const overflow = await page.$eval('#positions', (e) => e.scrollWidth - e.clientWidth);
    assert.ok(overflow <= 1, `horizontal overflow ${overflow}px`);
    assert.match(await page.textContent('#pos-about') ?? '', /[\u4e00-\u9fff]/);
    await screenshot(page, 'positions-390-dark-zh', '#positions');
    await page.locator('#wl-panel').scrollIntoViewIfNeeded();
    await page.waitForSelector('#wl-panel[data-ready="1"]', { timeout: 60000 });
    const wlOverflow = await page.$eval('#wl-panel', (e) => e.scrollWidth - e.clientWidth);
    assert.ok(wlOverflow <= 1, `wavelengths overflow ${wlOverflow}px`);
    await screenshot(page, 'wavelengths-390-dark-zh', '#wl-panel');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
