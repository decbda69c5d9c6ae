/**
 * Node entry (the `node` condition of the package's exports): the same API,
 * with the .wasm read from disk instead of fetched.
 */
import { readFile } from 'node:fs/promises';

import { compileBytes, compileWith, defaultUrl, initWith } from './loader.js';
import type { CompileOptions, InitOptions, Posenc } from './types.js';

export type * from './types.js';
export { simdSupported } from './loader.js';
export { ALIBI_VARIANTS, ENCODINGS, POSITION_BUGS, ROPE_LAYOUTS, ROPE_SCALINGS, SINUSOIDAL_LAYOUTS, TASKS } from './names.js';
export { LAYOUT_BY_MODEL_TYPE } from './hf-config.js';
export { ropeGroups, ropeOriginalContext } from './rope-groups.js';

async function readWasm(url: URL): Promise<Uint8Array> {
  if (url.protocol === 'file:') {
    try {
      return new Uint8Array(await readFile(url));
    } catch (e) {
      throw new Error(`posenc: could not read ${url.href}: ${String(e)}`);
    }
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`posenc: fetching ${url.href} failed with HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function readAndCompile(url: URL): Promise<WebAssembly.Module> {
  return compileBytes(await readWasm(url), url.href);
}

/** Loads the SIMD binary when supported (scalar otherwise, or with `{ simd: false }`). */
export function init(options?: InitOptions): Promise<Posenc> {
  return initWith(options, defaultUrl, readAndCompile);
}

/**
 * Reads and compiles the binary `init()` would use, without instantiating it: pass the module to
 * `init({ module })`, here and in worker threads (a WebAssembly.Module can be posted), to compile once;
 * `{ part: 'models' }` does the same for the models module (`init({ models: { module } })`).
 */
export function compileWasm(options?: CompileOptions): Promise<WebAssembly.Module> {
  return compileWith(options, defaultUrl, readAndCompile);
}
