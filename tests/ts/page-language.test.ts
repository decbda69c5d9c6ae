/**
 * The page's text in both languages and the corrected claims:
 * - a language round trip (en -> zh -> en) over every section leaves no
 *   untranslated UI text: in Chinese, Latin words outside formulas, code and
 *   names are an error; in English, Chinese characters outside the sample
 *   sentences are an error. Text nodes, option labels, aria-labels and
 *   titles are all checked; elements inside <body> that carry their own
 *   `lang` (a paper's original title, the language button) are exempt.
 * - RoPE's shift invariance holds on the page under every scaling (q and k
 *   share one context length), and the length-dependent scalings move the
 *   score when only the context length changes.
 * - ALiBi's slopes follow the paper's rule for head counts that are not a
 *   power of two (float64 reference written here).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { num, reachAndWait, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

/**
 * Latin words allowed anywhere in Chinese mode: names (methods, models,
 * papers, tools, web APIs, file formats), code that appears in the prose (functions and
 * variables of the formulas: max, clip, cat, out; the layouts' API names
 * half and interleaved), units (rad, nats), and the English terms Chinese ML
 * engineers write as they are (the articles do: token, attention, head,
 * score, loss, prompt, bug, base, scaling, position id, KV cache, left
 * padding, shape, ...). Ordinary English words are not here.
 */
const ALLOWED = new Set(`
token tokens attention self-attention softmax head heads query key value keys values mask causal padding pad pads left
position id ids embedding embeddings transformer transformers decoder-only decoder encoder score scores logit logits
rope alibi nope xpos shaw bert gpt gpt-j gpt-neox neox llama meta hugging face yarn ntk ntk-aware longrope
roformer pytorch torch tensor shape cos sin cache kv prefill decode batch dropout loss prompt bug bugs base scaling factor dim
webassembly wasm simd worker posenc safetensors typescript python gpu cuda jax highway device-side assert
vaswani press raffel arxiv llm llms mlp gelu relu layernorm
max min clip cat out cumsum gather config api restart-positions half interleaved rad nats nat
rnn cnn
gemma qwen phi mini deepseek deepseek-v scout json onnxruntime-web
`.trim().split(/\s+/));

/** Every piece of UI text in `root` (default the whole page), with where it is. */
async function uiText(page: Page, root = 'body'): Promise<Array<{ where: string; text: string }>> {
  return page.$eval(root, (top) => {
    const out: Array<{ where: string; text: string }> = [];
    // Formulas, code, data (sample sentences, generated tokens) and text marked
    // with its own language (a reference's original title, the switch button)
    // are not UI text.
    // <pre> holds code, printed tensors in PyTorch's own format and the core's (English) error messages.
    const skip = (e: Element | null): boolean =>
      !!e?.closest('.katex, code, pre, script, style, [translate="no"], [data-sample], body [lang]');
    const where = (e: Element): string => {
      const s = e.closest('section, header, nav, footer');
      return `${s?.id || s?.tagName.toLowerCase() || 'page'} <${e.tagName.toLowerCase()}${e.className ? ` .${String(e.className).split(' ')[0]}` : ''}>`;
    };
    const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const p = n.parentElement;
      if (!p || skip(p) || p.closest('[hidden]')) continue;
      const t = n.textContent?.trim();
      if (t) out.push({ where: where(p), text: t });
    }
    // Plot axis titles and legend labels are drawn on canvas; the plots keep the strings in data-axes / data-series.
    for (const e of Array.from(top.querySelectorAll('[data-axes], [data-series]'))) {
      if (skip(e) || e.closest('[hidden]')) continue;
      for (const a of ['axes', 'series'] as const) {
        const v = (e as HTMLElement).dataset[a];
        if (!v) continue;
        const labels = (JSON.parse(v) as unknown[]).map((x) => (Array.isArray(x) ? x[0] : x)).filter((x): x is string => typeof x === 'string');
        for (const l of labels) out.push({ where: `${where(e)} @data-${a}`, text: l });
      }
    }
    for (const e of Array.from(top.querySelectorAll('[aria-label], [title], [placeholder]'))) {
      if (skip(e)) continue;
      for (const a of ['aria-label', 'title', 'placeholder']) {
        const v = e.getAttribute(a);
        if (v) out.push({ where: `${where(e)} @${a}`, text: v });
      }
    }
    return out;
  });
}

