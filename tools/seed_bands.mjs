// How much the shipped models' results depend on the seed. Every shipped model
// is seed 1 of its recipe (src/cli/train_models.cc); this trains seeds 2 and 3
// of the same recipes (word-order, language, retrieval; not the bug zoo's
// language-rope-partial) into build/seed-bands/seed-N/, evaluates all three
// seeds with the evaluator of docs/models.md (src/cli/eval_models.cc: the
// same lengths, sequence counts and data seed), and writes
//   web/src/data/seed-bands.json   per task, encoding and length, one value per seed
// which the page reads for every number it draws a conclusion from, plus
// the table between the seed-bands markers of docs/models.md.
//   npm run seed-bands                 train seeds 2 and 3 (2 processes), evaluate, write both
//   npm run seed-bands -- --reuse      keep the models already in build/seed-bands/
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

import { rewriteDocs } from '../tests/bench/common.mjs';
import { capture, root } from './common.mjs';

const SEEDS = [1, 2, 3];
const TASKS = ['word-order', 'language', 'retrieval'];
const ENC = ['nope', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'shaw', 'xpos'];
const reuse = process.argv.includes('--reuse');
const trainCli = join(root, 'build/native/posenc_train_models');
const evalCli = join(root, 'build/native/posenc_eval_models');
const known = capture(trainCli, ['--list']).trim().split('\n');
const names = TASKS.flatMap((task) => ENC.map((e) => `${task}-${e}`)).filter((n) => known.includes(n));
const dirOf = (seed) => (seed === 1 ? join(root, 'web/models') : join(root, 'build/seed-bands', `seed-${seed}`));
const workers = Math.min(2, cpus().length);

/** Runs `cmd args` to completion; resolves with its stdout. */
function run(cmd, args) {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    p.stdout.on('data', (d) => (text += d));
    p.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`${cmd} ${args.join(' ')} failed (${code})`))));
  });
}

/** Runs the jobs on `workers` processes, longest first. */
async function pool(jobs) {
  const queue = [...jobs];
  await Promise.all(Array.from({ length: workers }, async () => {
    for (let j = queue.shift(); j !== undefined; j = queue.shift()) await j();
  }));
}

// ---- Train seeds 2 and 3
const trained = [];
const t0 = Date.now();
const todo = [];
for (const seed of SEEDS.slice(1)) {
  mkdirSync(dirOf(seed), { recursive: true });
  for (const name of names) {
    if (reuse && existsSync(join(dirOf(seed), `${name}.safetensors`))) continue;
    todo.push({ seed, name });
  }
}
const weight = (n) => (n.startsWith('retrieval') ? 3 : n.startsWith('language') ? 1 : 0);
todo.sort((a, b) => weight(b.name) - weight(a.name));
await pool(todo.map(({ seed, name }) => async () => {
  const r = JSON.parse((await run(trainCli, [`--seed=${seed}`, dirOf(seed), name])).trim());
  trained.push({ ...r, seed });
  console.log(`seed ${seed} ${r.name}: ${r.steps} steps in ${r.seconds.toFixed(1)} s, final batch loss ${r.loss.toFixed(4)}`);
}));
const trainWall = (Date.now() - t0) / 1000;
const trainCpu = trained.reduce((s, r) => s + r.seconds, 0);

// ---- Evaluate all three seeds (one process per chunk of models)
const t1 = Date.now();
const rows = [];
const chunks = SEEDS.flatMap((seed) => [0, 1].map((half) => ({ seed, models: names.filter((_, i) => i % 2 === half) })));
await pool(chunks.map(({ seed, models }) => async () => {
  const out = await run(evalCli, ['--no-scaling', dirOf(seed), ...models]);
  for (const line of out.trim().split('\n')) rows.push({ ...JSON.parse(line), seed });
}));
const evalWall = (Date.now() - t1) / 1000;

