/**
 * The "positions" section and the wavelength panel of the extrapolation
 * section, in Chromium: the position ids of every scenario follow the rule
 * (computed here), the attention map follows the ids, the restart bug raises
 * a shipped model's loss, counting pads changes q·k under dynamic NTK and not
 * under default RoPE (float64 reference), and the wavelengths are
 * 2π·base^(2i/r) for the shipped RoPE model's settings (read here from its
 * safetensors header). Phone width, dark theme and Chinese work.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { hfRope } from './hf-reference.js';
import { canvasPixels, num, reachAndWait, root, screenshot, setRange, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

/** A MapView's canvas holds the values it last drew (web/src/mapview.ts). */
type MapCanvas = HTMLCanvasElement & { cells?: Float32Array };

const range = (a: number, b: number): number[] => Array.from({ length: b - a }, (_, i) => a + i);
const ids = (page: Page, sel: string): Promise<number[]> =>
  page.$eval(sel, (e) => ((e as HTMLElement).dataset.ids ?? '').split(',').map(Number));
const pick = async (page: Page, value: string): Promise<void> => {
  await page.selectOption('#pos-scenario', value);
  await page.waitForFunction((v) => document.querySelector<HTMLElement>('#positions .body')?.dataset.scenario === v, value);
};

/** Metadata of a shipped model (the safetensors JSON header). */
function metadata(name: string): Record<string, string> {
  const b = readFileSync(join(root, 'web/models', `${name}.safetensors`));
  const n = Number(b.readBigUInt64LE(0));
  return (JSON.parse(b.subarray(8, 8 + n).toString('utf8')) as { __metadata__: Record<string, string> }).__metadata__;
}

/** Float64 RoPE, half layout: x rotated at position p with inverse frequencies `inv`. */
function rotate(x: number[], p: number, inv: number[]): number[] {
  const h2 = inv.length;
  const y = x.slice();
  for (let i = 0; i < h2; i++) {
    const a = x[i]!, b = x[i + h2]!, c = Math.cos(p * inv[i]!), s = Math.sin(p * inv[i]!);
    y[i] = a * c - b * s;
    y[i + h2] = b * c + a * s;
  }
  return y;
}

/** Dynamic NTK (Hugging Face): base' = base (s L / M - (s - 1))^(r / (r - 2)) once L > M. */
function invFreq(r: number, base: number, dyn?: { s: number; M: number; L: number }): number[] {
  const b = dyn && dyn.L > dyn.M ? base * (dyn.s * dyn.L / dyn.M - (dyn.s - 1)) ** (r / (r - 2)) : base;
  return Array.from({ length: r / 2 }, (_, i) => b ** (-2 * i / r));
}

