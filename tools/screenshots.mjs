// Refreshes the page's screenshots (docs/page.md): runs the page's end-to-end test (which
// writes build/screenshots/) and copies a few into web/screenshots/.
//   npm run screenshots
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { root, run } from './common.mjs';

const SHOTS = ['section-order', 'section-derivation', 'section-rope', 'section-extrapolation', 'section-bugs', 'phone-dark-zh'];

run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.tests.json']);
run(process.execPath, ['--test', '--test-reporter=spec', 'build/ts-tests/tests/ts/page.test.js']);
mkdirSync(join(root, 'web/screenshots'), { recursive: true });
for (const s of SHOTS) {
  copyFileSync(join(root, 'build/screenshots', `${s}.png`), join(root, 'web/screenshots', `${s}.png`));
  console.log(`web/screenshots/${s}.png`);
}
