/**
 * The overview sections of the page (taxonomy, pipeline, quiz) in Chromium:
 * the taxonomy table's parameter counts are filled by the Worker only once
 * the reader scrolls near it, and equal the model files' own; the learned
 * table's similarity and Shaw's index map equal float64 references; the pipeline lights the right steps; every quiz question,
 * answered right and wrong, is judged so and shows the value a float64
 * reference written here gives.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { root, screenshot, setRange, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

const ENCODINGS = ['sinusoidal', 'learned', 'shaw', 't5', 'rope', 'alibi', 'xpos', 'nope'] as const;
const modelBytes = (name: string): Uint8Array => readFileSync(join(root, 'web/models', `${name}.safetensors`));

/** float32 table of a safetensors file, read independently of the page. */
function tensor(bytes: Uint8Array, name: string): { shape: number[]; data: Float32Array } {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + n)).toString('utf8')) as Record<string, { shape: number[]; data_offsets: [number, number] }>;
  const t = header[name]!;
  const raw = new Uint8Array(bytes.subarray(8 + n + t.data_offsets[0], 8 + n + t.data_offsets[1]));  // a copy
  return { shape: t.shape, data: new Float32Array(raw.buffer) };
}

describe('taxonomy section', () => {
  it('loads nothing before the reader comes near, then fills the parameter counts from the shipped models', async () => {
    const { page, problems } = await h.open('', { width: 1280, height: 900 });
    // Every model request, with the page's and the Worker's fetches alike.
    const requests: string[] = [];
    page.on('request', (r) => {
      const m = r.url().match(/models\/([\w-]+)\.safetensors/);
      if (m) requests.push(m[1]!);
    });
    await page.waitForTimeout(2500);
    // The word-order models belong to the first section; nothing of ours yet.
    const early = requests.filter((r) => /^(language|retrieval)-/.test(r));
    assert.deepEqual(early, [], `requested before scrolling: ${early.join(', ')}`);
    const counts = (): Promise<Record<string, string>> => page.$$eval('#tax-table tr[data-encoding]', (rows) => Object.fromEntries(rows.map((r) => [
      (r as HTMLElement).dataset.encoding!, (r.querySelector('code.count') as HTMLElement).dataset.value ?? ''])));
    assert.ok(Object.values(await counts()).every((v) => v === ''), 'no count filled before scrolling');
    // The page's own fetches since it opened (the request log above starts later).
    const pageFetches = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /models\/(language|retrieval)-/.test(n)));
    assert.deepEqual(pageFetches, []);

    await page.locator('#taxonomy').scrollIntoViewIfNeeded();
    await page.waitForSelector('#tax-table[data-ready="1"]', { timeout: 300000 });
    for (const enc of ENCODINGS) assert.ok(requests.includes(`language-${enc}`), `language-${enc} fetched`);
    // A table of concepts: the measured comparison is the extrapolation section's.
    assert.equal(await page.locator('#tax-table td.num').count(), 0);
    const got = await counts();
    // Position parameters, from the files' own headers: the learned table's and the relative tables' element counts.
    const header = (name: string): Record<string, { shape: number[] }> => {
      const bytes = modelBytes(name);
      const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
      return JSON.parse(Buffer.from(bytes.subarray(8, 8 + n)).toString('utf8')) as Record<string, { shape: number[] }>;
    };
    const learned = header('language-learned')['pos.weight']!.shape;
    assert.equal(Number(got.learned), learned[0]! * learned[1]!);
    for (const enc of ['sinusoidal', 'rope', 'alibi', 'xpos', 'nope']) assert.equal(got[enc], '0', enc);
    for (const enc of ['shaw', 't5']) assert.ok(Number(got[enc]) > 0, `${enc}: ${got[enc]}`);
    // The learned table: the page's mean cosine of rows at distance d, against float64.
    await page.waitForSelector('#tax-pos[data-ready="1"]', { timeout: 60000 });
    const { shape, data } = tensor(modelBytes('language-learned'), 'pos.weight');
    const [n, dim] = [shape[0]!, shape[1]!];
    const row = (p: number): number[] => Array.from(data.subarray(p * dim, (p + 1) * dim));
    const cosine = (a: number[], b: number[]): number => {
      let ab = 0, aa = 0, bb = 0;
      for (let c = 0; c < dim; c++) { ab += a[c]! * b[c]!; aa += a[c]! ** 2; bb += b[c]! ** 2; }
      return ab / Math.sqrt(aa * bb);
    };
    for (const d of [1, 8, 16, 32]) {
      let s = 0;
      for (let p = 0; p + d < n; p++) s += cosine(row(p), row(p + d));
      const want = s / (n - d);
      const got = Number(await page.$eval('#tax-pos-look', (e, k) => (e as HTMLElement).dataset[k], `d${d}`));
      assert.ok(Math.abs(got - want) < 1e-6, `mean cosine at distance ${d}: page ${got}, float64 ${want}`);
    }
    assert.match(await page.textContent('#tax-pos-error') ?? '', new RegExp(`${n}`));
    await screenshot(page, 'overview-taxonomy', '#taxonomy');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('draws Shaw’s index clip(n − m, −k, k) for each (query m, key n)', async () => {
    const { page, problems } = await h.open('#section=taxonomy');
    for (const [k, L] of [[4, 24], [7, 40], [1, 9], [32, 64]] as const) {
      await setRange(page, '#tax-shaw-clip', k);
      await setRange(page, '#tax-shaw-len', L);
      await page.waitForFunction(([kk, ll]) => {
        const c = document.querySelector<HTMLElement>('#tax-shaw-map');
        return c?.dataset.clip === String(kk) && c.dataset.length === String(ll);
      }, [k, L]);
      const values = (await page.$eval('#tax-shaw-map', (e) => (e as HTMLElement).dataset.values ?? '')).split(',').map(Number);
      assert.equal(values.length, L * L);
      for (let i = 0; i < L; i++) {
        for (let j = 0; j < L; j++) assert.equal(values[i * L + j], Math.min(k, Math.max(-k, j - i)), `k ${k}, i ${i}, j ${j}`);
      }
      // The drawn map itself, through its hover read-out.
      // (The page scrolls smoothly: jump, then let any running scroll settle.)
      await page.$eval('#tax-shaw-map', (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
      await page.waitForTimeout(300);
      await page.$eval('#tax-shaw-map', (e) => e.scrollIntoView({ block: 'center', behavior: 'instant' }));
      for (const [i, j] of [[0, L - 1], [L - 1, 0], [Math.floor(L / 2), Math.floor(L / 3)]] as const) {
        // The read-out follows the pointer on the next frame: move, then wait for it (a few
        // tries, re-measuring the map in case a late scroll moved it).
        let readout = '';
        for (let attempt = 0; attempt < 5 && !readout.includes(`m ${i}, n ${j}:`); attempt++) {
          // hover() scrolls the map into view and waits until nothing (the sticky nav, a
          // late layout change) covers the point before it moves the mouse there.
          const map = page.locator('#tax-shaw-map');
          const box = (await map.boundingBox())!;
          await map.hover({ position: { x: ((j + 0.5) / L) * box.width, y: ((i + 0.5) / L) * box.height }, timeout: 3000 }).catch(() => undefined);
          readout = await page
            .waitForFunction((want) => {
              const t = document.querySelector('#tax-shaw .readout')?.textContent ?? '';
              return t.includes(want) ? t : '';
            }, `m ${i}, n ${j}:`, { timeout: 1000 })
            .then((r) => r.jsonValue() as Promise<string>)
            .catch(async () => (await page.textContent('#tax-shaw .readout')) ?? '');
        }
        const m = readout.match(/m (\d+), n (\d+): (-?[\d.]+)/);
        assert.ok(m, `read-out: ${readout}`);
        assert.deepEqual([Number(m[1]), Number(m[2]), Number(m[3])], [i, j, Math.min(k, Math.max(-k, j - i))]);
      }
      const distinct = Number(await page.$eval('#tax-shaw-look', (e) => (e as HTMLElement).dataset.distinct));
      assert.equal(distinct, Math.min(2 * k + 1, 2 * L - 1));
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe('pipeline section', () => {
  const EXPECTED: Record<string, string[]> = {
    nope: ['mask'], sinusoidal: ['abs'], learned: ['abs'], rope: ['rotQ', 'rotK'], xpos: ['rotQ', 'rotK'],
    alibi: ['terms'], t5: ['terms'], shaw: ['terms', 'values'],
  };
  const lit = (page: Page): Promise<string[]> =>
    page.$$eval('#pipe-diagram li.lit', (ls) => ls.map((l) => `${(l as HTMLElement).dataset.step}:${l.getAttribute('aria-current')}`));

  it('lights the step(s) where each encoding enters, by click and by keyboard', async () => {
    const { page, problems } = await h.open('#section=pipeline');
    for (const [enc, steps] of Object.entries(EXPECTED)) {
      await page.click(`#pipe-picker button[data-encoding="${enc}"]`);
      assert.deepEqual(await lit(page), steps.map((s) => `${s}:true`), enc);
      const pressed = await page.$$eval('#pipe-picker button[aria-pressed="true"]', (bs) => bs.map((b) => (b as HTMLElement).dataset.encoding));
      assert.deepEqual(pressed, [enc]);
      assert.ok((await page.textContent('#pipe-say-text'))!.length > 40);
    }
    // V is never lit by RoPE / xPos; ALiBi's step is not the mask.
    await page.click('#pipe-picker button[data-encoding="alibi"]');
    assert.ok(!(await lit(page)).some((s) => s.startsWith('mask')));
    // Arrow keys move the choice along the picker.
    await page.focus('#pipe-picker button[data-encoding="rope"]');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.$eval('#pipe-picker button[aria-pressed="true"]', (b) => (b as HTMLElement).dataset.encoding), 'xpos');
    assert.deepEqual(await lit(page), ['rotQ:true', 'rotK:true']);
    assert.match(page.url(), /p\.enc=xpos/);
    await screenshot(page, 'overview-pipeline', '#pipeline');
    // Phone width: still one readable column of boxes.
    const phone = await h.open('#section=pipeline&p.enc=shaw&lang=zh&theme=dark', { width: 390, height: 844 });
    assert.deepEqual(await lit(phone.page), ['terms:true', 'values:true']);
    const overflow = await phone.page.$eval('#pipe-diagram', (e) => e.scrollWidth - e.clientWidth);
    assert.ok(overflow <= 1, `diagram overflows by ${overflow}px at 390px`);
    await screenshot(phone.page, 'overview-pipeline-phone-zh-dark', '#pipeline');
    assert.deepEqual([...problems, ...phone.problems], []);
    await phone.page.close();
    await page.close();
  });
});

// ---- float64 references for the quiz

/** The page's input generator (a 32-bit LCG), rounded to float32 as the page does. */
function lcg(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround((s / 2 ** 32) * 2 - 1);
  });
}

/** RoPE, half layout (pairs i and i + d/2), base 10000, of x: [T, d] at positions offset.. . */
function rope64(x: number[], T: number, d: number, offset: number, base = 10000): number[] {
  const out = x.slice();
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < d / 2; i++) {
      const a = (offset + t) * base ** ((-2 * i) / d);
      const [x0, x1] = [x[t * d + i]!, x[t * d + i + d / 2]!];
      out[t * d + i] = x0 * Math.cos(a) - x1 * Math.sin(a);
      out[t * d + i + d / 2] = x1 * Math.cos(a) + x0 * Math.sin(a);
    }
  }
  return out;
}

/** Causal softmax(q k^T / sqrt(d)) v for one head: [T, d]. */
function attention64(q: number[], k: number[], v: number[], T: number, d: number): number[] {
  const out = new Array<number>(T * d).fill(0);
  for (let i = 0; i < T; i++) {
    const s = Array.from({ length: i + 1 }, (_, j) => {
      let acc = 0;
      for (let e = 0; e < d; e++) acc += q[i * d + e]! * k[j * d + e]!;
      return acc / Math.sqrt(d);
    });
    const mx = Math.max(...s);
    const w = s.map((x) => Math.exp(x - mx));
    const z = w.reduce((a, b) => a + b, 0);
    for (let j = 0; j <= i; j++) for (let e = 0; e < d; e++) out[i * d + e]! += (w[j]! / z) * v[j * d + e]!;
  }
  return out;
}

function qkvShiftDelta(set: string): number {
  const T = 6, d = 8;
  const x = { q: lcg(T * d, 1), k: lcg(T * d, 2), v: lcg(T * d, 3) };
  const run = (off: number): number[] => {
    const pick = (n: 'q' | 'k' | 'v'): number[] => (set.includes(n) ? rope64(x[n], T, d, off) : x[n]);
    return attention64(pick('q'), pick('k'), pick('v'), T, d);
  };
  const [a, b] = [run(0), run(50)];
  return Math.max(...a.map((v, e) => Math.abs(v - b[e]!)));
}

function t5Bucket64(n: number, buckets = 32, maxDistance = 128): number {
  const exact = buckets / 2;
  if (n < exact) return n;
  return Math.min(buckets - 1, exact + Math.floor((Math.log(n / exact) / Math.log(maxDistance / exact)) * (buckets - exact)));
}

interface Case {
  id: string;
  right: string | number;
  wrong: string | number;
  /** The float64 / integer reference of the "checked" value, and its tolerance. */
  ref: number;
  tol: number;
  /** Further data-* values and their references. */
  extra?: Record<string, [number, number]>;
}

const CASES: Case[] = [
  { id: 'kv', right: 128, wrong: 0, ref: 128, tol: 0 },
  { id: 'qkv', right: 'qk', wrong: 'qkv', ref: 0, tol: 1e-5, extra: { qkv: [qkvShiftDelta('qkv'), 1e-4], q: [qkvShiftDelta('q'), 1e-4] } },
  (() => {
    const q = lcg(16, 7), k = lcg(16, 11);
    const a = rope64(q, 1, 16, 12).reduce((s, x, e) => s + x * rope64(k, 1, 16, 5)[e]!, 0);
    return { id: 'shift', right: 'same', wrong: 'changes', ref: a, tol: 1e-5, extra: { shifted: [a, 1e-4] } };
  })(),
  { id: 'norm', right: 'equal', wrong: 'grows', ref: Math.hypot(...lcg(64, 5)), tol: 1e-5 },
  (() => {
    let i = 0;
    while (2 * Math.PI * 10000 ** ((2 * i) / 128) <= 4096) i++;
    return { id: 'lowfreq', right: 'low', wrong: 'high', ref: i, tol: 0, extra: { count: [64 - i, 0] } };
  })(),
  { id: 'slope', right: 0.5, wrong: 1, ref: 2 ** (-8 / 8), tol: 0 },
  (() => {
    const w = [0, 1, 2, 3].map((j) => Math.exp(-0.5 * j));
    return { id: 'mask', right: 'no', wrong: 'yes', ref: (w[1]! + w[2]! + w[3]!) / (w[0]! + w[1]! + w[2]! + w[3]!), tol: 1e-5, extra: { masked: [0, 0] } };
  })(),
  { id: 'learned', right: 'norow', wrong: 'softmax', ref: 63, tol: 0 },
  { id: 'ntk', right: 'base', wrong: 'positions', ref: 10000 * 3 ** (64 / 62), tol: 1e-4 * 10000 * 3 ** (64 / 62) },
  { id: 'first', right: 1, wrong: 0, ref: 1, tol: 0 },
  (() => {
    let a = 0;
    for (let i = 0; i < 32; i++) a += Math.cos(7 * 10000 ** ((-2 * i) / 64));
    return { id: 'sin', right: 'diff', wrong: 'sum', ref: a, tol: 1e-4, extra: { b: [a, 1e-3] } };
  })(),
  { id: 't5', right: t5Bucket64(1000), wrong: 47, ref: t5Bucket64(1000), tol: 0, extra: { b20: [t5Bucket64(20), 0], b3: [3, 0] } },
  { id: 'pi', right: 1500, wrong: 6000, ref: 6000 / 4, tol: 0 },
  { id: 'nope', right: 'yes', wrong: 'no', ref: 1 / 4, tol: 1e-6 },
  { id: 'shaw', right: 'same', wrong: 'different', ref: Math.min(16, Math.max(-16, -200)) + 16, tol: 0, extra: { r3: [-3 + 16, 0] } },
];

describe('quiz section', () => {
  it('judges each question right and wrong by computing it, and shows the computed value', async () => {
    const { page, problems } = await h.open('#section=quiz');
    assert.equal(await page.$$eval('#quiz .quiz-q', (qs) => qs.length), CASES.length);
    const answer = async (c: Case, a: string | number): Promise<string> => {
      if (typeof a === 'number') {
        await page.fill(`#quiz-${c.id}-input`, String(a));
        await page.click(`#quiz-${c.id} button[type="submit"]`);
      } else {
        await page.check(`#quiz-${c.id} input[value="${a}"]`);
      }
      return page.$eval(`#quiz-${c.id} .verdict`, (e) => (e as HTMLElement).dataset.verdict ?? '');
    };
    for (const c of CASES) {
      assert.equal(await answer(c, c.wrong), 'incorrect', `${c.id}: ${c.wrong} is wrong`);
      assert.equal(await answer(c, c.right), 'correct', `${c.id}: ${c.right} is right`);
      const data = await page.$eval(`#quiz-${c.id}-value`, (e) => ({ ...(e as HTMLElement).dataset }));
      const got = Number(data.value);
      assert.ok(Math.abs(got - c.ref) <= c.tol, `${c.id}: checked ${got}, reference ${c.ref}`);
      for (const [k, [want, tol]] of Object.entries(c.extra ?? {})) {
        assert.ok(Math.abs(Number(data[k]) - want) <= tol, `${c.id}.${k}: ${data[k]}, reference ${want}`);
      }
      const shown = await page.textContent(`#quiz-${c.id}-value`) ?? '';
      assert.ok(shown.length > 20, `${c.id} shows its computation: ${shown}`);
    }
    assert.equal(await page.$eval('#quiz-score', (e) => (e as HTMLElement).dataset.correct), String(CASES.length));
    // Chinese: the computation follows the language.
    await page.click('#lang-switch');
    assert.match(await page.textContent('#quiz-kv-value') ?? '', /cache 里有 128 个 token/);
    await screenshot(page, 'overview-quiz-zh', '#quiz');
    assert.deepEqual(problems, []);
    await page.close();
  });
});
