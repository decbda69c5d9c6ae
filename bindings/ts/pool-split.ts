/**
 * How one attention call is cut into per-Worker calls and put back together.
 * A call splits by key-value group: part p gets the query heads of groups
 * [g0, g1) and those groups' keys and values. With fewer groups than parts
 * (multi-query, or few groups on many Workers) a group's query heads are cut
 * instead, and each part of the group gets a copy of its keys and values.
 * Every per-head input (ALiBi slopes, the T5 table's columns, the additive
 * bias) is cut as the query heads are; what every head shares (masks, RoPE,
 * Shaw tables) goes to each part as is. Each head then runs the same kernel
 * on the same numbers as in the whole call, so the joined result is the
 * whole call's, bit for bit.
 */
import type { AlibiVariant, AttentionOptions, AttentionResult } from './types.js';

/** One part of a split call: where its heads go in the result, and how to make its call. */
export interface AttentionPart {
  /** Its first query head in the whole call. */
  head: number;
  /**
   * The part's call (`heads` = the part's query heads, arrays copied out of
   * the whole call's into arrays from `alloc`, default fresh ones). Cut one
   * part at a time, so the first part's Worker starts while the next is cut.
   */
  cut(alloc?: Alloc): AttentionOptions;
}

/** The ALiBi slopes of a whole call (`[heads]`), as `pe.alibiSlopes` computes them. */
export type SlopesOf = (heads: number, variant: AlibiVariant | undefined) => Float32Array;

const isF32 = (x: unknown): x is Float32Array => x instanceof Float32Array;
const isCount = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 1;
const isLength = (x: unknown): x is number => Number.isInteger(x) && (x as number) >= 0;

/** Where a part's copies go: a Float32Array of `length` values (fresh, or a buffer a Worker gave back). */
export type Alloc = (length: number) => Float32Array;

const fresh: Alloc = (length) => new Float32Array(length);

/**
 * `x` with what a Worker cannot be sent dropped: functions and symbols at any depth, which
 * `pe.attention` ignores as it ignores any key it does not know, but which a postMessage refuses.
 * Typed arrays are kept as they are (the parts' own arrays are cut separately).
 */
function sendable(x: unknown): unknown {
  if (typeof x === 'function' || typeof x === 'symbol') return undefined;
  if (typeof x !== 'object' || x === null || ArrayBuffer.isView(x) || x instanceof ArrayBuffer) return x;
  if (Array.isArray(x)) return x.map(sendable);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(x)) {
    const w = sendable(v);
    if (w !== undefined) out[k] = w;
  }
  return out;
}

/** A part's query heads [h0, h0 + h) and key-value groups [g0, g0 + g). */
export interface PartHeads {
  h0: number;
  h: number;
  g0: number;
  g: number;
}

/**
 * The parts of a call with `heads` query heads in `kvHeads` groups over at most `parts` Workers:
 * whole groups when there are at least as many groups as parts; else each group's query heads cut
 * into about parts / kvHeads runs (a part never spans two groups, so its heads stay grouped as in
 * the whole call).
 */
export function partHeads(heads: number, kvHeads: number, parts: number): PartHeads[] {
  const group = heads / kvHeads;
  const out: PartHeads[] = [];
  if (kvHeads >= parts) {
    for (let p = 0; p < parts; p++) {
      const g0 = Math.floor((p * kvHeads) / parts);
      const g1 = Math.floor(((p + 1) * kvHeads) / parts);
      out.push({ h0: g0 * group, h: (g1 - g0) * group, g0, g: g1 - g0 });
    }
    return out;
  }
  const n = Math.min(parts, heads);
  for (let g = 0; g < kvHeads; g++) {
    // Group g's parts: at least one (n >= kvHeads), at most its `group` heads (n <= heads).
    const m = Math.floor(((g + 1) * n) / kvHeads) - Math.floor((g * n) / kvHeads);
    for (let i = 0; i < m; i++) {
      const a = Math.floor((i * group) / m), b = Math.floor(((i + 1) * group) / m);
      out.push({ h0: g * group + a, h: b - a, g0: g, g: 1 });
    }
  }
  return out;
}

/** `rows` consecutive rows of `width` values from `x`, starting at row `from` (a copy the part owns). */
function rowsOf(x: Float32Array, from: number, rows: number, width: number, alloc: Alloc): Float32Array {
  const part = alloc(rows * width);
  part.set(x.subarray(from * width, (from + rows) * width));
  return part;
}

