/**
 * Sections RoPE lab, ALiBi / T5 and "train short, test long":
 * every heatmap there carries axes and a colour bar; the ALiBi maps use one
 * colour scale per head so every head shows; the ALiBi distance lines equal
 * -s_h * distance with the paper's slopes (float64 reference); RoPE's score
 * stays flat as both positions shift, except for the length-dependent
 * scalings past the original context; the extrapolation charts keep one
 * colour per encoding and show no '--' placeholders; the position controls
 * reach small values. Screenshots in both languages, light and dark, 390 px.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';
import { init } from 'posenc';

import { canvasPixels, reachAndWait, root, screenshot, setRange, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

/** Press et al.: 2^(-8(h+1)/n) for n a power of two; otherwise c = 2^floor(log2 H) of those, then every other slope of the 2c rule. */
function paperSlopes(H: number): number[] {
  const pow2 = (n: number): number[] => Array.from({ length: n }, (_, i) => 2 ** (-8 * (i + 1) / n));
  const c = 2 ** Math.floor(Math.log2(H));
  return [...pow2(c), ...pow2(2 * c).filter((_, i) => i % 2 === 0)].slice(0, H);
}

async function reachSections(page: Page): Promise<void> {
  // Instant scrolling, so that each section really comes near (whenNear).
  await page.addStyleTag({ content: 'html { scroll-behavior: auto !important; }' });
  for (const id of ['rope', 'bias', 't5-learned', 'extrapolation', 'ext-map-axes']) {
    await page.$eval(`#${id}`, (e) => e.scrollIntoView());
    await page.waitForTimeout(250);
  }
}

/** Heatmaps (not colour bars) of a section without axes, ticks, axis names or a colour bar. */
function unaxed(page: Page, section: string): Promise<string[]> {
  return page.$$eval(`#${section} canvas.heatmap:not(.colour-bar)`, (cs) => cs.flatMap((c) => {
    const box = c.closest('.axed');
    const name = c.id || c.getAttribute('aria-label') || '?';
    if (!box) return [`${name}: no axes`];
    const txt = (sel: string): string => box.querySelector(sel)?.textContent?.trim() ?? '';
    const bad: string[] = [];
    for (const sel of ['.t-top', '.t-bottom', '.t-left', '.t-right', '.t-hi', '.t-lo']) if (!txt(sel)) bad.push(`${name}: empty ${sel}`);
    const names = Array.from(box.querySelectorAll('.ax-name'), (e) => e.textContent?.trim() ?? '');
    if (names.length !== 3 || names.some((n) => !n)) bad.push(`${name}: axis names ${JSON.stringify(names)}`);
    const bar = box.querySelector<HTMLCanvasElement>('canvas.colour-bar');
    if (!bar || bar.getBoundingClientRect().height < 20) bar ? bad.push(`${name}: colour bar too small`) : bad.push(`${name}: no colour bar`);
    return bad;
  }));
}

/** Colour distance between the bottom-left cell (farthest key of the last query) and the bottom-right (distance 0) of each ALiBi map. */
async function alibiContrast(page: Page): Promise<number[]> {
  const maps = await canvasPixels(page, '#alibi-maps canvas.heatmap:not(.colour-bar)');
  return maps.map(({ width: n, data }) => {
    const at = (x: number, y: number): number[] => data.slice(4 * (y * n + x), 4 * (y * n + x) + 3);
    const a = at(0, n - 1), b = at(n - 1, n - 1);
    return Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);
  });
}

