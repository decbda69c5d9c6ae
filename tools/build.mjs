// Builds everything `npm test` and the package need, incrementally:
//   build/native       core + GoogleTest + benchmarks (Highway dynamic dispatch)
//   build/wasm-simd    posenc-simd.{mjs,wasm} (core), posenc-models-simd.{mjs,wasm}
//                      + GoogleTest in wasm (HWY_WASM)
//   build/wasm-scalar  the same, scalar (HWY_SCALAR)
//   build/asan         core + GoogleTest under ASan + UBSan (clang)
//   build/fuzz         libFuzzer targets (clang, ASan + UBSan)
//   dist/              the npm package: tsc output + the two modules
//   dist/site/         the interactive page (static, relative URLs) and the API
//                      reference in dist/site/api/ (tools/docs.mjs)
// Usage: node tools/build.mjs [native] [asan] [fuzz] [wasm] [ts] [site]
//   (default: all)
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { emEnv, fuzzTargets, root, run } from './common.mjs';

const want = new Set(process.argv.slice(2));
const all = want.size === 0;

function cmakeBuild(dir, configure, env = process.env) {
  const b = join(root, 'build', dir);
  if (!existsSync(join(b, 'build.ninja'))) run(configure[0], configure.slice(1), { env });
  run('ninja', ['-C', b], { env });
}

if (all || want.has('native')) {
  console.log('== native build');
  cmakeBuild('native', ['cmake', '-S', '.', '-B', 'build/native', '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=Release']);
}
if (all || want.has('asan')) {
  // clang, -fsanitize=address,undefined,float-cast-overflow,
  // float-divide-by-zero, no recovery (CMakeLists.txt POSENC_SANITIZE): only
  // the GoogleTest binary, run by tools/test.mjs.
  console.log('== asan build (clang, ASan + UBSan)');
  const b = join(root, 'build', 'asan');
  if (!existsSync(join(b, 'build.ninja'))) {
    run('cmake', ['-S', '.', '-B', 'build/asan', '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
      '-DCMAKE_CXX_COMPILER=clang++', '-DPOSENC_SANITIZE=ON']);
  }
  run('ninja', ['-C', b, 'posenc_tests']);
}
if (all || want.has('fuzz')) {
  // clang + libFuzzer + ASan/UBSan, only the fuzz targets.
  console.log('== fuzz build (clang, libFuzzer)');
  const b = join(root, 'build', 'fuzz');
  if (!existsSync(join(b, 'build.ninja'))) {
    run('cmake', ['-S', '.', '-B', 'build/fuzz', '-G', 'Ninja', '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
      '-DCMAKE_CXX_COMPILER=clang++', '-DPOSENC_FUZZ=ON']);
  }
  run('ninja', ['-C', b, ...fuzzTargets.map((t) => `posenc_fuzz_${t}`)]);
}
if (all || want.has('wasm')) {
  for (const [dir, simd] of [['wasm-simd', 'ON'], ['wasm-scalar', 'OFF']]) {
    console.log(`== ${dir} build`);
    cmakeBuild(dir, ['emcmake', 'cmake', '-S', '.', '-B', `build/${dir}`, '-G', 'Ninja',
      `-DPOSENC_SIMD=${simd}`, '-DCMAKE_BUILD_TYPE=Release'], emEnv);
  }
}
if (all || want.has('ts')) {
  console.log('== package (tsc + wasm modules -> dist/)');
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
  // The .js again without comments (the .d.ts keep theirs, the TSDoc that editors show): the
  // sources' comments are for contributors, and they were about a third of the package's JavaScript.
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--removeComments', '--declaration', 'false']);
  // Only the declarations the package's types reach (its exports' `types` and what they import):
  // the internal modules' .d.ts describe nothing a user can import (about 28 KB).
  const exportsTypes = Object.values(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).exports)
    .filter((e) => typeof e === 'object').map((e) => e.types.replace(/^\.\/dist\//, ''));
  const reached = new Set();
  const reach = (f) => {
    if (reached.has(f)) return;
    reached.add(f);
    for (const [, spec] of readFileSync(join(root, 'dist', f), 'utf8').matchAll(/\bfrom\s+['"](\.\/[^'"]+)\.js['"]/g)) reach(`${spec.slice(2)}.d.ts`);
  };
  exportsTypes.forEach(reach);
  for (const f of readdirSync(join(root, 'dist'))) if (f.endsWith('.d.ts') && !reached.has(f)) rmSync(join(root, 'dist', f));
  mkdirSync(join(root, 'dist/wasm'), { recursive: true });
  for (const fl of ['simd', 'scalar']) {
    for (const name of [`posenc-${fl}`, `posenc-models-${fl}`]) {
      copyFileSync(join(root, `build/wasm-${fl}/${name}.wasm`), join(root, `dist/wasm/${name}.wasm`));
    }
  }
  // The Emscripten loaders (.mjs): a module's SIMD and scalar loaders differ only in the name of
  // their default .wasm, which posenc never fetches (loader.ts compiles the binary it chose and
  // hands it to the loader's instantiateWasm hook). The package ships the SIMD one, and as the
  // scalar one a re-export of it: 54 KB less per module, one loader in the browser's cache.
  for (const part of ['posenc', 'posenc-models']) {
    const simd = readFileSync(join(root, `build/wasm-simd/${part}-simd.mjs`), 'utf8');
    const scalar = readFileSync(join(root, `build/wasm-scalar/${part}-scalar.mjs`), 'utf8');
    writeFileSync(join(root, `dist/wasm/${part}-simd.mjs`), simd);
    if (scalar.replaceAll(`${part}-scalar.wasm`, `${part}-simd.wasm`) === simd) {
      writeFileSync(join(root, `dist/wasm/${part}-scalar.mjs`), `// The scalar build's Emscripten loader is the SIMD one's (tools/build.mjs).\nexport { default } from './${part}-simd.mjs';\n`);
    } else {
      console.log(`note: the SIMD and scalar loaders of ${part} differ beyond their .wasm name; both shipped`);
      writeFileSync(join(root, `dist/wasm/${part}-scalar.mjs`), scalar);
    }
  }
}
if (all || want.has('site')) {
  // The interactive page (web/, Vite) on top of the package just built.
  console.log('== site (vite build -> dist/site/)');
  run(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn']);
  // The API reference (TypeDoc) in dist/site/api/, linked from the page's footer.
  run(process.execPath, [join(root, 'tools/docs.mjs')]);
}
