// Runs every libFuzzer target (built in build/fuzz by tools/build.mjs) for
// a time budget, each on a scratch copy of its seed corpus in
// tests/fuzz/corpus/<target>, and prints executions and findings.
//   npm run fuzz               60 s per target
//   npm run fuzz -- 3600       an hour per target
// `npm test` runs it with a short budget. Exits non-zero on any finding.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { fuzzTargets, root, sanitizerEnv } from './common.mjs';

const seconds = Number(process.argv[2] ?? 60);
if (!Number.isFinite(seconds) || seconds <= 0) {
  console.error(`usage: node tools/fuzz.mjs [seconds per target > 0], got ${process.argv[2]}`);
  process.exit(2);
}
const targets = fuzzTargets;
const rows = [];
let failed = false;
for (const t of targets) {
  const work = mkdtempSync(join(tmpdir(), `posenc-fuzz-${t}-`));
  const corpus = join(work, 'corpus');
  cpSync(join(root, 'tests/fuzz/corpus', t), corpus, { recursive: true });
  const seeds = readdirSync(corpus).length;
  const r = spawnSync(join(root, 'build/fuzz', `posenc_fuzz_${t}`), [
    `-max_total_time=${seconds}`, '-print_final_stats=1', '-max_len=8192',
    '-rss_limit_mb=2048', `-artifact_prefix=${work}/`, corpus,
  ], { cwd: work, env: { ...process.env, ...sanitizerEnv }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const log = `${r.stdout}${r.stderr}`;
  const execs = /stat::number_of_executed_units:\s*(\d+)/.exec(log)?.[1] ?? '?';
  const ok = r.status === 0;
  if (!ok) {
    failed = true;
    console.error(log.split('\n').slice(-60).join('\n'));
    console.error(`posenc_fuzz_${t}: finding kept in ${work}`);
  } else {
    rmSync(work, { recursive: true, force: true });
  }
  rows.push(`| ${t} | ${seconds} | ${seeds} | ${execs} | ${ok ? 'none' : 'CRASH (see log)'} |`);
}
console.log('| target | seconds | seed files | executions | findings |');
console.log('|---|---:|---:|---:|---|');
for (const row of rows) console.log(row);
process.exit(failed ? 1 : 0);
