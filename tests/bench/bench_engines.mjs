// posenc in each browser engine the tests use: Debian's Chromium (headless,
// playwright-core), Firefox ESR (WebDriver BiDi) and WebKitGTK's MiniBrowser
// (WebKitWebDriver, under Xvfb). Each loads tests/browser/bench.html from a
// localhost server under the strict CSP and reports causal attention (H=8,
// D=64, one thread) in GFLOP/s and the language task's training in steps/s,
// for the SIMD and the scalar build. One engine runs at a time.
//   npm run bench:engines               print the table
//   npm run bench:engines -- --docs     also rewrite it in docs/
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import { root, run } from '../../tools/common.mjs';
import { rewriteDocs } from './common.mjs';

// The engines' drivers are TypeScript (tests/engines, tests/ts): compile them.
run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.tests.json']);
const load = (p) => import(pathToFileURL(join(root, 'build/ts-tests', p)).href);
const { launchEngine } = await load('tests/engines/engines.js');
const { launchChromium } = await load('tests/ts/chromium.js');
const { servePackage } = await load('tests/ts/browser-server.js');

const server = await servePackage();
const url = `${server.base}/tests/browser/bench.html`;
const poll = () => window.__bench;

/** Chromium behind the same small interface as the other two engines. */
async function chromium() {
  const browser = await launchChromium();
  return {
    name: `Chromium ${browser.version()}`,
    async measure() {
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForFunction(() => window.__bench !== undefined, null, { timeout: 600000 });
      return page.evaluate(poll);
    },
    close: () => browser.close(),
  };
}

async function other(id) {
  const engine = await launchEngine(id);
  return {
    get name() { return engine.name; },
    async measure() {
      const page = await engine.newPage();
      await page.goto(url);
      return page.waitFor(poll, undefined, 600000, 'the benchmark');
    },
    close: () => engine.close(),
  };
}

const rows = [];
try {
  for (const start of [chromium, () => other('firefox'), () => other('webkit')]) {
    const engine = await start();
    try {
      const r = await engine.measure();
      if (r.error) throw new Error(r.error);
      for (const f of r.flavours) {
        rows.push({ engine: engine.name, ...f });
        process.stderr.write(`${engine.name} ${f.simd ? 'SIMD' : 'scalar'}: ${JSON.stringify(f)}\n`);
      }
    } finally {
      await engine.close();
    }
  }
} finally {
  await server.close();
}

const lengths = Object.keys(rows[0].attention).map(Number);
const lines = [
  `| engine | build | ${lengths.map((T) => `attention T=${T}, GFLOP/s`).join(' | ')} | training, language task, steps/s |`,
  `|---|---|${lengths.map(() => '---:').join('|')}|---:|`,
  ...rows.map((r) => `| ${r.engine} | ${r.simd ? 'SIMD' : 'scalar'} | ${lengths.map((T) => r.attention[T].toFixed(2)).join(' | ')} | ${r.train.toFixed(1)} |`),
];
const note = `Measured by \`npm run bench:engines\` on ${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), one engine at a time; causal attention H=8, D=64 on one thread; training: the language task with RoPE at its default sizes.`;
const text = `${lines.join('\n')}\n\n${note}`;
console.log(text);
if (process.argv.includes('--docs')) rewriteDocs('bench:engines', text);
