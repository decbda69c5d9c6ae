import assert from 'node:assert/strict';

import type { AttentionOptions } from 'posenc';

/**
 * float64 references for the TypeScript tests, written from the formulas in
 * docs/formulas.md (independently of the C++ core).
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

/**
 * Naive float64 attention (materialises every logit) for `pe.attention`
 * options: RoPE (default frequencies, any layout, rotary dim and base;
 * positions explicit, from padding or the key slots), ALiBi (paper slopes),
 * T5 (32 buckets unless given), Shaw, bias, masks, window, query offset,
 * grouped-query heads. Queries past the keys continue from the last key's
 * position. `tolOut` / `tolW` are per-element tolerances: `atol` and `rtol`
 * plus the float32 logit error budget `logitRel` times the row's logit
 * magnitude (scale * sum |q_e k_e| + |biases|), which softmax turns into at
 * most twice that relative error per probability and times max |v| on the
 * output.
 */
export function refAttention(
  o: AttentionOptions, atol = 2e-5, rtol = 1e-4, logitRel = 0,
): { out: Float64Array; weights: Float64Array; tolOut: Float64Array; tolW: Float64Array } {
  const { heads: H, queryLength: Tq, keyLength: Tk, headDim: D } = o;
  const Hkv = o.kvHeads ?? H;
  const causal = o.causal ?? true;
  const qoff = o.queryOffset ?? Tk - Tq;
  const scale = o.scale ?? 1 / Math.sqrt(D);
  let q: ArrayLike<number> = o.q;
  let k: ArrayLike<number> = o.k;
  if (o.rope) {
    const r = o.rope.rotaryDim ?? D;
    const freq = defaultInvFreq(r, o.rope.base ?? 10000).map((f) => Math.fround(f));
    const kpos: number[] = [];
    let real = 0;
    for (let j = 0; j < Tk; j++) {
      kpos.push(o.rope.keyPositions?.[j] ?? (o.rope.positionsFromPadding ? (o.keyPadding![j] ? real++ : 1) : j));
    }
    const slot = (i: number) => i + qoff;
    const qpos = Array.from({ length: Tq }, (_, i) =>
      o.rope!.queryPositions?.[i] ?? (slot(i) < Tk ? kpos[slot(i)]! : (Tk ? kpos[Tk - 1]! : -1) + slot(i) - Tk + 1));
    q = refRope(o.q, H, Tq, D, r, o.rope.layout, qpos, freq);
    k = refRope(o.k, Hkv, Tk, D, r, o.rope.layout, kpos, freq);
  }
  const slopes = o.alibi ? refAlibiSlopes(H) : undefined;
  const clip = o.shaw?.clip ?? 0;
  const bucket = (rel: number) => Math.max(-clip, Math.min(clip, rel)) + clip;
  const out = new Float64Array(H * Tq * D);
  const weights = new Float64Array(H * Tq * Tk);
  const tolOut = new Float64Array(H * Tq * D);
  const tolW = new Float64Array(H * Tq * Tk).fill(2e-6);
  for (let h = 0; h < H; h++) {
    const g = Math.floor(h / (H / Hkv));
    for (let i = 0; i < Tq; i++) {
      const qp = i + qoff;
      const logits = new Float64Array(Tk).fill(-Infinity);
      let magnitude = 0;
      let vmax = 0;
      const value = (j: number, e: number) =>
        o.v[(g * Tk + j) * D + e]! + (o.shaw?.tableV ? o.shaw.tableV[bucket(j - qp) * D + e]! : 0);
      for (let j = 0; j < Tk; j++) {
        const rel = j - qp;
        if (causal && rel > 0) continue;
        if (o.window !== undefined && -rel >= o.window) continue;
        if (o.keyPadding && !o.keyPadding[j]) continue;
        let s = 0;
        let mag = 0;
        for (let e = 0; e < D; e++) {
          const qe = q[(h * Tq + i) * D + e]!;
          const t = qe * (k[(g * Tk + j) * D + e]! + (o.shaw ? o.shaw.tableK[bucket(rel) * D + e]! : 0));
          s += t;
          mag += Math.abs(t);
        }
        s *= scale;
        mag *= scale;
        const add = (b: number) => {
          s += b;
          mag += Math.abs(b);
        };
        if (slopes) add(slopes[h]! * (causal ? rel : -Math.abs(rel)));
        if (o.t5) {
          const [, hi] = refT5Bucket(rel, o.t5.numBuckets ?? 32, o.t5.maxDistance ?? 128, o.t5.bidirectional ?? !causal);
          add(o.t5.table[hi * H + h]!);
        }
        if (o.bias) add(o.bias[(h * Tq + i) * Tk + j]!);
        logits[j] = s;
        magnitude = Math.max(magnitude, mag);
        for (let e = 0; e < D; e++) vmax = Math.max(vmax, Math.abs(value(j, e)));
      }
      const mx = Math.max(...logits);
      if (mx === -Infinity) continue;
      const delta = logitRel * magnitude;
      let sum = 0;
      for (let j = 0; j < Tk; j++) sum += logits[j]! === -Infinity ? 0 : Math.exp(logits[j]! - mx);
      for (let j = 0; j < Tk; j++) {
        if (logits[j]! === -Infinity) continue;
        const p = Math.exp(logits[j]! - mx) / sum;
        weights[(h * Tq + i) * Tk + j] = p;
        tolW[(h * Tq + i) * Tk + j] = 2e-6 + (rtol + 2 * delta) * p;
        for (let e = 0; e < D; e++) out[(h * Tq + i) * D + e] += p * value(j, e);
      }
      for (let e = 0; e < D; e++) {
        const at = (h * Tq + i) * D + e;
        tolOut[at] = logitRel > 0 ? (atol + 2 * delta) * vmax + rtol * Math.abs(out[at]!) : atol + rtol * Math.abs(out[at]!);
      }
    }
  }
  return { out, weights, tolOut, tolW };
}
