/**
 * Differential test across the wasm flavours: seeded random `pe.attention`
 * and `pe.applyRope` cases (shapes, encodings, masks, positions) run through
 * the SIMD and the scalar module; both must match the float64 references of
 * reference.ts, and each other. Seed: POSENC_DIFF_SEED (default below); each
 * case draws from (seed, index), so POSENC_DIFF_CASE=<index> replays one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AttentionOptions, ApplyRopeOptions, Posenc, RopeLayout } from 'posenc';

import { flavours } from './flavours.js';
import { defaultInvFreq, firstMismatch, refAttention, refRope, refT5Bucket } from './reference.js';

const DEFAULT_SEED = 20240611;
const ATTENTION_CASES = 300;
const ROPE_CASES = 200;

// Tolerances (the C++ differential test states the same budgets and why):
// attention: float32 logits are off by at most ~4e-6 of the row's logit
// magnitude; softmax/accumulation 2e-5 of max|v| absolute plus 1e-4 relative.
const LOGIT_REL = 4e-6;
const OUT_ATOL = 2e-5;
const OUT_RTOL = 1e-4;
// RoPE: angle error < 1e-6 rad (the contract) plus float32 cos/sin, so
// 2e-6 * (|a| + |b|) per element of a pair, plus relative rounding.
const ROPE_ABS = 2e-6;
const ROPE_REL = 1e-6;

function envInt(name: string): number | undefined {
  const v = process.env[name];
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  assert.ok(Number.isSafeInteger(n) && n >= 0, `${name} must be an integer >= 0, got ${v}`);
  return n;
}

const seed = envInt('POSENC_DIFF_SEED') ?? DEFAULT_SEED;
const onlyCase = envInt('POSENC_DIFF_CASE');
console.log(`[differential] seed ${seed} (POSENC_DIFF_SEED)${onlyCase === undefined ? '' : `, only case ${onlyCase}`}`);

/** Deterministic draws for one case (a 32-bit mix of seed and index, then xorshift32). */
class Draw {
  private s: number;
  constructor(seedValue: number, index: number) {
    let h = Math.imul((seedValue >>> 0) ^ Math.imul(index + 1, 0x9e3779b1), 0x85ebca6b) ^ Math.floor(seedValue / 2 ** 32);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    this.s = (h ^ (h >>> 16)) >>> 0 || 1;
  }
  private next(): number {
    this.s ^= this.s << 13;
    this.s >>>= 0;
    this.s ^= this.s >>> 17;
    this.s ^= this.s << 5;
    this.s >>>= 0;
    return this.s;
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return hi <= lo ? lo : lo + (this.next() % (hi - lo + 1));
  }
  oneIn(n: number): boolean {
    return this.int(0, n - 1) === 0;
  }
  /** Uniform [-1, 1) times magnitude. */
  vector(n: number, magnitude = 1): Float32Array {
    return Float32Array.from({ length: n }, () => ((this.next() / 4294967296) * 2 - 1) * magnitude);
  }
  /** Lengths: 1 often, short, near lane multiples, up to max. */
  length(max: number): number {
    const m = this.int(0, 9);
    if (m < 2) return 1;
    if (m < 5) return this.int(Math.min(2, max), Math.min(20, max));
    if (m === 5) return Math.max(1, Math.min(max, 8 * this.int(1, 8) + this.int(-1, 1)));
    return this.int(1, max);
  }
}

