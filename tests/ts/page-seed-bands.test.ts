/**
 * The numbers the page draws conclusions from are seed bands
 * (web/src/data/seed-bands.json, written by `npm run seed-bands`): in
 * Chromium, in English and Chinese, the extrapolation section's families
 * table shows each cell's mean and range, its sentences quote the floor, the
 * spread and the retrieval models that did not learn to copy, and the ALiBi
 * section quotes ALiBi's excess over the floor against RoPE's; every number
 * is computed here from the JSON (mean, min, max over the seeds), not copied
 * from the page's code, and each sentence that ranks two bands says so when
 * they overlap.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { root, screenshot, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

interface SeedBands {
  seeds: number[];
  entropyRate: number;
  trainLen: number;
  data: Record<string, Record<string, Record<string, Array<number | null>>>>;
}
const J = JSON.parse(readFileSync(join(root, 'web/src/data/seed-bands.json'), 'utf8')) as SeedBands;
const FAMILIES = ['sinusoidal', 'learned', 'shaw', 't5', 'rope', 'alibi', 'xpos', 'nope'];
const NAMES_EN: Record<string, string> = { sinusoidal: 'Sinusoidal', learned: 'Learned absolute', shaw: 'Relative keys', t5: 'T5 relative bias', rope: 'RoPE', alibi: 'ALiBi', xpos: 'xPos', nope: 'NoPE' };

const stats = (vs: number[]): { mean: number; min: number; max: number } => ({ mean: vs.reduce((s, v) => s + v, 0) / vs.length, min: Math.min(...vs), max: Math.max(...vs) });
const fmt = (vs: number[], d: number, pct = false): string => {
  const s = stats(vs);
  const f = (v: number): string => (pct ? 100 * v : v).toFixed(d);
  return pct ? `${f(s.mean)}% (${f(s.min)}–${f(s.max)}%)` : `${f(s.mean)} (${f(s.min)}–${f(s.max)})`;
};
/** The same in Chinese: the range in full-width brackets, no space before them (review N9). */
const fmtZh = (vs: number[], d: number): string => fmt(vs, d).replace(/ \((.*)\)$/, '（$1）');
const values = (task: string, enc: string, L: number): number[] | undefined => {
  const vs = J.data[task]?.[enc]?.[String(L)];
  return vs && vs.every((v) => v !== null) ? (vs as number[]) : undefined;
};
const excess = (enc: string): number[] => values('language', enc, J.trainLen)!.map((v) => v - J.entropyRate);
const overlap = (a: number[], b: number[]): boolean => Math.min(...a) <= Math.max(...b) && Math.min(...b) <= Math.max(...a);

async function text(page: Page, sel: string): Promise<string> {
  return (await page.textContent(sel) ?? '').replace(/\s+/g, ' ');
}

