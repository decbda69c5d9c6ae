/**
 * Shared loader logic: SIMD detection, binary checks, compilation,
 * instantiation and the warm-up, for the core module (at init) and the
 * models module (the first time a model is used). The browser (index.ts) and
 * Node (node.ts) entries differ only in how they fetch or read and compile
 * the .wasm.
 */
import { createPosenc } from './core.js';
import type { RawModels, RawModule } from './raw.js';
import type { CompileOptions, InitOptions, Posenc } from './types.js';
import { keysOf, knownKeys } from './known-keys.js';

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

/** The two modules: the core (encodings, attention) and the models (tiny models, training). */
export type Part = 'core' | 'models';

/** Where a part's .wasm of a flavour is by default (a literal `new URL` per file, for bundlers). */
export type DefaultUrl = (simd: boolean, part: Part) => URL;

/**
 * Where a part's .wasm of a flavour is by default: next to the package's modules (loader.js sits
 * beside index.js and node.js). One literal `new URL` per file, so that bundlers copy all four.
 */
export function defaultUrl(simd: boolean, part: Part): URL {
  if (part === 'models') {
    return simd
      ? new URL('./wasm/posenc-models-simd.wasm', import.meta.url)
      : new URL('./wasm/posenc-models-scalar.wasm', import.meta.url);
  }
  return simd
    ? new URL('./wasm/posenc-simd.wasm', import.meta.url)
    : new URL('./wasm/posenc-scalar.wasm', import.meta.url);
}

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

const INIT_KEYS = keysOf<InitOptions>()(['simd', 'wasmBinary', 'wasmUrl', 'module', 'models']);
const INIT_MODELS_KEYS = keysOf<NonNullable<InitOptions['models']>>()(['wasmBinary', 'wasmUrl', 'module']);
const COMPILE_KEYS = keysOf<CompileOptions>()(['simd', 'wasmBinary', 'wasmUrl', 'part']);

/** The options object (TypeError unless an object with only `known` keys: `call` names it) and the flavour it asks for. */
function flavour(options: InitOptions | undefined, call: 'init' | 'compileWasm', known: readonly string[]): { o: InitOptions; simd: boolean } {
  const o = options ?? {};
  if (typeof o !== 'object') throw new TypeError(`${call} options must be an object, got ${typeof o}`);
  knownKeys(`${call} options`, o, known);
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

/** The options of one part's binary: the top-level ones for the core, `models` for the models module. */
interface BinaryOptions {
  wasmBinary?: ArrayBuffer | Uint8Array;
  wasmUrl?: string | URL;
  module?: WebAssembly.Module;
}

/** The `part` option of compileWasm(), checked. */
function partOf(o: CompileOptions): Part {
  const p: unknown = o.part;
  if (p === undefined || p === 'core' || p === 'models') return p ?? 'core';
  // A string of another value is a RangeError, anything else a TypeError (the rule of every option).
  const Err = typeof p === 'string' ? RangeError : TypeError;
  throw new Err(`part must be 'core' or 'models', got ${JSON.stringify(p) ?? String(p)}`);
}

/** Compiles the binary the options name (`wasmBinary`, `wasmUrl` or the default of the flavour and part). */
export async function compileWith(options: CompileOptions | undefined, defaultUrl: DefaultUrl, compileUrl: CompileUrl): Promise<WebAssembly.Module> {
  const { o, simd } = flavour(options, 'compileWasm', COMPILE_KEYS);
  const part = partOf(o);
  // The module will be instantiated through its Emscripten glue: that loads
  // while the binary compiles (import() caches it for init()).
  loadGlue(simd, part);
  return compileBinary(o, '', simd, part, defaultUrl, compileUrl);
}

/** Compiles a part's binary from `o` (`prefix`: how the options are named in errors, 'models.'). */
function compileBinary(o: BinaryOptions, prefix: string, simd: boolean, part: Part, defaultUrl: DefaultUrl, compileUrl: CompileUrl): Promise<WebAssembly.Module> {
  if (o.wasmBinary !== undefined) {
    const b = o.wasmBinary;
    if (!(b instanceof ArrayBuffer) && !(b instanceof Uint8Array)) {
      throw new TypeError(`${prefix}wasmBinary must be an ArrayBuffer or a Uint8Array`);
    }
    return compileBytes(b instanceof Uint8Array ? b : new Uint8Array(b), `${prefix}wasmBinary`);
  }
  const url = defaultUrl(simd, part);
  return compileUrl(o.wasmUrl !== undefined ? new URL(String(o.wasmUrl), url) : url);
}

/** The `module` option, checked: a WebAssembly.Module, given without wasmBinary / wasmUrl. */
function givenModule(o: BinaryOptions, prefix = ''): WebAssembly.Module | undefined {
  const m: unknown = o.module;
  if (m === undefined) return undefined;
  if (!(m instanceof WebAssembly.Module)) {
    const got = m === null ? 'null' : typeof m === 'object' ? `an object (${Object.prototype.toString.call(m)})` : `a ${typeof m}`;
    throw new TypeError(`${prefix}module must be a WebAssembly.Module (from compileWasm() or WebAssembly.compile()), got ${got}`);
  }
  if (o.wasmBinary !== undefined || o.wasmUrl !== undefined) {
    throw new TypeError(`pass ${prefix}module or ${prefix}wasmBinary / ${prefix}wasmUrl to init(), not both`);
  }
  return m;
}

/** The `models` option of init(), checked (its module, bytes and URL are checked when used). */
function modelsOptions(o: InitOptions): BinaryOptions {
  const m: unknown = o.models;
  if (m === undefined) return {};
  if (typeof m !== 'object' || m === null) throw new TypeError(`models must be an object, got ${m === null ? 'null' : typeof m}`);
  knownKeys('models', m, INIT_MODELS_KEYS);
  givenModule(m as BinaryOptions, 'models.');
  return m as BinaryOptions;
}

/** An Emscripten ES module factory (bindings/ts/wasm/*.d.mts). */
type Glue<M> = { default: (moduleArg: GlueArg) => Promise<M> };
interface GlueArg {
  instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void): object;
}

