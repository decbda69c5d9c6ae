// Shared by the benchmark scripts: timing, the peers' set-up (onnxruntime-web
// and tfjs-backend-wasm on one thread, offline from node_modules) and the
// rewrite of the generated tables in docs/.
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

import { capture, emEnv, root, run } from '../../tools/common.mjs';

/**
 * Seconds per call of `fn` (sync or async): `warmup` calls first (so V8 tiers
 * the wasm up), then the best of `reps` batches of at least `budgetMs`.
 */
export async function bestSeconds(fn, { budgetMs = 300, warmup = 3, reps = 3 } = {}) {
  // Await only real promises: an await per sync call would add its own cost.
  const call = async () => {
    const r = fn();
    if (r && typeof r.then === 'function') await r;
  };
  for (let i = 0; i < warmup; i++) await call();
  let best = Infinity;
  for (let rep = 0; rep < reps; rep++) {
    let iters = 0;
    const t0 = performance.now();
    do {
      await call();
      iters++;
    } while (performance.now() - t0 < budgetMs);
    best = Math.min(best, (performance.now() - t0) / 1000 / iters);
  }
  return best;
}

/**
 * The best seconds per call of each of `fns`, measured in turns: every round
 * runs each function for one block of `blockMs` (the mean per call in the
 * block), so that all of them meet the same moments of a noisy host and their
 * ratios hold within the run. Returns one number per function.
 */
export async function bestSecondsInTurns(fns, { blockMs = 150, rounds = 8, warmup = 3 } = {}) {
  const call = async (fn) => {
    const r = fn();
    if (r && typeof r.then === 'function') await r;
  };
  for (const fn of fns) for (let i = 0; i < warmup; i++) await call(fn);
  const best = fns.map(() => Infinity);
  for (let round = 0; round < rounds; round++) {
    for (const [i, fn] of fns.entries()) {
      let iters = 0;
      const t0 = performance.now();
      do {
        await call(fn);
        iters++;
      } while (performance.now() - t0 < blockMs);
      best[i] = Math.min(best[i], (performance.now() - t0) / 1000 / iters);
    }
  }
  return best;
}

/** onnxruntime-web (wasm backend) and tfjs-core with the wasm backend, single-threaded. */
export async function loadPeers() {
  const ortDist = join(root, 'node_modules/onnxruntime-web/dist/');
  const ort = await import(pathToFileURL(join(ortDist, 'ort.wasm.min.mjs')).href);
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = ortDist;
  const tf = await import('@tensorflow/tfjs-core');
  const tfwasm = await import('@tensorflow/tfjs-backend-wasm');
  tfwasm.setWasmPaths(`${join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist')}/`);
  tfwasm.setThreadsCount?.(1);
  await tf.setBackend('wasm');
  await tf.ready();
  return { ort, tf };
}

/**
 * Replaces the text between `<!-- NAME begin -->` and `<!-- NAME end -->` in
 * the one file of docs/ that holds those markers (the benchmarks' --docs).
 */
export function rewriteDocs(name, text) {
  const begin = `<!-- ${name} begin -->`;
  const dir = join(root, 'docs');
  const files = readdirSync(dir).filter((f) => f.endsWith('.md')).map((f) => join(dir, f))
    .filter((f) => readFileSync(f, 'utf8').includes(begin));
  if (files.length !== 1) throw new Error(`docs/: ${files.length} files hold the ${name} markers (want 1)`);
  replaceBetweenMarkers(files[0], name, text);
}

/**
 * The README's headline line of a benchmark, between `<!-- readme:NAME begin -->`
 * and `<!-- readme:NAME end -->` in README.md: written by the same --docs run
 * as the table it quotes, so the two always agree.
 */
export function rewriteReadme(name, text) {
  replaceBetweenMarkers(join(root, 'README.md'), `readme:${name}`, text);
}

/**
 * The README's headline lines, from the numbers of the tables they quote
 * (the same cells, rounded to one decimal).
 */
