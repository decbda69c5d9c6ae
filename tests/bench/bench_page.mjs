// Interaction latency of the page in Debian's Chromium (headless), on
// sequences of 256: for each interaction, the main-thread work of one update
// (posenc calls + drawing, the `data-ms` each section records) and the time
// from the input event to the next painted frame, median and worst of 25
// repetitions. Also the longest main-thread task while the Worker trains
// (the UI must not freeze).
//   npm run bench:page                 print the table
//   npm run bench:page -- --readme     also rewrite it in README.md
import { join } from 'node:path';

import { chromium } from 'playwright-core';

import { root } from '../../tools/common.mjs';
import { serve } from '../../tools/serve.mjs';
import { rewriteReadme } from './common.mjs';

const REPS = 25;
const { server, url } = await serve(join(root, 'dist/site'), 0);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const rows = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${url}#s.len=256&s.dim=128&b.len=256&b.heads=16&e.len=64`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === '1', null, { timeout: 60000 });
  await page.click('#order-long');

  // Runs the page-side action `kind` REPS times; each time waits for the
  // next painted frame after the update and reads the section's data-ms.
  // (Actions are plain functions in the evaluated code: the page's CSP
  // forbids building code from strings.)
  async function measure(name, section, kind) {
    const res = await page.evaluate(async ({ section, kind, reps }) => {
      const slide = (sel, values, i) => {
        const e = document.querySelector(sel);
        e.value = String(values[i % values.length]);
        e.dispatchEvent(new Event('input'));
      };
      const actions = {
        shuffle: () => document.querySelector('#order .shuffle').click(),
        causal: () => document.querySelector('#order input[type=checkbox]').click(),
        sinBase: (i) => slide('#sinusoidal input[type=range]', [12, 13, 14, 15], i),
        ropeM: (i) => slide('#rope input[type=range]', [10, 20, 30, 40], i),
        alibi: (i) => {
          const s = document.querySelector('#bias select');
          s.value = i % 2 ? 'simple' : 'paper';
          s.dispatchEvent(new Event('change'));
        },
      };
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const work = [];
      const total = [];
      for (let i = 0; i < reps + 3; i++) {
        const t0 = performance.now();
        actions[kind](i);
        await frame();
        if (i >= 3) {
          total.push(performance.now() - t0);
          work.push(Number(document.querySelector(`#${section} .body`).dataset.ms));
        }
      }
      const med = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
      return { work: med(work), workMax: Math.max(...work), total: med(total), totalMax: Math.max(...total) };
    }, { section, kind, reps: REPS });
    rows.push({ name, ...res });
    process.stderr.write(`${name}: ${JSON.stringify(res)}\n`);
  }
  await measure('order: shuffle 256 tokens (attention twice with weights, 2 heatmaps)', 'order', 'shuffle');
  await measure('order: toggle the causal mask, 256 tokens', 'order', 'causal');
  await measure('sinusoidal: sinusoidal base slider, 256 positions x 128 dims (+ PE PE^T)', 'sinusoidal', 'sinBase');
  await measure('RoPE lab: position slider (6 rotations, angle map, decay over 1024)', 'rope', 'ropeM');
  await measure('bias: ALiBi slopes, 16 heads x 256 x 256 + T5 buckets', 'bias', 'alibi');

  // Longest main-thread task while the Worker trains a language model.
  const longest = await page.evaluate(async () => {
    let max = 0;
    const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) max = Math.max(max, e.duration); });
    obs.observe({ type: 'longtask', buffered: false });
    const sel = document.querySelectorAll('#train select')[0];
    sel.value = 'language';
    sel.dispatchEvent(new Event('change'));
    const steps = document.querySelector('#train input[type=range]');
    steps.value = String(Math.log2(200));
    steps.dispatchEvent(new Event('input'));
    document.getElementById('train-start').click();
    const t0 = performance.now();
    let frames = 0;
    let worstGap = 0;
    let last = performance.now();
    while (!document.getElementById('train-status').dataset.done) {
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      worstGap = Math.max(worstGap, now - last);
      last = now;
      frames++;
    }
    obs.disconnect();
    return { seconds: (performance.now() - t0) / 1000, frames, worstGap, longTask: max };
  });
  process.stderr.write(`training: ${JSON.stringify(longest)}\n`);

  const f = (v) => v.toFixed(1);
  const table = [
    `| interaction (Chromium ${browser.version()}, headless) | work per update, median / worst (ms) | input to next frame, median / worst (ms) |`,
    '|---|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${f(r.work)} / ${f(r.workMax)} | ${f(r.total)} / ${f(r.totalMax)} |`),
    '',
    `While the Worker trained a language model for 200 steps (${longest.seconds.toFixed(1)} s), the page drew ${longest.frames} frames; the longest gap between frames was ${f(longest.worstGap)} ms and the longest main-thread task ${longest.longTask ? `${f(longest.longTask)} ms` : 'under 50 ms (none reported)'}.`,
    '',
    `Measured by \`npm run bench:page\`, ${REPS} repetitions each after 3 warm-ups, ${new Date().toISOString().slice(0, 10)}. "Input to next frame" includes waiting for the display frame (about 16.7 ms at 60 Hz).`,
  ].join('\n');
  console.log(table);
  if (process.argv.includes('--readme')) rewriteReadme('page-latency', table);
} finally {
  await browser.close();
  server.close();
}
