/**
 * Heap marshalling: with the loaders, the only code that touches the
 * module's memory. Every call allocates its buffers in a Frame, copies
 * inputs in with one `set`, calls the core, copies outputs out and frees, so
 * no view over wasm memory ever escapes to the caller. Also the base class
 * of the objects that own an Embind handle (KvCache, TinyModel).
 */
import type { RawCommon, RawHandle, RawModule } from './raw.js';
import { checkElements, f32 } from './validate.js';

/** Allocations of one call, freed together. */
export class Frame {
  private readonly ptrs: number[] = [];
  constructor(private readonly m: RawCommon) {}

  /**
   * `bytes` in the wasm heap, starting on a 64-byte boundary (a cache line):
   * malloc gives 8-byte alignment, and the kernels' vector loads then
   * straddle cache lines at a rate that depends on the allocator (one
   * attention call measured 7% apart between two allocators).
   */
  alloc(bytes: number): number {
    const p = this.m._malloc(Math.max(bytes, 8) + 56);
    if (p === 0) {
      throw new RangeError(`out of memory: could not allocate ${bytes} bytes in the wasm heap (now ${this.m.HEAPU8.length} bytes)`);
    }
    this.ptrs.push(p);
    // (Arithmetic, not `& ~63`: pointers past 2 GiB must stay positive.)
    return p + ((64 - (p % 64)) % 64);
  }
  /** Allocates and copies a typed array in. */
  f32(a: Float32Array): number {
    const p = this.alloc(a.length * 4);
    this.m.HEAPF32.set(a, p >>> 2);
    return p;
  }
  /** Allocates and copies typed arrays in, one after another (rows of a matrix). */
  f32Rows(rows: readonly Float32Array[]): number {
    const p = this.alloc(rows.reduce((n, r) => n + r.length, 0) * 4);
    let at = p >>> 2;
    for (const r of rows) {
      this.m.HEAPF32.set(r, at);
      at += r.length;
    }
    return p;
  }
  i32(a: Int32Array): number {
    const p = this.alloc(a.length * 4);
    this.m.HEAP32.set(a, p >>> 2);
    return p;
  }
  f64(a: ArrayLike<number>): number {
    const p = this.alloc(a.length * 8);
    this.m.HEAPF64.set(a, p >>> 3);
    return p;
  }
  u8(a: Uint8Array): number {
    const p = this.alloc(a.length);
    this.m.HEAPU8.set(a, p);
    return p;
  }
  free(): void {
    for (const p of this.ptrs) this.m._free(p);
    this.ptrs.length = 0;
  }
}

/** The error a failed allocation inside the core becomes (see guardModule). */
function outOfMemory(m: RawCommon): RangeError {
  return new RangeError(
    `out of memory: the wasm core could not allocate what this call needs (heap now ${m.HEAPU8.length} bytes, ` +
      'at most 4 GiB); the call was undone and the module is still usable',
  );
}

/**
 * A failed allocation in C++ throws std::bad_alloc, which unwinds (freeing
 * what the call held) out of wasm as a WebAssembly.Exception: every entry
 * point of the raw module, functions and class methods alike, turns it into
 * a RangeError here. (The core throws nothing else.)
 */
export function guardModule(m: RawCommon): void {
  // WebAssembly.Exception is not in TypeScript's DOM types yet.
  const WasmException = (WebAssembly as unknown as { Exception?: abstract new (...a: never[]) => object }).Exception;
  const isWasmException = (e: unknown): boolean => WasmException !== undefined && e instanceof WasmException;
  const wrap = <F extends (...a: never[]) => unknown>(f: F): F =>
    function (this: unknown, ...a: never[]) {
      try {
        return f.apply(this, a);
      } catch (e) {
        throw isWasmException(e) ? outOfMemory(m) : e;
      }
    } as F;
  const raw = m as unknown as Record<string, unknown>;
  for (const [name, v] of Object.entries(raw)) {
    // The Embind functions (HEAP views and _malloc / _free are left alone).
    if (typeof v !== 'function' || name.startsWith('_') || /^[A-Z]/.test(name)) continue;
    raw[name] = wrap(v as (...a: never[]) => unknown);
  }
  for (const name of ['KvCache', 'TinyModel', 'Trainer']) {
    const C = raw[name] as (new (...a: never[]) => object) | undefined;
    if (typeof C !== 'function') continue;
    const proto = C.prototype as Record<string, unknown>;
    for (const key of Object.getOwnPropertyNames(proto)) {
      const d = Object.getOwnPropertyDescriptor(proto, key);
      if (key !== 'constructor' && d && typeof d.value === 'function') proto[key] = wrap(d.value as (...a: never[]) => unknown);
    }
    const Guarded = function (...a: never[]) {
      try {
        return new C(...a);
      } catch (e) {
        throw isWasmException(e) ? outOfMemory(m) : e;
      }
    };
    Guarded.prototype = C.prototype;
    raw[name] = Guarded;
  }
}

