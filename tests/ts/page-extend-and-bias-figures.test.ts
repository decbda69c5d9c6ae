/**
 * The extend verdict is built from the
 * run's own numbers and the previous run is labelled and greyed while a new
 * one goes; the section 10 charts give every series its own colour and keep
 * their end labels apart and off the axis; the ALiBi maps use a one-sided
 * colour bar [-max, 0]; the T5 bucket map says which ids each direction uses
 * (checked against a float64 bucket reference); the learned T5 bias against
 * distance equals the shipped model's t5.bias table looked up by the float64
 * bucket rule. Screenshots in English and Chinese, 1280 and 390 px, light and dark.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { Page } from 'playwright-core';

import { num, reachAndWait, root, screenshot, setRange, startHarness, type Harness } from './page-harness.js';

let h: Harness;

before(async () => {
  h = await startHarness();
});

after(async () => {
  await h?.close();
});

const siteDir = process.env.POSENC_SITE_DIR ?? join(root, 'dist/site');

/** Press et al. for a power of two H: slope_h = 2^(-8(h+1)/H). */
const pow2Slopes = (H: number): number[] => Array.from({ length: H }, (_, i) => 2 ** (-8 * (i + 1) / H));

/**
 * T5's relative bucket (Raffel et al.; the Hugging Face rule) in float64:
 * rel = key - query. Bidirectional: half the buckets per direction, keys
 * after the query offset by B/2. Unidirectional: only the distance back.
 */
function t5Bucket(rel: number, B: number, maxDistance: number, bidirectional: boolean): number {
  let buckets = B, offset = 0, n: number;
  if (bidirectional) {
    buckets = B / 2;
    if (rel > 0) offset = buckets;
    n = Math.abs(rel);
  } else n = Math.max(-rel, 0);
  const exact = buckets / 2;
  if (n < exact) return offset + n;
  const large = exact + Math.floor((Math.log(n / exact) / Math.log(maxDistance / exact)) * (buckets - exact));
  return offset + Math.min(large, buckets - 1);
}

/** One float32 tensor of a safetensors file: [shape], values as float64. */
function readTensor(path: string, name: string): { shape: number[]; data: number[] } {
  const buf = readFileSync(path);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8')) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const t = header[name]!;
  assert.equal(t.dtype, 'F32');
  const [a, b] = t.data_offsets;
  const data: number[] = [];
  for (let o = 8 + n + a; o < 8 + n + b; o += 4) data.push(buf.readFloatLE(o));
  return { shape: t.shape, data };
}

async function reach(page: Page, ids: string[]): Promise<void> {
  await page.addStyleTag({ content: 'html { scroll-behavior: auto !important; }' });
  for (const id of ids) {
    await page.$eval(id, (e) => e.scrollIntoView({ block: 'center' }));
    await page.waitForTimeout(200);
  }
}

type Label = [string, number, number, number];

/** The end labels of a chart must not overlap each other and must stay above its x axis (CSS pixels; text 11 px high). */
async function checkEndLabels(page: Page, id: string): Promise<Label[]> {
  const { labels, bottom, right } = await page.$eval(id, (e) => {
    const over = e.querySelector<HTMLElement>('.u-over')!;
    const canvas = e.querySelector('canvas')!;
    return { labels: JSON.parse((e as HTMLElement).dataset.endLabels ?? '[]') as Label[], bottom: over.offsetTop + over.offsetHeight, right: canvas.getBoundingClientRect().width };
  });
  for (let a = 0; a < labels.length; a++) {
    const [ta, xa, ya, wa] = labels[a]!;
    assert.ok(ya + 5.5 <= bottom + 1, `${id}: "${ta}" at y ${ya} runs into the x axis (${bottom})`);
    // Review 4, N8: "RoPE + YaRN ×4" ran past the chart's right edge on a phone.
    assert.ok(xa + wa <= right + 1, `${id}: "${ta}" ends at ${xa + wa}, past the chart's right edge (${right})`);
    for (let b = a + 1; b < labels.length; b++) {
      const [tb, xb, yb, wb] = labels[b]!;
      const apart = xa + wa <= xb + 1 || xb + wb <= xa + 1 || Math.abs(ya - yb) >= 11 - 1;
      assert.ok(apart, `${id}: "${ta}" and "${tb}" overlap`);
    }
  }
  return labels;
}

