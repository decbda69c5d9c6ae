// Helpers shared by the build, setup, test and benchmark scripts.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** libFuzzer targets: tests/fuzz/<name>_fuzz.cc -> build/fuzz/posenc_fuzz_<name>. */
export const fuzzTargets = ['safetensors', 'model_load', 'config', 'scaling', 'attention'];

/** Sanitizer runtime options: stop at the first error, with a stack trace. */
export const sanitizerEnv = {
  ASAN_OPTIONS: 'halt_on_error=1:abort_on_error=1:print_stacktrace=1:detect_leaks=1',
  UBSAN_OPTIONS: 'halt_on_error=1:abort_on_error=1:print_stacktrace=1',
};

/** Environment for every Emscripten command (toolchain.md quirk 1). */
export const emEnv = { ...process.env, NODE_PATH: '/usr/share/nodejs' };

/** Runs a command with inherited output; throws on failure. */
export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
  }
  return r;
}

/** Runs a command and returns its stdout (stderr inherited). */
export function capture(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
  return r.stdout;
}
