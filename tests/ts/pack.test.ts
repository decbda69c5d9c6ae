/**
 * The published artefacts: `npm pack` both packages (posenc, and the shipped
 * models' posenc-models from the web/models workspace), check what each
 * carries (posenc under its size budget, no models), install both tarballs
 * into an empty project, and use them from there, both flavours and a
 * shipped model. Also checks that the browser entry pulls in nothing
 * Node-only, and that a minimal Vite app importing the installed packages
 * builds and runs in Chromium under the strict CSP (the bundler path users
 * take).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { launchChromium } from './chromium.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'posenc-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));
const app = join(work, 'app');

describe('npm pack', () => {
  it('installs into an empty project and works there', () => {
    type PackInfo = Array<{ name: string; filename: string; unpackedSize: number; files: Array<{ path: string }> }>;
    const pack = (...args: string[]): PackInfo[number] => {
      const info = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work, ...args], { cwd: root, encoding: 'utf8' })) as PackInfo;
      assert.equal(info.length, 1);
      return info[0]!;
    };
    const core = pack();
    assert.equal(core.name, 'posenc');
    const files = core.files.map((f) => f.path).sort();
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/node.js', 'dist/pool-browser.js', 'dist/pool-browser.d.ts', 'dist/wasm/posenc-simd.wasm', 'dist/wasm/posenc-scalar.wasm', 'dist/wasm/posenc-models-simd.wasm', 'dist/wasm/posenc-models-scalar.wasm', 'package.json', 'LICENSE']) {
      assert.ok(files.includes(f), `tarball contains ${f}`);
    }
    assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('tests/') || f.startsWith('build/') || f.startsWith('web/') || f.startsWith('dist/site/')), files.join(','));
    // The code, the types and the wasm; the models are posenc-models'.
    assert.ok(!files.some((f) => f.endsWith('.safetensors') || f.startsWith('dist/models/')), files.join(','));
    assert.ok(core.unpackedSize <= 1.53e6, `posenc unpacks to ${core.unpackedSize} bytes, over the 1.53 MB budget`);

    // posenc-models: the web/models workspace, exactly the shipped models and their index.
    const models = pack('--workspace', 'web/models');
    assert.equal(models.name, 'posenc-models');
    const shipped = readdirSync(join(root, 'web/models')).filter((f) => f.endsWith('.safetensors')).sort();
    assert.equal(shipped.length, 24);
    assert.deepEqual(models.files.map((f) => f.path).sort(), ['LICENSE', 'README.md', 'index.d.ts', 'index.js', 'package.json', ...shipped].sort());

    mkdirSync(app, { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, core.filename), join(work, models.filename)], { cwd: app, stdio: 'pipe' });
    writeFileSync(join(app, 'main.mjs'), `
      import { readFile } from 'node:fs/promises';
      import { init } from 'posenc';
      import { MODELS, modelUrl } from 'posenc-models';
      const res = [];
      for (const simd of [true, false]) {
        const pe = await init({ simd });
        const b = pe.alibiBias({ heads: 4, queryLength: 5, keyLength: 5, variant: 'simple' });
        const before = pe.memoryStats().modelsLoaded;
        // The models module, loaded from the installed package on first use.
        const chance = (await pe.taskReference('retrieval')).chanceAccuracy;
        // A shipped model from posenc-models, by its helper and by the file's export.
        const m = await pe.loadModel(await readFile(modelUrl('word-order-rope')));
        const same = (await readFile(new URL(import.meta.resolve('posenc-models/word-order-rope.safetensors')))).equals(await readFile(modelUrl('word-order-rope')));
        const who = (t) => { const l = m.forward(m.tokenize(t)).logits; return m.classes[l.indexOf(Math.max(...l))]; };
        const model = [m.config.task, m.config.encoding, who('Alice likes Bob'), who('Bob likes Alice'), same];
        m.delete();
        res.push({ simd: pe.simd, target: pe.target, row: Array.from(b.subarray(20, 25)), before, after: pe.memoryStats().modelsLoaded, chance, model });
      }
      let unknown = '';
      try { modelUrl('word-order-xpos'); } catch (e) { unknown = e.constructor.name; }
      console.log(JSON.stringify({ res, models: [...MODELS].sort(), unknown }));
    `);
    const out = JSON.parse(execFileSync(process.execPath, ['main.mjs'], { cwd: app, encoding: 'utf8' }));
    const model = ['word-order', 'rope', 'Alice', 'Bob', true];
    assert.deepEqual(out, {
      res: [
        { simd: true, target: 'WASM', row: [-4, -3, -2, -1, 0], before: false, after: true, chance: 1 / 16, model },
        { simd: false, target: 'SCALAR', row: [-4, -3, -2, -1, 0], before: false, after: true, chance: 1 / 16, model },
      ],
      // MODELS names exactly the files the package carries.
      models: shipped.map((f) => f.replace(/\.safetensors$/, '')).sort(),
      unknown: 'RangeError',
    });

    // The types an app compiles against: every entry's declarations resolve (the package ships only
    // the .d.ts its exports reach) and describe the calls above.
    writeFileSync(join(app, 'check.ts'), `
      import { readFile } from 'node:fs/promises';
      import { init, type Posenc, type TinyModel } from 'posenc';
      import { createPool } from 'posenc/pool';
      import { MODELS, modelUrl, type ModelName } from 'posenc-models';
      const pe: Posenc = await init({ simd: false });
      const name: ModelName = MODELS[0]!;
      const m: TinyModel = await pe.loadModel(await readFile(modelUrl(name)));
      const pool = await createPool({ workers: 2 });
      export const out: [number, string, number] = [m.config.dModel, pe.target, pool.workers];
    `);
    // Under the libs apps use: Node without the DOM lib, a page without esnext.disposable (ES2020 +
    // DOM, as a Vite template), and both; the declarations supply the platform types a lib lacks.
    writeFileSync(join(app, 'page.ts'), `
      import { createPool, startPoolWorker } from 'posenc/pool';
      const channel = new MessageChannel();
      const worker: Worker = startPoolWorker(channel.port2);
      await using pool = await createPool({ connect: () => channel.port1, module: await WebAssembly.compile(new Uint8Array(8)) });
      export const n: number = pool.workers + (worker ? 1 : 0);
    `);
    const setups: Array<{ lib: string[]; node: boolean; file: string }> = [
      { lib: ['ES2022'], node: true, file: 'check.ts' },
      { lib: ['ES2022', 'DOM', 'ESNext.Disposable'], node: true, file: 'check.ts' },
      { lib: ['ES2020', 'DOM', 'DOM.Iterable'], node: false, file: 'page.ts' },
    ];
    for (const { lib, node, file } of setups) {
      writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, lib, types: node ? ['node'] : [], typeRoots: [join(root, 'node_modules/@types')] },
        files: [file],
      }));
      const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: app, encoding: 'utf8' });
      assert.equal(tsc.status, 0, `tsc on ${file} (lib ${lib.join(', ')}${node ? ', Node types' : ''}) using the installed packages:\n${tsc.stdout}${tsc.stderr}`);
    }

    // Browser path: the default entry and everything it imports.
    const dist = join(app, 'node_modules/posenc/dist');
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/posenc/package.json'), 'utf8'));
    assert.equal(pkg.exports['.'].default, './dist/index.js');
    assert.equal(Object.keys(pkg.exports['.'])[0], 'types');
    // The `posenc` command (dist/cli.js) is Node's, like node.js: installed as the package's bin, and it runs.
    assert.equal(pkg.bin.posenc, './dist/cli.js');
    const help = spawnSync(join(app, 'node_modules/.bin/posenc'), ['--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0);
    assert.match(help.stderr, /usage: posenc inspect <config.json>/);
    const browserFiles = [...readdirSync(dist).filter((f) => f.endsWith('.js') && !['node.js', 'cli.js', 'pool-node.js', 'pool-worker-node.js'].includes(f)),
      ...readdirSync(join(dist, 'wasm')).filter((f) => f.endsWith('.mjs')).map((f) => `wasm/${f}`)];
    for (const f of browserFiles) {
      const src = readFileSync(join(dist, f), 'utf8');
      assert.doesNotMatch(src, /from\s+['"]node:|import\(['"]node:|require\(['"](fs|path|node:)/, `${f} must not import Node modules`);
      assert.doesNotMatch(src, /new Function\(|\beval\(/, `${f} must run without unsafe-eval`);
    }
  });

  it('a minimal Vite app importing the installed tarball builds and runs in Chromium (strict CSP)', async () => {
    const site = join(app, 'site');
    mkdirSync(site, { recursive: true });
    // The pool's Worker loads the wasm glue with dynamic imports: Vite bundles it only as an ES module Worker.
    writeFileSync(join(site, 'vite.config.js'), "export default { worker: { format: 'es' } };\n");
    writeFileSync(join(site, 'index.html'), '<!doctype html><title>app</title><link rel="icon" href="data:,"><script type="module" src="./main.js"></script>');
    writeFileSync(join(site, 'main.js'), `
      import { init } from 'posenc';
      import { createPool } from 'posenc/pool';
      import modelFile from 'posenc-models/word-order-rope.safetensors?url';
      const pe = await init();
      const x = Float32Array.from({ length: 2 * 4 * 8 }, (_, i) => Math.sin(i));
      const r = pe.attention({ q: x, k: x, v: x, heads: 2, queryLength: 4, keyLength: 4, headDim: 8, causal: true });
      const wasmFetched = () => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.wasm')).map((n) => n.split('/').pop());
      const coreOnly = wasmFetched();
      // The models module: fetched by the bundle the first time a model call needs it.
      const sample = await pe.sampleTask({ task: 'retrieval', length: 32, seed: 3 });
      const all = wasmFetched();
      // A shipped model from posenc-models: the bundle emits the one file imported by URL.
      const m = await pe.loadModel(new Uint8Array(await (await fetch(modelFile)).arrayBuffer()));
      const model = [m.config.task, m.config.encoding, m.classes[Array.from(m.forward(m.tokenize('Bob likes Alice')).logits).reduce((b, v, i, a) => (v > a[b] ? i : b), 0)]];
      m.delete();
      // The Worker pool from the bundle (its Worker script emitted by the bundler): the same bits as pe.attention.
      const big = { q: Float32Array.from({ length: 8 * 128 * 32 }, (_, i) => Math.sin(0.3 * i)), heads: 8, queryLength: 128, keyLength: 128, headDim: 32 };
      big.k = big.q; big.v = big.q;
      const pool = await createPool({ workers: 2 });
      const got = new Uint8Array((await pool.attention(big)).out.buffer), want = new Uint8Array(pe.attention(big).out.buffer);
      const poolSame = got.length === want.length && got.every((b, i) => b === want[i]);
      const poolWorkers = pool.workers;
      await pool.terminate();
      window.__app = { simd: pe.simd, first: Array.from(r.out.subarray(0, 8)), x: Array.from(x.subarray(0, 8)), coreOnly, all, tokens: sample.tokens.length, model, poolSame, poolWorkers };
    `);
    // The repository's Vite, run on the app: it resolves 'posenc' from the app's node_modules.
    execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', site, '--base', './', '--logLevel', 'warn'], {
      cwd: app, stdio: 'pipe',
    });
    const built = readdirSync(join(site, 'dist/assets'));
    assert.ok(built.some((f) => /^posenc-simd.*\.wasm$/.test(f)), `the bundle carries the core .wasm: ${built.join(',')}`);
    assert.ok(built.some((f) => /^posenc-models-simd.*\.wasm$/.test(f)), `the bundle carries the models .wasm: ${built.join(',')}`);
    assert.ok(built.some((f) => /^pool-worker.*\.js$/.test(f)), `the bundle carries the pool's Worker: ${built.join(',')}`);
    const builtModels = built.filter((f) => f.endsWith('.safetensors'));
    assert.equal(builtModels.length, 1, builtModels.join(','));
    assert.match(builtModels[0]!, /^word-order-rope.*\.safetensors$/);
    const { serve } = (await import(pathToFileURL(join(root, 'tools/serve.mjs')).href)) as {
      serve: (dir: string, port: number) => Promise<{ server: Server; url: string }>;
    };
    const { server, url } = await serve(join(site, 'dist'), 0);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.goto(url);
      await page.waitForFunction(() => (window as unknown as { __app?: unknown }).__app !== undefined, null, { timeout: 30000 });
      const res = (await page.evaluate(() => (window as unknown as { __app: unknown }).__app)) as {
        simd: boolean; first: number[]; x: number[]; coreOnly: string[]; all: string[]; tokens: number; model: string[]; poolSame: boolean; poolWorkers: number;
      };
      assert.deepEqual(problems, []);
      assert.equal(res.simd, true);
      // Attention needs only the core; the first model call fetches the models module, once.
      assert.equal(res.coreOnly.length, 1, res.coreOnly.join(','));
      assert.match(res.coreOnly[0]!, /^posenc-simd/);
      assert.equal(res.all.length, 2, res.all.join(','));
      assert.match(res.all[1]!, /^posenc-models-simd/);
      assert.equal(res.tokens, 32);
      assert.deepEqual(res.model, ['word-order', 'rope', 'Bob']);
      assert.deepEqual([res.poolWorkers, res.poolSame], [2, true]);
      // The first causal row attends only to itself: out[0] = v[0].
      for (let e = 0; e < 8; e++) assert.ok(Math.abs(res.first[e]! - res.x[e]!) < 1e-6, `out[0][${e}]`);
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
