/**
 * posenc: positional encodings for transformers, in WebAssembly.
 * Browser / bundler entry: the .wasm is fetched next to this module (Vite and
 * webpack rewrite the `new URL(..., import.meta.url)` below) unless `wasmUrl`
 * or `wasmBinary` is given. Nothing here imports Node modules.
 *
 *   import { init } from 'posenc';
 *   const pe = await init();
 *   pe.alibiSlopes(8);
 */
import { initWith } from './loader.js';
import type { InitOptions, Posenc } from './types.js';

export type * from './types.js';
export { simdSupported } from './loader.js';

function defaultUrl(simd: boolean): URL {
  return simd
    ? new URL('./wasm/posenc-simd.wasm', import.meta.url)
    : new URL('./wasm/posenc-scalar.wasm', import.meta.url);
}

async function fetchWasm(url: URL): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`posenc: could not fetch ${url.href}: ${String(e)}`);
  }
  if (!res.ok) throw new Error(`posenc: fetching ${url.href} failed with HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/** Loads the SIMD binary when supported (scalar otherwise, or with `{ simd: false }`). */
export function init(options?: InitOptions): Promise<Posenc> {
  return initWith(options, defaultUrl, fetchWasm);
}