// ---- The JSON: data[task][encoding][length] = one value per seed (null: the model refuses that length)
const ref = rows.find((r) => r.reference === 'language');
const LENGTHS = [...new Set(rows.filter((r) => r.task === 'language').map((r) => r.length))].sort((a, b) => a - b);
const metric = { 'word-order': 'accuracy', language: 'loss', retrieval: 'accuracy' };
const data = {};
for (const task of TASKS) {
  data[task] = {};
  for (const e of ENC) {
    if (!names.includes(`${task}-${e}`)) continue;
    data[task][e] = {};
    for (const L of task === 'word-order' ? [0] : LENGTHS) {
      data[task][e][L] = SEEDS.map((seed) => {
        const r = rows.find((x) => x.seed === seed && x.model === `${task}-${e}` && x.length === L && x.scaling === 'none');
        if (r === undefined) throw new Error(`no evaluation of ${task}-${e} seed ${seed} at ${L}`);
        return r.error !== undefined ? null : r[metric[task]];
      });
    }
  }
}
const json = {
  about: 'Written by `npm run seed-bands` (tools/seed_bands.mjs): each value is one seed of the shipped recipe, evaluated by src/cli/eval_models.cc. Seed 1 is the shipped model.',
  seeds: SEEDS,
  metric,
  // The evaluation's own parameters, so a test can repeat it in wasm.
  evaluation: {
    dataSeed: 777,
    examples: { 'word-order': 2000, language: Object.fromEntries(LENGTHS.map((L) => [L, L < 1024 ? 16384 / L : 16])), retrieval: 64 },
  },
  entropyRate: ref.entropy_rate,
  trainLen: 64,
  data,
};
const file = join(root, 'web/src/data/seed-bands.json');
mkdirSync(join(root, 'web/src/data'), { recursive: true });
writeFileSync(file, `${JSON.stringify(json, null, 1)}\n`);

// ---- The docs table: mean (min–max) over the seeds
const band = (vs, f) => {
  if (vs.some((v) => v === null)) return 'error: past the table';
  const mean = vs.reduce((s, v) => s + v, 0) / vs.length;
  return `${f(mean)} (${f(Math.min(...vs))}–${f(Math.max(...vs))})`;
};
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const out = [];
out.push(`Mean over seeds ${SEEDS.join(', ')} of each recipe (seed 1 is the shipped model), with the lowest and highest seed in parentheses; the same evaluation as the tables above.`);
out.push('');
out.push(`| word order, accuracy | ${ENC.filter((e) => data['word-order'][e]).join(' | ')} |`);
out.push(`|---|${ENC.filter((e) => data['word-order'][e]).map(() => '---:').join('|')}|`);
out.push(`| | ${ENC.filter((e) => data['word-order'][e]).map((e) => band(data['word-order'][e][0], pct)).join(' | ')} |`);
for (const [task, f] of [['language', (x) => x.toFixed(3)], ['retrieval', pct]]) {
  out.push('');
  out.push(`| ${task}, ${metric[task]} | ${LENGTHS.map((L) => `T=${L}`).join(' | ')} |`);
  out.push(`|---|${LENGTHS.map(() => '---:').join('|')}|`);
  for (const e of ENC) if (data[task][e]) out.push(`| ${e} | ${LENGTHS.map((L) => band(data[task][e][L], f)).join(' | ')} |`);
}
out.push('');
const cpu = cpus()[0].model.replace(/\s+/g, ' ').trim();
out.push(trained.length > 0
  ? `Measured by \`npm run seed-bands\`: training ${trained.length} models (seeds ${SEEDS.slice(1).join(' and ')}) took ${trainWall.toFixed(0)} s wall clock on ${workers} processes (${trainCpu.toFixed(0)} s of training), evaluating ${SEEDS.length * names.length} models ${evalWall.toFixed(0)} s, ${cpu}.`
  : `Measured by \`npm run seed-bands -- --reuse\` (models of seeds ${SEEDS.slice(1).join(' and ')} already trained): evaluating ${SEEDS.length * names.length} models took ${evalWall.toFixed(0)} s, ${cpu}.`);
const text = out.join('\n');
console.log(text);
rewriteDocs('seed-bands', text);
console.log(`wrote ${file}`);