/**
 * `options` cut into at most `parts` calls (`partHeads`), or undefined when the options are not
 * well-formed enough to cut (the caller then runs the whole call, which reports the problem in its
 * own words) or there is only one query head.
 */
export function splitAttention(options: AttentionOptions, parts: number, slopesOf: SlopesOf): AttentionPart[] | undefined {
  if (typeof options !== 'object' || options === null) return undefined;
  const o = options;
  const { heads, queryLength: Tq, keyLength: Tk, headDim: D } = o;
  const kvHeads = o.kvHeads ?? heads;
  if (!isCount(heads) || !isCount(kvHeads) || !isLength(Tq) || !isLength(Tk) || !isCount(D)) return undefined;
  if (heads % kvHeads !== 0 || heads < 2 || parts < 2) return undefined;
  if (!isF32(o.q) || !isF32(o.k) || !isF32(o.v)) return undefined;
  if (o.q.length !== heads * Tq * D || o.k.length !== kvHeads * Tk * D || o.v.length !== kvHeads * Tk * D) return undefined;
  if (o.bias !== undefined && !(isF32(o.bias) && o.bias.length === heads * Tq * Tk)) return undefined;

  // ALiBi: the whole call's slopes, cut per part (variants depend on the head count of the whole call).
  let slopes: Float32Array | undefined;
  if (o.alibi === true) slopes = slopesOf(heads, undefined);
  else if (typeof o.alibi === 'object' && o.alibi !== null) {
    if (o.alibi.slopes !== undefined) {
      if (!isF32(o.alibi.slopes) || o.alibi.slopes.length !== heads || o.alibi.variant !== undefined) return undefined;
      slopes = o.alibi.slopes;
    } else {
      slopes = slopesOf(heads, o.alibi.variant);
    }
  } else if (o.alibi !== undefined && o.alibi !== false) return undefined;
  // T5: a [numBuckets, heads] table, cut by columns.
  let buckets = 0;
  if (o.t5 !== undefined) {
    if (typeof o.t5 !== 'object' || o.t5 === null || !isF32(o.t5.table) || o.t5.table.length % heads !== 0) return undefined;
    buckets = o.t5.table.length / heads;
  }

  const out: AttentionPart[] = [];
  for (const { h0, h, g0, g } of partHeads(heads, kvHeads, parts)) {
    const { q, k, v, bias, t5 } = o;
    const cut = (alloc: Alloc = fresh): AttentionOptions => {
      const part: AttentionOptions = {
        ...(sendable(o) as AttentionOptions),
        heads: h,
        kvHeads: g,
        q: rowsOf(q, h0, h, Tq * D, alloc),
        k: rowsOf(k, g0, g, Tk * D, alloc),
        v: rowsOf(v, g0, g, Tk * D, alloc),
      };
      if (slopes !== undefined) part.alibi = { slopes: slopes.slice(h0, h0 + h) };
      if (t5 !== undefined) {
        const table = new Float32Array(buckets * h);
        for (let b = 0; b < buckets; b++) table.set(t5.table.subarray(b * heads + h0, b * heads + h0 + h), b * h);
        part.t5 = { ...t5, table };
      }
      if (bias !== undefined) part.bias = rowsOf(bias, h0, h, Tq * Tk, alloc);
      return part;
    };
    out.push({ head: h0, cut });
  }
  return out;
}

/** Part `part`'s result written at its heads' place in the whole call's `into` (`out` `[heads, queryLength, headDim]`, `weights` `[heads, queryLength, keyLength]`). */
export function joinAttention(options: AttentionOptions, part: AttentionPart, result: AttentionResult, into: AttentionResult): void {
  const { queryLength: Tq, keyLength: Tk, headDim: D } = options;
  into.out.set(result.out, part.head * Tq * D);
  if (into.weights !== undefined && result.weights !== undefined) into.weights.set(result.weights, part.head * Tq * Tk);
}

/** The arrays of a part's call, to move to its Worker without copying again. */
export function transfersOf(o: AttentionOptions): ArrayBuffer[] {
  const own = [o.q, o.k, o.v, o.bias, o.t5?.table, typeof o.alibi === 'object' ? o.alibi.slopes : undefined];
  const seen = new Set<ArrayBuffer>();
  for (const a of own) if (a !== undefined && a.buffer instanceof ArrayBuffer) seen.add(a.buffer);
  return [...seen];
}

/** Multiply-adds of a causal or full attention call, for the split / no-split decision. */
export function attentionWork(o: AttentionOptions): number {
  return o.heads * o.queryLength * o.keyLength * o.headDim * 2;
}