/** Starts loading the glue of a flavour and part (an unhandled failure is reported by the caller's await). */
function loadGlue(simd: boolean, part: 'core'): Promise<Glue<RawModule>>;
function loadGlue(simd: boolean, part: Part): Promise<Glue<RawModule | RawModels>>;
function loadGlue(simd: boolean, part: Part): Promise<Glue<RawModule | RawModels>> {
  // One literal import per file, so that bundlers see all four.
  const glue: Promise<Glue<RawModule | RawModels>> = part === 'core'
    ? simd ? import('./wasm/posenc-simd.mjs') : import('./wasm/posenc-scalar.mjs')
    : simd ? import('./wasm/posenc-models-simd.mjs') : import('./wasm/posenc-models-scalar.mjs');
  glue.catch(() => undefined);
  return glue;
}

/**
 * Instantiates a compiled module through Emscripten's `instantiateWasm`
 * hook, so the factory neither fetches nor compiles anything; a module that
 * does not link (not a posenc binary) rejects instead of hanging.
 */
async function instantiate<M>(module: WebAssembly.Module, glue: Promise<Glue<M>>): Promise<M> {
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

export async function initWith(options: InitOptions | undefined, defaultUrl: DefaultUrl, compileUrl: CompileUrl): Promise<Posenc> {
  const { o, simd } = flavour(options, 'init', INIT_KEYS);
  const given = givenModule(o);
  const models = modelsOptions(o);
  // The Emscripten glue loads while the binary compiles.
  const glue = loadGlue(simd, 'core');
  const module = given ?? (await compileBinary(o, '', simd, 'core', defaultUrl, compileUrl));
  // The models module: fetched, compiled and instantiated on first use.
  const loadModels = async (): Promise<RawModels> => {
    const modelsGlue = loadGlue(simd, 'models') as Promise<Glue<RawModels>>;
    const compiled = givenModule(models, 'models.') ?? (await compileBinary(models, 'models.', simd, 'models', defaultUrl, compileUrl));
    return instantiate(compiled, modelsGlue);
  };
  const pe = createPosenc(await instantiate(module, glue), simd, loadModels);
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