describe('RoPE, ALiBi / T5 and extrapolation visuals (Chromium, strict CSP)', () => {
  it('every heatmap of the three sections carries axes and a colour bar; hover read-outs clear', async () => {
    const { page, problems } = await h.open('#e.len=128&b.heads=16&e.mapLen=128');
    await reachSections(page);
    await reachAndWait(page, '#t5-learned', '#t5-learned[data-ready="1"]');
    await page.waitForSelector('#ext-map-axes[data-ready="128"]', { timeout: 60000 });
    for (const id of ['rope', 'bias', 'extrapolation']) {
      const count = await page.$$eval(`#${id} canvas.heatmap:not(.colour-bar)`, (cs) => cs.length);
      assert.ok(count >= 1, `${id}: heatmaps`);
      assert.deepEqual(await unaxed(page, id), [], id);
    }
    // 16 ALiBi heads + bucket map + learned heads.
    assert.ok(await page.$$eval('#bias canvas.heatmap:not(.colour-bar)', (cs) => cs.length) >= 18);
    // The long attention map is on a log scale by default, and says so.
    assert.equal(await page.$eval('#ext-map-axes', (e) => (e as HTMLElement).dataset.scale), 'log');
    assert.match(await page.$eval('#ext-map-axes .ax-value', (e) => e.textContent ?? ''), /log/);
    // Hover read-out, then the mouse leaves: the read-out is blank again.
    await page.$eval('#ext-map', (e) => e.scrollIntoView({ block: 'center' }));
    await page.waitForTimeout(200);
    const box = (await page.locator('#ext-map').boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.2, box.y + box.height * 0.8);
    const shown = await page.$eval('#ext-map-axes .readout', (e) => e.textContent ?? '');
    assert.match(shown, /\d/, `read-out while hovering: ${shown}`);
    await page.mouse.move(box.x + box.width * 0.2, box.y - 60);
    assert.equal((await page.$eval('#ext-map-axes .readout', (e) => e.textContent ?? '')).trim(), '');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('ALiBi: one colour scale per head lets every head show; a shared one leaves the gentle heads nearly blank', async () => {
    const { page, problems } = await h.open('#b.heads=16&b.len=32&b.perhead=1');
    const per = await alibiContrast(page);
    assert.equal(per.length, 16);
    per.forEach((d, i) => assert.ok(d > 100, `per-head scale, head ${i}: contrast ${d}`));
    await page.uncheck('#bias input[type="checkbox"] >> nth=0');
    await page.waitForTimeout(150);
    assert.match(page.url(), /b\.perhead=0/);
    const shared = await alibiContrast(page);
    assert.ok(shared[15]! < 0.2 * shared[0]!, `shared scale: the gentlest head ${shared[15]} vs the steepest ${shared[0]}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('ALiBi distance lines equal -s_h * distance with the paper\'s slopes (float64 reference)', async () => {
    for (const H of [6, 16]) {
      const L = 32;
      const { page, problems } = await h.open(`#b.heads=${H}&b.variant=paper&b.len=${L}`);
      await page.waitForSelector('#alibi-lines[data-value]');
      const lines = JSON.parse(await page.$eval('#alibi-lines', (e) => (e as HTMLElement).dataset.value!)) as number[][];
      const slopes = paperSlopes(H);
      assert.equal(lines.length, H);
      lines.forEach((line, hd) => {
        assert.equal(line.length, L);
        line.forEach((v, d) => {
          const want = -slopes[hd]! * d;
          assert.ok(Math.abs(v - want) <= 1e-6 * Math.max(1, Math.abs(want)), `H=${H} head ${hd} distance ${d}: ${v} vs ${want}`);
        });
      });
      // One legend entry per head, naming its slope.
      const legend = await page.$$eval('#alibi-lines .u-legend .u-series .u-label', (ls) => ls.map((l) => l.textContent ?? ''));
      assert.equal(legend.length, H + 1);
      assert.match(legend[1]!, new RegExp(`s = ${slopes[0]!.toPrecision(3).replace('.', '\\.')}`));
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('RoPE shift invariance: flat for fixed scalings, broken past the original context for dynamic NTK and LongRoPE', async () => {
    const { page, problems } = await h.open('#r.orig=64&r.m=12&r.n=5&r.factor=4');
    for (const s of ['default', 'linear', 'ntk', 'yarn', 'llama3', 'dynamic', 'longrope']) {
      await page.selectOption('#rope-scaling', s);
      await page.waitForTimeout(150);
      const ys = (await page.$eval('#rope-shift-plot', (e) => (e as HTMLElement).dataset.value!)).split(',').map(Number);
      const xs = (await page.$eval('#rope-shift-plot', (e) => (e as HTMLElement).dataset.shifts!)).split(',').map(Number);
      const brk = await page.$eval('#rope-shift-plot', (e) => (e as HTMLElement).dataset.break ?? '');
      const y0 = ys[0]!;
      assert.ok(Math.abs(y0) > 1e-3, `${s}: a non-trivial score`);
      // float32 rotations: relative error ~1e-6 at these positions.
      const tol = 1e-4 * Math.max(1, Math.abs(y0));
      const dev = ys.map((y) => Math.abs(y - y0));
      if (s === 'dynamic' || s === 'longrope') {
        // L = max(m, n) + s + 1 passes 64 at s = 64 - 12 = 52: flat before, not after.
        assert.equal(brk, '52', `${s}: marked break`);
        xs.forEach((x, i) => { if (x < 52) assert.ok(dev[i]! <= tol, `${s}: s=${x} before the break moved by ${dev[i]}`); });
        assert.ok(Math.max(...dev) > 1e-2, `${s}: the score moves past the break (${Math.max(...dev)})`);
      } else {
        assert.equal(brk, '', `${s}: no break marked`);
        assert.ok(Math.max(...dev) <= tol, `${s}: flat (largest change ${Math.max(...dev)})`);
      }
      assert.equal(await page.isVisible('#rope-r-factor'), s !== 'default', `${s}: Factor shown only when it applies`);
      assert.equal(await page.isVisible('#rope-r-orig'), !['default', 'linear', 'ntk'].includes(s), `${s}: Original context`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('RoPE controls: small positions by slider and number box; one arrow key = one sensible step', async () => {
    const { page, problems } = await h.open('#r.m=12&r.n=5&r.scaling=linear&r.factor=4&r.base=10000');
    // The first range in #rope moves m, one position per step at small values (bench hook).
    await setRange(page, '#rope input[type="range"]', 3);
    await page.waitForTimeout(100);
    assert.match(page.url(), /r\.m=3(&|$)/);
    assert.equal(await page.$eval('#rope .pos-number', (e) => (e as HTMLInputElement).value), '3');
    // Its far end is 8192.
    const max = await page.$eval('#rope input[type="range"]', (e) => (e as HTMLInputElement).max);
    await setRange(page, '#rope input[type="range"]', Number(max));
    await page.waitForTimeout(100);
    assert.match(page.url(), /r\.m=8192/);
    // The number box sets an exact value and moves the slider.
    await page.fill('#rope .pos-number >> nth=1', '7');
    await page.waitForTimeout(100);
    assert.match(page.url(), /r\.n=7(&|$)/);
    // Arrow keys: Factor 4 -> 6, Base 10000 -> 20000.
    await page.focus('#rope-r-factor');
    await page.keyboard.press('ArrowRight');
    await page.focus('#rope-r-base');
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(250);
    assert.equal(await page.$eval('#rope-r-factor', (e) => e.getAttribute('aria-valuetext')), '6');
    assert.equal(await page.$eval('#rope-r-base', (e) => e.getAttribute('aria-valuetext')), '20000');
    assert.match(page.url(), /r\.factor=6/);
    assert.match(page.url(), /r\.base=20000/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('extrapolation charts: one colour per encoding in every chart, power-of-two ticks, no "--" in legends, where learned stops', async () => {
    const { page, problems } = await h.open('#e.len=128&e.scaling=yarn');
    await reachSections(page);
    await page.waitForSelector('#ext-loss[data-ready="128"]', { timeout: 120000 });
    await page.waitForSelector('#ext-retrieval[data-ready="1"]', { timeout: 120000 });
    const series = async (id: string): Promise<Map<string, string>> =>
      new Map(JSON.parse(await page.$eval(id, (e) => (e as HTMLElement).dataset.series!)) as Array<[string, string]>);
    const loss = await series('#ext-loss'), ret = await series('#ext-retrieval');
    // The legends use the encodings' display names, in English too (review B4).
    for (const e of ['NoPE', 'Sinusoidal', 'Learned', 'RoPE', 'ALiBi', 'T5', 'Shaw', 'xPos']) {
      assert.ok(loss.has(e) && ret.has(e), `${e} in both charts`);
      assert.equal(loss.get(e), ret.get(e), `${e}: same colour in both charts`);
    }
    assert.equal(new Set([...ret.values()]).size, ret.size, 'distinct colours');
    // The scaled RoPE curve has a colour of its own, shared with no encoding (review 3, item 7); dropping it changes no other colour.
    assert.ok(loss.has('RoPE + YaRN ×4'));
    assert.equal(new Set([...loss.values()]).size, loss.size, 'distinct colours in the loss chart');
    await page.selectOption('#ext-scaling', 'none');
    await page.waitForSelector('#ext-loss[data-ready="128"]');
    await page.waitForTimeout(300);
    const after1 = await series('#ext-loss');
    for (const [k, v] of after1) assert.equal(v, loss.get(k), `${k} keeps its colour`);
    // Ticks of the retrieval length axis: the lengths themselves, plain.
    assert.equal(await page.$eval('#ext-retrieval', (e) => (e as HTMLElement).dataset.xticks), '64,128,256,512,1024');
    // The position axis starts where the losses start: the language task's first scored position
    // (1-based; the package in Node), then the powers of two (review N12: no empty 1–2 range).
    const { targets } = await (await init({ simd: true })).sampleTask({ task: 'language', length: 32 });
    const first = targets.findIndex((v) => v >= 0) + 1;
    assert.ok(first > 1, `first scored position ${first}`);
    assert.equal(await page.$eval('#ext-loss', (e) => (e as HTMLElement).dataset.firstX), String(first));
    // The charts are one run per recipe: the page says so and points to the table of all the seeds (review N12).
    const seeds = (JSON.parse(readFileSync(join(root, 'web/src/data/seed-bands.json'), 'utf8')) as { seeds: number[] }).seeds.length;
    assert.match(await page.textContent('#ext-one-seed') ?? '', new RegExp(`one training run of each recipe.*the range of ${seeds} runs`));
    // The trained models' control row says it is not the wavelength panel's.
    assert.match(await page.$eval('#ext-controls', (e) => e.nextElementSibling?.textContent ?? ''), /separate from the analysis controls above/);
    assert.equal(await page.$eval('#ext-loss', (e) => (e as HTMLElement).dataset.xticks), [first, ...[1, 2, 4, 8, 16, 32, 64, 128].filter((v) => v > first)].join(','));
    // No '--' placeholders visible in any legend of the three sections.
    await page.mouse.move(2, 2);
    const dashes = await page.$$eval('#rope .u-legend td, #bias .u-legend td, #extrapolation .u-legend td',
      (tds) => tds.filter((td) => (td as HTMLElement).offsetParent !== null && td.textContent?.trim() === '--').length);
    assert.equal(dashes, 0);
    // The learned model's line stops at its table size, and the page says so.
    const stops = JSON.parse(await page.$eval('#ext-stops', (e) => (e as HTMLElement).dataset.value!)) as Record<string, number>;
    assert.equal(stops.learned, 64);
    assert.match(await page.textContent('#ext-stops') ?? '', /64/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('screenshots: English and Chinese, light and dark, 390 px', async () => {
    for (const [hash, viewport, tag] of [
      ['#b.heads=16', { width: 1280, height: 900 }, 'en-light'],
      ['#lang=zh&theme=dark&b.heads=16', { width: 1280, height: 900 }, 'zh-dark'],
      ['#lang=zh&b.heads=8', { width: 390, height: 800 }, '390-zh-light'],
      ['#theme=dark&b.heads=8', { width: 390, height: 800 }, '390-en-dark'],
    ] as const) {
      const { page, problems } = await h.open(`${hash}&e.len=256`, viewport);
      await reachSections(page);
      await reachAndWait(page, '#t5-learned', '#t5-learned[data-ready="1"]');
      await page.waitForSelector('#ext-loss[data-ready="256"]', { timeout: 120000 });
      await page.waitForSelector('#ext-retrieval[data-ready="1"]', { timeout: 120000 });
      await page.waitForSelector('#ext-map-axes[data-ready]', { timeout: 60000 });
      // This file's visuals fit the width (maps with axes, charts, figures, position controls).
      const overflow = await page.$$eval('#rope, #bias, #extrapolation', (ss) => ss.flatMap((s) => {
        const right = s.getBoundingClientRect().right + 0.5;
        return Array.from(s.querySelectorAll('.axed, .plot, figure, .pos-control, canvas.pairs'))
          .filter((e) => e.getBoundingClientRect().right > right).map((e) => `${s.id}: ${e.tagName}.${e.className}`);
      }));
      assert.deepEqual(overflow, [], `${tag}: no horizontal overflow`);
      for (const id of ['rope', 'bias', 'extrapolation']) await screenshot(page, `figures-${id}-${tag}`, `#${id}`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
});