describe('positions section (Chromium, strict CSP)', () => {
  it('shows the position ids of each scenario as the rules give them', async () => {
    const { page, problems } = await h.open('#p.sc=prefill&p.T=12');
    assert.deepEqual(await ids(page, '#pos-ids'), range(0, 12), 'prefill: 0 .. T-1');
    await page.close();

    // KV cache: a 128-token prompt, then 4 tokens one at a time.
    const { page: kv, problems: more } = await h.open('#p.sc=kv&p.N=128&p.G=4&p.step=1');
    assert.deepEqual(await ids(kv, '#pos-ids'), range(0, 132));
    assert.equal(await num(kv, '#pos-ids .pos-chip[data-slot="128"] .pid'), 128, 'first generated token after 128 prompt tokens');
    // The restart bug with 3 tokens per step: the prompt at 0 .. N-1, then 0, 1, 2, 0.
    await pick(kv, 'restart');
    await setRange(kv, '#pos-step', 3);
    await kv.waitForFunction(() => document.querySelector('#pos-ids')?.getAttribute('data-ids')?.endsWith(',0,1,2,0'));
    assert.deepEqual(await ids(kv, '#pos-ids'), [...range(0, 128), 0, 1, 2, 0]);

    // Left padding: row B has 3 pads; ids = cumsum(mask) - 1, pads 1.
    await pick(kv, 'padding');
    const T = await kv.$eval('#pos-ids', (e) => (e as HTMLElement).dataset.ids!.split(',').length);
    const mask = await kv.$eval('#pos-ids', (e) => (e as HTMLElement).dataset.mask!.split(',').map(Number));
    const pads = mask.filter((m) => m === 0).length;
    assert.ok(pads >= 1 && mask.slice(0, pads).every((m) => m === 0) && mask.slice(pads).every((m) => m === 1), `left-padded mask ${mask}`);
    let sum = 0;
    const rule = mask.map((m) => ((sum += m), m ? sum - 1 : 1));
    assert.deepEqual(await ids(kv, '#pos-ids'), rule, 'cumsum(mask) - 1');
    assert.deepEqual(await ids(kv, '#pos-ids-a'), range(0, T), 'unpadded row');
    // RoPE does not see a uniform shift: the map moves by float rounding only.
    assert.ok((await num(kv, '#pos-pad-diff')) < 1e-5);
    await kv.check('#pos-count');
    await kv.waitForFunction(() => document.querySelector('#pos-ids')?.getAttribute('data-ids')?.startsWith('0,1,2'));
    assert.deepEqual(await ids(kv, '#pos-ids'), range(0, T), 'pads counted: 0 .. T-1');

    // Sliding window: absolute ids, T - W keys dropped for the last query.
    await pick(kv, 'window');
    const Tw = (await ids(kv, '#pos-ids')).length;
    assert.deepEqual(await ids(kv, '#pos-ids'), range(0, Tw));
    const dropped = await kv.$$eval('#pos-ids .pos-chip.dropped', (cs) => cs.length);
    const W = Number(await kv.$eval('#pos-W', (i) => (i as HTMLInputElement).value));
    assert.equal(dropped, Tw - W);
    assert.deepEqual([...problems, ...more], []);
    await kv.close();
  });

  it('the attention map follows the ids', async () => {
    const { page, problems } = await h.open('#p.sc=prefill&p.T=16&p.N=8&p.G=8&p.step=1');
    const look = (): Promise<number> => num(page, '#pos-lookback');
    const image = (): Promise<string> => page.$eval('#pos-map', (c) => (c as HTMLCanvasElement).toDataURL());
    const prefill = { d: await look(), img: await image() };
    await pick(page, 'kv');
    const kv = { d: await look(), img: await image() };
    await pick(page, 'restart');
    const restart = { d: await look(), img: await image() };
    // Decoding through the cache with the right ids gives the prefill's map.
    assert.ok(Math.abs(kv.d - prefill.d) < 1e-4, `kv ${kv.d} vs prefill ${prefill.d}`);
    assert.notEqual(restart.img, kv.img, 'restart map differs');
    assert.ok(Math.abs(restart.d - kv.d) > 0.5, `restart look-back ${restart.d} vs ${kv.d}`);
    await pick(page, 'window');
    assert.notEqual(await image(), prefill.img, 'window map differs');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the window map: each query sees exactly the keys of its window, and its weights over them sum to 1', async () => {
    const T = 16;
    const { page, problems } = await h.open(`#p.sc=window&p.T=${T}&p.W=4`);
    // Reference mask, from the rule: causal, and at most W keys including the query's own.
    const sees = (i: number, j: number, W: number): boolean => j <= i && i - j < W;
    const check = async (W: number): Promise<void> => {
      // The weights the map last drew (-Infinity where grey), read as null / number.
      const cells = await page.$eval('#pos-map', (c) => Array.from((c as MapCanvas).cells ?? [], (v) => (v === -Infinity ? null : v)));
      assert.equal(cells.length, T * T);
      const [px] = await canvasPixels(page, '#pos-map');
      assert.equal(px!.width, T);
      const rgb = (i: number, j: number): string => px!.data.slice(4 * (i * T + j), 4 * (i * T + j) + 3).join(',');
      const grey = rgb(0, T - 1);  // a future key: masked in every scenario
      for (let i = 0; i < T; i++) {
        let sum = 0;
        for (let j = 0; j < T; j++) {
          const w = cells[i * T + j]!;
          assert.equal(w !== null, sees(i, j, W), `W = ${W}: query ${i}, key ${j}: ${w}`);
          assert.equal(rgb(i, j) === grey, !sees(i, j, W), `W = ${W}: pixel of query ${i}, key ${j}`);
          if (w !== null) {
            assert.ok(w > 0, `W = ${W}: weight of query ${i} on key ${j}: ${w}`);
            sum += w;
          }
        }
        // The kernel's softmax ran over the window only: had it seen older keys, this would be < 1.
        assert.ok(Math.abs(sum - 1) < 1e-5, `W = ${W}: row ${i} sums to ${sum}`);
      }
    };
    await check(4);
    await setRange(page, '#pos-W', 7);
    await page.waitForFunction(() => {
      const c = (document.querySelector('#pos-map') as MapCanvas | null)?.cells;
      return c !== undefined && c[15 * 16 + 9] !== -Infinity;
    });
    await check(7);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the sliding window has a loss: the shipped models evaluated with the window, equal to none when W = T', async () => {
    const models = ['language-rope', 'language-alibi', 'language-sinusoidal', 'language-learned'];
    const { page, problems } = await h.open('#p.sc=prefill');
    await page.locator('#positions .body').scrollIntoViewIfNeeded();
    await page.waitForSelector('#pos-loss[data-ready="prefill"]', { state: 'attached', timeout: 120000 });
    const reference = await num(page, '#pos-loss-clean-language-rope');
    // Nothing to compare with the trained ids: the table is hidden until a scenario has wrong ids or a window (review B7).
    assert.equal(await page.$eval('#pos-loss-part', (e) => (e as HTMLElement).hidden), true);
    await setRange(page, '#pos-T', 64);
    await pick(page, 'window');
    await setRange(page, '#pos-W', 4);
    await page.waitForSelector('#pos-loss[data-ready="window"]', { timeout: 120000 });
    const losses = async (): Promise<Array<{ m: string; full: number; win: number }>> => Promise.all(models.map(async (m) => ({
      m, full: await num(page, `#pos-loss-clean-${m}`), win: await num(page, `#pos-loss-buggy-${m}`),
    })));
    assert.match(await page.textContent('#pos-loss thead') ?? '', /W = 4(?!\d)/);
    assert.equal(await page.$eval('#pos-loss-part', (e) => (e as HTMLElement).hidden), false);
    // The window keeps the ids: the table's title names the window, not the ids (review N11).
    assert.equal(await page.textContent('#pos-loss-title'), 'What the window costs a trained model');
    // Without a window it is the full-attention model: the same number the plain scenarios show.
    assert.equal((await losses())[0]!.full, reference);
    for (const { m, full, win } of await losses()) {
      assert.ok(full > 0 && Number.isFinite(win), `${m}: ${full}, ${win}`);
      // 4 keys of the 64-token context: the queries lose context, the loss moves (measured: +0.003 .. +0.74 nats).
      assert.ok(Math.abs(win - full) > 1e-3, `${m}: window 4 ${win} vs none ${full}`);
    }
    // A window as long as the sequence hides nothing.
    await setRange(page, '#pos-W', 64);
    await page.waitForSelector('#pos-loss[data-ready="window"]', { timeout: 120000 });
    assert.match(await page.textContent('#pos-loss thead') ?? '', /W = 64(?!\d)/);
    for (const { m, full, win } of await losses()) assert.equal(win, full, `${m}: window 64 = none`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('"count the pads" changes the loss shown as the current one; the other counting stays beside it', async () => {
    const models = ['language-sinusoidal', 'language-learned', 'language-rope'];
    const { page, problems } = await h.open('#p.sc=padding');
    await page.locator('#positions .body').scrollIntoViewIfNeeded();
    await page.waitForSelector('#pos-loss[data-ready="padding"]', { timeout: 120000 });
    const read = async (): Promise<Array<{ now: number; other: number; run: string }>> => Promise.all(models.map(async (m) => ({
      now: await num(page, `#pos-loss-now-${m}`), other: await num(page, `#pos-loss-other-${m}`),
      run: await page.$eval(`#pos-loss-now-${m}`, (e) => (e as HTMLElement).dataset.run ?? ''),
    })));
    const before = await read();
    assert.ok(before.every((r) => r.run === 'clean'), 'ids from the mask: the correct run is current');
    await page.check('#pos-count');
    await page.waitForFunction(() => document.querySelector<HTMLElement>('#pos-loss-now-language-rope')?.dataset.run === 'buggy');
    await page.waitForSelector('#pos-loss[data-ready="padding"]', { timeout: 120000 });
    const after = await read();
    models.forEach((m, k) => {
      assert.equal(after[k]!.run, 'buggy', m);
      // The two runs swap places: the current loss is now the counted one.
      assert.equal(after[k]!.now, before[k]!.other, m);
      assert.equal(after[k]!.other, before[k]!.now, m);
    });
    // The learned table sees every real token 16 rows later: its current loss moves (measured +0.38 nats);
    // RoPE sees a uniform shift only (float rounding).
    assert.ok(after[1]!.now > before[1]!.now + 0.05, `learned: ${before[1]!.now} -> ${after[1]!.now}`);
    assert.ok(Math.abs(after[2]!.now - before[2]!.now) < 1e-3, `rope: ${before[2]!.now} -> ${after[2]!.now}`);
    assert.notEqual(after[0]!.now, before[0]!.now, 'sinusoidal');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the restart bug raises the loss of the shipped RoPE model', async () => {
    const { page, problems } = await h.open('#p.sc=restart');
    await page.locator('#positions .body').scrollIntoViewIfNeeded();
    await page.waitForSelector('#pos-loss[data-ready="restart"]', { timeout: 120000 });
    const clean = await num(page, '#pos-loss-clean-language-rope');
    const buggy = await num(page, '#pos-loss-buggy-language-rope');
    assert.ok(clean > 0 && buggy > clean + 0.1, `clean ${clean}, restarted ${buggy}`);
    assert.equal(await page.textContent('#pos-loss-title'), 'What the ids cost a trained model');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('counting 16 pads changes q·k under dynamic NTK, not under default RoPE (float64 reference)', async () => {
    const { page, problems } = await h.open('#section=positions');
    // The panel draws once the Worker has described the shipped RoPE model.
    await reachAndWait(page, '#pad-dynamic', '#pad-dynamic[data-ready="1"]', 120000);
    const d = await page.$eval('#pad-dynamic', (e) => ({ ...(e as HTMLElement).dataset }));
    const q = d.q!.split(',').map(Number), k = d.k!.split(',').map(Number);
    const T = Number(d.t), n = Number(d.n), m = Number(d.m), P = Number(d.pads), s = Number(d.factor), M = Number(d.max);
    const base = Number(d.base), r = Number(d.dim);
    assert.equal(P, 16);
    assert.ok(T > M, 'the demo length passes the trained length');
    const qk = (shift: number, dyn: boolean): number => {
      const inv = invFreq(r, base, dyn ? { s, M, L: T + shift } : undefined);
      const a = rotate(q, m + shift, inv), b = rotate(k, n + shift, inv);
      return a.reduce((acc, x, e) => acc + x * b[e]!, 0);
    };
    const got = {
      d0: await num(page, '#pad-default-0'), d16: await num(page, '#pad-default-16'),
      y0: await num(page, '#pad-dynamic-0'), y16: await num(page, '#pad-dynamic-16'),
    };
    const ref = { d0: qk(0, false), d16: qk(P, false), y0: qk(0, true), y16: qk(P, true) };
    for (const key of ['d0', 'd16', 'y0', 'y16'] as const) {
      assert.ok(Math.abs(got[key] - ref[key]) < 2e-4 * (1 + Math.abs(ref[key])), `${key}: ${got[key]} vs ${ref[key]}`);
    }
    assert.ok(Math.abs(got.d0 - got.d16) < 1e-4, `default RoPE: ${got.d0} vs ${got.d16}`);
    assert.ok(Math.abs(ref.y0 - ref.y16) > 0.05, `reference: dynamic differs (${ref.y0} vs ${ref.y16})`);
    assert.ok(Math.abs(got.y0 - got.y16) > 0.05, `dynamic NTK: ${got.y0} vs ${got.y16}`);
    // (c) prefill counts the pads, decode does not: the new token lands at N, after ids up to 16 + N - 1.
    const wrong = await ids(page, '#pad-ids-wrong');
    const N = wrong.length - 1 - P;
    assert.deepEqual(wrong, [...range(0, P + N), N]);
    assert.deepEqual(await ids(page, '#pad-ids-correct'), [...new Array<number>(P).fill(1), ...range(0, N), N]);
    assert.equal(await num(page, '#pad-gap'), N - (P + N - 1));
    assert.notEqual(await num(page, '#pad-mismatch-correct'), await num(page, '#pad-mismatch-wrong'));
    // (b) Inside the trained positions the learned table pays for the shift; past them the sinusoidal
    // model does too (and the learned one cannot run); RoPE does not move.
    // At the training length M (the panel's data-max, the model's: checked below) and at M − 16.
    await page.locator('#pad-absolute').scrollIntoViewIfNeeded();
    await page.waitForSelector('#pad-absolute[data-ready="1"]', { timeout: 120000 });
    const loss = async (L: number, m: string): Promise<[number, number]> =>
      [await num(page, `#pad-loss-${L}-clean-language-${m}`), await num(page, `#pad-loss-${L}-buggy-language-${m}`)];
    const [lc, lb] = await loss(M - P, 'learned');
    assert.ok(lb > lc + 0.05, `learned at ${M - P}: ${lc} -> ${lb}`);
    const [sc, sb] = await loss(M, 'sinusoidal');
    assert.ok(sb > sc + 0.05, `sinusoidal at ${M}: ${sc} -> ${sb}`);
    for (const L of [M - P, M]) {
      const [rc, rb] = await loss(L, 'rope');
      assert.ok(Math.abs(rb - rc) < 1e-3, `rope at ${L}: ${rc} -> ${rb}`);
    }
    assert.match(await page.$eval(`#pad-loss-${M}-buggy-language-learned`, (e) => (e as HTMLElement).dataset.error ?? ''), /learned position table/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the padding panel\'s texts name the shipped RoPE model\'s head dim, base and training length (English and Chinese)', async () => {
    const meta = metadata('language-rope');
    const dim = Number(meta.d_model) / Number(meta.heads), base = Number(meta.rope_base), M = Number(meta.train_len);
    assert.ok(dim > 0 && base > 0 && M > 16, JSON.stringify(meta));
    const { page, problems } = await h.open('#section=positions');
    await reachAndWait(page, '#pad-dynamic', '#pad-dynamic[data-ready="1"]', 120000);
    await reachAndWait(page, '#pad-absolute', '#pad-absolute[data-ready="1"]', 120000);
    const textOf = (sel: string): Promise<string> => page.$eval(sel, (e) => (e.textContent ?? '').replace(/\s+/g, ' '));
    // The demo's data attributes are the model's too.
    const d = await page.$eval('#pad-dynamic', (e) => ({ ...(e as HTMLElement).dataset }));
    assert.deepEqual([Number(d.dim), Number(d.base), Number(d.max)], [dim, base, M]);
    const expected = {
      en: {
        about: [`head dim ${dim}, base ${base}`, `M=${M}`],
        look: [`T ≤ ${M - 16}`, `stays within ${M}.`],
        inside: [`${M - 16} real tokens`, `16 … ${M - 1} stay inside the ${M} trained positions`],
        past: [`${M} real tokens`, `16 … ${M + 15} run past them`],
        absLook: [`no row past ${M} at all`, `pushes ids past ${M};`],
      },
      zh: {
        about: [`head_dim ${dim}、base ${base}`, `M=${M}`],
        look: [`T ≤ ${M - 16} 时`, `长度也不超过 ${M}。`],
        inside: [`${M - 16} 个真实 token`, `16 … ${M - 1}，仍在训练过的 ${M} 个位置之内`],
        past: [`${M} 个真实 token`, `16 … ${M + 15}，超出了训练范围`],
        absLook: [`超过 ${M} 则根本没有对应的行`, `让 id 超过 ${M} 就会失效`],
      },
    };
    for (const lang of ['en', 'zh'] as const) {
      if (lang === 'zh') {
        await page.click('#lang-switch');
        await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
        await page.waitForTimeout(300);
      }
      const got = {
        about: await textOf('#pad-dynamic > .explain'),
        look: await textOf('#pad-a-look'),
        inside: await textOf(`#pad-note-${M - 16}`),
        past: await textOf(`#pad-note-${M}`),
        absLook: await textOf('#pad-b-look'),
      };
      for (const [part, wanted] of Object.entries(expected[lang])) {
        for (const w of wanted) assert.ok(got[part as keyof typeof got].includes(w), `${lang} ${part}: '${w}' not in '${got[part as keyof typeof got]}'`);
      }
      // No placeholder left unfilled anywhere in the panel.
      assert.doesNotMatch((await page.$$eval('#pad-h ~ *', (es) => es.map((e) => e.textContent).join(' '))), /\{[\w.]+\}/);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('the wavelengths are 2π·base^(2i/r) of the shipped RoPE model', async () => {
    const meta = metadata('language-rope');
    const headDim = Number(meta.d_model) / Number(meta.heads);
    const r = Number(meta.rotary_dim) || headDim, base = Number(meta.rope_base), trainLen = Number(meta.train_len);
    const { page, problems } = await h.open('#wl.len=256&wl.method=linear&wl.factor=4');
    await page.locator('#wl-panel').scrollIntoViewIfNeeded();
    await page.waitForSelector('#wl-panel[data-ready="1"]', { timeout: 60000 });
    const lambdas = await page.$eval('#wl-lambdas', (e) => (e as HTMLElement).dataset.value!.split(',').map(Number));
    const ref = Array.from({ length: r / 2 }, (_, i) => 2 * Math.PI * base ** (2 * i / r));
    assert.equal(lambdas.length, ref.length);
    lambdas.forEach((l, i) => assert.ok(Math.abs(l / ref[i]! - 1) < 1e-6, `λ_${i}: ${l} vs ${ref[i]}`));
    assert.equal(await num(page, '#wl-count'), ref.filter((l) => l > trainLen).length);
    // Linear ×4: every θ′/θ is 1/4, and at L = 256 = 4·64 every pair is back in range.
    const ratio = await page.$eval('#wl-ratio', (e) => (e as HTMLElement).dataset.value!.split(',').map(Number));
    ratio.forEach((x, i) => assert.ok(Math.abs(x - 0.25) < 1e-6, `θ′/θ of pair ${i}: ${x}`));
    const angle = (len: number, l: number): number => Math.min(len * (2 * Math.PI / l), 2 * Math.PI);
    const out = ref.filter((l) => angle(256, l) > angle(trainLen, l) * (1 + 1e-6)).length;
    assert.equal(await num(page, '#wl-out-none'), out);
    assert.equal(await num(page, '#wl-out-scaled'), 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('each scaling method changes each pair as its rule says (float64 references of θ′ and the attention factor)', async () => {
    const meta = metadata('language-rope');
    const headDim = Number(meta.d_model) / Number(meta.heads);
    const r = Number(meta.rotary_dim) || headDim, base = Number(meta.rope_base), L = Number(meta.train_len);
    const len = 256, s = 4, half = r / 2;
    const theta = Array.from({ length: half }, (_, i) => base ** (-2 * i / r));
    // The page's parameters (wl.m.* text): YaRN β_fast 32 / β_slow 1, Llama 3 low 1 / high 4, LongRoPE's
    // long factors 1 for pair 0 rising linearly to s for the last pair.
    const cfg = { hidden_size: r, num_attention_heads: 1, rope_theta: base, max_position_embeddings: L };
    const ref: Record<string, { invFreq: number[]; attention: number }> = {
      // Static NTK (no transformers rope_type; docs/formulas.md): b' = b s^(r/(r-2)).
      ntk: { invFreq: Array.from({ length: half }, (_, i) => (base * s ** (r / (r - 2))) ** (-2 * i / r)), attention: 1 },
      dynamic: hfRope({ ...cfg, rope_scaling: { rope_type: 'dynamic', factor: s } }, len),
      yarn: hfRope({ ...cfg, rope_scaling: { rope_type: 'yarn', factor: s, original_max_position_embeddings: L, beta_fast: 32, beta_slow: 1 } }, len),
      llama3: hfRope({ ...cfg, rope_scaling: { rope_type: 'llama3', factor: s, original_max_position_embeddings: L, low_freq_factor: 1, high_freq_factor: 4 } }, len),
      longrope: hfRope({ ...cfg, rope_scaling: {
        rope_type: 'longrope', factor: s, original_max_position_embeddings: L,
        short_factor: new Array<number>(half).fill(1), long_factor: theta.map((_, i) => 1 + (s - 1) * i / (half - 1)),
      } }, len),
    };
    // What the rules say in words, checked on the reference itself.
    const refRatio = (m: string): number[] => ref[m]!.invFreq.map((f, i) => f / theta[i]!);
    assert.ok(Math.abs(refRatio('ntk')[0]! - 1) < 1e-12 && Math.abs(refRatio('ntk')[half - 1]! - 1 / s) < 1e-12, 'NTK: pair 0 kept, last pair / s');
    assert.ok(Math.abs(refRatio('yarn')[0]! - 1) < 1e-12 && Math.abs(refRatio('yarn')[half - 1]! - 1 / s) < 1e-12, 'YaRN: ends');
    assert.ok(Math.abs(ref.yarn!.attention - (0.1 * Math.log(s) + 1)) < 1e-12, 'YaRN attention factor 0.1 ln s + 1');
    assert.ok(Math.abs(ref.longrope!.attention - Math.sqrt(1 + Math.log(s) / Math.log(L))) < 1e-12, 'LongRoPE factor');

    const { page, problems } = await h.open(`#wl.len=${len}&wl.method=ntk&wl.factor=${s}`);
    await page.locator('#wl-panel').scrollIntoViewIfNeeded();
    await page.waitForSelector('#wl-panel[data-ready="1"]', { timeout: 60000 });
    for (const method of ['ntk', 'dynamic', 'yarn', 'llama3', 'longrope']) {
      await page.selectOption('[data-param="wl.method"] select', method);
      await page.waitForSelector(`#wl-panel[data-method="${method}"]`);
      const got = await page.evaluate(() => ({
        inv: (document.querySelector<HTMLElement>('#wl-ratio')!.dataset.inv ?? '').split(',').map(Number),
        ratio: (document.querySelector<HTMLElement>('#wl-ratio')!.dataset.value ?? '').split(',').map(Number),
        attention: Number(document.querySelector<HTMLElement>('#wl-extra')!.dataset.attention),
        out: Number(document.querySelector<HTMLElement>('#wl-out-scaled')!.dataset.value),
      }));
      const want = ref[method]!;
      assert.equal(got.inv.length, half, method);
      got.inv.forEach((f, i) => {
        // Wavelengths 2π/θ′ (float32 frequencies: 1e-6 relative).
        assert.ok(Math.abs((2 * Math.PI / f) / (2 * Math.PI / want.invFreq[i]!) - 1) < 1e-6, `${method} λ′_${i}: ${2 * Math.PI / f} vs ${2 * Math.PI / want.invFreq[i]!}`);
        assert.ok(Math.abs(got.ratio[i]! - want.invFreq[i]! / theta[i]!) < 1e-6, `${method} θ′/θ of pair ${i}: ${got.ratio[i]} vs ${want.invFreq[i]! / theta[i]!}`);
      });
      assert.ok(Math.abs(got.attention - want.attention) < 1e-6, `${method} attention factor ${got.attention} vs ${want.attention}`);
      const angle = (n: number, f: number): number => Math.min(n * f, 2 * Math.PI);
      assert.equal(got.out, want.invFreq.filter((f, i) => angle(len, f) > angle(L, theta[i]!) * (1 + 1e-6)).length, `${method}: pairs out of range`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('works at 390 px, in the dark theme and in Chinese', async () => {
    const { page, problems } = await h.open('#theme=dark&lang=zh&p.sc=padding', { width: 390, height: 844 });
    await page.locator('#positions').scrollIntoViewIfNeeded();
    const overflow = await page.$eval('#positions', (e) => e.scrollWidth - e.clientWidth);
    assert.ok(overflow <= 1, `horizontal overflow ${overflow}px`);
    assert.match(await page.textContent('#pos-about') ?? '', /[\u4e00-\u9fff]/);
    await screenshot(page, 'positions-390-dark-zh', '#positions');
    await page.locator('#wl-panel').scrollIntoViewIfNeeded();
    await page.waitForSelector('#wl-panel[data-ready="1"]', { timeout: 60000 });
    const wlOverflow = await page.$eval('#wl-panel', (e) => e.scrollWidth - e.clientWidth);
    assert.ok(wlOverflow <= 1, `wavelengths overflow ${wlOverflow}px`);
    await screenshot(page, 'wavelengths-390-dark-zh', '#wl-panel');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