/**
 * Latin words outside ALLOWED in Chinese UI text. The shipped models'
 * encodings and the scaling types are shown by their names in Chinese
 * (正弦位置编码, RoPE, YaRN, 线性插值（PI）), never as the API's ids
 * (`sinusoidal`, `learned`, `linear`), in legends, table rows and options too.
 */
function untranslatedZh(items: Array<{ where: string; text: string }>): string[] {
  const bad: string[] = [];
  for (const { where, text } of items) {
    // An English gloss in brackets right after the Chinese term it translates, 置换等变（permutation equivariance）.
    const unglossed = text.replace(/([\u4e00-\u9fff])\s*[（(][A-Za-z][A-Za-z \-]*[)）]/g, '$1');
    const words = (unglossed.match(/[A-Za-zα-ω_][A-Za-zα-ω_'’-]*[A-Za-z]/g) ?? []).filter((w) => w.length >= 3);
    // Identifiers (snake_case, camelCase, model ids such as language-rope) are code.
    const code = (w: string): boolean => w.includes('_') || /[a-z][A-Z]/.test(w) || /^(language|retrieval|word-order)-/.test(w);
    const unknown = words.filter((w) => !code(w) && !ALLOWED.has(w.toLowerCase().replace(/[’']s$/, '')));
    if (unknown.length > 0) bad.push(`${where}: "${text.slice(0, 80)}" (${unknown.join(', ')})`);
  }
  return bad;
}

function chineseInEn(items: Array<{ where: string; text: string }>): string[] {
  return items.filter(({ text }) => /[\u4e00-\u9fff]/.test(text)).map(({ where, text }) => `${where}: "${text.slice(0, 80)}"`);
}

/**
 * The API's ids where English prose should name the thing (review N10): model
 * ids (language-learned), scaling ids (llama3, yarn, ntk, longrope) in lower
 * case. Code, printed output and data are not UI text (uiText skips them).
 */
function rawIdsInEn(items: Array<{ where: string; text: string }>): string[] {
  const id = /\b(?:language|retrieval|word-order)-[a-z]+\b|\bllama3\b|(?<![\w-])(?:yarn|ntk|longrope)(?![\w-])/;
  return items.filter(({ text }) => id.test(text)).map(({ where, text }) => `${where}: "${text.slice(0, 100)}"`);
}

/** Scrolls through every section so that lazily loaded parts render. */
async function visitAll(page: Page): Promise<void> {
  const ids = await page.$$eval('main > section', (ss) => ss.map((s) => s.id));
  for (const id of ids) {
    await page.$eval(`#${id}`, (e) => e.scrollIntoView({ behavior: 'instant' }));
    await page.waitForTimeout(150);
  }
  // Asynchronous parts (Worker results) that render text.
  await reachAndWait(page, '#order-answers', '#order-answers[data-ready="1"]');
  await reachAndWait(page, '#bugs .body', '#bugs .body[data-ready]', 120000);
}

describe('the page in two languages (Chromium, strict CSP)', () => {
  it('in Chinese: no space between two CJK characters (punctuation included) nor after 。，：, in any block of text (names filled into templates, joined paragraphs); number ranges in full-width brackets', async () => {
    const { page, problems } = await h.open('#lang=zh');
    await visitAll(page);
    // Each block of text as it reads (text nodes joined, whitespace collapsed as
    // CSS does); formulas, code and sample data count as one Latin word "X".
    const blocks = await page.$eval('body', (top) => {
      const skipSel = '.katex, code, pre, script, style, [translate="no"], [data-sample], body [lang]';
      const inline = (e: Element): boolean => getComputedStyle(e).display.startsWith('inline') && e.tagName !== 'BR';
      const text = new Map<Element, string>();
      const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
      let lastSkip: Element | null = null;
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const p = n.parentElement;
        if (!p || p.closest('[hidden]')) continue;
        const skipped = p.closest(skipSel);
        let block: Element = skipped ?? p;
        const climb = (b: Element): Element => {
          while (b.parentElement && inline(b)) b = b.parentElement;
          return b;
        };
        block = climb(block);
        // Display math (a block holding only the formula) stands as "X" in the paragraph around it.
        while (skipped && block.parentElement && block.textContent?.trim() === skipped.textContent?.trim()) block = climb(block.parentElement);
        let piece = n.textContent ?? '';
        if (skipped) {
          if (skipped === lastSkip) continue;
          lastSkip = skipped;
          // Display math (its own line: a space before it does not show) as ¶.
          piece = skipped.closest('.katex-display') ? '¶' : 'X';
        }
        text.set(block, (text.get(block) ?? '') + piece);
      }
      return [...text.entries()].map(([b, s]) => ({ where: `${b.closest('section, header, nav, footer')?.id ?? 'page'} <${b.tagName.toLowerCase()}>`, text: s.replace(/\s+/g, ' ').trim() }));
    });
    assert.ok(blocks.length > 100, `${blocks.length} blocks`);
    const cjk = '\u3000-\u303f\u3400-\u9fff\uff00-\uffef';
    // Nor after ： before a value ("验算：prompt", "最大值：0.080", review F7), except before display math.
    const bad = blocks.filter(({ text }) => new RegExp(`[${cjk}] [${cjk}]|[。，] |： (?!¶)`).test(text)).map(({ where, text }) => `${where}: ${text}`);
    assert.deepEqual(bad, [], `Chinese text with a stray space:\n${bad.join('\n')}`);
    // A number range or a percentage in brackets inside Chinese text takes full-width brackets,
    // 0.270（0.268–0.274）, 我（63%）, not ASCII ones (review N9: the seed bands' ranges).
    const asciiRange = /\((?=\s*[−-]?\d[\d.,]*\s*(?:%|[–~]\s*[−-]?\d))/;
    assert.ok(asciiRange.test('高出 0.270 (0.268–0.274) nats') && asciiRange.test('我 (63%)') && !asciiRange.test('高出 0.270（0.268–0.274）nats'));
    const ascii = blocks.filter(({ text }) => /[\u4e00-\u9fff]/.test(text) && asciiRange.test(text)).map(({ where, text }) => `${where}: ${text}`);
    assert.deepEqual(ascii, [], `ASCII brackets around a number range in Chinese text:\n${ascii.join('\n')}`);
    // Chinese words in brackets take full-width ones too: （上下文长度 L = 113）, not (上下文长度 L = 113) (review F7).
    const asciiWords = blocks.filter(({ text }) => /\([^()]*[\u4e00-\u9fff][^()]*\)/.test(text)).map(({ where, text }) => `${where}: ${text}`);
    assert.deepEqual(asciiWords, [], `ASCII brackets around Chinese words:\n${asciiWords.join('\n')}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('en -> zh -> en: every section, no untranslated or stale UI text, no raw ids in English', async () => {
    const { page, problems } = await h.open('#e.len=128');
    await visitAll(page);
    const en1 = chineseInEn(await uiText(page));
    // No raw ids in English prose (the shipped language-learned model, llama3).
    const ids = rawIdsInEn(await uiText(page));
    assert.ok(rawIdsInEn([{ where: 'x', text: 'the shipped language-learned model' }, { where: 'x', text: '(linear, NTK, YaRN, llama3)' }]).length === 2);
    await page.click('#lang-switch');
    await page.waitForTimeout(500);
    await visitAll(page);
    await page.waitForTimeout(500);
    const zh = untranslatedZh(await uiText(page));
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
    await page.click('#lang-switch');
    await page.waitForTimeout(500);
    const en2 = chineseInEn(await uiText(page));
    const report = [
      ...en1.map((x) => `en: ${x}`), ...ids.map((x) => `en, raw id: ${x}`), ...zh.map((x) => `zh: ${x}`), ...en2.map((x) => `en again (stale): ${x}`)];
    assert.deepEqual(report, [], `untranslated or stale UI text:\n${report.join('\n')}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('in Chinese: quiz feedback (wrong and right), every bug and every position-ids scenario, no untranslated text', async () => {
    const { page, problems } = await h.open('#lang=zh');
    const bad: string[] = [];
    const look = async (sel: string, what: string): Promise<void> => {
      const items = await uiText(page, sel);
      assert.ok(items.some(({ text }) => /[\u4e00-\u9fff]/.test(text)), `${what}: Chinese text shown`);
      bad.push(...untranslatedZh(items).map((x) => `${what}: ${x}`));
    };
    // Quiz: the "position interpolation" question, answered wrong then right.
    await page.$eval('#quiz-pi', (e) => e.scrollIntoView({ behavior: 'instant' }));
    for (const [answer, verdict] of [['6000', 'incorrect'], ['1500', 'correct']] as const) {
      await page.fill('#quiz-pi-input', answer);
      await page.click('#quiz-pi button[type="submit"]');
      await page.waitForSelector(`#quiz-pi .verdict[data-verdict="${verdict}"]`);
      const shown = await page.textContent('#quiz-pi .verdict') ?? '';
      assert.match(shown, /[\u4e00-\u9fff]/, `quiz ${verdict}: ${shown}`);
      await look('#quiz-pi', `quiz pi, ${verdict}`);
    }
    // Bugs: each one, once its Worker run is in.
    await page.$eval('#bugs', (e) => e.scrollIntoView({ behavior: 'instant' }));
    const bugs = await page.$$eval('#bug-select option', (os) => os.map((o) => (o as HTMLOptionElement).value));
    assert.ok(bugs.length >= 13, `bugs: ${bugs.join(' ')}`);
    for (const bug of bugs) {
      await page.selectOption('#bug-select', bug);
      const model = await page.$eval('#bug-model', (e) => (e as HTMLSelectElement).value);
      await page.waitForSelector(`#bugs .body[data-ready="${model}:${bug}"]`, { timeout: 120000 });
      await look('#bugs', `bug ${bug}`);
    }
    // Position ids: each scenario, with its loss table.
    await page.$eval('#positions', (e) => e.scrollIntoView({ behavior: 'instant' }));
    for (const sc of ['prefill', 'kv', 'padding', 'window', 'restart']) {
      await page.selectOption('#pos-scenario', sc);
      await page.waitForSelector(`#pos-loss[data-ready="${sc}"]`, { state: 'attached', timeout: 120000 });
      await look('#positions', `scenario ${sc}`);
    }
    assert.deepEqual(bad, [], `untranslated UI text in Chinese:\n${bad.join('\n')}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('RoPE lab: q.k shift-invariant under every scaling; only dynamic / LongRoPE depend on the context length', async () => {
    const { page, problems } = await h.open('#r.orig=64&r.m=12&r.n=5&r.s=100&r.factor=4');
    for (const s of ['default', 'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope']) {
      await page.selectOption('#rope-scaling', s);
      await page.waitForTimeout(120);
      const a = await num(page, '#rope-score');
      const b = await num(page, '#rope-score-shifted');
      const short = await num(page, '#rope-score-short');
      assert.equal(await num(page, '#rope-length'), 112 + 1, 'L = the longest position + 1');
      assert.ok(Math.abs(a) > 1e-3, `${s}: a non-trivial score ${a}`);
      assert.ok(Math.abs(a - b) <= 2e-4 * Math.max(1, Math.abs(a)), `${s}: (12, 5) ${a} vs (112, 105) ${b}`);
      if (s === 'dynamic' || s === 'longrope') {
        assert.ok(Math.abs(short - a) > 1e-3, `${s}: a shorter L changes the frequencies: ${a} vs ${short}`);
      } else {
        assert.ok(Math.abs(short - a) <= 2e-4 * Math.max(1, Math.abs(a)), `${s}: L does not matter: ${a} vs ${short}`);
      }
    }
    assert.match(page.url(), /r\.scaling=longrope/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('ALiBi: slopes follow the paper for power-of-two and other head counts', async () => {
    // Press et al.: 2^(-8(h+1)/n) for n a power of two; otherwise the slopes of
    // c = 2^floor(log2 H), then every other slope of the 2c rule.
    const paper = (H: number): number[] => {
      const pow2 = (n: number): number[] => Array.from({ length: n }, (_, h) => 2 ** (-8 * (h + 1) / n));
      const c = 2 ** Math.floor(Math.log2(H));
      const extra = pow2(2 * c).filter((_, i) => i % 2 === 0);
      return [...pow2(c), ...extra].slice(0, H);
    };
    for (const H of [8, 6, 12]) {
      const { page, problems } = await h.open(`#b.heads=${H}&b.variant=paper&b.len=16`);
      const slopes = await page.$$eval('#alibi-maps .cell-label', (ls) => ls.map((l) => Number((l as HTMLElement).dataset.value)));
      const want = paper(H);
      assert.equal(slopes.length, H);
      slopes.forEach((m, i) => assert.ok(Math.abs(m - want[i]!) <= 1e-6 * want[i]!, `H=${H} head ${i}: ${m} vs ${want[i]}`));
      assert.deepEqual(problems, []);
      await page.close();
    }
  });
});
