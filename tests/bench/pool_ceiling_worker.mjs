// A worker thread of bench_pool.mjs's ceiling row: its own posenc instance
// (from the module it is given) runs causal attention over its share of the
// heads on its own inputs, with no messages or copies per call, for a fixed
// time after the main thread says go; it reports how many calls it ran.
import { parentPort, workerData } from 'node:worker_threads';

import { init } from 'posenc';

const { module, heads, T, D, ms } = workerData;
const pe = await init({ module, simd: true });
let s = 11;
const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
const mk = () => Float32Array.from({ length: heads * T * D }, rnd);
const o = { q: mk(), k: mk(), v: mk(), heads, queryLength: T, keyLength: T, headDim: D };
pe.attention(o);
parentPort.once('message', () => {
  const t0 = performance.now();
  let calls = 0;
  while (performance.now() - t0 < ms) {
    pe.attention(o);
    calls++;
  }
  parentPort.postMessage({ calls, seconds: (performance.now() - t0) / 1000 });
});
parentPort.postMessage('ready');