describe('extend verdict, section 10 charts, ALiBi / T5 figures (Chromium, strict CSP)', () => {
  it('section 10: every series has its own colour, end labels apart and off the axis (1280 / 390, en / zh, light / dark)', async () => {
    const views: Array<[string, { width: number; height: number }, string]> = [
      ['', { width: 1280, height: 900 }, 'en-1280'],
      ['lang=zh&theme=dark&', { width: 1280, height: 900 }, 'zh-dark-1280'],
      ['', { width: 390, height: 844 }, 'en-390'],
      ['lang=zh&', { width: 390, height: 844 }, 'zh-390'],
    ];
    for (const [pre, viewport, name] of views) {
      const { page, problems } = await h.open(`#${pre}e.len=1024&e.scaling=yarn&e.factor=16`, viewport);
      await reach(page, ['#extrapolation', '#ext-loss']);
      await page.waitForSelector('#ext-loss[data-ready="1024"]', { timeout: 240000 });
      await reachAndWait(page, '#ext-retrieval', '#ext-retrieval[data-ready="1"]', 240000);
      for (const id of ['#ext-loss', '#ext-retrieval']) {
        const series = JSON.parse(await page.$eval(id, (e) => (e as HTMLElement).dataset.series!)) as Array<[string, string]>;
        const colours = series.map(([, c]) => c);
        assert.equal(new Set(colours).size, colours.length, `${id}: ${JSON.stringify(series)}`);
        const labels = await checkEndLabels(page, id);
        // The x tick labels do not touch (review 4, N8: on a phone the log axis crowded 3 and 4, 128, 256 and 512).
        const ticks = await page.$eval(id, (e) => {
          const m = document.createElement('canvas').getContext('2d')!;
          m.font = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
          // The labels drawn, and where each value's tick sits.
          const labels = ((e as HTMLElement).dataset.xticks ?? '').split(',');
          const px = new Map(((e as HTMLElement).dataset.xtickPx ?? '').split(',').map((p) => p.split(':') as [string, string]));
          return labels.map((l) => ({ l, x: Number(px.get(l)), w: m.measureText(l).width }));
        });
        assert.ok(ticks.length >= 4 && ticks.every((k) => Number.isFinite(k.x)), `${name} ${id}: ticks ${JSON.stringify(ticks)}`);
        for (let k = 1; k < ticks.length; k++) {
          const a = ticks[k - 1]!, b = ticks[k]!;
          assert.ok(b.x - a.x >= (a.w + b.w) / 2 + 2, `${name} ${id}: tick labels ${a.l} (x ${a.x}) and ${b.l} (x ${b.x}) touch`);
        }
        if (id === '#ext-loss') {
          // The legend names the scaled curve by its display names, in both languages.
          const scaled = 'RoPE + YaRN ×16';
          assert.ok(series.some(([l]) => l === scaled), `the scaled curve is in the chart: ${JSON.stringify(series)}`);
          assert.ok(labels.length >= 8, `${id}: ${labels.length} end labels`);
          // The entropy rate's text sits wholly above or wholly below its dashed line (the dashes never
          // run through it, review N12), on a box of its own.
          const marks = JSON.parse(await page.$eval(id, (e) => (e as HTMLElement).dataset.hMarkerText ?? '[]')) as Array<[number, number[]]>;
          assert.equal(marks.length, 1, `${name}: one horizontal marker text`);
          for (const [line, [x0, y0, x1, y1]] of marks) {
            assert.ok(y0! < y1! && (y1! < line || y0! > line), `${name}: text box ${y0}-${y1} clear of the line at ${line}`);
            for (const [l, lx, ly, lw] of labels) {
              const apart = lx + lw <= x0! + 1 || x1! <= lx + 1 || ly + 5.5 <= y0! + 1 || y1! <= ly - 5.5 + 1;
              assert.ok(apart, `${name}: the entropy rate's text [${x0}, ${y0}, ${x1}, ${y1}] overlaps the end label "${l}" at (${lx}, ${ly})`);
            }
          }
          // The learned model's line ends at its table: its label is joined to that end by a short leader.
          const learned = pre.includes('lang=zh') ? '可学习位置编码' : 'Learned';
          const leaders = JSON.parse(await page.$eval(id, (e) => (e as HTMLElement).dataset.endLeaders ?? '[]')) as Array<[string, number, number, number, number]>;
          const leader = leaders.find(([l]) => l === learned);
          assert.ok(leader, `${name}: a leader for ${learned}: ${JSON.stringify(leaders)}`);
          const [, x0, y0, x1, y1] = leader;
          // Short: the label is at most five rows (of 12 px) from the end, clear of the other lines (review F5).
          assert.ok(Math.hypot(x1 - x0, y1 - y0) <= 5 * 12 + 6, `${name}: leader ${JSON.stringify(leader)} is short`);
          const box = labels.find(([l]) => l === learned)!;
          assert.ok(x1 >= box[1] - 1 && x1 <= box[1] + box[3] + 1 && Math.abs(y1 - box[2]) <= 6.5, `${name}: the leader ends at the label ${JSON.stringify(box)}`);
          // It starts at the learned line's last point (from the data), and the label stands clear of the
          // training-length line and of that point, where the other curves bunch (review F5).
          const ends = JSON.parse(await page.$eval(id, (e) => (e as HTMLElement).dataset.endPoints ?? '[]')) as Array<[string, number, number]>;
          const end = ends.find(([l]) => l === learned);
          assert.ok(end && Math.abs(end[1] - x0) <= 1 && Math.abs(end[2] - y0) <= 1, `${name}: the leader starts at the line's end ${JSON.stringify(end)}: ${JSON.stringify(leader)}`);
          const markerXs = JSON.parse(await page.$eval(id, (e) => (e as HTMLElement).dataset.markerXs ?? '[]')) as number[];
          assert.equal(markerXs.length, 1, `${name}: the training length's line`);
          for (const mx of markerXs) assert.ok(box[1] + box[3] < mx - 4 || box[1] > mx + 4, `${name}: the label ${JSON.stringify(box)} off the training-length line at ${mx}`);
          assert.ok(Math.abs(box[2] - y0) >= 5.5 + 6, `${name}: the label ${JSON.stringify(box)} a row clear of the end point (${x0}, ${y0})`);
        }
        await screenshot(page, `fix2-${id.slice(1)}-${name}`, id);
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('ALiBi maps: a one-sided colour bar from -slope·(L-1) to 0 per head, or the steepest head\'s range when shared', async () => {
    const H = 8, L = 32;
    // The default is one scale shared by all heads (the checkbox unchecked).
    const plain = await h.open('#section=bias');
    await plain.page.waitForSelector('#alibi-maps .axed');
    assert.equal(await plain.page.isChecked('#bias input[type="checkbox"] >> nth=0'), false, 'shared scale by default');
    await plain.page.close();
    const { page, problems } = await h.open(`#b.heads=${H}&b.variant=paper&b.len=${L}&b.perhead=1`);
    const ranges = (): Promise<Array<[number, number]>> => page.$$eval('#alibi-maps .axed', (es) => es.map((e) => [Number((e as HTMLElement).dataset.lo), Number((e as HTMLElement).dataset.hi)]));
    const slopes = pow2Slopes(H);
    const per = await ranges();
    assert.equal(per.length, H);
    per.forEach(([lo, hi], i) => {
      assert.equal(hi, 0, `head ${i}: top of the bar`);
      assert.ok(Math.abs(lo + slopes[i]! * (L - 1)) <= 1e-5 * slopes[i]! * L, `head ${i}: ${lo} vs ${-slopes[i]! * (L - 1)}`);
    });
    assert.equal(await page.$eval('#alibi-maps .axed .t-hi', (e) => e.textContent), '0');
    await page.uncheck('#bias input[type="checkbox"] >> nth=0');
    await page.waitForTimeout(150);
    for (const [lo, hi] of await ranges()) {
      assert.equal(hi, 0);
      assert.ok(Math.abs(lo + slopes[0]! * (L - 1)) <= 1e-5 * L, `shared: ${lo}`);
    }
    assert.match(await page.$eval('#alibi-look', (e) => e.textContent ?? ''), /−max to 0/);
    await screenshot(page, 'fix2-alibi-shared-en', '#alibi-maps');
    assert.deepEqual(problems, []);
    await page.close();
    for (const [hash, vp, name] of [['#lang=zh&theme=dark&b.heads=8', { width: 1280, height: 900 }, 'zh-dark'], ['#b.heads=8', { width: 390, height: 844 }, 'en-390']] as const) {
      const p = await h.open(hash, vp);
      await p.page.$eval('#alibi-maps', (e) => e.scrollIntoView());
      await screenshot(p.page, `fix2-alibi-${name}`, '#alibi-maps');
      assert.deepEqual(p.problems, []);
      await p.page.close();
    }
  });

  it('T5 bucket map: the sentence names the ids of each direction and the last bucket, as the float64 bucket rule gives them', async () => {
    for (const [bidir, lang] of [[true, 'en'], [false, 'zh']] as const) {
      const B = 32, D = 128, L = 160;
      const { page, problems } = await h.open(`#lang=${lang}&b.bidir=${bidir ? 1 : 0}&b.buckets=${B}&b.maxd=${D}&b.tlen=${L}`);
      assert.equal(await page.$eval('#t5-buckets', (e) => (e as HTMLElement).dataset.rows), String(L));
      let pLo = Infinity, pHi = -Infinity, fLo = Infinity, fHi = -Infinity;
      const far = new Set<number>();
      for (let i = 0; i < L; i++) for (let j = 0; j < L; j++) {
        const b = t5Bucket(j - i, B, D, bidir);
        if (j < i) { pLo = Math.min(pLo, b); pHi = Math.max(pHi, b); }
        if (j > i) { fLo = Math.min(fLo, b); fHi = Math.max(fHi, b); }
        if (i - j >= D) far.add(b);
      }
      const range = (lo: number, hi: number): string => (lo === hi ? String(lo) : `${lo}–${hi}`);
      const text = await page.$eval('#t5-split', (e) => e.textContent ?? '');
      assert.ok(text.includes(range(pLo, pHi)) && text.includes(range(fLo, fHi)), `${text} / past ${range(pLo, pHi)} future ${range(fLo, fHi)}`);
      assert.equal(far.size, 1);
      assert.ok(text.includes(String([...far][0])), `last bucket ${[...far][0]}: ${text}`);
      await page.$eval('#t5-buckets', (e) => e.scrollIntoView());
      await screenshot(page, `fix2-t5-buckets-${lang}`, '#t5-buckets');
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  it('learned T5 bias against distance: one line per head, equal to t5.bias[bucket(d), h] of the shipped model', async () => {
    const { page, problems } = await h.open('');
    await reachAndWait(page, '#t5-learned', '#t5-learned[data-ready="1"]');
    const lines = JSON.parse(await page.$eval('#t5-learned-lines', (e) => (e as HTMLElement).dataset.value!)) as number[][];
    const series = JSON.parse(await page.$eval('#t5-learned-lines', (e) => (e as HTMLElement).dataset.series!)) as Array<[string, string]>;
    const { shape, data } = readTensor(join(siteDir, 'models/language-t5.safetensors'), 't5.bias');
    const [B, H] = shape as [number, number];
    assert.equal(lines.length, H);
    assert.equal(series.length, H);
    assert.equal(new Set(series.map(([, c]) => c)).size, H);
    const D = 128;  // the model's t5_max_distance (metadata), checked through the flat tail below
    lines.forEach((line, hd) => {
      assert.equal(line.length, 2 * D);
      line.forEach((v, d) => {
        const want = data[t5Bucket(-d, B, D, false) * H + hd]!;
        assert.ok(Math.abs(v - want) <= 1e-6, `head ${hd} distance ${d}: ${v} vs ${want}`);
      });
      // Past Max distance: one bucket, a flat line.
      assert.equal(new Set(line.slice(D)).size, 1);
    });
    const look = await page.$eval('#t5-learned-look', (e) => e.textContent ?? '');
    assert.match(look, /0–15.*\(128\).*64.*63/);
    // The first distance from which the table gives 0 for every head, to the end of the chart.
    let z = 2 * D;
    while (z > 0 && Array.from({ length: H }, (_, hd) => data[t5Bucket(-(z - 1), B, D, false) * H + hd]).every((v) => v === 0)) z--;
    assert.ok(z < 2 * D && look.includes(`From distance ${z} on`), `${z}: ${look}`);
    await page.$eval('#t5-learned-lines', (e) => e.scrollIntoView());
    await screenshot(page, 'fix2-t5-lines-en', '#t5-learned-lines');
    assert.deepEqual(problems, []);
    await page.close();
    for (const [hash, vp, name] of [['#lang=zh&theme=dark', { width: 1280, height: 900 }, 'zh-dark'], ['#lang=zh', { width: 390, height: 844 }, 'zh-390']] as const) {
      const p = await h.open(hash, vp);
      await reachAndWait(p.page, '#t5-learned', '#t5-learned[data-ready="1"]');
      await p.page.$eval('#t5-learned-lines', (e) => e.scrollIntoView());
      await screenshot(p.page, `fix2-t5-lines-${name}`, '#t5-learned-lines');
      assert.deepEqual(p.problems, []);
      await p.page.close();
    }
  });

  it('extend: the verdict quotes the table, the baseline is the unscaled run, and a new run greys and labels the old result', async () => {
    const { page, problems } = await h.open('#x.model=language-rope&x.method=linear&x.len=128&x.steps=10');
    await page.$eval('#extend-start', (e) => e.scrollIntoView());
    const run = async (): Promise<void> => {
      await page.click('#extend-start');
      await page.waitForSelector('#extend-status[data-done="1"]', { timeout: 120000 });
    };
    const cells = async (): Promise<number[]> => Promise.all(['#extend-before-near', '#extend-after-near', '#extend-before-far', '#extend-after-far'].map((s) => num(page, s)));
    const shownCells = (): Promise<string[]> => page.$$eval('#extend-figs output', (os) => os.map((o) => o.textContent ?? ''));
    const plainRows = (): Promise<boolean[]> => page.$$eval('#extend-base-row, #extend-plain-row', (rs) => rs.map((r) => (r as HTMLElement).hidden));
    await run();
    const linear = await cells();
    let verdict = await page.$eval('#extend-verdict', (e) => e.textContent ?? '');
    // The four numbers in the order "inside: before -> after; past: before -> after", as the table shows them.
    const quoted = (verdict.match(/\d+\.\d{3}/g) ?? []).map(Number);
    assert.deepEqual(quoted.slice(0, 4), linear.map((v) => Number(v.toFixed(3))), verdict);
    // The first two rows: this run's cells (the unscaled rows follow).
    assert.deepEqual((await shownCells()).slice(0, 4).map(Number).sort(), linear.map((v) => Number(v.toFixed(3))).sort());
    assert.match(verdict, /^Measured for linear \(position interpolation\) at 128 tokens, 10 steps: inside/);
    // The border is named by the token predicted, as the chart's training-length line (at 64) marks it:
    // a sequence of 64 tokens scores the predictions of tokens 1-63, never token 64 (review 4, N1).
    // Each column head: inside / past the old length, then (on a line of its own) the tokens predicted there.
    const heads = await page.$$eval('#extend-figs thead th', (ths) => ths.map((th) => Array.from(th.childNodes, (n) => n.textContent ?? '').join(' / ')).join(' | '));
    assert.match(heads, /inside the old length \/ predicting tokens 1–\u2060?63 \| past the old length \/ predicting token 64 and on$/, heads);
    assert.match(verdict, /inside the old length \(predicting tokens 1–63\).*past the old length \(token 64 and on\)/, verdict);
    const [rn, rf, delta] = quoted.slice(4, 7) as [number, number, number];
    assert.ok(Math.abs(Math.abs(linear[0]! - rn) - delta) <= 0.0011, `${verdict}: delta`);
    assert.match(verdict, linear[0]! > rn ? /raised/ : /lowered|unchanged/);
    // Review 3 F2: the unscaled model trained the same steps (a real run: finite, and not the untrained numbers), and a
    // reading of the comparison computed from the cells.
    assert.deepEqual(await plainRows(), [false, false]);
    const [baseNear, baseFar, plainNear, plainFar] = await Promise.all(
      ['#extend-base-near', '#extend-base-far', '#extend-plain-near', '#extend-plain-far'].map((sel) => num(page, sel)));
    for (const v of [baseNear, baseFar, plainNear, plainFar]) assert.ok(Number.isFinite(v) && v > 0, String(v));
    assert.equal(Number(baseNear.toFixed(3)), rn);
    assert.equal(Number(baseFar.toFixed(3)), rf);
    assert.ok(plainNear !== baseNear && plainFar !== baseFar, `trained ${plainNear}, ${plainFar} vs untrained ${baseNear}, ${baseFar}`);
    // 10 steps at 128 tokens without a scaling bring the loss past the old length down.
    assert.ok(plainFar < baseFar, `${baseFar} -> ${plainFar}`);
    const cmp = /Trained the same 10 steps without a scaling, it scores (\d+\.\d{3}) inside and (\d+\.\d{3}) past the old length: with the scaling it ends (.+) past the old length and (.+) inside it\.$/.exec(verdict);
    assert.ok(cmp, verdict);
    assert.deepEqual([Number(cmp[1]), Number(cmp[2])], [Number(plainNear.toFixed(3)), Number(plainFar.toFixed(3))]);
    const reading = (scaled: number, plain: number): string => {
      const e = Number((scaled - plain).toFixed(3));
      return e === 0 ? 'level' : `${Math.abs(e).toFixed(3)} nats ${e < 0 ? 'lower' : 'higher'}`;
    };
    assert.equal(cmp[3], reading(linear[3]!, plainFar));
    assert.equal(cmp[4], reading(linear[1]!, plainNear));
    // The legend's first label is the x axis; the unscaled run is a third curve.
    assert.deepEqual((await page.$$eval('#extend-loss .u-legend .u-label', (ls) => ls.map((l) => l.textContent ?? ''))).slice(1),
      ['linear (position interpolation): extended, before training', 'linear (position interpolation): after the extra training', 'no scaling, after the same training']);
    await screenshot(page, 'fix2-extend-linear-en', '#extend-figs');

    // A new run: the table empties, the chart greys, and the old result is named.
    await page.selectOption('[data-param="x.method"] select', 'none');
    // Enough steps to see the running state in the screenshot.
    await setRange(page, '[data-param="x.steps"] input[type="range"]', 80);
    await page.click('#extend-start');
    await page.waitForSelector('#extend-for[data-pending="none"]');
    assert.equal(await page.$eval('#extend-for', (e) => (e as HTMLElement).dataset.method), 'linear');
    assert.ok(await page.$eval('#extend-figs', (e) => e.classList.contains('stale')));
    assert.match(await page.$eval('#extend-for', (e) => e.textContent ?? ''), /linear.*128 tokens, 10 steps/);
    assert.equal(await page.$$eval('#extend-figs output[data-value]', (os) => os.length), 0);
    await screenshot(page, 'fix2-extend-running-en', '#train');
    await page.waitForSelector('#extend-status[data-done="1"]', { timeout: 120000 });
    assert.ok(!(await page.$eval('#extend-figs', (e) => e.classList.contains('stale'))));
    const none = await cells();
    verdict = await page.$eval('#extend-verdict', (e) => e.textContent ?? '');
    assert.equal((verdict.match(/\d+\.\d{3}/g) ?? []).length, 4, 'no baseline sentence for the unscaled run');
    assert.deepEqual(await plainRows(), [true, true], 'no unscaled rows: this run is the unscaled one');
    // The linear run's baseline is this run's "before" (same model, same seeded data).
    assert.equal(rn, Number(none[0]!.toFixed(3)));
    assert.equal(rf, Number(none[2]!.toFixed(3)));
    const legend = await page.$$eval('#extend-loss .u-legend .u-label', (ls) => ls.map((l) => l.textContent ?? ''));
    assert.ok(legend.slice(1).every((l) => l.startsWith('none')), legend.join(' | '));
    assert.deepEqual(problems, []);
    await page.close();

    // Chinese, dark, phone: the verdict in Chinese.
    const zh = await h.open('#lang=zh&theme=dark&x.model=language-rope&x.method=yarn&x.len=128&x.steps=10', { width: 390, height: 844 });
    await zh.page.$eval('#extend-start', (e) => e.scrollIntoView());
    await zh.page.click('#extend-start');
    await zh.page.waitForSelector('#extend-status[data-done="1"]', { timeout: 120000 });
    const zv = await zh.page.$eval('#extend-verdict', (e) => e.textContent ?? '');
    assert.match(zv, /^实测（YaRN，长度 128，10 步）：原训练长度以内/);
    assert.ok(!/[a-z]{4,}/.test(zv.replace(/nats|loss|scaling|YaRN|token/g, '')), zv);
    assert.match(zv, /不缩放、同样训练 10 步之后，原长度以内是 \d+\.\d{3}，超出部分是 \d+\.\d{3}；加缩放的模型和它相比，超出部分(低|高) \d+\.\d{3} nats|持平/);
    assert.equal(await zh.page.$eval('#extend-plain-row th', (e) => e.textContent), '不缩放，同样训练之后');
    const zPlain = await num(zh.page, '#extend-plain-far'), zBase = await num(zh.page, '#extend-base-far');
    assert.ok(Number.isFinite(zPlain) && zPlain !== zBase, `${zBase} -> ${zPlain}`);
    await screenshot(zh.page, 'fix2-extend-yarn-zh-390', '#extend-figs');
    assert.deepEqual(zh.problems, []);
    await zh.page.close();
  });
});
