// Regenerates the reliability figures of docs/testing.md: runs each hardening check
// once and reports what it did and found.
//   npm run reliability                              fuzz 60 s per target
//   npm run reliability -- --fuzz 3600 --docs      an hour per target, rewrite docs/testing.md
// (`npm test` runs the same checks with short budgets; this is the report.)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { rewriteDocs } from '../tests/bench/common.mjs';
import { root } from './common.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const fuzzSeconds = Number(arg('--fuzz', '60'));

/** Runs a command, returns { out, ok, seconds }; output is not echoed. */
function sh(cmd, args, env = {}) {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 1 << 28 });
  const seconds = (performance.now() - t0) / 1000;
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) console.error(out.split('\n').slice(-40).join('\n'));
  return { out, ok: r.status === 0, seconds };
}
const rows = [];
const row = (check, what, result) => {
  rows.push(`| ${check} | ${what} | ${result} |`);
  console.error(`${check}: ${result}`);
};
let allOk = true;

// 1. The native GoogleTest suites under AddressSanitizer + UndefinedBehaviorSanitizer.
{
  const r = sh(join(root, 'build/asan/posenc_tests'), [], {
    ASAN_OPTIONS: 'halt_on_error=1:detect_leaks=1:print_stacktrace=1',
    UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1',
  });
  const passed = /\[ {2}PASSED {2}\] (\d+) tests?/.exec(r.out)?.[1] ?? '?';
  allOk &&= r.ok;
  row('ASan + UBSan (clang, `-fno-sanitize-recover=all`)', 'every native GoogleTest suite, every Highway target, `build/asan`',
    r.ok ? `${passed} tests passed in ${r.seconds.toFixed(0)} s, no report` : 'FAILED');
}

// 2. libFuzzer, every target.
{
  const r = sh(process.execPath, [join(root, 'tools/fuzz.mjs'), String(fuzzSeconds)]);
  allOk &&= r.ok;
  const targets = [...r.out.matchAll(/^\| (\w+) \| (\d+) \| (\d+) \| (\S+) \| ([^|]+) \|$/gm)];
  for (const [, name, seconds, , execs, findings] of targets) {
    row(`libFuzzer \`${name}\``, `${seconds} s from its seed corpus (ASan + UBSan)`, `${Number(execs).toLocaleString('en-US')} executions, findings: ${findings.trim()}`);
  }
}

// 3. Differential: seeded random cases against float64 references, native (every target), wasm SIMD, wasm scalar.
{
  const count = (out) => {
    const byKind = new Map();
    for (const [, kind, n, bad] of out.matchAll(/\[differential\] (\w+): (\d+) cases checked, (\d+) failed/g)) {
      byKind.set(kind, (byKind.get(kind) ?? 0) + Number(n));
      if (Number(bad) !== 0) allOk = false;
    }
    return byKind;
  };
  const filter = '--gtest_filter=*Differential*';
  const native = sh(join(root, 'build/native/posenc_tests'), [filter]);
  const simd = sh(process.execPath, ['--no-experimental-fetch', join(root, 'build/wasm-simd/posenc_tests.js'), filter]);
  const scalar = sh(process.execPath, ['--no-experimental-fetch', join(root, 'build/wasm-scalar/posenc_tests.js'), filter]);
  allOk &&= native.ok && simd.ok && scalar.ok;
  const total = (m) => [...m.values()].reduce((a, b) => a + b, 0);
  const n = count(native.out), s = count(simd.out), c = count(scalar.out);
  const seed = /seed (\d+)/.exec(native.out)?.[1] ?? '?';
  const kinds = [...n.keys()].map((k) => `${k} ${n.get(k)}`).join(', ');
  row('differential (C++)', `seed ${seed}; native summed over the Highway targets: ${kinds}`,
    `${total(n).toLocaleString('en-US')} native + ${total(s).toLocaleString('en-US')} wasm SIMD + ${total(c).toLocaleString('en-US')} wasm scalar cases, all within tolerance`);
  const ts = sh(process.execPath, ['--test', join(root, 'build/ts-tests/tests/ts/differential.test.js')]);
  allOk &&= ts.ok;
  const tsCases = [...ts.out.matchAll(/# (\w+): (\d+) cases checked per flavour/g)].map(([, k, v]) => `${k} ${v}`);
  row('differential (public API)', `${tsCases.join(', ')} per flavour, through both wasm flavours`, ts.ok ? 'SIMD = scalar = float64 reference within tolerance' : 'FAILED');
}

// 4. The bad-input table and 5. the memory soak (the TypeScript tests print their figures).
{
  const r = sh(process.execPath, ['--test', join(root, 'build/ts-tests/tests/ts/errors.test.js'), join(root, 'build/ts-tests/tests/ts/memory.test.js')]);
  allOk &&= r.ok;
  const fig = new Map([...r.out.matchAll(/RELIABILITY ([^\n]+)/g)].flatMap(([, line]) => line.trim().split(/\s+/).map((kv) => kv.split('='))));
  row('bad inputs', `${fig.get('badInputs')} cases, each asserting its error type and message, in both flavours; then 1000 failing calls in a row`,
    r.ok ? 'every case throws its documented error; the module keeps working and the heap does not grow' : 'FAILED');
  for (const f of ['simd', 'scalar']) {
    row(`memory soak (${f})`, `${Number(fig.get(`soak.${f}.calls`)).toLocaleString('en-US')} mixed calls, ${Number(fig.get(`soak.${f}.failing`)).toLocaleString('en-US')} of them failing`,
      `heap in use changed by ${fig.get(`soak.${f}.inUseDelta`)} bytes; live KvCache / TinyModel / Trainer handles unchanged; a 10.7 GB request gives ${fig.get(`oom.${f}`)} \`out of memory\``);
  }
}

const table = [
  '| check | what ran | result |',
  '|---|---|---|',
  ...rows,
  '',
  `Measured by \`npm run reliability -- --fuzz ${fuzzSeconds}\`.`,
].join('\n');
console.log(table);
if (process.argv.includes('--docs')) rewriteDocs('reliability', table);
process.exit(allOk ? 0 : 1);
