/**
 * Published models' RoPE in the RoPE lab and the wavelength panel
 * (Chromium): a preset sets every control to the model's value and uses the
 * model's own scaling (Phi-4-mini's searched LongRoPE factors, not the
 * page's stand-in rule), checked against float64 values computed here from
 * the config; moving a control makes the settings the reader's own again.
 * The wavelength panel shows a published model at its own scale (M its
 * original context) and goes back to the tiny model.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { LAYER_FIXTURES } from './hf-layer-configs.js';
import { num, reachAndWait, screenshot, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

type LongRope = { rope_scaling: { short_factor: number[]; long_factor: number[] } };
const phi4 = LAYER_FIXTURES.find((f) => f.name.startsWith('Phi-4-mini'))!.config as LongRope;
const phi35 = LAYER_FIXTURES.find((f) => f.name.startsWith('Phi-3.5-mini'))!.config as LongRope;
const numbers = (page: Page, sel: string, key = 'value'): Promise<number[]> =>
  page.$eval(sel, (e, k) => ((e as HTMLElement).dataset[k] ?? '').split(',').map(Number), key);

describe('published models as presets (Chromium, strict CSP)', () => {
  it('RoPE lab: Phi-3.5-mini sets the controls and uses its own short factors; moving a control makes the settings custom', async () => {
    const { page, problems } = await h.open('#section=rope&r.preset=phi-3.5-mini');
    await reachAndWait(page, '#rope', '#rope .body[data-preset="phi-3.5-mini"]');
    assert.equal(await page.$eval('#rope-preset', (e) => (e as HTMLSelectElement).value), 'phi-3.5-mini');
    assert.equal(await page.$eval('#rope-scaling', (e) => (e as HTMLSelectElement).value), 'longrope');
    // Positions 12 and 5 (default): L = 113 <= 4096, so the short factors: θ'/θ = 1 / short_factor[i], 48 pairs (head dim 96).
    await page.waitForFunction(() => (document.getElementById('rope-ramp')?.dataset.value ?? '').split(',').length === 48);
    const ratio = await numbers(page, '#rope-ramp');
    const short = phi35.rope_scaling.short_factor;
    assert.equal(short.length, 48);
    // The page's stand-in rule has short factors 1: these differ from it.
    assert.ok(short.some((f) => f > 1.5));
    for (const [i, f] of short.entries()) assert.ok(Math.abs(ratio[i]! - 1 / f) <= 4e-7 * (1 / f), `pair ${i}: ${ratio[i]} vs 1/${f}`);
    await screenshot(page, 'rope-preset-phi35', '#rope');
    // A different base is no longer Phi-4-mini: the page's own LongRoPE rule (short factors 1).
    await page.focus('#rope-r-base');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('#rope .body[data-preset="custom"]');
    assert.equal(await page.$eval('#rope-preset', (e) => (e as HTMLSelectElement).value), 'custom');
    await page.waitForFunction(() => (document.getElementById('rope-ramp')?.dataset.value ?? '').split(',').every((v) => Number(v) === 1));
    // Back to the model's base: its own factors return, and the select names it again.
    await page.focus('#rope-r-base');
    await page.keyboard.press('ArrowLeft');
    await page.waitForSelector('#rope .body[data-preset="phi-3.5-mini"]');
    assert.equal(await page.$eval('#rope-preset', (e) => (e as HTMLSelectElement).value), 'phi-3.5-mini');
    // Both lengths (113 and 13) within the original 4096: the note says the score cannot move, and why.
    assert.equal(await page.$eval('#rope-length-note', (e) => (e as HTMLElement).dataset.i18n), 'rope.length.same');
    assert.equal(await page.textContent('#rope-score'), await page.textContent('#rope-score-short'));
    // Picking a preset from the select sets the controls again.
    await page.selectOption('#rope-preset', 'deepseek-v3');
    await page.waitForSelector('#rope .body[data-preset="deepseek-v3"]');
    assert.equal(await page.$eval('#rope [data-param="r.layout"] select', (e) => (e as HTMLSelectElement).value), 'interleaved');
    assert.equal(await page.$eval('#rope [data-param="r.d"] input[type=range]', (e) => (e as HTMLInputElement).value), '64');
    assert.equal(await page.$eval('#rope-r-factor', (e) => (e as HTMLInputElement).getAttribute('aria-valuetext') ?? (e as HTMLInputElement).value), '40');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('wavelength panel: Phi-4-mini at its own scale, Gemma 3\'s global base, then the tiny model again', async () => {
    const { page, problems } = await h.open('#section=extrapolation&wl.model=phi-4-mini');
    await reachAndWait(page, '#wl-panel', '#wl-panel[data-model="phi-4-mini"][data-ready="1"]');
    await page.waitForSelector('#wl-panel[data-method="longrope"]');
    // Unscaled wavelengths 2π·b^(2i/r), r = 96; M = 4096.
    const lambdas = await numbers(page, '#wl-lambdas');
    const want = Array.from({ length: 48 }, (_, i) => 2 * Math.PI * 1e4 ** ((2 * i) / 96));
    assert.equal(lambdas.length, 48);
    for (const [i, w] of want.entries()) assert.ok(Math.abs(lambdas[i]! - w) <= 1e-6 * w, `λ_${i}`);
    assert.equal(await num(page, '#wl-count'), want.filter((w) => w > 4096).length);
    // Its own method, factor and length: LongRoPE x32 at 131072 tokens, past M: the long factors.
    assert.equal(await page.$eval('#wl-panel', (e) => (e as HTMLElement).dataset.len), '131072');
    assert.equal(await page.$eval('#wl-ratio', (e) => (e as HTMLElement).dataset.own), 'true');
    const inv = await numbers(page, '#wl-ratio', 'inv');
    for (const [i, f] of phi4.rope_scaling.long_factor.entries()) {
      const w = 1 / (f * 1e4 ** ((2 * i) / 96));
      assert.ok(Math.abs(inv[i]! - w) <= 2 ** -22 * w, `θ'_${i}: ${inv[i]} vs ${w}`);
    }
    assert.equal(await num(page, '#wl-out-scaled'), 0);
    assert.equal(await page.$eval('#wl-method', (e) => (e as HTMLElement).dataset.key), 'wl.m.longrope.model');
    await screenshot(page, 'wl-preset-phi4', '#wl-panel');

    await page.selectOption('[data-param="wl.model"] select', 'gemma-3-1b-global');
    await page.waitForSelector('#wl-panel[data-model="gemma-3-1b-global"]');
    const g = await numbers(page, '#wl-lambdas');
    assert.equal(g.length, 128);
    const gw = Array.from({ length: 128 }, (_, i) => 2 * Math.PI * 1e6 ** ((2 * i) / 256));
    for (const [i, w] of gw.entries()) assert.ok(Math.abs(g[i]! - w) <= 1e-6 * w, `Gemma global λ_${i}`);
    assert.equal(await num(page, '#wl-count'), gw.filter((w) => w > 32768).length);

    // The panel offers no sliding-window layers (their distances never pass the window).
    assert.deepEqual(await page.$$eval('[data-param="wl.model"] option', (os) => os.map((o) => (o as HTMLOptionElement).value).filter((v) => v.includes('local'))), []);
    await page.selectOption('[data-param="wl.model"] select', 'tiny');
    await page.waitForSelector('#wl-panel[data-model="tiny"]');
    assert.equal((await numbers(page, '#wl-lambdas')).length, 8);
    // Back to the tiny model's own view.
    assert.equal(await page.$eval('#wl-panel', (e) => (e as HTMLElement).dataset.len), '256');
    assert.equal(await page.$eval('#wl-model-note', (e) => (e as HTMLElement).hidden), true);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('in Chinese: the preset names and the model-scale method text', async () => {
    const { page, problems } = await h.open('#section=extrapolation&lang=zh&wl.model=deepseek-v3');
    await reachAndWait(page, '#wl-panel', '#wl-panel[data-model="deepseek-v3"][data-ready="1"]');
    assert.equal(await page.$eval('#wl-method', (e) => (e as HTMLElement).dataset.key), 'wl.m.yarn.model');
    assert.match(await page.textContent('#wl-method') ?? '', /DeepSeek 就是这样/);
    assert.match(await page.$eval('[data-param="wl.model"] select', (e) => (e as HTMLSelectElement).selectedOptions[0]!.text), /DeepSeek-V3（M = 4096）/);
    // DeepSeek-V3's YaRN: mscale = mscale_all_dim, so attention factor 1.
    assert.equal(Number(await page.$eval('#wl-extra', (e) => (e as HTMLElement).dataset.attention)), 1);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
