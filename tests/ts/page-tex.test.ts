/**
 * The page's TeX: the formulas written in its sources are typeset at build
 * time (tools/tex-prerender.mjs), so the first section draws before KaTeX
 * is even fetched; KaTeX loads afterwards for formulas built at run time,
 * and nothing is left untypeset once the page is ready, in either language.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

describe('TeX typeset at build time (Chromium, strict CSP)', () => {
  it('section 1 draws with its formula before KaTeX is requested', async () => {
    const { page, problems } = await h.open('');
    const t = await page.evaluate(() => {
      const drawn = performance.getEntriesByName('posenc:mount:order')[0];
      const katex = performance.getEntriesByType('resource').find((e) => /\/katex-[^/]*\.js$/.test(e.name));
      return { mounted: drawn ? drawn.startTime + drawn.duration : NaN, katex: katex?.startTime ?? NaN, formula: document.querySelectorAll('#order .explain .katex').length };
    });
    assert.ok(t.formula >= 1, 'section 1 shows its formula typeset');
    assert.ok(Number.isFinite(t.katex), 'KaTeX is loaded (for formulas built at run time)');
    assert.ok(t.katex > t.mounted, `KaTeX requested at ${t.katex.toFixed(0)} ms, after section 1 mounted (${t.mounted.toFixed(0)} ms)`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('every formula is typeset once the page is ready (English and Chinese, deep link)', async () => {
    for (const hash of ['', '#lang=zh', '#derivation']) {
      const { page, problems } = await h.open(hash);
      // Formulas that waited for KaTeX are typeset in the next tasks.
      await page.waitForFunction(() => document.querySelectorAll('.tex-pending').length === 0, null, { timeout: 10000 });
      const n = await page.$$eval('.katex', (es) => es.length);
      assert.ok(n > 100, `${hash || '(top)'}: ${n} formulas typeset`);
      // No TeX source left as text: no '$' delimiters in the visible text of the explanations.
      const raw = await page.$$eval('main .explain', (es) => es.filter((e) => /\$[^$\s][^$]*\$/.test(e.textContent ?? '')).map((e) => e.closest('section')?.id));
      assert.deepEqual(raw, [], `${hash || '(top)'}: explanations with raw TeX`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
});