/** One random attention case: options and a description for failures. */
function attentionCase(d: Draw): { o: AttentionOptions; desc: string } {
  const kvHeads = d.int(1, 3);
  const heads = kvHeads * d.int(1, 3);
  const D = d.oneIn(6) ? 64 : d.int(1, 40);
  const keyLength = d.length(80);
  const queryLength = d.oneIn(2) ? keyLength : Math.min(keyLength, d.length(keyLength));
  const o: AttentionOptions = {
    q: d.vector(heads * queryLength * D), k: d.vector(kvHeads * keyLength * D), v: d.vector(kvHeads * keyLength * D, 2),
    heads, kvHeads, queryLength, keyLength, headDim: D, causal: !d.oneIn(3), returnWeights: d.oneIn(2),
  };
  if (d.oneIn(4)) o.queryOffset = d.int(0, keyLength + 3);
  if (d.oneIn(4)) o.window = d.int(1, 12);
  if (d.oneIn(4)) o.scale = d.int(1, 40) / 20;
  const mode = d.int(0, 5);
  if (mode >= 3) {
    o.keyPadding = Uint8Array.from({ length: keyLength }, (_, j) => (mode === 3 ? (j >= keyLength / 3 ? 1 : 0) : mode === 4 ? (d.oneIn(3) ? 0 : 1) : 0));
  }
  if (d.oneIn(3)) o.alibi = true;
  if (d.oneIn(4)) {
    // Only bucket settings with no float32 rounding edge in this case's range.
    const bidirectional = d.oneIn(2);
    const qoff = o.queryOffset ?? keyLength - queryLength;
    for (let attempt = 0; attempt < 20 && !o.t5; attempt++) {
      const maxDistance = d.int(17, 200);
      let edge = false;
      for (let rel = -(qoff + queryLength); rel <= keyLength && !edge; rel++) {
        const [lo, hi] = refT5Bucket(rel, 32, maxDistance, bidirectional);
        edge = lo !== hi;
      }
      if (!edge) o.t5 = { table: d.vector(32 * heads, 2), maxDistance, bidirectional };
    }
  }
  if (d.oneIn(5)) {
    const clip = d.int(0, 5);
    o.shaw = { tableK: d.vector((2 * clip + 1) * D), clip };
    if (d.oneIn(2)) o.shaw.tableV = d.vector((2 * clip + 1) * D);
  }
  if (d.oneIn(5)) o.bias = d.vector(heads * queryLength * keyLength, 3);
  if (D >= 2 && d.oneIn(2)) {
    const layout: RopeLayout = d.oneIn(2) ? 'half' : 'interleaved';
    const rotaryDim = D % 2 === 1 || d.oneIn(4) ? 2 * d.int(1, Math.floor(D / 2)) : D;
    const base = [10000, 500000, 100][d.int(0, 2)]!;
    o.rope = { layout, rotaryDim, base };
    const pmode = d.int(0, 3);
    if (pmode === 1 && o.keyPadding) {
      o.rope.positionsFromPadding = true;
    } else if (pmode >= 2) {
      const big = d.oneIn(2) ? 1_000_000 : 5000;
      o.rope.keyPositions = Int32Array.from({ length: keyLength }, () => d.int(0, big));
      o.rope.queryPositions = Int32Array.from({ length: queryLength }, () => d.int(0, big));
    }
  }
  const { q, k, v, bias, t5, shaw, keyPadding, rope, ...rest } = o;
  const desc = JSON.stringify({
    ...rest, padding: keyPadding ? Array.from(keyPadding).join('') : undefined, t5: t5 ? { ...t5, table: undefined } : undefined,
    shaw: shaw ? { clip: shaw.clip, v: shaw.tableV !== undefined } : undefined, bias: bias !== undefined,
    rope: rope ? { ...rope, keyPositions: rope.keyPositions?.slice(0, 4), queryPositions: rope.queryPositions?.slice(0, 4) } : undefined,
  });
  void q;
  void k;
  void v;
  return { o, desc };
}

