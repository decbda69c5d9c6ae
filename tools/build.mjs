// Builds everything `npm test` and the package need, incrementally:
//   build/native       core + GoogleTest + benchmarks (Highway dynamic dispatch)
//   build/wasm-simd    posenc-simd.{mjs,wasm} (core), posenc-models-simd.{mjs,wasm}
//                      + GoogleTest in wasm (HWY_WASM)
//   build/wasm-scalar  the same, scalar (HWY_SCALAR)
//   build/asan         core + GoogleTest under ASan + UBSan (clang)
//   build/fuzz         libFuzzer targets (clang, ASan + UBSan)
//   dist/              the npm package: tsc output + the two modules
//   dist/site/         the interactive page (static, relative URLs)
// Usage: node tools/build.mjs [native] [asan] [fuzz] [wasm] [ts] [site]
//   (default: all)
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
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
  mkdirSync(join(root, 'dist/wasm'), { recursive: true });
  // The shipped tiny models (trained by `npm run train-models`).
  mkdirSync(join(root, 'dist/models'), { recursive: true });
  for (const f of readdirSync(join(root, 'web/public/models'))) {
    if (f.endsWith('.safetensors')) copyFileSync(join(root, 'web/public/models', f), join(root, 'dist/models', f));
  }
  for (const fl of ['simd', 'scalar']) {
    for (const ext of ['mjs', 'wasm']) {
      for (const name of [`posenc-${fl}`, `posenc-models-${fl}`]) {
        copyFileSync(join(root, `build/wasm-${fl}/${name}.${ext}`), join(root, `dist/wasm/${name}.${ext}`));
      }
    }
  }
}
if (all || want.has('site')) {
  // The interactive page (web/, Vite) on top of the package just built.
  console.log('== site (vite build -> dist/site/)');
  run(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn']);
}
