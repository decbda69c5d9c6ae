// A worker thread of bench_pool.mjs's training ceiling row: its own posenc
// instance (from the modules it is given) holds a replica of the trainer and
// runs whole steps (sample the batch, compute its block of micro-batches
// summed in order, apply a gradient) with no messages or copies between the
// threads, for a fixed time after the main thread says go; it reports how
// many steps it ran.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

import { init } from 'posenc';

import { root } from '../../tools/common.mjs';

const { trainReplica } = await import(pathToFileURL(join(root, 'dist/internal.js')).href);
const { module, models, config, first, count, ms } = workerData;
const pe = await init({ module, simd: true, models: { module: models } });
const replica = await trainReplica(pe, { kind: 'train', config });
const step = () => {
  replica.begin();
  const { grad, loss } = replica.gradient(first, count);
  replica.apply([grad], loss);
};
step();
parentPort.once('message', () => {
  const t0 = performance.now();
  let steps = 0;
  while (performance.now() - t0 < ms) {
    step();
    steps++;
  }
  parentPort.postMessage({ steps, seconds: (performance.now() - t0) / 1000 });
});
parentPort.postMessage('ready');
