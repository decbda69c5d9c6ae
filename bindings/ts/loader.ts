/**
 * Shared loader logic: SIMD detection, binary checks, instantiation and the
 * warm-up. The browser (index.ts) and Node (node.ts) entries differ only in
 * how they read the .wasm bytes.
 */
import { createPosenc } from './core.js';
import type { InitOptions, Posenc } from './types.js';

/** A module with one function `() -> v128` (i32.const 0; i8x16.splat): valid only where SIMD is. */
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // type: () -> v128
  0x03, 0x02, 0x01, 0x00, // one function of type 0
  0x0a, 0x08, 0x01, 0x06, 0x00, 0x41, 0x00, 0xfd, 0x0f, 0x0b, // body
]);

/** True when this engine validates WebAssembly SIMD (128-bit) code. */
export function simdSupported(): boolean {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

export type ReadWasm = (url: URL, simd: boolean) => Promise<Uint8Array>;

/** Checks the magic word so a mis-served HTML page gives a useful error. */
export function checkWasmBytes(bytes: Uint8Array, where: string): Uint8Array {
  const magic = [0x00, 0x61, 0x73, 0x6d];
  if (bytes.length < 8 || magic.some((b, i) => bytes[i] !== b)) {
    const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new Error(
      `posenc: ${where} is not a WebAssembly binary (expected magic word 00 61 73 6d, found ${head || 'nothing'}); ` +
        'the server probably returned an HTML page: check the path, or pass wasmUrl / wasmBinary to init()',
    );
  }
  return bytes;
}

export async function initWith(options: InitOptions | undefined, defaultUrl: (simd: boolean) => URL, read: ReadWasm): Promise<Posenc> {
  const o = options ?? {};
  if (typeof o !== 'object') throw new TypeError(`init options must be an object, got ${typeof o}`);
  if (o.simd !== undefined && typeof o.simd !== 'boolean') {
    throw new TypeError(`simd must be a boolean, got ${String(o.simd)}`);
  }
  const supported = simdSupported();
  const simd = o.simd ?? supported;
  if (simd && !supported) {
    throw new Error('posenc: this engine does not support WebAssembly SIMD; call init({ simd: false }) for the scalar build');
  }
  let bytes: Uint8Array;
  if (o.wasmBinary !== undefined) {
    const b = o.wasmBinary;
    if (!(b instanceof ArrayBuffer) && !(b instanceof Uint8Array)) {
      throw new TypeError('wasmBinary must be an ArrayBuffer or a Uint8Array');
    }
    bytes = checkWasmBytes(b instanceof Uint8Array ? b : new Uint8Array(b), 'wasmBinary');
  } else {
    const url = o.wasmUrl !== undefined ? new URL(String(o.wasmUrl), defaultUrl(simd)) : defaultUrl(simd);
    bytes = checkWasmBytes(await read(url, simd), url.href);
  }
  const factory = simd
    ? (await import('./wasm/posenc-simd.mjs')).default
    : (await import('./wasm/posenc-scalar.mjs')).default;
  const module = await factory({ wasmBinary: bytes });
  const pe = createPosenc(module, simd);
  warmUp(pe);
  return pe;
}

/** A few small calls so V8 tiers the hot kernels up before the user's first real call. */
function warmUp(pe: Posenc): void {
  const x = new Float32Array(2 * 8 * 64);
  for (let i = 0; i < 4; i++) {
    pe.applyRope(x, { heads: 2, seqLen: 8, headDim: 64, layout: i % 2 ? 'half' : 'interleaved' });
    pe.alibiBias({ heads: 2, queryLength: 8, keyLength: 8 });
    pe.attention({ q: x, k: x, v: x, heads: 2, queryLength: 8, keyLength: 8, headDim: 64 });
  }
}
