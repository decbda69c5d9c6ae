/**
 * The shape of the shipped wasm binaries, where it decides their speed.
 *
 * V8 compiles a function whose instruction count is huge with its mid-tier
 * register allocator, which keeps loop-carried values (the attention tile's
 * accumulators) on the stack: about 20% of the kernel's speed. Binaryen,
 * behind emcc, inlines every function that has a single call site, so the
 * kernels' per-shape instances are called through function-pointer tables
 * (src/ops/attention-inl.h, src/ops/rope-inl.h). When they were not, the
 * SIMD build had one 112,699-byte function; with the tables the largest is
 * about 15 KB. V8's limit counts virtual registers, not bytes, so the budget
 * below is a proxy with room on both sides: it fails if the kernels merge
 * again, not for ordinary growth.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const kBudgetBytes = 48 * 1024;

/** Body sizes of the functions in a wasm binary's code section (id 10). */
function functionBodySizes(bytes: Uint8Array): number[] {
  let p = 8;  // magic + version
  const leb = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[p++];
      if (b === undefined) throw new RangeError(`truncated LEB128 at byte ${p}`);
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0) return result;
    }
  };
  const sizes: number[] = [];
  while (p < bytes.length) {
    const id = bytes[p++];
    const length = leb();
    const end = p + length;
    if (id === 10) {
      const count = leb();
      for (let i = 0; i < count; i++) {
        const size = leb();
        sizes.push(size);
        p += size;
      }
      assert.equal(p, end, 'code section parsed to its end');
    }
    p = end;
  }
  return sizes;
}

describe('wasm binaries', () => {
  for (const flavour of ['simd', 'scalar']) {
    it(`${flavour}: no function is large enough to fall to V8's mid-tier register allocator`, () => {
      const sizes = functionBodySizes(readFileSync(`${root}dist/wasm/posenc-${flavour}.wasm`));
      assert.ok(sizes.length > 100, `found ${sizes.length} functions`);
      const largest = Math.max(...sizes);
      assert.ok(largest < kBudgetBytes,
        `the largest function body is ${largest} bytes (budget ${kBudgetBytes}): did Binaryen inline the ` +
        'kernel instances into one function again? See the AttendTile comment in src/ops/attention-inl.h');
    });
  }
});
