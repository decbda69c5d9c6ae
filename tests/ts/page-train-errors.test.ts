/**
 * Section 12's runs after other sections have used the Worker's models, and
 * how a failed run is shown: "Extend and train" after a visit to the bug zoo
 * (section 11, whose first calls load the models module while it also loads
 * a model) finishes; a run that fails (its model file unreachable) ends as an
 * error, styled as one, glossed in the reader's language, with the cause.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { reachAndWait, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

describe('section 12 after section 11, and failed runs', () => {
  it('Extend and train works after the bug zoo has run', async () => {
    const { page, problems } = await h.open('#x.model=language-rope&x.method=linear&x.len=128&x.steps=10');
    // The bug zoo's first run (the models module and a model, loaded together).
    await reachAndWait(page, '#bugs .body', '#bugs [data-ready]', 120000);
    await page.$eval('#extend-start', (e) => e.scrollIntoView());
    await page.click('#extend-start');
    await page.waitForSelector('#extend-status[data-done]', { timeout: 120000 });
    const status = await page.$eval('#extend-status', (e) => ({ done: (e as HTMLElement).dataset.done, text: e.textContent, error: e.classList.contains('error') }));
    assert.deepEqual({ done: status.done, error: status.error }, { done: '1', error: false }, status.text ?? '');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a failed run is shown as an error in the reader\'s language, and the next run works', async () => {
    for (const lang of ['en', 'zh'] as const) {
      const { page } = await h.open(`#lang=${lang}&x.model=language-rope&x.method=linear&x.len=128&x.steps=10`);
      // The model file cannot be fetched (the Worker's fetch goes through the page's routes), from the start.
      await page.context().route('**/language-rope.safetensors', (r) => r.fulfill({ status: 503, body: 'unavailable' }));
      await page.reload();
      await page.waitForFunction(() => document.documentElement.dataset.ready === '1', null, { timeout: 60000 });
      await page.$eval('#extend-start', (e) => e.scrollIntoView());
      await page.click('#extend-start');
      await page.waitForSelector('#extend-status[data-done]', { timeout: 120000 });
      const failed = await page.$eval('#extend-status', (e) => ({ done: (e as HTMLElement).dataset.done, text: e.textContent ?? '', error: e.classList.contains('error') }));
      assert.equal(failed.done, 'error', failed.text);
      assert.ok(failed.error, 'styled as an error');
      assert.match(failed.text, /HTTP 503/);
      // English: the library's message as it is; Chinese: a gloss first.
      if (lang === 'zh') assert.match(failed.text, /^出错了/);
      else assert.match(failed.text, /^could not fetch /);
      // The file is back: the same button runs.
      await page.context().unroute('**/language-rope.safetensors');
      await page.click('#extend-start');
      await page.waitForSelector('#extend-status[data-done="1"]', { timeout: 120000 });
      assert.ok(!(await page.$eval('#extend-status', (e) => e.classList.contains('error'))));
      await page.close();
    }
  });
});
