/**
 * What tests/browser/main.js computes in a browser (window.__posenc) and the
 * checks every engine's run must pass: both wasm flavours load through the
 * browser entry, compute an ALiBi row and RoPE's relative invariance, the
 * Worker pool gives the calling thread's bits, and a .wasm URL that serves
 * HTML fails with a message that says so. The expected numbers come from the
 * math (ALiBi's row -(i - j) for the 'simple' variant's first head), not from
 * the code under test.
 */
import assert from 'node:assert/strict';

export interface BrowserResult {
  runs: Array<{ simd: boolean; target: string; row: number[]; relDiff: number; pool: { workers: number; simd: boolean; same: boolean[] };
    train: { same: boolean[][]; badSame: boolean; afterSame: boolean };
    connect: { workers?: number; ports?: number; started?: number; same?: boolean; afterTerminate?: string; badConnect?: string; error?: string } }>;
  badUrl?: string;
  error?: string;
}

/** Asserts `result` (and no script error or warning in `problems`); `simdTarget` is the SIMD build's target name. */
export function checkBrowserResult(result: BrowserResult, problems: string[]): void {
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual(result.runs.map((r) => [r.simd, r.target, r.row]), [
    [true, 'WASM', [-4, -3, -2, -1, 0]],
    [false, 'SCALAR', [-4, -3, -2, -1, 0]],
  ]);
  for (const r of result.runs) assert.ok(r.relDiff < 1e-4, `RoPE relative invariance in the browser: ${r.relDiff}`);
  // The Worker pool: two module Workers, the same bits as the calling thread's call.
  assert.deepEqual(result.runs.map((r) => r.pool), [true, false].map((simd) => ({ workers: 2, simd, same: [true, true, true] })));
  // Data-parallel training: pe.train's weights for 1-4 Workers, both tasks; a bad call and the pool after it.
  const four = [true, true, true, true];
  assert.deepEqual(result.runs.map((r) => r.train), [true, false].map(() => ({ same: [four, four], badSame: true, afterSame: true })));
  // A pool inside a Worker whose two Workers the page started (connect): the same bits; after
  // terminate() a call rejects; a connect() that gives no port is a TypeError's message.
  assert.deepEqual(result.runs.map((r) => r.connect), [true, false].map(() => ({
    workers: 2, ports: 2, started: 2, same: true,
    afterTerminate: 'posenc pool: this pool has been terminated',
    badConnect: 'connect() must return a MessagePort',
  })));
  assert.match(result.badUrl ?? '', /index\.html is not a WebAssembly binary \(expected magic word 00 61 73 6d, found 3c 21 64 6f\)/);
  // The only error allowed is none: a CSP violation would show here.
  assert.deepEqual(problems, []);
}