/** One random applyRope case with its float64 reference. */
function ropeCase(d: Draw): { x: Float32Array; o: ApplyRopeOptions; want: Float64Array; desc: string } {
  const heads = d.int(1, 4);
  const seqLen = d.length(64);
  const headDim = d.oneIn(4) ? [64, 128][d.int(0, 1)]! : d.int(2, 80);
  const rotaryDim = headDim % 2 === 1 || d.oneIn(4) ? 2 * d.int(1, Math.floor(headDim / 2)) : headDim;
  const layout: RopeLayout = d.oneIn(2) ? 'half' : 'interleaved';
  const base = [10000, 500000, 100, 1e6][d.int(0, 3)]!;
  const scale = d.int(0, 2);
  const factor = 1 + d.int(0, 30) / 4;
  const x = d.vector(heads * seqLen * headDim);
  const o: ApplyRopeOptions = { heads, seqLen, headDim, rotaryDim, layout, base };
  // default, linear (inv_freq / s) or static NTK (base * s^(r/(r-2))), written from the definitions.
  let freq = defaultInvFreq(rotaryDim, base);
  if (scale === 1) {
    o.scaling = { type: 'linear', factor };
    freq = freq.map((f) => f / factor);
  } else if (scale === 2 && rotaryDim >= 4) {
    o.scaling = { type: 'ntk', factor };
    freq = defaultInvFreq(rotaryDim, base * Math.pow(factor, rotaryDim / (rotaryDim - 2)));
  }
  let positions: number[];
  if (d.oneIn(2)) {
    o.offset = d.oneIn(2) ? d.int(0, 64) : d.int(0, 1_000_000);
    positions = Array.from({ length: seqLen }, (_, t) => o.offset! + t);
  } else {
    const lo = d.oneIn(3) ? -2_000_000 : 0;
    o.positions = Int32Array.from({ length: seqLen }, () => d.int(lo, 2_000_000));
    positions = Array.from(o.positions);
  }
  const want = refRope(x, heads, seqLen, headDim, rotaryDim, layout, positions, freq.map((f) => Math.fround(f)));
  const desc = JSON.stringify({ ...o, positions: o.positions?.slice(0, 4) });
  return { x, o, want, desc };
}

/** The first index where |got - want| > tol[i] (NaN fails), or -1. */
function firstOver(got: ArrayLike<number>, want: ArrayLike<number>, tol: ArrayLike<number>): number {
  if (got.length !== want.length) return -2;
  for (let i = 0; i < got.length; i++) {
    if (!(Math.abs(got[i]! - want[i]!) <= tol[i]!)) return i;
  }
  return -1;
}

function ropeTolerance(x: Float32Array, want: Float64Array): Float64Array {
  // |a| + |b| <= 2 max|x| for any pair.
  let mx = 0;
  for (const e of x) mx = Math.max(mx, Math.abs(e));
  return want.map((w) => ROPE_ABS * 2 * mx + ROPE_REL * Math.abs(w));
}

const loaded: Promise<Array<[string, Posenc]>> = Promise.all(flavours.map(async ([n, p]) => [n, await p] as [string, Posenc]));

function caseIndices(first: number, count: number): number[] {
  const all = Array.from({ length: count }, (_, i) => first + i);
  return onlyCase === undefined ? all : all.filter((i) => i === onlyCase);
}

