/**
 * The page does not keep what it drops: moving the ALiBi head-count slider
 * rebuilds one map (and its colour bar) per head, and a hundred moves with
 * language switches between them leave the JS heap, after a full garbage
 * collection, within a few megabytes of where it started. (Language-change
 * listeners used to hold every heatmap ever made, with its data and pixels:
 * about 0.5 MB per move at these settings.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { CDPSession, Page } from 'playwright-core';

import { reachAndWait, setRange, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

/** Bytes the page's JS holds after a full collection: V8's used heap and, when Chromium reports them, ArrayBuffer backing stores. */
async function heapAfterGc(cdp: CDPSession): Promise<{ metric: number; used: number; backing: number }> {
  for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const metric = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN;
  const usage = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; backingStorageSize?: number };
  return { metric, used: usage.usedSize, backing: usage.backingStorageSize ?? 0 };
}

/** Waits until the page has drawn a frame (the slider's update is coalesced to one per frame). */
const frame = (page: Page): Promise<void> => page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));

const MB = 1024 * 1024;
/** How far the heap may end above where it started (a leak of the maps is about 50 MB). */
const BOUND = 8 * MB;

describe('page heap', () => {
  it('comes back after a hundred head-count moves and language switches', async () => {
    const { page, problems } = await h.open('#bias&b.heads=16&b.len=64');
    await reachAndWait(page, '#alibi-maps canvas.heatmap');
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await cdp.send('HeapProfiler.enable');
    const heads = '#bias input[type="range"] >> nth=0';
    const sel = await page.locator(heads).evaluate((e) => {
      e.id ||= 'heap-test-heads';
      return `#${e.id}`;
    });
    const move = async (i: number): Promise<void> => {
      const H = i % 2 === 0 ? 15 : 16;
      await setRange(page, sel, H);
      await frame(page);
      assert.equal(await page.$$eval('#alibi-maps canvas.heatmap:not(.colour-bar)', (cs) => cs.length), H);
    };
    const switchLang = async (): Promise<void> => {
      await page.click('#lang-switch');
      await frame(page);
    };
    // Warm up: everything loaded once (the other language, code paths, caches).
    for (let i = 0; i < 10; i++) await move(i);
    await switchLang();
    await switchLang();
    const start = await heapAfterGc(cdp);
    for (let i = 0; i < 100; i++) {
      await move(i);
      if (i % 10 === 9) await switchLang();
    }
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
    const end = await heapAfterGc(cdp);
    const grew = (end.used + end.backing) - (start.used + start.backing);
    const line = (n: string, a: number, b: number): string => `${n}: ${(a / MB).toFixed(1)} MB -> ${(b / MB).toFixed(1)} MB`;
    console.log([line('JSHeapUsedSize', start.metric, end.metric), line('V8 used', start.used, end.used), line('ArrayBuffer backing stores', start.backing, end.backing),
      `grew ${(grew / MB).toFixed(1)} MB (bound ${BOUND / MB} MB)`].join('\n'));
    assert.ok(grew < BOUND, `the heap grew by ${(grew / MB).toFixed(1)} MB over 100 moves (bound ${BOUND / MB} MB)`);
    assert.ok(end.metric - start.metric < BOUND, `JSHeapUsedSize grew by ${((end.metric - start.metric) / MB).toFixed(1)} MB`);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
