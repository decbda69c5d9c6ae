// `npm test` after setup: every suite, in order, then one summary line.
//   clang-format check, tsc --noEmit, the API reference (TypeDoc: every
//   export documented, no broken links), native GoogleTest (every Highway
//   target), the same GoogleTest under ASan + UBSan, wasm GoogleTest (SIMD
//   and scalar) under Node, TypeScript tests against both wasm flavours, the
//   npm-pack install test and the Chromium browser test (all under node
//   --test).
import { join } from 'node:path';

import { root, run, sanitizerEnv } from './common.mjs';

const tsc = join(root, 'node_modules/typescript/bin/tsc');
const steps = [
  ['clang-format', () => run(process.execPath, [join(root, 'tools/format.mjs')])],
  ['tsc --noEmit (package)', () => run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'])],
  ['tsc --noEmit (page)', () => run(process.execPath, [tsc, '-p', 'tsconfig.web.json'])],
  ['tsc --noEmit (tests)', () => run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.tests.json'])],
  // TypeDoc fails on an undocumented export or a broken link; tools/docs.mjs then checks every
  // relative link and anchor of the output, and that no inline script is left.
  ['API reference (TypeDoc)', () => run(process.execPath, [join(root, 'tools/docs.mjs'), '--out', 'build/api'])],
  ['native GoogleTest', () => run('ctest', ['--test-dir', 'build/native', '--output-on-failure'])],
  ['native GoogleTest under ASan + UBSan', () => run(join(root, 'build/asan/posenc_tests'), ['--gtest_brief=1'], {
    // The first error aborts with a stack trace and a nonzero exit.
    env: { ...process.env, ...sanitizerEnv },
  })],
  ['shipped word-order models retrain bit for bit', () => run(process.execPath, [join(root, 'tools/train_models.mjs'), '--check',
    ...['nope', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'shaw'].map((e) => `word-order-${e}`)])],
  ['libFuzzer (15 s per target)', () => run(process.execPath, [join(root, 'tools/fuzz.mjs'), '15'])],
  ['wasm GoogleTest (SIMD)', () => run('ctest', ['--test-dir', 'build/wasm-simd', '--output-on-failure'])],
  ['wasm GoogleTest (scalar)', () => run('ctest', ['--test-dir', 'build/wasm-scalar', '--output-on-failure'])],
  ['TypeScript tests', () => {
    run(process.execPath, [tsc, '-p', 'tsconfig.tests.json']);
    run(process.execPath, ['--test', '--test-reporter=spec', 'build/ts-tests/tests/ts/']);
  }],
  // The package and a page smoke test in the two engines besides Chromium (compiled by the step above).
  ['Firefox and WebKit', () => run(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', 'build/ts-tests/tests/engines/'])],
];

let passed = 0;
let failed = 0;
for (const [name, fn] of steps) {
  console.log(`\n==== ${name}`);
  try {
    fn();
    passed++;
  } catch (e) {
    console.error(`FAILED: ${name}: ${e.message}`);
    failed++;
  }
}
console.log(`\nnpm test suites: ${steps.map(([n]) => n).join(', ')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