/** One module's heap (the core's, or the models module's), with the helpers every API call uses. */
export class Heap<M extends RawCommon = RawModule> {
  constructor(readonly m: M) {}

  /** Runs fn with a call frame whose allocations are freed afterwards. */
  call<T>(fn: (f: Frame) => T): T {
    const frame = new Frame(this.m);
    try {
      return fn(frame);
    } finally {
      frame.free();
    }
  }

  /** Throws the core's error message, if any, as a RangeError. */
  check(err: string): void {
    if (err !== '') throw new RangeError(err);
  }

  /** Arrays that view this module's memory are copied first: the allocations of the call may grow (and detach) it. */
  own<T extends Float32Array | Int32Array | Uint8Array>(a: T): T {
    return (a.buffer === this.m.HEAPU8.buffer ? a.slice() : a) as T;
  }

  /** A Float32Array input of the given named dims, copied if it views wasm memory. */
  tensor(name: string, v: unknown, dims: Array<[string, number]>): Float32Array {
    const n = checkElements(name, dims, 4);
    const text = `${dims.map(([k]) => k).join(' * ')} = ${dims.map(([, d]) => d).join(' * ')}`;
    return this.own(f32(name, v, n, text));
  }

  readF32(p: number, n: number): Float32Array {
    return this.m.HEAPF32.slice(p >>> 2, (p >>> 2) + n);
  }
  readI32(p: number, n: number): Int32Array {
    return this.m.HEAP32.slice(p >>> 2, (p >>> 2) + n);
  }
  readF64(p: number, n: number): Float64Array {
    return this.m.HEAPF64.slice(p >>> 3, (p >>> 3) + n);
  }
  readU8(p: number, n: number): Uint8Array {
    return this.m.HEAPU8.slice(p, p + n);
  }
}

/** Deletes the handles of objects the program dropped without `delete()`. */
const registry = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry<RawHandle>((h) => h.delete())
  : undefined;

/**
 * An object that owns one Embind handle: `delete()` frees it (once; later
 * calls throw a TypeError naming the object), `using` disposes of it, and
 * an object the program drops is freed by the garbage collector.
 */
export abstract class Owner<H extends RawHandle> {
  #h: H | undefined;
  readonly #token = {};

  /** `what`: the class name in messages ('KvCache'); `noun`: 'cache', 'model'. */
  protected constructor(h: H, private readonly what: string, private readonly noun: string) {
    this.#h = h;
    registry?.register(this, h, this.#token);
  }

  /** The live handle; `method` names the call in the error if deleted. */
  protected handle(method: string): H {
    if (this.#h === undefined) throw new TypeError(`${this.what}.${method}: this ${this.noun} has been deleted`);
    return this.#h;
  }

  /** The live handle of `o`, an object of class C (`name`: the parameter, for errors). */
  protected static handleOf<H extends RawHandle>(o: unknown, C: abstract new (...a: never[]) => Owner<H>, name: string, expected: string): H {
    if (!(o instanceof C)) throw new TypeError(`${name} must be ${expected}`);
    const h = (o as Owner<H>).#h;
    if (h === undefined) throw new TypeError(`${name}: this ${(o as Owner<H>).noun} has been deleted`);
    return h;
  }

  delete(): void {
    const h = this.handle('delete()');
    this.#h = undefined;
    registry?.unregister(this.#token);
    h.delete();
  }

  [Symbol.dispose](): void {
    if (this.#h !== undefined) this.delete();
  }
}

// Runtimes without Symbol.dispose: `using` falls back to Symbol.for('Symbol.dispose').
const dispose: symbol = (Symbol as unknown as { dispose?: symbol }).dispose ?? Symbol.for('Symbol.dispose');
if (dispose !== Symbol.dispose) {
  Object.defineProperty(Owner.prototype, dispose, { value: Owner.prototype[Symbol.dispose] });
}
