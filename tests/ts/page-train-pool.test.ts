/**
 * Section 12 trains on every core through the Worker pool (posenc/pool, started by the page's Worker):
 * the status names how many cores a run used (the pool's Workers: the core count, at most 4), and the
 * run's losses are pe.train's in Node, bit for bit (the pool sums gradients in pe.train's order), in
 * English and Chinese; "Extend and train" reports its cores too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { init, type TrainConfig } from 'posenc';

import { startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

/** The last progress row's loss of pe.train in Node (progress every 10 steps, as the page asks). */
async function nodeLastLoss(config: TrainConfig): Promise<{ first: number; last: number }> {
  const pe = await init({ simd: true });
  const losses: number[] = [];
  const m = await pe.train(config, { chunk: 10, onProgress: (p) => losses.push(p.loss) });
  m.delete();
  return { first: losses[0]!, last: losses.at(-1)! };
}

describe('section 12 on every core', () => {
  it('trains through the pool: the core count beside steps/s, pe.train\'s losses bit for bit', async () => {
    const want = await nodeLastLoss({ task: 'language', encoding: 'rope', steps: 20, seqLen: 64, seed: 2 });
    for (const lang of ['en', 'zh'] as const) {
      const { page, problems } = await h.open(`#lang=${lang}&t.task=language&t.enc=rope&t.steps=20&t.seed=2`);
      const cores = await page.evaluate(() => Math.min(4, navigator.hardwareConcurrency));
      await page.$eval('#train-start', (e) => e.scrollIntoView());
      await page.click('#train-start');
      await page.waitForSelector('#train-status[data-done="1"]', { timeout: 120000 });
      const got = await page.$eval('#train-status', (e) => {
        const d = (e as HTMLElement).dataset;
        return { cores: d.cores, first: d.first, last: d.last, text: e.textContent ?? '' };
      });
      assert.equal(Number(got.cores), cores, 'one Worker per core, at most 4');
      assert.equal(got.first, String(want.first), 'the first step\'s loss');
      assert.equal(got.last, String(want.last), 'the last step\'s loss');
      // A language model shows up in section 10 (the only link of the "where it appears" note).
      assert.deepEqual(await page.$$eval('#train-where:not([hidden]) a', (as) => as.map((a) => a.getAttribute('href'))), ['#extrapolation']);
      if (lang === 'en') assert.match(got.text, new RegExp(`steps/s on ${cores === 1 ? 'one core' : `${cores} cores`}\\)`));
      else assert.match(got.text, new RegExp(`（${cores} 个核心，每秒`));
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('"Extend and train" reports its cores', async () => {
    const { page, problems } = await h.open('#x.model=language-rope&x.method=linear&x.len=128&x.steps=10');
    const cores = await page.evaluate(() => Math.min(4, navigator.hardwareConcurrency));
    await page.$eval('#extend-start', (e) => e.scrollIntoView());
    await page.click('#extend-start');
    await page.waitForSelector('#extend-status[data-done="1"]', { timeout: 120000 });
    assert.equal(await page.$eval('#extend-status', (e) => (e as HTMLElement).dataset.cores), String(cores));
    // Linear: the scaled model and, for comparison, the unscaled one, 10 steps each.
    assert.match(await page.textContent('#extend-status') ?? '', new RegExp(`^10 steps with the scaling and 10 without it in \\d+\\.\\d s \\(\\d+\\.\\d steps/s on ${cores} cores\\)\\.$`));
    assert.deepEqual(problems, []);
    await page.close();
  });
});