describe('differential: simd vs scalar vs float64 reference', () => {
  it(`${ATTENTION_CASES} random attention cases (seed ${seed})`, async (t) => {
    const pes = await loaded;
    let checked = 0;
    for (const index of caseIndices(0, ATTENTION_CASES)) {
      const { o, desc } = attentionCase(new Draw(seed, index));
      const replay = `case ${index}: POSENC_DIFF_SEED=${seed} POSENC_DIFF_CASE=${index} ${desc}`;
      const want = refAttention(o, OUT_ATOL, OUT_RTOL, LOGIT_REL);
      const got = pes.map(([name, pe]) => [name, pe.attention(o)] as const);
      for (const [name, r] of got) {
        const i = firstOver(r.out, want.out, want.tolOut);
        assert.equal(i, -1, `${name} out[${i}] = ${r.out[i]}, want ${want.out[i]} (${replay})`);
        if (o.returnWeights) {
          const w = firstOver(r.weights!, want.weights, want.tolW);
          assert.equal(w, -1, `${name} weights[${w}] = ${r.weights![w]}, want ${want.weights[w]} (${replay})`);
        }
      }
      // The flavours agree with each other within the sum of their budgets.
      const [[, a], [, b]] = got as [readonly [string, { out: Float32Array }], readonly [string, { out: Float32Array }]];
      const cross = want.tolOut.map((x) => 2 * x);
      const i = firstOver(a.out, b.out, cross);
      assert.equal(i, -1, `simd vs scalar out[${i}]: ${a.out[i]} vs ${b.out[i]} (${replay})`);
      checked++;
    }
    t.diagnostic(`attention: ${checked} cases checked per flavour, seed ${seed}`);
    console.log(`[differential] attention: ${checked} cases checked per flavour`);
  });

  it(`${ROPE_CASES} random applyRope cases (seed ${seed})`, async (t) => {
    const pes = await loaded;
    let checked = 0;
    for (const index of caseIndices(ATTENTION_CASES, ROPE_CASES)) {
      const { x, o, want, desc } = ropeCase(new Draw(seed, index));
      const replay = `case ${index}: POSENC_DIFF_SEED=${seed} POSENC_DIFF_CASE=${index} ${desc}`;
      const tol = ropeTolerance(x, want);
      const outs = pes.map(([name, pe]) => [name, pe.applyRope(x, o)] as const);
      for (const [name, out] of outs) {
        const i = firstOver(out, want, tol);
        assert.equal(i, -1, `${name} out[${i}] = ${out[i]}, want ${want[i]} (${replay})`);
      }
      const i = firstMismatch(outs[0]![1], outs[1]![1], 2 * ROPE_ABS * 2, 2 * ROPE_REL);
      assert.equal(i, -1, `simd vs scalar out[${i}] (${replay})`);
      checked++;
    }
    t.diagnostic(`applyRope: ${checked} cases checked per flavour, seed ${seed}`);
    console.log(`[differential] applyRope: ${checked} cases checked per flavour`);
  });

  // Found by the random cases: pe.attention and KvCache validated a RoPE
  // spec even without RoPE, so any odd headDim threw "headDim must be even".
  it('odd head dims without RoPE (attention and KvCache), Shaw keys without values', async () => {
    for (const [name, pe] of await loaded) {
      const d = new Draw(seed, -1);
      const D = 7;
      const o: AttentionOptions = {
        q: d.vector(2 * 5 * D), k: d.vector(5 * D), v: d.vector(5 * D), heads: 2, kvHeads: 1, queryLength: 5, keyLength: 5, headDim: D,
      };
      const want = refAttention(o, OUT_ATOL, OUT_RTOL, LOGIT_REL);
      assert.equal(firstOver(pe.attention(o).out, want.out, want.tolOut), -1, `${name}: odd headDim`);
      const shaw: AttentionOptions = { ...o, shaw: { tableK: d.vector(3 * D), clip: 1 } };
      const wantShaw = refAttention(shaw, OUT_ATOL, OUT_RTOL, LOGIT_REL);
      assert.equal(firstOver(pe.attention(shaw).out, wantShaw.out, wantShaw.tolOut), -1, `${name}: Shaw keys only`);
      using cache = new pe.KvCache({ kvHeads: 1, headDim: D });
      cache.append(o.k, o.v);
      const last = o.q.slice(4 * D, 5 * D);
      const step = cache.attend(Float32Array.from([...last, ...o.q.slice(9 * D, 10 * D)]), { heads: 2, queryLength: 1 });
      const rows = Float64Array.from([...want.out.slice(4 * D, 5 * D), ...want.out.slice(9 * D, 10 * D)]);
      const tol = Float64Array.from([...want.tolOut.slice(4 * D, 5 * D), ...want.tolOut.slice(9 * D, 10 * D)]);
      assert.equal(firstOver(step.out, rows, tol), -1, `${name}: KvCache with odd headDim`);
    }
  });
});