describe('seed bands', () => {
  it('the JSON holds at least three seeds for every entry', () => {
    assert.ok(J.seeds.length >= 3, `seeds: ${J.seeds.join(', ')}`);
    for (const task of Object.keys(J.data)) {
      for (const [enc, byLen] of Object.entries(J.data[task]!)) {
        for (const [L, vs] of Object.entries(byLen)) assert.equal(vs.length, J.seeds.length, `${task} ${enc} ${L}`);
      }
    }
  });

  it('the families table and its sentences show the bands of the JSON, in English and Chinese', async () => {
    const { page, problems } = await h.open('#section=extrapolation');
    await page.locator('#fam-table').scrollIntoViewIfNeeded();
    // Every cell: the mean, then the lowest and highest seed.
    for (const enc of FAMILIES) {
      for (const [task, prefix, Ls, d, pct] of [['language', 'loss', [64, 256, 512], 3, false], ['retrieval', 'acc', [64, 512], 0, true]] as const) {
        for (const L of Ls) {
          const id = `#fam-${prefix}-${enc}-${L}`;
          const vs = values(task, enc, L);
          const shown = await text(page, id);
          if (vs === undefined) {
            assert.equal(shown.trim(), '—', id);
            continue;
          }
          const s = stats(vs);
          const f = (v: number): string => (pct ? `${(100 * v).toFixed(d)}%` : v.toFixed(d));
          assert.equal(shown.trim(), `${f(s.mean)}${f(s.min)}–${f(s.max)}`, id);
        }
      }
    }
    // The floor sentence: best and worst mean at the training length, the floor, sinusoidal's excess.
    const ranked = FAMILIES.filter((e) => values('language', e, J.trainLen)).sort((a, b) => stats(values('language', a, J.trainLen)!).mean - stats(values('language', b, J.trainLen)!).mean);
    const [best, worst] = [ranked[0]!, ranked[ranked.length - 1]!];
    const floor = await text(page, '#fam-floor');
    for (const want of [`from ${fmt(values('language', best, J.trainLen)!, 3)} nats per token for ${NAMES_EN[best]}`, `to ${fmt(values('language', worst, J.trainLen)!, 3)} for ${NAMES_EN[worst]}`,
      `floor of ${J.entropyRate.toFixed(3)}`, `ends ${fmt(excess('sinusoidal'), 3)} nats above the floor`]) {
      assert.ok(floor.includes(want), `${want} in: ${floor}`);
    }
    // The ranking's top: tied when another family's range reaches the best one's.
    const tied = ranked.slice(1).filter((e) => overlap(values('language', e, J.trainLen)!, values('language', best, J.trainLen)!));
    const tie = await text(page, '#fam-tie');
    if (tied.length > 0) {
      assert.match(tie, /depends on the seed/);
      for (const e of tied) assert.ok(tie.includes(NAMES_EN[e]!), `${e} in: ${tie}`);
    } else {
      assert.ok(tie.includes(`${NAMES_EN[best]} comes first in every run`), tie);
    }
    // Retrieval: the families below 50% at the training length in every seed, and in some.
    const acc = (e: string): number[] => values('retrieval', e, J.trainLen)!;
    const weakAll = FAMILIES.filter((e) => Math.max(...acc(e)) < 0.5);
    const weakSome = FAMILIES.filter((e) => Math.min(...acc(e)) < 0.5 && Math.max(...acc(e)) >= 0.5);
    const copy = await text(page, '#fam-copy');
    for (const e of weakAll) assert.ok(copy.includes(NAMES_EN[e]!), `${e} in: ${copy}`);
    if (weakAll.length === 0) assert.match(copy, /at least one run/);
    const some = await text(page, '#fam-some');
    for (const e of weakSome) assert.ok(some.includes(NAMES_EN[e]!), `${e} in: ${some}`);
    if (weakSome.length === 0) assert.equal(some.trim(), '');
    // Loss at 512 over loss at 64, per seed: the families within 5% in every seed.
    const ratio = (e: string): number[] => values('language', e, 512)!.map((v, i) => v / values('language', e, J.trainLen)![i]!);
    const stable = FAMILIES.filter((e) => values('language', e, 512) && Math.max(...ratio(e)) < 1.05);
    assert.deepEqual((await page.$eval('#fam-stable', (e) => (e as HTMLElement).dataset.names ?? '')).split(',').filter(Boolean).sort(), [...stable].sort());
    for (const e of FAMILIES.filter((x) => values('language', x, 512))) {
      assert.ok((await text(page, `#fam-ratios [data-model="${e}"]`)).includes(fmt(ratio(e), 2).replace(' (', '× (')), e);
    }

    // The why: Shaw's clip distance is the shipped model's own (its safetensors metadata).
    const shaw = readFileSync(join(root, 'web/models/language-shaw.safetensors'));
    const hn = Number(shaw.readBigUInt64LE(0));
    const meta = (JSON.parse(shaw.subarray(8, 8 + hn).toString('utf8')) as { __metadata__: Record<string, string> }).__metadata__;
    await page.waitForSelector('#fam-look [data-clip]', { timeout: 60000 });
    assert.match(await text(page, '#fam-look'), new RegExp(`k = ${meta.shaw_clip},`));
    await screenshot(page, 'extrapolation-families', '#families');
    await page.click('#lang-switch');
    const floorZh = await text(page, '#fam-floor');
    for (const want of [fmtZh(values('language', best, J.trainLen)!, 3), `下限是 ${J.entropyRate.toFixed(3)}`, `比下限高 ${fmtZh(excess('sinusoidal'), 3)}nats`]) {
      assert.ok(floorZh.includes(want), `${want} in: ${floorZh}`);
    }
    for (const e of FAMILIES.filter((x) => values('language', x, 512))) {
      assert.ok((await text(page, `#fam-ratios [data-model="${e}"]`)).includes(fmtZh(ratio(e), 2).replace('（', '×（')), `${e} in Chinese`);
    }
    const tieZh = await text(page, '#fam-tie');
    assert.match(tieZh, tied.length > 0 ? /取决于随机种子/ : /都排第一/);
    await screenshot(page, 'extrapolation-families-zh', '#families');
    await page.click('#lang-switch');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the ALiBi section gives ALiBi’s excess over the floor at the training length against RoPE’s, from the JSON', async () => {
    const { page, problems } = await h.open('#section=bias');
    const alibi = excess('alibi'), rope = excess('rope');
    const ratio = alibi.map((a, i) => a / rope[i]!);
    const en = await text(page, '#bias-cost');
    for (const want of [`end ${fmt(alibi, 3)} nats per token above`, `RoPE’s ${fmt(rope, 3)}`, `${fmt(ratio, 1)} times RoPE’s`, `${J.seeds.length} training runs`]) {
      assert.ok(en.includes(want), `${want} in: ${en}`);
    }
    assert.match(en, /may not carry over to real models/);
    assert.match(en, overlap(alibi, rope) ? /ranges overlap/ : /do not overlap/);
    await screenshot(page, 'bias-cost', '#bias-cost');
    await page.click('#lang-switch');
    const zh = await text(page, '#bias-cost');
    for (const want of [`高出 ${fmtZh(alibi, 3)}nats`, `RoPE 高出 ${fmtZh(rope, 3)}`, `是 RoPE 的 ${fmtZh(ratio, 1)}倍`, `各训练 ${J.seeds.length} 次`]) {
      assert.ok(zh.includes(want), `${want} in: ${zh}`);
    }
    assert.match(zh, overlap(alibi, rope) ? /有重叠/ : /没有重叠/);
    await page.click('#lang-switch');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
