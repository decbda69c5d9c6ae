/**
 * posenc: positional encodings for transformers, in WebAssembly.
 * Browser / bundler entry: the .wasm is fetched next to this module (Vite and
 * webpack rewrite the `new URL(..., import.meta.url)` of loader.ts'
 * defaultUrl) unless `wasmUrl` or `wasmBinary` is given. Nothing here imports Node modules.
 *
 *   import { init } from 'posenc';
 *   const pe = await init();
 *   pe.alibiSlopes(8);
 *
 * @module posenc
 */
import { compileBytes, compileWith, defaultUrl, initWith } from './loader.js';
import type { CompileOptions, InitOptions, Posenc } from './types.js';

export type * from './types.js';
export { simdSupported } from './loader.js';
export { ALIBI_VARIANTS, ENCODINGS, POSITION_BUGS, ROPE_LAYOUTS, ROPE_SCALINGS, SINUSOIDAL_LAYOUTS, TASKS } from './names.js';
export { LAYOUT_BY_MODEL_TYPE } from './hf-config.js';
export { ropeGroups, ropeOriginalContext } from './rope-groups.js';

/** Fetches and compiles the .wasm, streaming when the server sends application/wasm. */
async function fetchAndCompile(url: URL): Promise<WebAssembly.Module> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new Error(`posenc: could not fetch ${url.href}: ${String(e)}`);
  }
  if (!res.ok) throw new Error(`posenc: fetching ${url.href} failed with HTTP ${res.status}`);
  const type = res.headers.get('Content-Type') ?? '';
  if (typeof WebAssembly.compileStreaming === 'function' && type.startsWith('application/wasm')) {
    return WebAssembly.compileStreaming(res);
  }
  return compileBytes(new Uint8Array(await res.arrayBuffer()), url.href);
}

/** Loads the SIMD binary when supported (scalar otherwise, or with `{ simd: false }`). */
export function init(options?: InitOptions): Promise<Posenc> {
  return initWith(options, defaultUrl, fetchAndCompile);
}

/**
 * Fetches and compiles the binary `init()` would use, without instantiating it: pass the module to
 * `init({ module })`, here and in Workers (a WebAssembly.Module can be posted), to fetch and compile once;
 * `{ part: 'models' }` does the same for the models module (`init({ models: { module } })`).
 */
export function compileWasm(options?: CompileOptions): Promise<WebAssembly.Module> {
  return compileWith(options, defaultUrl, fetchAndCompile);
}
