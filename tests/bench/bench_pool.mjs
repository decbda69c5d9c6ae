// The Worker pool against the single-thread call, in one Node process (worker
// threads): causal attention (H=8, D=64) for 1-4 workers and T from 32 to
// 1024, and multi-query (one key-value group) on 2 workers; the ceiling two
// threads reach with no messages or copies (what a SharedArrayBuffer build
// could at best reach); the cost of one message round trip; onnxruntime-web
// with 2 threads (its SharedArrayBuffer build, which a page can use only when
// cross-origin isolated); then data-parallel training (pool.train, language
// and retrieval at the default sizes) against pe.train, in steps/s, and the
// training ceiling (two threads stepping half the micro-batches each, no
// messages). Ratios are within this run.
//   npm run bench:pool                 print the table
//   npm run bench:pool -- --docs       also rewrite it in docs/
//   npm run bench:pool -- --train      only the training rows (a quick check)
import { cpus } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

import { compileWasm, init } from 'posenc';
import { createPool } from 'posenc/pool';

import { MIN_SPLIT_WORK } from '../../dist/pool.js';
import { root } from '../../tools/common.mjs';
import { bestSeconds, bestSecondsInTurns, rewriteDocs } from './common.mjs';
import { fusedAttention } from './onnx_graphs.mjs';

const H = 8;
const D = 64;
const LENGTHS = [32, 64, 128, 256, 512, 1024];
const WORKERS = [1, 2, 3, 4];
const flops = (T) => 2 * H * T * T * D;

function inputs(T) {
  let s = 7;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  const mk = () => Float32Array.from({ length: H * T * D }, rnd);
  return { q: mk(), k: mk(), v: mk(), heads: H, queryLength: T, keyLength: T, headDim: D };
}

const module = await compileWasm({ simd: true });
const pe = await init({ module, simd: true });
const pools = [];
for (const w of WORKERS) pools.push(await createPool({ workers: w, module, simd: true }));

const gflops = {}; // gflops[name][T]
const put = (name, T, s) => {
  (gflops[name] ??= {})[T] = flops(T) / s / 1e9;
  process.stderr.write(`${name} T=${T}: ${gflops[name][T].toFixed(2)} GFLOP/s\n`);
};
const trainOnly = process.argv.includes('--train');
const MQ_ONE = 'multi-query (kvHeads 1): one thread';
const MQ_TWO = 'multi-query (kvHeads 1): pool, 2 workers';
for (const T of trainOnly ? [] : LENGTHS) {
  const o = inputs(T);
  // Multi-query (one key-value group): the pool cuts the group's query heads, each part with a copy
  // of the keys and values.
  const mq = { ...o, kvHeads: 1, k: o.k.subarray(0, T * D), v: o.v.subarray(0, T * D) };
  const runs = [
    ['one thread (pe.attention)', () => pe.attention(o)],
    ...pools.map((p) => [`pool, ${p.workers} worker${p.workers > 1 ? 's' : ''}`, () => p.attention(o)]),
    [MQ_ONE, () => pe.attention(mq)],
    [MQ_TWO, () => pools[1].attention(mq)],
  ];
  const seconds = await bestSecondsInTurns(runs.map(([, fn]) => fn), { blockMs: 100, rounds: 16 });
  runs.forEach(([name], i) => put(name, T, seconds[i]));
}

// The ceiling: 2 worker threads, each with its half of the heads and its own
// inputs, computing at the same time with no messages or copies per call:
// what a SharedArrayBuffer build (threads over one memory, no copies) could
// reach at best, against which the pool's copies and messages are measured.
const CEILING = 'ceiling: 2 threads, own inputs, no messages or copies';
for (const T of trainOnly ? [] : LENGTHS) {
  const ws = [0, 1].map(() => new Worker(new URL('pool_ceiling_worker.mjs', import.meta.url), {
    workerData: { module, heads: H / 2, T, D, ms: 1500 },
  }));
  await Promise.all(ws.map((w) => new Promise((resolve) => w.once('message', resolve))));
  const done = ws.map((w) => new Promise((resolve) => w.once('message', resolve)));
  for (const w of ws) w.postMessage('go');
  const runs = await Promise.all(done);
  const rate = runs.reduce((sum, r) => sum + (r.calls * flops(T)) / 2 / r.seconds, 0);
  (gflops[CEILING] ??= {})[T] = rate / 1e9;
  process.stderr.write(`${CEILING} T=${T}: ${gflops[CEILING][T].toFixed(2)} GFLOP/s\n`);
  await Promise.all(ws.map((w) => w.terminate()));
}

