// One part of `npm test`, optionally filtered, for a loop of seconds while
// working on it (`npm test` stays the full gate). It builds only what the part
// runs (incrementally) and assumes `npm test` or `npm start` set the machine up.
//   npm run test:cpp  -- [filter]   native GoogleTest; filter: a --gtest_filter pattern (e.g. 'Rope*')
//   npm run test:wasm -- [filter]   the same suites in wasm (SIMD, then scalar) under Node
//   npm run test:ts   -- [filter]   the TypeScript tests whose file name contains filter (page tests excluded)
//   npm run test:page -- [filter]   the page tests (page-*.test.ts) whose file name contains filter, on a fresh build of the page
//   npm run test:engines -- [filter] Firefox ESR and WebKitGTK (tests/engines/): the package and a page smoke test; filter: file name
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { root, run } from './common.mjs';

const [part, filter] = process.argv.slice(2);
const build = (...parts) => run(process.execPath, [join(root, 'tools/build.mjs'), ...parts]);
const gtestFilter = filter === undefined ? [] : [`--gtest_filter=${filter}`];
const tsTests = () => {
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.tests.json']);
  return readdirSync(join(root, 'build/ts-tests/tests/ts')).filter((f) => f.endsWith('.test.js'));
};
const runTs = (files, dir = 'build/ts-tests/tests/ts') => {
  if (files.length === 0) throw new Error(`no test file matches '${filter}'`);
  run(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...files.map((f) => join(dir, f))]);
};

try {
  switch (part) {
    case 'cpp':
      build('native');
      run(join(root, 'build/native/posenc_tests'), ['--gtest_brief=1', ...gtestFilter]);
      break;
    case 'wasm':
      build('wasm');
      for (const flavour of ['simd', 'scalar']) {
        run(process.execPath, ['--no-experimental-fetch', join(root, `build/wasm-${flavour}/posenc_tests.js`), '--gtest_brief=1', ...gtestFilter]);
      }
      break;
    case 'ts':
      build('wasm', 'ts');
      runTs(tsTests().filter((f) => !f.startsWith('page') && (filter === undefined || f.includes(filter))));
      break;
    case 'page':
      build('wasm', 'ts', 'site');
      runTs(tsTests().filter((f) => f.startsWith('page') && (filter === undefined || f.includes(filter))));
      break;
    case 'engines': {
      build('wasm', 'ts', 'site');
      tsTests();
      const dir = 'build/ts-tests/tests/engines';
      runTs(readdirSync(join(root, dir)).filter((f) => f.endsWith('.test.js') && (filter === undefined || f.includes(filter))), dir);
      break;
    }
    default:
      console.error('usage: node tools/test_part.mjs cpp|wasm|ts|page|engines [filter]');
      process.exit(2);
  }
} catch (e) {
  console.error(`FAILED: test:${part}: ${e.message}`);
  process.exit(1);
}
