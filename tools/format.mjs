// clang-format (Google style, .clang-format) over every C++ file we own.
//   node tools/format.mjs         check only (fails on a diff)
//   node tools/format.mjs --fix   rewrite in place
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

import { root, run } from './common.mjs';

function walk(dir, out) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (/\.(cc|h)$/.test(e.name)) out.push(relative(root, p));
  }
  return out;
}

const files = ['src', 'bindings', 'tests'].flatMap((d) => walk(join(root, d), []));
const fix = process.argv.includes('--fix');
run('clang-format', fix ? ['-i', ...files] : ['--dry-run', '--Werror', ...files]);
console.log(`clang-format: ${files.length} files ${fix ? 'formatted' : 'clean'}`);
