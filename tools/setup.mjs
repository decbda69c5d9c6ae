// One-time setup that `npm start` and `npm test` run first, on a fresh Debian
// machine: system packages (apt when root; otherwise the exact command is
// printed and we stop), `npm ci` when node_modules is missing or stale, then
// the incremental build (tools/build.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

import { root, run } from './common.mjs';

// Debian packages the build, tests and benchmarks need (the CJK font is for
// the page's Chinese text in headless Chromium screenshots; Firefox ESR,
// WebKitGTK's driver and MiniBrowser, and Xvfb for the other two engines).
const PACKAGES = [
  'cmake', 'ninja-build', 'g++', 'pkg-config', 'clang-format', 'clang', 'libclang-rt-14-dev',
  'emscripten', 'libhwy-dev', 'googletest', 'libgtest-dev', 'libbenchmark-dev',
  'chromium', 'fonts-wqy-zenhei', 'firefox-esr', 'webkit2gtk-driver', 'xvfb',
];

function installed(pkg) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.includes('install ok installed');
}

const missing = PACKAGES.filter((p) => !installed(p));
if (missing.length > 0) {
  const cmd = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (typeof process.getuid === 'function' && process.getuid() === 0) {
    console.log(`== installing system packages: ${missing.join(' ')}`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    run('apt-get', ['update'], { env });
    run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env });
  } else {
    console.error(`posenc needs these Debian packages: ${missing.join(' ')}\nRun as root:\n  sudo sh -c '${cmd}'`);
    process.exit(1);
  }
}

// npm ci when node_modules is absent or older than the lock file.
const lock = join(root, 'package-lock.json');
const stamp = join(root, 'node_modules', '.package-lock.json');
if (!existsSync(stamp) || statSync(stamp).mtimeMs < statSync(lock).mtimeMs) {
  console.log('== npm ci');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

run(process.execPath, [join(root, 'tools', 'build.mjs')]);
