// Loaded by tests/bench/bench_engines.mjs in each browser engine: posenc's
// causal attention (H=8, D=64, one thread) in GFLOP/s and the language
// task's training in steps/s (RoPE, the task's default sizes), for the SIMD
// build where the engine has wasm SIMD and the scalar build always. Each
// number is the best of a few timed samples (each about 50 ms of calls) after a warm-up.
import { init, simdSupported } from '/dist/index.js';

const H = 8, D = 64, LENGTHS = [256, 1024];
const TRAIN_STEPS = 6;

function inputs(T) {
  let s = 7;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  const mk = () => Float32Array.from({ length: H * T * D }, rnd);
  return { q: mk(), k: mk(), v: mk(), heads: H, queryLength: T, keyLength: T, headDim: D, causal: true };
}

/**
 * Best seconds of one `fn` call over `reps` samples (after a warm-up), awaiting each. A sample runs
 * `fn` as many times as fill about 50 ms: Firefox and WebKit round performance.now() to a millisecond
 * or coarser, which would misread a call of a millisecond or two.
 */
async function best(fn, reps) {
  await fn();
  let t0 = performance.now();
  await fn();
  const inner = Math.max(1, Math.ceil(50 / Math.max(performance.now() - t0, 0.1)));
  let b = Infinity;
  for (let i = 0; i < reps; i++) {
    t0 = performance.now();
    for (let j = 0; j < inner; j++) await fn();
    b = Math.min(b, (performance.now() - t0) / inner / 1000);
  }
  return b;
}

const result = { flavours: [] };
try {
  for (const simd of simdSupported() ? [true, false] : [false]) {
    const pe = await init({ simd });
    const attention = {};
    for (const T of LENGTHS) {
      const o = inputs(T);
      attention[T] = (2 * H * T * T * D) / (await best(() => pe.attention(o), T > 512 ? 3 : 8)) / 1e9;
    }
    const train = TRAIN_STEPS / (await best(async () => {
      const m = await pe.train({ task: 'language', encoding: 'rope', steps: TRAIN_STEPS }, { chunk: TRAIN_STEPS });
      m.delete();
    }, 2));
    result.flavours.push({ simd: pe.simd, attention, train });
  }
} catch (e) {
  result.error = String(e && e.stack ? e.stack : e);
}
window.__bench = result;
document.getElementById('out').textContent = JSON.stringify(result, null, 2);
