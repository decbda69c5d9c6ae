import assert from 'node:assert/strict';

/**
 * float64 references for the TypeScript tests, written from the formulas in
 * shared/reference/positional-encodings.md (independently of the C++ core).
 */

export function defaultInvFreq(r: number, base = 10000): number[] {
  return Array.from({ length: r / 2 }, (_, i) => 1 / Math.pow(base, (2 * i) / r));
}

/** Rotates x: [H, T, d] with float64 math; `freq` are the per-pair frequencies. */
export function refRope(
  x: Float32Array, H: number, T: number, d: number, r: number, layout: 'half' | 'interleaved',
  positions: ArrayLike<number>, freq: ArrayLike<number>, magnitude = 1,
): Float64Array {
  const out = Float64Array.from(x);
  const h = r / 2;
  for (let head = 0; head < H; head++) {
    for (let t = 0; t < T; t++) {
      const off = (head * T + t) * d;
      for (let i = 0; i < h; i++) {
        const ang = positions[t]! * freq[i]!;
        const c = magnitude * Math.cos(ang);
        const s = magnitude * Math.sin(ang);
        const ia = layout === 'half' ? i : 2 * i;
        const ib = layout === 'half' ? i + h : 2 * i + 1;
        const a = x[off + ia]!;
        const b = x[off + ib]!;
        out[off + ia] = a * c - b * s;
        out[off + ib] = b * c + a * s;
      }
    }
  }
  return out;
}

export function refSinusoidal(L: number, D: number, base: number, layout: 'interleaved' | 'concat'): Float64Array {
  const out = new Float64Array(L * D);
  const h = D / 2;
  for (let p = 0; p < L; p++) {
    for (let i = 0; i < h; i++) {
      const w = layout === 'interleaved' ? Math.pow(base, (-2 * i) / D) : Math.exp((-i * Math.log(base)) / (h - 1));
      const si = layout === 'interleaved' ? 2 * i : i;
      const ci = layout === 'interleaved' ? 2 * i + 1 : h + i;
      out[p * D + si] = Math.sin(p * w);
      out[p * D + ci] = Math.cos(p * w);
    }
  }
  return out;
}

/** The ALiBi authors' rule, recursive form. */
export function refAlibiSlopes(n: number): number[] {
  const pow2 = (m: number) => Array.from({ length: m }, (_, k) => Math.pow(Math.pow(2, -8 / m), k + 1));
  const c = Math.pow(2, Math.floor(Math.log2(n)));
  const s = pow2(c);
  if (c === n) return s;
  const extra = refAlibiSlopes(2 * c).filter((_, k) => k % 2 === 0);
  return s.concat(extra.slice(0, n - c));
}

/** T5 bucket in float64; returns [lo, hi] where float32 rounding may pick either at an exact boundary. */
export function refT5Bucket(rel: number, B: number, maxd: number, bidir: boolean): [number, number] {
  let base = 0;
  let nb = B;
  let n: number;
  if (bidir) {
    nb = Math.floor(nb / 2);
    if (rel > 0) base = nb;
    n = Math.abs(rel);
  } else {
    n = rel < 0 ? -rel : 0;
  }
  const me = Math.floor(nb / 2);
  if (n < me) return [base + n, base + n];
  const v = (Math.log(n / me) / Math.log(maxd / me)) * (nb - me);
  return [base + Math.min(nb - 1, me + Math.max(0, Math.floor(v - 1e-6))), base + Math.min(nb - 1, me + Math.floor(v + 1e-6))];
}

/** Max |a - b| / (atol + rtol |b|) style check; returns the first failing index or -1. */
export function firstMismatch(a: ArrayLike<number>, b: ArrayLike<number>, atol: number, rtol: number): number {
  if (a.length !== b.length) return -2;
  for (let i = 0; i < a.length; i++) {
    const err = Math.abs(a[i]! - b[i]!);
    if (!(err <= atol + rtol * Math.abs(b[i]!))) return i;
  }
  return -1;
}

/** Deterministic uniform [-1, 1) values. */
export function randomVector(n: number, seed: number): Float32Array {
  let s = seed >>> 0 || 1;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = (s / 4294967296) * 2 - 1;
  }
  return out;
}

/** Asserts |got - want| <= atol + rtol |want| elementwise, naming the first bad index. */
export function assertClose(got: ArrayLike<number>, want: ArrayLike<number>, atol: number, rtol: number, what: string): void {
  const i = firstMismatch(got, want, atol, rtol);
  assert.equal(i, -1, `${what}: index ${i}: got ${got[i]}, want ${want[i]}`);
}
