/**
 * Shared loader logic: SIMD detection, binary checks, compilation,
 * instantiation and the warm-up. The browser (index.ts) and Node (node.ts)
 * entries differ only in how they fetch or read and compile the .wasm.
 */
import { createPosenc } from './core.js';
import type { RawModule } from './raw.js';
import type { CompileOptions, InitOptions, Posenc } from './types.js';

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

/** Fetches (browser) or reads (Node) the .wasm at `url` and compiles it. */
export type CompileUrl = (url: URL) => Promise<WebAssembly.Module>;

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

/** Compiles checked bytes (copied first if they view a SharedArrayBuffer, which compile() refuses). */
export function compileBytes(bytes: Uint8Array, where: string): Promise<WebAssembly.Module> {
  const b = checkWasmBytes(bytes, where);
  return WebAssembly.compile(b.buffer instanceof ArrayBuffer ? (b as Uint8Array<ArrayBuffer>) : new Uint8Array(b));
}

/** The options object (TypeError unless an object) and the flavour it asks for. */
function flavour(options: InitOptions | undefined): { o: InitOptions; simd: boolean } {
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
  return { o, simd };
}

/** Compiles the binary the options name (`wasmBinary`, `wasmUrl` or the default of the flavour). */
export async function compileWith(options: CompileOptions | undefined, defaultUrl: (simd: boolean) => URL, compileUrl: CompileUrl): Promise<WebAssembly.Module> {
  const { o, simd } = flavour(options);
  // The module will be instantiated through its Emscripten glue: that loads
  // while the binary compiles (import() caches it for init()).
  loadGlue(simd);
  if (o.wasmBinary !== undefined) {
    const b = o.wasmBinary;
    if (!(b instanceof ArrayBuffer) && !(b instanceof Uint8Array)) {
      throw new TypeError('wasmBinary must be an ArrayBuffer or a Uint8Array');
    }
    return compileBytes(b instanceof Uint8Array ? b : new Uint8Array(b), 'wasmBinary');
  }
  return compileUrl(o.wasmUrl !== undefined ? new URL(String(o.wasmUrl), defaultUrl(simd)) : defaultUrl(simd));
}

/** The `module` option, checked: a WebAssembly.Module, given without wasmBinary / wasmUrl. */
function givenModule(o: InitOptions): WebAssembly.Module | undefined {
  const m: unknown = o.module;
  if (m === undefined) return undefined;
  if (!(m instanceof WebAssembly.Module)) {
    const got = m === null ? 'null' : typeof m === 'object' ? `an object (${Object.prototype.toString.call(m)})` : `a ${typeof m}`;
    throw new TypeError(`module must be a WebAssembly.Module (from compileWasm() or WebAssembly.compile()), got ${got}`);
  }
  if (o.wasmBinary !== undefined || o.wasmUrl !== undefined) {
    throw new TypeError('pass module or wasmBinary / wasmUrl to init(), not both');
  }
  return m;
}

type Glue = typeof import('./wasm/posenc-simd.mjs');

/** Starts loading the glue of a flavour (an unhandled failure is reported by init's await). */
function loadGlue(simd: boolean): Promise<Glue> {
  const glue: Promise<Glue> = simd ? import('./wasm/posenc-simd.mjs') : import('./wasm/posenc-scalar.mjs');
  glue.catch(() => undefined);
  return glue;
}

/**
 * Instantiates a compiled module through Emscripten's `instantiateWasm`
 * hook, so the factory neither fetches nor compiles anything; a module that
 * does not link (not a posenc binary) rejects instead of hanging.
 */
async function instantiate(module: WebAssembly.Module, glue: Promise<Glue>): Promise<RawModule> {
  const factory = (await glue).default;
  let fail: (e: unknown) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  const ready = factory({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(module, imports)
        .then((instance) => receive(instance, module))
        .catch((e: unknown) => fail(new Error(`posenc: could not instantiate the module given to init() (is it a posenc binary?): ${String(e)}`)));
      return {};
    },
  });
  return Promise.race([ready, failed]);
}

export async function initWith(options: InitOptions | undefined, defaultUrl: (simd: boolean) => URL, compileUrl: CompileUrl): Promise<Posenc> {
  const { o, simd } = flavour(options);
  const given = givenModule(o);
  // The Emscripten glue loads while the binary compiles.
  const glue = loadGlue(simd);
  const module = given ?? (await compileWith(o, defaultUrl, compileUrl));
  const pe = createPosenc(await instantiate(module, glue), simd);
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
