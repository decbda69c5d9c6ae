/**
 * Argument checks for the public API. Wrong types throw `TypeError`, wrong
 * values `RangeError`; every message names the parameter and the value.
 *
 * Where each check lives: this layer checks only what C++ cannot see. That is
 * JS types, integers (Embind would truncate 7.5 to 7 and wrap 2^32),
 * options left out (C++ sees their defaults), names, typed-array kinds,
 * lengths against the shapes, detached buffers and the sizes that decide
 * allocations. Every other rule on a value (a base above 1, a positive
 * factor, a rotary dim that is even and fits the head, kvHeads dividing
 * heads) is checked once, by the C++ validator, whose messages use the JS
 * names and write numbers as JS does.
 */

const MAX_INT32 = 2147483647;

/** 'a' or 'an' before a type name (an Int32Array, a Float32Array). */
function article(word: string): string {
  return /^[AEIO]/.test(word) ? 'an' : 'a';  // 'a Uint8Array': the U sounds like 'you'
}

function show(v: unknown): string {
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'bigint') return `${v}n`;
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an Array of length ${v.length}`;
  if (ArrayBuffer.isView(v)) {
    const name = v.constructor.name;
    return `${article(name)} ${name} of length ${(v as unknown as { length?: number }).length ?? v.byteLength}`;
  }
  if (typeof v === 'object') return `an object`;
  return String(v);
}

/**
 * Refuses options spread from a `ropeFromConfig` result whose layers rotate differently: such a result has no
 * top-level RoPE fields (`missing` is undefined) but carries `layers`.
 */
export function notLayered(o: Record<string, unknown>, missing: string, name = missing): void {
  if (o[missing] === undefined && Array.isArray(o.layers)) {
    throw new TypeError(
      `${name} is missing: these options come from ropeFromConfig for a model whose layers rotate differently ` +
        '(uniform: false); spread one of its layers instead (layers[i], null for a layer without RoPE)');
  }
}

export function requireObject(name: string, v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new TypeError(`${name} must be an options object, got ${show(v)}`);
  }
  return v as Record<string, unknown>;
}

/** An integer in [min, max]. */
export function int(name: string, v: unknown, min: number, max: number = MAX_INT32): number {
  if (typeof v !== 'number') throw new TypeError(`${name} must be a number, got ${show(v)}`);
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${show(v)}`);
  }
  return v;
}

/** A number of any value (C++ checks the value): only its JS type is checked here. */
export function number(name: string, v: unknown): number {
  if (typeof v !== 'number') throw new TypeError(`${name} must be a number, got ${show(v)}`);
  return v;
}

/** An integer that fits C++'s int (C++ checks its range of meaning). */
export function int32(name: string, v: unknown): number {
  if (!Number.isInteger(number(name, v))) throw new RangeError(`${name} must be an integer, got ${show(v)}`);
  if ((v as number) < -MAX_INT32 - 1 || (v as number) > MAX_INT32) {
    throw new RangeError(`${name} must be an integer in [${-MAX_INT32 - 1}, ${MAX_INT32}], got ${show(v)}`);
  }
  return v as number;
}

/**
 * An option that C++ reads as `sentinel` when left out (scale 0, window 0,
 * queryOffset -1): the sentinel given explicitly would silently mean "left
 * out", so it is refused here with `rule`; C++ checks every other value.
 */
export function besideSentinel(name: string, v: unknown, sentinel: number, rule: string, integer = false): number {
  if (v === undefined) return sentinel;
  const n = integer ? int32(name, v) : number(name, v);
  if (n === sentinel) throw new RangeError(`${rule}, got ${n}`);
  return n;
}

export function optInt(name: string, v: unknown, dflt: number, min: number, max: number = MAX_INT32): number {
  return v === undefined ? dflt : int(name, v, min, max);
}

/** A finite number, optionally > gt or >= ge. */
export function num(name: string, v: unknown, bounds: { gt?: number; ge?: number } = {}): number {
  if (typeof v !== 'number') throw new TypeError(`${name} must be a number, got ${show(v)}`);
  if (!Number.isFinite(v)) throw new RangeError(`${name} must be a finite number, got ${show(v)}`);
  if (bounds.gt !== undefined && !(v > bounds.gt)) {
    throw new RangeError(`${name} must be > ${bounds.gt}, got ${show(v)}`);
  }
  if (bounds.ge !== undefined && !(v >= bounds.ge)) {
    throw new RangeError(`${name} must be >= ${bounds.ge}, got ${show(v)}`);
  }
  return v;
}

export function optNum(name: string, v: unknown, dflt: number, bounds: { gt?: number; ge?: number } = {}): number {
  return v === undefined ? dflt : num(name, v, bounds);
}

export function optBool(name: string, v: unknown, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw new TypeError(`${name} must be a boolean, got ${show(v)}`);
  return v;
}

export function oneOf<T extends string>(name: string, v: unknown, options: readonly T[]): T {
  if (typeof v !== 'string') {
    throw new TypeError(`${name} must be one of ${options.map((o) => `'${o}'`).join(', ')}, got ${show(v)}`);
  }
  if (!(options as readonly string[]).includes(v)) {
    throw new RangeError(`${name} must be one of ${options.map((o) => `'${o}'`).join(', ')}, got ${show(v)}`);
  }
  return v as T;
}

type TypedCtor = Float32ArrayConstructor | Int32ArrayConstructor;

function typed<T extends Float32Array | Int32Array>(
  name: string,
  v: unknown,
  ctor: TypedCtor,
  length: number | undefined,
  lengthText: string,
): T {
  if (!(v instanceof ctor)) throw new TypeError(`${name} must be ${article(ctor.name)} ${ctor.name}, got ${show(v)}`);
  const a = v as T;
  if (length !== undefined && a.length !== length) {
    const detached = a.length === 0 && a.buffer.byteLength === 0 && length > 0 ? ' (is its buffer detached?)' : '';
    throw new RangeError(`${name} must have ${lengthText} = ${length} elements, got ${a.length}${detached}`);
  }
  return a;
}

export function f32(name: string, v: unknown, length?: number, lengthText = 'length'): Float32Array {
  return typed<Float32Array>(name, v, Float32Array, length, lengthText);
}

export function i32(name: string, v: unknown, length?: number, lengthText = 'length'): Int32Array {
  return typed<Int32Array>(name, v, Int32Array, length, lengthText);
}

/** Throws when a product of sizes would not fit in 32-bit wasm memory. */
export function checkElements(what: string, parts: Array<[string, number]>, bytesPerElement: number): number {
  let n = 1;
  for (const [, v] of parts) n *= v;
  const limit = 2 ** 31;
  if (n * bytesPerElement >= limit) {
    throw new RangeError(
      `${what}: ${parts.map(([k, v]) => `${k} (${v})`).join(' * ')} = ${n} elements needs ${n * bytesPerElement} bytes, more than the 2 GiB a call may use`,
    );
  }
  return n;
}
