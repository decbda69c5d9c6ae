/**
 * The published artefact: `npm pack`, install the tarball into an empty
 * project, and use it from there, both flavours. Also checks that the
 * browser entry pulls in nothing Node-only.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'posenc-pack-'));
after(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack', () => {
  it('installs into an empty project and works there', () => {
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, encoding: 'utf8' });
    const info = JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = info[0]!.files.map((f) => f.path).sort();
    for (const f of ['dist/index.js', 'dist/index.d.ts', 'dist/node.js', 'dist/wasm/posenc-simd.wasm', 'dist/wasm/posenc-scalar.wasm', 'package.json']) {
      assert.ok(files.includes(f), `tarball contains ${f}`);
    }
    assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('tests/') || f.startsWith('build/')), files.join(','));

    const app = join(work, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, info[0]!.filename)], { cwd: app, stdio: 'pipe' });
    writeFileSync(join(app, 'main.mjs'), `
      import { init } from 'posenc';
      const res = [];
      for (const simd of [true, false]) {
        const pe = await init({ simd });
        const b = pe.alibiBias({ heads: 4, queryLength: 5, keyLength: 5, variant: 'simple' });
        res.push({ simd: pe.simd, target: pe.target, row: Array.from(b.subarray(20, 25)) });
      }
      console.log(JSON.stringify(res));
    `);
    const res = JSON.parse(execFileSync(process.execPath, ['main.mjs'], { cwd: app, encoding: 'utf8' }));
    assert.deepEqual(res, [
      { simd: true, target: 'WASM', row: [-4, -3, -2, -1, 0] },
      { simd: false, target: 'SCALAR', row: [-4, -3, -2, -1, 0] },
    ]);

    // Browser path: the default entry and everything it imports.
    const dist = join(app, 'node_modules/posenc/dist');
    const pkg = JSON.parse(readFileSync(join(app, 'node_modules/posenc/package.json'), 'utf8'));
    assert.equal(pkg.exports['.'].default, './dist/index.js');
    assert.equal(Object.keys(pkg.exports['.'])[0], 'types');
    const browserFiles = ['index.js', 'loader.js', 'core.js', 'validate.js', 'types.js',
      ...readdirSync(join(dist, 'wasm')).filter((f) => f.endsWith('.mjs')).map((f) => `wasm/${f}`)];
    for (const f of browserFiles) {
      const src = readFileSync(join(dist, f), 'utf8');
      assert.doesNotMatch(src, /from\s+['"]node:|import\(['"]node:|require\(['"](fs|path|node:)/, `${f} must not import Node modules`);
      assert.doesNotMatch(src, /new Function\(|\beval\(/, `${f} must run without unsafe-eval`);
    }
  });
});
