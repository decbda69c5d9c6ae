// The page's small vector helpers, one copy: dot products, norms, largest
// differences. Plain loops over array-likes; a vector may sit at an offset
// inside a larger array (a row of a table, one head of a batch).

/** a[ia .. ia+n) . b[ib .. ib+n) (default: all of a, from the start of both). */
export function dot(a: ArrayLike<number>, b: ArrayLike<number>, ia = 0, ib = 0, n = a.length - ia): number {
  let s = 0;
  for (let e = 0; e < n; e++) s += a[ia + e]! * b[ib + e]!;
  return s;
}

/** The Euclidean norm of a. */
export const norm = (a: ArrayLike<number>): number => Math.sqrt(dot(a, a));

/** max |a - b| over all elements (0 for empty arrays). */
export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let e = 0; e < a.length; e++) m = Math.max(m, Math.abs(a[e]! - b[e]!));
  return m;
}

/** The largest |value| of the arrays (0 if all are zero). */
export function largestAbs(...arrays: ArrayLike<number>[]): number {
  let m = 0;
  for (const a of arrays) for (let e = 0; e < a.length; e++) m = Math.max(m, Math.abs(a[e]!));
  return m;
}