// One message round trip: an empty attention call to a worker thread and back (no compute worth timing).
const roundTrip = trainOnly ? NaN : await (async () => {
  const w = new Worker(new URL('pool-worker-node.js', pathToFileURL(join(root, 'dist/'))));
  let next = 1;
  const call = (req) => new Promise((resolve) => {
    const on = (r) => {
      if (r.id === req.id) {
        w.off('message', on);
        resolve(r);
      }
    };
    w.on('message', on);
    w.postMessage(req);
  });
  await call({ id: next++, op: 'init', module, simd: true });
  const tiny = { q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8 };
  const s = await bestSeconds(() => call({ id: next++, op: 'attention', options: tiny }), { budgetMs: 300 });
  await w.terminate();
  return s;
})();

// onnxruntime-web, 2 threads (set before its first session; this process loads it only here).
const ortDist = join(root, 'node_modules/onnxruntime-web/dist/');
const ort = await import(pathToFileURL(join(ortDist, 'ort.wasm.min.mjs')).href);
ort.env.wasm.numThreads = 2;
ort.env.wasm.wasmPaths = ortDist;
for (const T of trainOnly ? [] : [512, 1024]) {
  const o = inputs(T);
  const feeds = {
    Q: new ort.Tensor('float32', o.q, [1, H, T, D]),
    K: new ort.Tensor('float32', o.k, [1, H, T, D]),
    V: new ort.Tensor('float32', o.v, [1, H, T, D]),
  };
  try {
    const sess = await ort.InferenceSession.create(fusedAttention(H, T, D), { executionProviders: ['wasm'] });
    try {
      put('onnxruntime-web fused Attention, 2 threads', T, (await bestSecondsInTurns([() => sess.run(feeds)]))[0]);
    } finally {
      await sess.release();
    }
  } catch (e) {
    process.stderr.write(`onnxruntime-web 2 threads T=${T}: ${String(e.message ?? e).split('\n')[0]}\n`);
  }
}
// Training: steps/s of a whole run (the trainer's setup included, as a caller sees it) at the default
// sizes (dModel 64, 4 heads, 2 layers, dFf 128, batch 16 = 4 micro-batches, seqLen 64), best of 5 runs
// in turns after a warm-up run, pe.train against pool.train; the weights are the same bits (checked here too).
const TRAIN_STEPS = 40;
const TRAIN_ROUNDS = 5;
const TRAIN_TASKS = ['language', 'retrieval'];
const stepsPerSec = {}; // stepsPerSec[name][task]
for (const task of TRAIN_TASKS) {
  const config = { task, encoding: 'rope', steps: TRAIN_STEPS };
  const trainers = [['one thread (pe.train)', (c) => pe.train(c)], ...pools.map((p) => [`pool.train, ${p.workers} worker${p.workers > 1 ? 's' : ''}`, (c) => p.train(c)])];
  for (const [, train] of trainers) (await train({ ...config, steps: 5 }))[Symbol.dispose]();
  // In turns, as the attention rows: every round trains once with each.
  const best = trainers.map(() => Infinity);
  const bytes = [];
  for (let round = 0; round < TRAIN_ROUNDS; round++) {
    for (const [i, [, train]] of trainers.entries()) {
      const t0 = performance.now();
      const m = await train(config);
      best[i] = Math.min(best[i], (performance.now() - t0) / 1000);
      bytes[i] = Buffer.from(m.save());
      m[Symbol.dispose]();
    }
  }
  trainers.forEach(([name], i) => {
    (stepsPerSec[name] ??= {})[task] = TRAIN_STEPS / best[i];
    process.stderr.write(`${name} ${task}: ${(TRAIN_STEPS / best[i]).toFixed(1)} steps/s\n`);
    if (i > 0 && !bytes[i].equals(bytes[0])) throw new Error(`${name} (${task}) differs from pe.train`);
  });
}
for (const p of pools) await p.terminate();
// The training ceiling: 2 worker threads, each stepping its own replica over its half of the
// micro-batches (2 of 4) with no messages, sums or copies between them: what two cores give this
// trainer at best (memory and caches shared), against which the pool's messages are measured.
const TRAIN_CEILING = 'ceiling: 2 threads, half the micro-batches each, no messages';
const modelsModule = await compileWasm({ simd: true, part: 'models' });
for (const task of TRAIN_TASKS) {
  const ws = [0, 1].map((w) => new Worker(new URL('pool_train_ceiling_worker.mjs', import.meta.url), {
    workerData: { module, models: modelsModule, config: { task, encoding: 'rope', steps: 100000 }, first: 2 * w, count: 2, ms: 1500 },
  }));
  await Promise.all(ws.map((w) => new Promise((resolve) => w.once('message', resolve))));
  const done = ws.map((w) => new Promise((resolve) => w.once('message', resolve)));
  for (const w of ws) w.postMessage('go');
  const runs = await Promise.all(done);
  // A step needs both halves: the slower thread's rate.
  (stepsPerSec[TRAIN_CEILING] ??= {})[task] = Math.min(...runs.map((r) => r.steps / r.seconds));
  process.stderr.write(`${TRAIN_CEILING} ${task}: ${stepsPerSec[TRAIN_CEILING][task].toFixed(1)} steps/s\n`);
  await Promise.all(ws.map((w) => w.terminate()));
}

