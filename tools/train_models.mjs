// Trains the shipped tiny models (src/cli/train_models.cc) into
// web/models/, two processes at a time, and prints how long each
// took. With --check, trains into a scratch folder instead and verifies the
// shipped files are reproduced bit for bit.
//   npm run train-models                 retrain and overwrite
//   npm run train-models -- --check      retrain and compare
//   npm run train-models -- [--check] word-order-rope ...   only these
//   npm run train-models -- --docs     retrain all, record the time in docs/models.md
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

import { rewriteDocs } from '../tests/bench/common.mjs';
import { capture, root } from './common.mjs';

const cli = join(root, 'build/native/posenc_train_models');
const args = process.argv.slice(2);
const check = args.includes('--check');
const docs = args.includes('--docs');
const names = args.filter((a) => !a.startsWith('--'));
const all = capture(cli, ['--list']).trim().split('\n');
const todo = names.length > 0 ? names : all;
for (const n of todo) {
  if (!all.includes(n)) {
    console.error(`unknown model '${n}'; known: ${all.join(', ')}`);
    process.exit(2);
  }
}
const shipped = join(root, 'web/models');
const out = check ? mkdtempSync(join(tmpdir(), 'posenc-models-')) : shipped;
mkdirSync(out, { recursive: true });

// Longest first, on min(2, cores) workers.
const order = [...todo].sort((a, b) => Number(b.startsWith('retrieval')) - Number(a.startsWith('retrieval')));
const results = [];
const t0 = Date.now();
async function worker() {
  for (let name = order.shift(); name !== undefined; name = order.shift()) {
    const line = await new Promise((resolve, reject) => {
      const p = spawn(cli, [out, name], { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      p.stdout.on('data', (d) => (text += d));
      p.on('close', (code) => (code === 0 ? resolve(text.trim()) : reject(new Error(`${name} failed (${code})`))));
    });
    const r = JSON.parse(line);
    results.push(r);
    console.log(`${r.name}: ${r.steps} steps in ${r.seconds.toFixed(1)} s, final batch loss ${r.loss.toFixed(4)}, ${r.bytes} bytes`);
  }
}
await Promise.all(Array.from({ length: Math.min(2, cpus().length) }, worker));
const wall = (Date.now() - t0) / 1000;
const total = results.reduce((s, r) => s + r.bytes, 0);
const summary = `${results.length} models, ${(total / 1e6).toFixed(2)} MB, ${wall.toFixed(0)} s wall clock on ${Math.min(2, cpus().length)} processes (${results.reduce((s, r) => s + r.seconds, 0).toFixed(0)} s of training)`;
console.log(`\n${summary}`);
if (docs && !check && names.length === 0) {
  const slowest = results.reduce((a, r) => (r.seconds > a.seconds ? r : a));
  rewriteDocs('train-models', `Training all ${summary}, ${cpus()[0].model.replace(/\s+/g, ' ').trim()}; the slowest model (${slowest.name}) takes ${slowest.seconds.toFixed(0)} s. Measured by \`npm run train-models -- --docs\`.`);
}

if (check) {
  let bad = 0;
  for (const r of results) {
    const a = readFileSync(join(out, `${r.name}.safetensors`));
    let b;
    try {
      b = readFileSync(join(shipped, `${r.name}.safetensors`));
    } catch {
      console.error(`${r.name}: no shipped file`);
      bad++;
      continue;
    }
    if (!a.equals(b)) {
      console.error(`${r.name}: retrained bytes differ from the shipped file`);
      bad++;
    }
  }
  rmSync(out, { recursive: true, force: true });
  console.log(bad === 0 ? `all ${results.length} shipped models reproduced bit for bit` : `${bad} models differ`);
  process.exit(bad === 0 ? 0 : 1);
}
