/**
 * The "Your model" section in Chromium: a published config picked from the
 * list (by URL and by the select) shows the plan a reader can check against
 * the model (one cell per layer, grouped as the model's code groups them),
 * each RoPE's wavelengths against a float64 computation from the formula,
 * the switch of a length-dependent scaling, the attention factor, M-RoPE's
 * pair split against transformers' slicing (hfMropeRows) and the query
 * scaling; a pasted config is read as the reader's own; a bad paste (not
 * JSON, not an object, refused by the core) is an error in the reader's
 * language and the section keeps working. Both languages, phone and dark.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { hfMropeRows } from './hf-reference.js';
import { LAYER_FIXTURES } from './hf-layer-configs.js';
import { reachAndWait, screenshot, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

const READY = '#yourmodel .body[data-state="ok"]';

async function openAt(hash: string, viewport?: { width: number; height: number }): Promise<{ page: Page; problems: string[] }> {
  const opened = await h.open(`#section=yourmodel&${hash}`, viewport);
  await reachAndWait(opened.page, '#yourmodel', READY);
  return opened;
}

const data = (page: Page, sel: string, key: string): Promise<string> => page.$eval(sel, (e, k) => (e as HTMLElement).dataset[k] ?? '', key);

/** A plan written with the fixtures' letters, renamed A, B, ... in order of first use ('.' stays). */
function lettered(plan: string): string {
  const order: string[] = [];
  return [...plan].map((c) => {
    if (c === '.') return c;
    if (!order.includes(c)) order.push(c);
    return String.fromCharCode(65 + order.indexOf(c));
  }).join('');
}

const fixture = (prefix: string): (typeof LAYER_FIXTURES)[number] => LAYER_FIXTURES.find((f) => f.name.startsWith(prefix))!;

/** 2π / θ_i in float64 for θ_i = base^(-2i/d) / divisor. */
const wavelengths = (base: number, d: number, divisor = 1): number[] =>
  Array.from({ length: d / 2 }, (_, i) => (2 * Math.PI * divisor) / base ** ((-2 * i) / d));

function close(got: Array<number | null>, want: number[], what: string): void {
  assert.equal(got.length, want.length, `${what}: pairs`);
  for (const [i, w] of want.entries()) assert.ok(Math.abs(got[i]! - w) <= 1e-6 * w, `${what}: pair ${i}: ${got[i]} vs ${w}`);
}

async function waitState(page: Page, state: 'ok' | 'error'): Promise<void> {
  await page.waitForFunction((s) => document.querySelector<HTMLElement>('#yourmodel .body')?.dataset.state === s, state, { timeout: 10000 });
}

async function paste(page: Page, text: string): Promise<void> {
  await page.fill('#ym-config', text);
  await page.click('#ym-read');
}