// ---- table
const fmt = (x) => (typeof x === 'number' ? x.toFixed(2) : '-');
const names = Object.keys(gflops);
const one = gflops['one thread (pe.attention)'];
const lines = [];
if (!trainOnly) {
  lines.push(`| causal attention, GFLOP/s (H=8, D=64) | ${LENGTHS.map((T) => `T=${T}`).join(' | ')} |`);
  lines.push(`|---|${LENGTHS.map(() => '---:').join('|')}|`);
  for (const n of names) lines.push(`| ${n} | ${LENGTHS.map((T) => fmt(gflops[n][T])).join(' | ')} |`);
  const targets = { 1024: 1.8, 512: 1.6, 256: 1, 128: 1, 64: 1, 32: 1 };
  const two = gflops['pool, 2 workers'];
  lines.push(`| 2 workers / one thread (target) | ${LENGTHS.map((T) => {
    const r = two[T] / one[T];
    return `${r.toFixed(2)} (>= ${targets[T]}) ${r >= targets[T] ? 'ok' : 'MISSED'}`;
  }).join(' | ')} |`);
  lines.push(`| multi-query: 2 workers / one thread | ${LENGTHS.map((T) => (gflops[MQ_TWO][T] / gflops[MQ_ONE][T]).toFixed(2)).join(' | ')} |`);
  const ortRow = gflops['onnxruntime-web fused Attention, 2 threads'] ?? {};
  const ceil = gflops[CEILING];
  lines.push(`| 2 workers / ceiling (the share a SharedArrayBuffer build could add back: 1 - this) | ${LENGTHS.map((T) => (two[T] / ceil[T]).toFixed(2)).join(' | ')} |`);
  lines.push(`| 2 workers / onnxruntime-web 2 threads (target >= 2.5 at T=1024) | ${LENGTHS.map((T) => (typeof ortRow[T] === 'number' ? `${(two[T] / ortRow[T]).toFixed(2)}${T === 1024 ? (two[T] / ortRow[T] >= 2.5 ? ' ok' : ' MISSED') : ''}` : '-')).join(' | ')} |`);
}
lines.push('');
lines.push(`| training, steps/s (default sizes, ${TRAIN_STEPS} steps) | ${TRAIN_TASKS.join(' | ')} |`);
lines.push(`|---|${TRAIN_TASKS.map(() => '---:').join('|')}|`);
for (const [n, row] of Object.entries(stepsPerSec)) lines.push(`| ${n} | ${TRAIN_TASKS.map((t) => fmt(row[t])).join(' | ')} |`);
const trainOne = stepsPerSec['one thread (pe.train)'], trainTwo = stepsPerSec['pool.train, 2 workers'];
lines.push(`| 2 workers / one thread (target >= 1.7) | ${TRAIN_TASKS.map((t) => {
  const r = trainTwo[t] / trainOne[t];
  return `${r.toFixed(2)} ${r >= 1.7 ? 'ok' : 'MISSED'}`;
}).join(' | ')} |`);
lines.push(`| 2 workers / ceiling (what the pool's messages and sums cost: 1 - this) | ${TRAIN_TASKS.map((t) => (trainTwo[t] / stepsPerSec[TRAIN_CEILING][t]).toFixed(2)).join(' | ')} |`);
lines.push(`| ceiling / one thread (what two cores give this trainer at best) | ${TRAIN_TASKS.map((t) => (stepsPerSec[TRAIN_CEILING][t] / trainOne[t]).toFixed(2)).join(' | ')} |`);
const extra = trainOnly ? [] : [
  `One message round trip to a worker thread and back (a 1-token call): ${(roundTrip * 1e6).toFixed(0)} µs.`,
  `Calls below 2^${Math.log2(MIN_SPLIT_WORK)} FLOPs (2 · heads · queryLength · keyLength · headDim; here T ≤ ${Math.max(0, ...LENGTHS.filter((T) => flops(T) < MIN_SPLIT_WORK))}) run on the calling thread, so the pool rows equal the one-thread row there.`,
  `The ceiling row is the mean rate of two threads running for 1.5 s together; the other rows are the best of 16 blocks of 100 ms, taken in turns (one block of each row per round), so that every row meets the same moments of the host.`,
];
extra.push('The training ceiling row is the slower of two threads stepping for 1.5 s together (steady state, no setup); the pool and one-thread training rows are whole runs, setup included, the best of 5 taken in turns.');
const note = `Measured by \`npm run bench:pool\` on ${cpus()[0]?.model.trim() ?? 'unknown CPU'} (${cpus().length} cores), Node ${process.version}, onnxruntime-web ${ort.env.versions?.web ?? '?'}.`;
const text = `${lines.join('\n')}\n\n${extra.map((e) => `- ${e}`).join('\n')}\n\n${note}`;
console.log(text);
if (process.argv.includes('--docs')) rewriteDocs('bench:pool', text);