export const headlines = {
  /** `api`, `peer`, `kernel`: GB/s of pe.applyRope, onnxruntime-web's RotaryEmbedding and the kernel alone, at [8, 1024, 64] half. */
  rope: ({ api, peer, kernel }) => `- RoPE apply on \`[8, 1024, 64]\` (fits in the CPU cache): \`pe.applyRope\` ${api.toFixed(1)} GB/s in
  wasm SIMD${Number.isFinite(peer) ? `, ${(api / peer).toFixed(1)}x onnxruntime-web's RotaryEmbedding` : ''}; the kernel alone, without the copies in and out
  and the table, ${kernel.toFixed(1)} GB/s (\`npm run bench:rope\`, [table](docs/performance.md#performance));`,
  /** `simd`, `fused`: GFLOP/s of posenc wasm SIMD and of onnxruntime-web's fused Attention (a string when it failed), at T = 1024. */
  attention: ({ simd, fused }) => `- causal attention, H=8, D=64, T=1024: \`pe.attention\` ${simd.toFixed(1)} GFLOP/s in wasm SIMD on one core${
    typeof fused === 'number' ? `,\n  ${(simd / fused).toFixed(1)}x onnxruntime-web's fused Attention` : ''} (\`npm run bench:attention\`, [table](docs/performance.md#performance));`,
  /** `simd`, `native`: training steps/s in wasm SIMD and natively. */
  models: ({ simd, native }) => `- tiny-model training (language task, batch 16 x 64 tokens): ${simd.toFixed(0)} steps/s in wasm SIMD,
  ${native.toFixed(0)} natively (\`npm run bench:models\`, [table](docs/models.md#how-they-are-trained));`,
};

function replaceBetweenMarkers(path, name, text) {
  const begin = `<!-- ${name} begin -->`;
  const end = `<!-- ${name} end -->`;
  const doc = readFileSync(path, 'utf8');
  if (!doc.includes(begin)) throw new Error(`${path}: no ${name} markers`);
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end);
  if (b < a) throw new Error(`${path}: the ${name} end marker comes before its begin`);
  writeFileSync(path, `${doc.slice(0, a + begin.length)}\n${text}\n${doc.slice(b)}`);
  console.log(`${path} updated`);
}

/**
 * Builds the package of commit `ref` (its wasm modules, its dist/ and, with
 * `site`, its page) in a git worktree under build/baseline/, once per
 * commit, for benchmarks that compare against it in the same run. Returns
 * { sha, dir }.
 */
export function buildBaseline(ref, { site = false } = {}) {
  const sha = capture('git', ['rev-parse', '--short', `${ref}^{commit}`], { cwd: root }).trim();
  const dir = join(root, 'build/baseline', sha);
  if (!existsSync(join(dir, site ? 'dist/site/index.html' : 'dist/node.js'))) {
    if (!existsSync(dir)) run('git', ['worktree', 'add', '--detach', dir, sha], { cwd: root });
    if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    for (const [fl, simd] of [['simd', 'ON'], ['scalar', 'OFF']]) {
      const b = join(dir, `build/wasm-${fl}`);
      if (!existsSync(join(b, 'build.ninja'))) {
        run('emcmake', ['cmake', '-S', dir, '-B', b, '-G', 'Ninja', `-DPOSENC_SIMD=${simd}`, '-DCMAKE_BUILD_TYPE=Release'], { env: emEnv });
      }
      // Builds before the split into core and models module have only posenc_module.
      const split = readFileSync(join(dir, 'CMakeLists.txt'), 'utf8').includes('posenc_models_module');
      run('ninja', ['-C', b, 'posenc_module', ...(split ? ['posenc_models_module'] : [])], { env: emEnv });
    }
    run(process.execPath, [join(dir, 'tools/build.mjs'), 'ts', ...(site ? ['site'] : [])], { cwd: dir });
  }
  return { sha, dir };
}