describe('"Your model" (Chromium, strict CSP)', () => {
  it('a pick: Gemma 3 27B layer by layer, its two wavelength curves, the code for per-layer options', async () => {
    const { page, problems } = await openAt('y.model=gemma-3-27b');
    const f = fixture('Gemma 3 27B');
    assert.equal(await data(page, '#ym-strip', 'plan'), lettered(f.plan));
    assert.equal(await page.$$eval('#ym-strip .ym-cell', (cs) => cs.length), 62);
    assert.equal(await data(page, '#ym-summary', 'uniform'), 'false');
    const rows = await page.$$eval('#ym-plan tbody tr', (trs) => trs.map((tr) => Array.from(tr.children, (c) => c.textContent!.trim())));
    assert.deepEqual(rows.map((r) => [r[0], r[2], r[3], r[4], r[5], r[6], r[7]]), [
      ['R1', '52', '128 of 128', '10,000', 'half', 'no scaling', '1'],
      ['R2', '10', '128 of 128', '1,000,000', 'half', 'linear ×8', '1'],
    ]);
    assert.equal(rows[1]![1], '5, 11, 17, 23, 29, 35, 41, 47, 53, 59');
    // Solid: the wavelengths before extension; dashed (data-scaled): with the global layers' linear x8.
    const lists = JSON.parse(await data(page, '#ym-wl', 'value')) as Array<Array<number | null>>;
    close(lists[0]!, wavelengths(1e4, 128), 'R1');
    close(lists[1]!, wavelengths(1e6, 128), 'R2 before extension');
    const scaled = JSON.parse(await data(page, '#ym-wl', 'scaled')) as Array<Array<number | null>>;
    assert.equal(scaled.length, 1, 'one scaled line: R2');
    close(scaled[0]!, wavelengths(1e6, 128, 8), 'R2 with linear x8');
    // Gemma 3's class default max_position_embeddings (131072) is the line they are compared with.
    assert.equal(await data(page, '#ym-wl', 'contexts'), '131072');
    assert.match(await page.textContent('#ym-wl-R1') ?? '', /within the max_position_embeddings of 131,072 tokens\. These are sliding-window layers/);
    const code = await page.textContent('#ym-code-posenc') ?? '';
    assert.match(code, /pe\.ropeFromConfig\(config\)/);
    assert.match(code, /for \(const \[i, layer\] of rope\.layers\.entries\(\)\)/);
    assert.match(code, /layers 5, 11, 17, .*59: base 1,000,000, linear ×8/);
    await page.click('#yourmodel .code-tabs button:nth-child(2)');
    const ort = await page.textContent('#ym-code-ort') ?? '';
    assert.match(ort, /pe\.ropeCache\(\{ \.\.\.rope\.layers\[5\]!, seqLen: maxLen, format: 'half' \}\)/);
    assert.match(ort, /interleaved = 0, rotary_embedding_dim = 128/);
    // Linear x8 over max_position_embeddings: the cache covers max_position_embeddings, not 8 times it.
    assert.match(ort, /const maxLen = 131072;/);
    await screenshot(page, 'yourmodel-en', '#yourmodel');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('picks from the select: M-RoPE split as transformers slices it, LongRoPE switch and factor, NoPE layers and query scaling', async () => {
    const { page, problems } = await openAt('y.model=llama-2-7b');
    const pick = async (id: string): Promise<void> => {
      await page.selectOption('#ym-pick', id);
      await page.waitForFunction((want) => document.querySelector<HTMLSelectElement>('#ym-pick')?.value === want &&
        document.querySelector<HTMLTextAreaElement>('#ym-config')!.value.length > 0, id);
      await waitState(page, 'ok');
    };
    // Qwen2.5-VL: pairs in chunks; Qwen3-VL: pairs in turn.
    await pick('qwen2.5-vl-7b');
    assert.equal(await data(page, '#ym-mrope-R1', 'rows'), hfMropeRows([16, 24, 24], false, 64).join(''));
    assert.match(await page.evaluate(() => decodeURIComponent(window.location.hash)), /y\.model=qwen2\.5-vl-7b/);
    await pick('qwen3-vl-8b');
    assert.equal(await data(page, '#ym-mrope-R1', 'rows'), hfMropeRows([24, 20, 20], true, 64).join(''));
    // Phi-4-mini: LongRoPE switches after 4096 tokens; factor sqrt(1 + ln 32 / ln 4096).
    await pick('phi-4-mini');
    assert.equal(await data(page, '#ym-switch p', 'switch'), '4096');
    const factor = Number(await data(page, '#ym-factor p', 'factor'));
    assert.ok(Math.abs(factor - Math.sqrt(1 + Math.log(32) / Math.log(4096))) < 1e-12, `attention factor ${factor}`);
    assert.equal(await page.$$eval('#ym-plan tbody tr', (trs) => trs[0]!.children[3]!.textContent), '96 of 128');
    // Llama 4 Scout: every fourth layer without RoPE, query scaling on those 12.
    await pick('llama-4-scout');
    assert.equal(await data(page, '#ym-strip', 'plan'), lettered(fixture('Llama 4 Scout').plan));
    assert.equal(await page.$eval('#ym-qs', (e) => (e as HTMLElement).hidden), false);
    assert.match(await page.textContent('#ym-qs') ?? '', /on 12 of the layers/);
    assert.match(await page.textContent('#ym-code-posenc') ?? '', /if \(layer === null\) continue;|layers 3, 7, .*: no RoPE/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a paste is read as the reader\'s own config; a bad paste is an error in English, and the section keeps working', async () => {
    const { page, problems } = await openAt('y.model=llama-2-7b');
    // Dynamic NTK of a hand-written config: switch at 2048, wavelengths unscaled up to it.
    await paste(page, JSON.stringify({ model_type: 'llama', num_hidden_layers: 4, hidden_size: 256, num_attention_heads: 4, max_position_embeddings: 2048,
      rope_theta: 10000, rope_scaling: { type: 'dynamic', factor: 2 } }));
    await waitState(page, 'ok');
    assert.equal(await page.$eval('#ym-pick', (e) => (e as HTMLSelectElement).value), 'paste');
    assert.match(await page.evaluate(() => window.location.hash), /y\.model=paste/);
    assert.match(await page.textContent('#ym-source') ?? '', /the config in the box/);
    assert.equal(await data(page, '#ym-summary', 'layers'), '4');
    assert.equal(await data(page, '#ym-switch p', 'switch'), '2048');
    close((JSON.parse(await data(page, '#ym-wl', 'value')) as number[][])[0]!, wavelengths(1e4, 64), 'dynamic at its original context');

    const bad: Array<[string, RegExp]> = [
      ['{"model_type": "llama",', /^This is not valid JSON\. The parser says: /],
      ['[1, 2]', /^A config\.json is one JSON object \(\{ … \}\); this is an array\.$/],
      ['   ', /^The box is empty/],
      [JSON.stringify({ model_type: 'llama', num_hidden_layers: 2, head_dim: 64, rope_theta: -5 }), /RangeError: config\.rope_theta must be > 1 \(a RoPE base\), got -5$/],
      [JSON.stringify({ model_type: 'my_port', num_hidden_layers: 2, head_dim: 64 }), /^posenc does not know this model type’s pair layout\.[^]*GPT-2, BERT[^]*config\.model_type 'my_port' is not in posenc's layout table/],
    ];
    for (const [text, want] of bad) {
      await paste(page, text);
      await waitState(page, 'error');
      assert.match(await page.textContent('#ym-error') ?? '', want);
      assert.equal(await page.$eval('#ym-results', (e) => (e as HTMLElement).hidden), true, 'no stale results under an error');
    }
    // Still working: a published config, then a paste.
    await page.selectOption('#ym-pick', 'gemma-3-1b');
    await waitState(page, 'ok');
    assert.equal(await page.$eval('#ym-error', (e) => (e as HTMLElement).hidden), true);
    assert.equal(await data(page, '#ym-strip', 'plan'), lettered(fixture('Gemma 3 1B').plan));
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('in Chinese: the plan, the errors (with the core\'s own message) and the code comments; phone and dark', async () => {
    const { page, problems } = await openAt('y.model=qwen2.5-7b-yarn&lang=zh', { width: 390, height: 844 });
    assert.match(await page.textContent('#yourmodel h2') ?? '', /你的模型/);
    assert.match(await page.textContent('#ym-summary') ?? '', /28 个 decoder 层。所有用 RoPE 的层旋转方式相同/);
    assert.match(await page.textContent('#ym-plan tbody') ?? '', /YaRN ×4，原始长度 32,768/);
    assert.match(await page.textContent('#ym-source') ?? '', /来源：Qwen\/Qwen2\.5-7B-Instruct，config\.json.*（加上模型卡片/);
    assert.match(await page.textContent('#ym-code-posenc') ?? '', /所有用 RoPE 的层都一样（0-27）：直接展开结果/);
    // Nothing wider than the phone's screen.
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no horizontal scroll');
    await screenshot(page, 'yourmodel-zh-phone', '#yourmodel');
    const bad: Array<[string, RegExp]> = [
      ['{"model_type": "llama",', /^这不是合法的 JSON。解析器的原话：/],
      ['"llama"', /^config\.json 应该是一个 JSON 对象（\{ … \}）；这里是一个字符串。$/],
      [JSON.stringify({ model_type: 'llama', num_hidden_layers: 2, head_dim: 64, rope_theta: -5 }), /^出错了.*RangeError: config\.rope_theta must be > 1/],
    ];
    for (const [text, want] of bad) {
      await paste(page, text);
      await waitState(page, 'error');
      assert.match(await page.textContent('#ym-error') ?? '', want);
    }
    await page.selectOption('#ym-pick', 'deepseek-v3');
    await waitState(page, 'ok');
    assert.match(await page.textContent('#ym-plan tbody') ?? '', /YaRN ×40，原始长度 4,096/);
    // DeepSeek's softmax scale, mscale(40, mscale_all_dim 1)^2, shown beside the attention factor.
    const m = 0.1 * Math.log(40) + 1;
    assert.ok(Math.abs(Number(await page.$eval('#ym-softmax', (e) => (e as HTMLElement).dataset.value)) - m * m) < 1e-12);
    assert.match(await page.textContent('#ym-softmax') ?? '', /deepseek_v3 还把 softmax 的缩放系数 1\/√d 乘以 1\.87/);
    assert.deepEqual(problems, []);
    await page.close();

    const dark = await openAt('y.model=gemma-4-31b&lang=zh&theme=dark');
    assert.equal(await dark.page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await data(dark.page, '#ym-strip', 'plan'), lettered(fixture('Gemma 4 31B').plan));
    await screenshot(dark.page, 'yourmodel-zh-dark', '#yourmodel');
    assert.deepEqual(dark.problems, []);
    await dark.page.close();
  });
});

