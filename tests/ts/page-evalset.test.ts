/**
 * One evaluation set for the shipped language models (review 3, F1): in one
 * page load, the loss a section shows for a shipped model at the training
 * length is the same number in the reference section (8), Position ids (9:
 * the window table and the padding panel's table at 64 real tokens), RoPE
 * bugs (11) and Extend and train (12: the unscaled model before training,
 * inside the old length). Each is seed 1's value of the families table
 * (web/src/data/seed-bands.json: the page's set is the seed bands' own
 * sequences), and the set size the page states is that file's. English and
 * Chinese.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { num, reachAndWait, root, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

const bands = JSON.parse(readFileSync(join(root, 'web/src/data/seed-bands.json'), 'utf8')) as {
  trainLen: number; evaluation: { dataSeed: number; examples: { language: Record<string, number> } };
  data: { language: Record<string, Record<string, Array<number | null>>> };
};
const M = bands.trainLen;
const N = bands.evaluation.examples.language[String(M)]!;
const SEED = bands.evaluation.dataSeed;
/** Seed 1 (the shipped model) of the families table at the training length, as the page rounds it. */
const seed1 = (enc: string): string => bands.data.language[enc]![String(M)]![0]!.toFixed(3);

const shown = (page: Page, sel: string): Promise<string> => page.$eval(sel, (e) => (e.textContent ?? '').trim());

/** The numbers every section shows for the shipped learned and RoPE models at M tokens, and the texts that state the set. */
async function collect(page: Page): Promise<{ learned: string[]; rope: string[]; ropeValues: number[]; notes: string[] }> {
  await page.addStyleTag({ content: 'html { scroll-behavior: auto !important; }' });
  // Section 8: the learned model's printout.
  await reachAndWait(page, '#ex-learned', '#ex-learned-model[data-ready="1"]', 120000);
  const printout = await shown(page, '#ex-learned-model');
  const l8 = /-> loss (\d+\.\d+)/.exec(printout)?.[1] ?? '';
  assert.match(printout, new RegExp(`examples: ${N}, seed: ${SEED}`), printout);
  // Section 9: the window table (correct column: full attention, the trained ids), and the padding panel at M real tokens.
  await reachAndWait(page, '#positions .body', '#pos-loss[data-ready="window"]', 180000);
  await reachAndWait(page, '#pad-absolute', '#pad-absolute[data-ready="1"]', 180000);
  // Section 11: the default bug on the RoPE model, at M tokens.
  await reachAndWait(page, '#bugs .body', '#bugs [data-ready="language-rope:rope-on-embeddings"]', 180000);
  assert.equal(await page.$eval('#bug-set', (e) => (e as HTMLElement).dataset.examples), String(N));
  // Section 12: extend with a scaling (the unscaled rows appear).
  await page.$eval('#extend-start', (e) => e.scrollIntoView());
  await page.click('#extend-start');
  await page.waitForSelector('#extend-status[data-done="1"]', { timeout: 180000 });
  const computed = Number(await page.$eval('#extend-base-near', (e) => (e as HTMLElement).dataset.computed));
  const baseNear = await num(page, '#extend-base-near');
  // The table's number is the evaluation set's; the 128-token run's own mean over the same positions agrees (causal).
  assert.ok(Math.abs(computed - baseNear) < 1e-9, `${computed} vs ${baseNear}`);
  const ropeIds = ['#pos-loss-clean-language-rope', '#pad-loss-64-clean-language-rope', '#bug-loss-clean', '#extend-base-near'];
  return {
    learned: [l8, await shown(page, '#pos-loss-clean-language-learned'), await shown(page, '#pad-loss-64-clean-language-learned')],
    rope: await Promise.all(ropeIds.map((s) => shown(page, s))),
    ropeValues: await Promise.all(ropeIds.map((s) => num(page, s))),
    notes: await Promise.all(['#ex-learned-about', '#pos-loss', '#pad-note-64', '#bug-set'].map((s) => shown(page, s))),
  };
}

describe('one evaluation set for the shipped models (Chromium)', () => {
  it(`the same model at ${M} tokens shows one number in sections 8, 9, 11 and 12, seed 1's value, on the ${N} sequences the page states`, async () => {
    const hash = `p.sc=window&p.T=${M}&p.W=4&z.bug=rope-on-embeddings&x.model=language-rope&x.method=linear&x.len=${2 * M}&x.steps=10`;
    for (const lang of ['en', 'zh'] as const) {
      const { page, problems } = await h.open(`#lang=${lang}&${hash}`);
      const r = await collect(page);
      assert.deepEqual(r.learned, Array(r.learned.length).fill(seed1('learned')), `${lang} learned: ${r.learned.join(', ')}`);
      assert.deepEqual(r.rope, Array(r.rope.length).fill(seed1('rope')), `${lang} RoPE: ${r.rope.join(', ')}`);
      // Sections 9 and 11 share one evaluation (the same float).
      assert.equal(new Set(r.ropeValues).size, 1, r.ropeValues.join(', '));
      // The set's size and length as the page states them.
      const [s8, s9, s9b, s11] = r.notes as [string, string, string, string];
      if (lang === 'en') {
        assert.match(s8, new RegExp(`evaluated here on the page’s evaluation set: ${N} sequences of ${M} tokens \\(data seed ${SEED}\\)`), s8);
        assert.match(s8, /it is seed 1 of the 3 runs there, and the table’s mean and range add 2 runs of the same recipe with other seeds/, s8);
        assert.match(s9, new RegExp(`the page’s evaluation set \\(${N} sequences of ${M} tokens\\)`), s9);
        assert.match(s9b, new RegExp(`^${N} sequences of ${M} real tokens`), s9b);
        assert.match(s11, new RegExp(`on the page’s evaluation set, ${N} sequences of ${M} tokens \\(data seed ${SEED}\\)`), s11);
        assert.doesNotMatch(await shown(page, '#fam-shipped'), /differ a little|one more training run/);
      } else {
        assert.match(s8, new RegExp(`这里用本页的评估集评估：${N} 条 ${M} 个 token 的序列（数据种子 ${SEED}）`), s8);
        assert.match(s9, new RegExp(`本页的评估集（${N} 条 ${M} 个 token 的序列）`), s9);
        assert.match(s9b, new RegExp(`^${N} 条序列（本页的评估集），每条 ${M} 个真实 token`), s9b);
        assert.match(s11, new RegExp(`${N} 条 ${M} 个 token 的序列（数据种子 ${SEED}）`), s11);
      }
      assert.match(await shown(page, '#fam-shipped'), new RegExp(lang === 'en' ? `at ${M} tokens on this table’s ${N} sequences` : `用的也是这张表的 ${N} 条序列`));
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
});
