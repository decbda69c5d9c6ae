/**
 * Bad input: each call throws the documented TypeError/RangeError naming the
 * parameter and values (the async calls, model and training, reject with it),
 * and the module keeps working afterwards.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import {
  init, type AttentionOptions, type ContinueTrainingConfig, type KvCache, type Posenc, type TinyModel, type TrainOptions,
} from 'posenc';

import { flavours } from './flavours.js';

type Case = [string, (pe: Posenc) => unknown, 'TypeError' | 'RangeError', RegExp];

const x16 = new Float32Array(16);
const root = join(fileURLToPath(import.meta.url), '../../../../..');
const shipped = (name: string): Uint8Array => readFileSync(join(root, 'web/models', `${name}.safetensors`));

/** A one-token, one-head attention call with `over` replacing some options. */
const attn = (pe: Posenc, over: Partial<AttentionOptions>): unknown =>
  pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, ...over });

/** A Float32Array of n elements whose buffer has been transferred away. */
function detached(n: number): Float32Array {
  const a = new Float32Array(n);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

function withCache(pe: Posenc, fn: (c: KvCache) => void): void {
  const c = new pe.KvCache({ kvHeads: 1, headDim: 8 });
  try {
    fn(c);
  } finally {
    c.delete();
  }
}

/**
 * Runs fn on a shipped model (loaded, then freed). Loading is async; the
 * model's own methods are not: fn's error is thrown synchronously (and so
 * rejects the returned promise), a promise from fn is a test failure.
 */
async function withModel(pe: Posenc, name: string, fn: (m: TinyModel) => unknown): Promise<unknown> {
  const m = await pe.loadModel(shipped(name));
  try {
    const r = fn(m);
    assert.ok(!(r instanceof Promise), 'TinyModel methods are synchronous');
    return r;
  } finally {
    m.delete();
  }
}

const cases: Case[] = [
  ['wrong x length', (pe) => pe.applyRope(new Float32Array(10), { heads: 1, seqLen: 2, headDim: 8, layout: 'half' }),
    'RangeError', /x must have heads \* seqLen \* headDim = 1 \* 2 \* 8 = 16 elements, got 10/],
  ['x not a Float32Array', (pe) => pe.applyRope([1, 2] as unknown as Float32Array, { heads: 1, seqLen: 1, headDim: 2, layout: 'half' }),
    'TypeError', /x must be a Float32Array, got an Array of length 2/],
  ['odd head dim', (pe) => pe.applyRope(new Float32Array(14), { heads: 1, seqLen: 2, headDim: 7, layout: 'half' }),
    'RangeError', /headDim must be even when rotaryDim is not given .* got 7/],
  ['odd rotary dim', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, rotaryDim: 5, layout: 'half' }),
    'RangeError', /rotaryDim must be even \(RoPE rotates pairs\), got 5/],
  ['rotary > head', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, rotaryDim: 10, layout: 'half' }),
    'RangeError', /rotaryDim \(10\) must not exceed headDim \(8\)/],
  ['unknown layout', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'neox' as 'half' }),
    'RangeError', /layout must be one of 'half', 'interleaved', got 'neox'/],
  ['unknown scaling', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'ntk-aware' } as never }),
    'RangeError', /scaling.type must be one of .* got 'ntk-aware'/],
  ['missing yarn L', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'yarn', factor: 4 } as never }),
    'TypeError', /scaling.originalMaxPositionEmbeddings is required for scaling type 'yarn'/],
  ['missing factor', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'linear' } as never }),
    'TypeError', /scaling.factor is required for scaling type 'linear'/],
  ['NaN factor', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'linear', factor: NaN } }),
    'RangeError', /scaling.factor must be a finite number, got NaN/],
  ['longrope list length', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'longrope', factor: 4, originalMaxPositionEmbeddings: 10, shortFactor: [1], longFactor: [1, 1, 1, 1] } }),
    'RangeError', /scaling.shortFactor must have rotaryDim\/2 = 4 values, got 1/],
  ['llama3 factors the wrong way round', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'llama3', factor: 8, originalMaxPositionEmbeddings: 10, lowFreqFactor: 2, highFreqFactor: 1 } }),
    'RangeError', /highFreqFactor \(1\) must not be less than scaling.lowFreqFactor \(2\)/],
  ['negative heads', (pe) => pe.alibiBias({ heads: -1, queryLength: 2, keyLength: 2 }),
    'RangeError', /heads must be an integer in \[1, 65536\], got -1/],
  ['fractional length', (pe) => pe.sinusoidal({ length: 2.5, dim: 8 }),
    'RangeError', /length must be an integer in \[0, 2147483647\], got 2.5/],
  ['string size', (pe) => pe.sinusoidal({ length: '4' as unknown as number, dim: 8 }),
    'TypeError', /length must be a number, got '4'/],
  ['Infinity base', (pe) => pe.sinusoidal({ length: 4, dim: 8, base: Infinity }),
    'RangeError', /base must be a finite number, got Infinity/],
  ['huge product', (pe) => pe.sinusoidal({ length: 2 ** 30, dim: 1024 }),
    'RangeError', /length \(1073741824\) \* dim \(1024\) = .* more than the 2 GiB/],
  ['q > k', (pe) => pe.alibiBias({ heads: 2, queryLength: 6, keyLength: 5 }),
    'RangeError', /queryLength \(6\) must not exceed keyLength \(5\)/],
  ['t5 too few buckets', (pe) => pe.t5Buckets({ queryLength: 2, keyLength: 2, numBuckets: 2 }),
    'RangeError', /numBuckets must be an integer in \[4, 65536\], got 2/],
  ['t5 table length', (pe) => pe.t5Bias({ table: new Float32Array(3), heads: 2, queryLength: 2, keyLength: 2 }),
    'RangeError', /table must have numBuckets \* heads = 32 \* 2 = 64 elements, got 3/],
  ['positions length', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', positions: new Int32Array(3) }),
    'RangeError', /positions must have seqLen = 2 elements, got 3/],
  ['positions and offset', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', positions: new Int32Array(2), offset: 1 }),
    'TypeError', /pass either positions or offset, not both/],
  ['offset overflow', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', offset: 2147483647 }),
    'RangeError', /offset must be an integer in \[-2147483648, 2147483646\], got 2147483647/],
  ['contextLength negative', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', contextLength: -5 }),
    'RangeError', /contextLength must be >= 0 \(or -1: derived\), got -5/],
  ['contextLength fractional', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', contextLength: 2.5 }),
    'RangeError', /contextLength must be an integer, got 2.5/],
  ['contextLength string', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', contextLength: '64' as unknown as number }),
    'TypeError', /contextLength must be a number, got '64'/],
  ['rerotate contextLength NaN', (pe) => pe.rerotateRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', delta: 3, contextLength: NaN }),
    'RangeError', /contextLength must be a finite number, got NaN/],
  ['rerotate contextLength huge', (pe) => pe.rerotateRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', delta: 3, contextLength: 2 ** 60 }),
    'RangeError', /contextLength must be an integer, got 1152921504606847000/],
  ['options missing', (pe) => pe.sinusoidal(undefined as never), 'TypeError', /options must be an options object, got undefined/],
  ['variant', (pe) => pe.alibiSlopes(4, { variant: 'half' as never }), 'RangeError', /variant must be one of 'paper', 'simple', got 'half'/],
  ['detached x', (pe) => {
    const x = new Float32Array(16);
    structuredClone(x.buffer, { transfer: [x.buffer] });
    return pe.applyRope(x, { heads: 1, seqLen: 2, headDim: 8, layout: 'half' });
  }, 'RangeError', /got 0 \(is its buffer detached\?\)/],
  ['shaw q length', (pe) => pe.shawLogits({ q: new Float32Array(3), k: new Float32Array(8), tableK: new Float32Array(12), queryLength: 2, keyLength: 2, headDim: 4, clip: 1 }),
    'RangeError', /q must have queryLength \* headDim = 2 \* 4 = 8 elements, got 3/],
  ['shaw table rows', (pe) => pe.shawValues({ probs: new Float32Array(4), v: new Float32Array(8), tableV: new Float32Array(8), queryLength: 2, keyLength: 2, headDim: 4, clip: 1 }),
    'RangeError', /tableV must have \(2 \* clip \+ 1\) \* headDim = 3 \* 4 = 12 elements, got 8/],
  ['attention kvHeads', (pe) => pe.attention({ q: new Float32Array(32), k: new Float32Array(24), v: new Float32Array(24), heads: 4, kvHeads: 3, queryLength: 1, keyLength: 1, headDim: 8 }),
    'RangeError', /kvHeads \(3\) must divide heads \(4\)/],
  ['attention q length', (pe) => pe.attention({ q: new Float32Array(5), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8 }),
    'RangeError', /q must have heads \* queryLength \* headDim = 1 \* 1 \* 8 = 8 elements, got 5/],
  ['attention q > k', (pe) => pe.attention({ q: new Float32Array(16), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 2, keyLength: 1, headDim: 8 }),
    'RangeError', /queryLength \(2\) must not exceed keyLength \(1\) unless queryOffset is given/],
  ['keyPadding type', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, keyPadding: [1] as unknown as Uint8Array }),
    'TypeError', /keyPadding must be a Uint8Array/],
  ['window zero', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, window: 0 }),
    'RangeError', /window must be an integer in \[1, 16777216\], got 0/],
  ['positionsFromPadding alone', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, rope: { layout: 'half', positionsFromPadding: true } }),
    'TypeError', /rope.positionsFromPadding needs keyPadding/],
  ['alibi NaN slope', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, alibi: { slopes: Float32Array.from([NaN]) } }),
    'RangeError', /alibi.slopes\[0\] must be a finite number, got NaN/],
  ['shaw table', (pe) => pe.attention({ q: new Float32Array(8), k: new Float32Array(8), v: new Float32Array(8), heads: 1, queryLength: 1, keyLength: 1, headDim: 8, shaw: { tableK: new Float32Array(8), clip: 1 } }),
    'RangeError', /shaw.tableK must have \(2 \* clip \+ 1\) \* headDim = 3 \* 8 = 24 elements, got 8/],
  ['cache rope odd', (pe) => new pe.KvCache({ kvHeads: 1, headDim: 8, rope: { layout: 'half', rotaryDim: 3 } }),
    'RangeError', /rotaryDim must be even \(RoPE rotates pairs\), got 3/],
  ['cache append length', (pe) => { const c = new pe.KvCache({ kvHeads: 2, headDim: 4 }); try { c.append(new Float32Array(6), new Float32Array(6)); } finally { c.delete(); } },
    'RangeError', /k must have kvHeads \* n \* headDim = 2 \* n \* 4 elements, got 6/],
  ['learned past table', (pe) => pe.learnedPositions({ table: new Float32Array(8), maxLength: 4, dim: 2, positions: Int32Array.from([0, 9]) }),
    'RangeError', /positions\[1\] = 9 is outside the learned table \[0, 4\)/],
  ['xpos key missing', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', xpos: {} as never }),
    'TypeError', /xpos.key must be a boolean/],
  ['xpos position out of float32 range', (pe) => pe.applyRope(x16, { heads: 1, seqLen: 2, headDim: 8, layout: 'half', offset: 40000, xpos: { key: true } }),
    'RangeError', /xpos: position 40000 is 40000 from xpos.center = 0; with xpos.scaleBase = 512 the scales .* leave the float32 range beyond 35556/],
  ['xposScales out of float32 range', (pe) => pe.xposScales({ positions: Int32Array.from([0, -36000]), rotaryDim: 8 }),
    'RangeError', /xpos: position -36000 is 36000 from xpos.center = 0/],

  // Checked once, in C++ (the TS layer checks only types, integers and sentinels): the messages use the JS
  // names and write numbers as JS does.
  ['yarn betaFast 0', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64, betaFast: 0 } }),
    'RangeError', /scaling.betaFast must be > 0, got 0$/],
  ['yarn mscale negative', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64, mscale: -1 } }),
    'RangeError', /scaling.mscale must be >= 0, got -1$/],
  ['yarn attentionFactor NaN', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64, attentionFactor: NaN } }),
    'RangeError', /scaling.attentionFactor must be a finite number, got NaN/],
  ['yarn truncate string', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 64, truncate: 'no' as never } }),
    'TypeError', /scaling.truncate must be a boolean, got 'no'/],
  ['longrope factor 0', (pe) => pe.ropeFrequencies({ headDim: 4, scaling: { type: 'longrope', factor: 4, originalMaxPositionEmbeddings: 64, shortFactor: [1, 1], longFactor: [1, 0] } }),
    'RangeError', /scaling.longFactor\[1\] must be > 0, got 0$/],
  ['longrope factor string', (pe) => pe.ropeFrequencies({ headDim: 4, scaling: { type: 'longrope', factor: 4, originalMaxPositionEmbeddings: 64, shortFactor: [1, '1' as never], longFactor: [1, 1] } }),
    'TypeError', /scaling.shortFactor\[1\] must be a number, got '1'/],
  ['dynamic length fractional', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 2.5 } }),
    'RangeError', /scaling.maxPositionEmbeddings must be an integer, got 2.5/],
  ['dynamic length 0', (pe) => pe.ropeFrequencies({ headDim: 8, scaling: { type: 'dynamic', factor: 2, maxPositionEmbeddings: 0 } }),
    'RangeError', /scaling.maxPositionEmbeddings must be >= 1 for this scaling type, got 0/],
  ['base 0.1', (pe) => pe.ropeFrequencies({ headDim: 8, base: 0.1 }), 'RangeError', /base must be > 1, got 0.1$/],
  ['rotaryDim 0', (pe) => pe.ropeFrequencies({ headDim: 8, rotaryDim: 0 }), 'RangeError', /rotaryDim must be an integer in \[1, 2147483647\], got 0/],
  ['attention scale 0', (pe) => attn(pe, { scale: 0 }), 'RangeError', /scale must be > 0, got 0$/],
  ['attention scale negative', (pe) => attn(pe, { scale: -0.5 }), 'RangeError', /scale must be > 0, got -0.5/],
  ['attention queryOffset -1', (pe) => attn(pe, { queryOffset: -1 }), 'RangeError', /queryOffset must be an integer in \[0, 16777216\], got -1$/],
  ['attention queryOffset past 2^24', (pe) => attn(pe, { queryOffset: 2 ** 25 }), 'RangeError', /queryOffset must be an integer in \[0, 16777216\], got 33554432/],
  ['attention xpos scaleBase 0', (pe) => attn(pe, { rope: { layout: 'half', xpos: { scaleBase: 0 } } }), 'RangeError', /rope.xpos.scaleBase must be > 0, got 0$/],
  ['cache attend heads', (pe) => {
    const c = new pe.KvCache({ kvHeads: 2, headDim: 4 });
    try {
      c.append(new Float32Array(8), new Float32Array(8));
      c.attend(new Float32Array(12), { heads: 3, queryLength: 1 });
    } finally {
      c.delete();
    }
  }, 'RangeError', /kvHeads \(2\) must divide heads \(3\)/],
  ['sinusoidal odd dim', (pe) => pe.sinusoidal({ length: 4, dim: 7 }), 'RangeError', /dim must be even and >= 2, got 7/],
  ['sinusoidal concat dim 2', (pe) => pe.sinusoidal({ length: 4, dim: 2, layout: 'concat' }), 'RangeError', /dim must be >= 4 for the 'concat' layout/],
  ['xposScales odd rotaryDim', (pe) => pe.xposScales({ positions: Int32Array.of(0), rotaryDim: 3 }), 'RangeError', /rotaryDim must be even and >= 2, got 3/],
  ['t5 maxDistance', (pe) => pe.t5Buckets({ queryLength: 2, keyLength: 2, numBuckets: 32, maxDistance: 8 }),
    'RangeError', /maxDistance must be an integer in \[9, 1073741824\], got 8/],
  // In an attention call the T5 options are named under t5.
  ['attention t5.maxDistance', (pe) => attn(pe, { t5: { table: new Float32Array(32), maxDistance: 8 } }),
    'RangeError', /^t5.maxDistance must be an integer in \[17, 1073741824\], got 8/],
  ['attention t5.numBuckets', (pe) => attn(pe, { t5: { table: new Float32Array(1), numBuckets: 1 } }),
    'RangeError', /^t5.numBuckets must be an integer in \[2, 65536\], got 1 \(when bidirectional is false\)/],
  ['attention t5.numBuckets type', (pe) => attn(pe, { t5: { table: new Float32Array(32), numBuckets: 'x' as unknown as number } }),
    'TypeError', /^t5.numBuckets must be a number, got 'x'/],

  ['ropeFromConfig unknown scaling key', (pe) => pe.ropeFromConfig({ model_type: 'llama', num_hidden_layers: 2, head_dim: 64, rope_scaling: { type: 'linear', factor: 2, scale: 3 } }),
    'RangeError', /config.rope_scaling.scale is not a key posenc understands for rope type 'linear'/],
  ['ropeFromConfig rope_theta below 1', (pe) => pe.ropeFromConfig({ model_type: 'llama', num_hidden_layers: 2, head_dim: 64, rope_theta: -5 }),
    'RangeError', /^config.rope_theta must be > 1 \(a RoPE base\), got -5$/],
  ['ropeFromConfig Gemma 3 local base 1', (pe) => pe.ropeFromConfig({ model_type: 'gemma3_text', num_hidden_layers: 6, head_dim: 64, rope_local_base_freq: 1 }),
    'RangeError', /^config.rope_local_base_freq must be > 1 \(a RoPE base\), got 1$/],
  ['ropeFromConfig rope_parameters rope_theta 0', (pe) => pe.ropeFromConfig({ model_type: 'llama', num_hidden_layers: 2, head_dim: 64, rope_parameters: { rope_type: 'default', rope_theta: 0 } }),
    'RangeError', /^config.rope_parameters.rope_theta must be > 1 \(a RoPE base\), got 0$/],
  ['ropeFromConfig unknown model type', (pe) => pe.ropeFromConfig({ model_type: 'my_port', head_dim: 64 }),
    'RangeError', /config.model_type 'my_port' is not in posenc's layout table: pass options.layout/],

  ['attention rope.contextLength negative', (pe) => attn(pe, { rope: { layout: 'half', contextLength: -2 } }),
    'RangeError', /rope.contextLength must be >= 0 \(or -1: derived\), got -2/],
  ['cache rope.contextLength fractional', (pe) => new pe.KvCache({ kvHeads: 1, headDim: 8, rope: { layout: 'half', contextLength: 1.5 } }),
    'RangeError', /rope.contextLength must be an integer, got 1.5/],

  ['ropeCache format', (pe) => pe.ropeCache({ headDim: 8, layout: 'half', seqLen: 2, format: 'wide' as never }),
    'RangeError', /format must be one of 'full', 'half', got 'wide'/],
  ['positionIds mask value', (pe) => pe.positionIds(Uint8Array.of(1, 2), 2), 'RangeError', /mask\[1\] must be 0 or 1, got 2/],
  ['batched positions length', (pe) => pe.applyRope(new Float32Array(32), { batch: 2, heads: 1, seqLen: 2, headDim: 8, layout: 'half', positions: new Int32Array(3) }),
    'RangeError', /positions must have seqLen = 2 or batch \* seqLen = 4 elements, got 3/],

  // Wrong types.
  ['attention q Float64Array', (pe) => attn(pe, { q: new Float64Array(8) as unknown as Float32Array }),
    'TypeError', /q must be a Float32Array, got a Float64Array of length 8/],
  ['attention heads string', (pe) => attn(pe, { heads: '1' as unknown as number }), 'TypeError', /heads must be a number, got '1'/],
  ['attention causal number', (pe) => attn(pe, { causal: 1 as unknown as boolean }), 'TypeError', /causal must be a boolean, got 1/],
  ['attention rope string', (pe) => attn(pe, { rope: 'half' as never }), 'TypeError', /rope must be an options object, got 'half'/],
  ['alibiSlopes heads null', (pe) => pe.alibiSlopes(null as unknown as number), 'TypeError', /heads must be a number, got null/],
  ['cache append Array', (pe) => withCache(pe, (c) => c.append([1] as unknown as Float32Array, new Float32Array(8))),
    'TypeError', /k must be a Float32Array, got an Array of length 1/],

  // Wrong lengths.
  ['attention k length', (pe) => attn(pe, { k: new Float32Array(7) }),
    'RangeError', /k must have kvHeads \* keyLength \* headDim = 1 \* 1 \* 8 = 8 elements, got 7/],
  ['attention v length', (pe) => attn(pe, { v: new Float32Array(9) }),
    'RangeError', /v must have kvHeads \* keyLength \* headDim = 1 \* 1 \* 8 = 8 elements, got 9/],
  ['attention bias length', (pe) => attn(pe, { bias: new Float32Array(2) }),
    'RangeError', /bias must have heads \* queryLength \* keyLength = 1 \* 1 \* 1 = 1 elements, got 2/],
  ['attention keyPadding length', (pe) => attn(pe, { keyPadding: new Uint8Array(2) }), 'RangeError', /keyPadding must have keyLength = 1 elements, got 2/],
  ['attention queryPositions length', (pe) => attn(pe, { rope: { layout: 'half', queryPositions: new Int32Array(3) } }),
    'RangeError', /rope.queryPositions must have queryLength = 1 elements, got 3/],
  ['cache attend q length', (pe) => withCache(pe, (c) => {
    c.append(new Float32Array(8), new Float32Array(8));
    c.attend(new Float32Array(3), { heads: 1, queryLength: 1 });
  }), 'RangeError', /q must have heads \* queryLength \* headDim = 1 \* 1 \* 8 = 8 elements, got 3/],

  // NaN and Infinity in sizes and parameters.
  ['attention heads NaN', (pe) => attn(pe, { heads: NaN }), 'RangeError', /heads must be an integer in \[1, 65536\], got NaN/],
  ['attention queryLength Infinity', (pe) => attn(pe, { queryLength: Infinity }),
    'RangeError', /queryLength must be an integer in \[0, 16777216\], got Infinity/],
  ['attention scale NaN', (pe) => attn(pe, { scale: NaN }), 'RangeError', /scale must be a finite number, got NaN/],
  ['attention rope base NaN', (pe) => attn(pe, { rope: { layout: 'half', base: NaN } }), 'RangeError', /base must be a finite number, got NaN/],
  ['sinusoidal dim NaN', (pe) => pe.sinusoidal({ length: 4, dim: NaN }), 'RangeError', /dim must be an integer in \[2, 2147483647\], got NaN/],

  // Negative and fractional sizes.
  ['attention headDim negative', (pe) => attn(pe, { headDim: -8 }), 'RangeError', /headDim must be an integer in \[1, 65536\], got -8/],
  ['attention keyLength fractional', (pe) => attn(pe, { keyLength: 1.5 }), 'RangeError', /keyLength must be an integer in \[0, 16777216\], got 1.5/],
  ['attention window negative', (pe) => attn(pe, { window: -1 }), 'RangeError', /window must be an integer in \[1, 16777216\], got -1/],
  ['cache kvHeads 0', (pe) => new pe.KvCache({ kvHeads: 0, headDim: 8 }), 'RangeError', /kvHeads must be an integer in \[1, 65536\], got 0/],

  // Sizes whose products overflow 32-bit wasm memory.
  ['attention huge q', (pe) => attn(pe, { heads: 65536, queryLength: 1 << 24, keyLength: 1 << 24, headDim: 64 }),
    'RangeError', /q: heads \(65536\) \* queryLength \(16777216\) \* headDim \(64\) = 70368744177664 elements needs .* more than the 2 GiB/],
  ['alibiBias huge', (pe) => pe.alibiBias({ heads: 65536, queryLength: 65536, keyLength: 65536 }),
    'RangeError', /alibi bias: heads \(65536\) \* queryLength \(65536\) \* keyLength \(65536\) = .* more than the 2 GiB/],
  ['t5Buckets huge', (pe) => pe.t5Buckets({ queryLength: 1 << 24, keyLength: 1 << 24 }),
    'RangeError', /t5 buckets: queryLength \(16777216\) \* keyLength \(16777216\) = .* more than the 2 GiB/],
  ['attention weights huge', (pe) => {
    const x = new Float32Array(8 * 65536);
    return pe.attention({ q: x, k: x, v: x, heads: 1, queryLength: 65536, keyLength: 65536, headDim: 8, returnWeights: true });
  }, 'RangeError', /weights: heads \(1\) \* queryLength \(65536\) \* keyLength \(65536\) = 4294967296 elements needs 17179869184 bytes/],

  // Detached buffers.
  ['attention q detached', (pe) => attn(pe, { q: detached(8) }),
    'RangeError', /q must have heads \* queryLength \* headDim = 1 \* 1 \* 8 = 8 elements, got 0 \(is its buffer detached\?\)/],
  ['cache append k detached', (pe) => withCache(pe, (c) => c.append(detached(8), new Float32Array(8))),
    'RangeError', /k has 0 elements and v does not \(is the buffer of k detached\?\)/],

  // Lifetime: use after delete(), double delete().
  ['cache use after delete', (pe) => {
    const c = new pe.KvCache({ kvHeads: 1, headDim: 8 });
    c.delete();
    c.append(new Float32Array(8), new Float32Array(8));
  }, 'TypeError', /KvCache.append\(\): this cache has been deleted/],
  ['cache double delete', (pe) => {
    const c = new pe.KvCache({ kvHeads: 1, headDim: 8 });
    c.delete();
    c.delete();
  }, 'TypeError', /KvCache.delete\(\): this cache has been deleted/],
];

type AsyncCase = [string, (pe: Posenc) => Promise<unknown>, 'TypeError' | 'RangeError', RegExp];

// Model calls reject: loadModel, sampleTask and taskReference are async (the models module is loaded on
// first use), and so is withModel, which loads the model its (synchronous) method call needs.
const modelCases: AsyncCase[] = [
  // Checked once, in C++ (the TS layer checks only types, integers and sentinels): the messages use the JS
  // names and write numbers as JS does.
  ['generate temperature 200', (pe) => withModel(pe, 'language-rope', (m) => m.generate(Int32Array.of(0), { maxNewTokens: 3, temperature: 200 })),
    'RangeError', /temperature must be in \[0, 100\], got 200/],

  // Wrong types.
  ['loadModel string', (pe) => pe.loadModel('abc' as unknown as Uint8Array), 'TypeError', /bytes must be a Uint8Array or an ArrayBuffer/],
  ['model tokens Array', (pe) => withModel(pe, 'language-rope', (m) => m.forward([0, 1] as unknown as Int32Array)),
    'TypeError', /tokens must be an Int32Array, got an Array of length 2/],
  ['generate maxNewTokens string', (pe) => withModel(pe, 'language-rope', (m) => m.generate(Int32Array.of(0), { maxNewTokens: '3' as unknown as number })),
    'TypeError', /maxNewTokens must be a number, got '3'/],
  ['generate cache string', (pe) => withModel(pe, 'language-rope', (m) => m.generate(Int32Array.of(0), { maxNewTokens: 3, cache: 'no' as unknown as boolean })),
    'TypeError', /cache must be a boolean, got 'no'/],
  ['sampleTask task number', (pe) => pe.sampleTask({ task: 3 as never, length: 8 }),
    'TypeError', /task must be one of 'word-order', 'language', 'retrieval', got 3/],

  // NaN and Infinity in sizes and parameters.
  ['generate temperature NaN', (pe) => withModel(pe, 'language-rope', (m) => m.generate(Int32Array.of(0), { maxNewTokens: 3, temperature: NaN })),
    'RangeError', /temperature must be a finite number, got NaN/],

  // Negative and fractional sizes.
  ['generate maxNewTokens negative', (pe) => withModel(pe, 'language-rope', (m) => m.generate(Int32Array.of(0), { maxNewTokens: -1 })),
    'RangeError', /maxNewTokens must be an integer in \[0, 1048576\], got -1/],

  // Detached buffers.
  ['loadModel detached', (pe) => {
    const b = new ArrayBuffer(16);
    structuredClone(b, { transfer: [b] });
    return pe.loadModel(b);
  }, 'RangeError', /bytes is empty \(or its ArrayBuffer was detached\)/],

  // Lifetime: use after delete(), double delete().
  ['model use after delete', async (pe) => {
    const m = await pe.loadModel(shipped('language-rope'));
    m.delete();
    m.forward(Int32Array.of(0));
  }, 'TypeError', /TinyModel.forward\(\): this model has been deleted/],
  ['model double delete', async (pe) => {
    const m = await pe.loadModel(shipped('language-rope'));
    m.delete();
    m.delete();
  }, 'TypeError', /TinyModel.delete\(\): this model has been deleted/],

  // Models and their files.
  ['loadModel zeros', (pe) => pe.loadModel(new Uint8Array(100)), 'RangeError', /not a safetensors file: its header length \(the first 8 bytes\) is 0/],
  ['loadModel truncated', (pe) => pe.loadModel(shipped('language-rope').subarray(0, 1000)),
    'RangeError', /header length \d+ exceeds the 992 bytes after the length field/],
  ['model token out of vocabulary', (pe) => withModel(pe, 'language-rope', (m) => m.forward(Int32Array.of(0, 999))),
    'RangeError', /tokens\[1\] must be a token id in \[0, 35\), got 999/],
  ['learned model past its table', (pe) => withModel(pe, 'language-learned', (m) => m.forward(new Int32Array(65))),
    'RangeError', /sequence length 65 exceeds the learned position table \(64 rows\)/],
  ['evaluate below the task minimum', (pe) => withModel(pe, 'language-rope', (m) => m.evaluate({ lengths: [4] })),
    'RangeError', /task language needs length >= 8, got 4/],
  ['evaluate window 0', (pe) => withModel(pe, 'language-rope', (m) => m.evaluate({ lengths: [16], window: 0 })),
    'RangeError', /window must be an integer in \[1, 16777216\], got 0/],
  ['evaluate window with the restart bug', (pe) => withModel(pe, 'language-rope', (m) => m.evaluate({ lengths: [16], window: 4, bug: 'restart-positions' })),
    'RangeError', /a window \(4\) cannot be combined with bug 'restart-positions'/],
  ['scaling on an ALiBi model', (pe) => withModel(pe, 'language-alibi', (m) => m.forward(Int32Array.of(0, 1), { scaling: { type: 'linear', factor: 2 } })),
    'TypeError', /scaling applies to RoPE and xPos models; this model uses 'alibi'/],
  ['unknown bug', (pe) => withModel(pe, 'language-rope', (m) => m.forward(Int32Array.of(0, 1), { bug: 'flip' as never })),
    'RangeError', /bug must be one of 'none', .* got 'flip'/],
  ['RoPE bug on an ALiBi model', (pe) => withModel(pe, 'language-alibi', (m) => m.forward(Int32Array.of(0, 1), { bug: 'rotate-v' })),
    'RangeError', /bug 'rotate-v' needs a RoPE or xPos model, this model uses alibi/],

  // Task references.
  ['taskReference number', (pe) => pe.taskReference(3 as never),
    'TypeError', /task must be one of 'word-order', 'language', 'retrieval', got 3/],
  ['taskReference unknown', (pe) => pe.taskReference('poetry' as never),
    'RangeError', /task must be one of 'word-order', 'language', 'retrieval', got 'poetry'/],
];

/** continueTraining on a shipped model (freed afterwards). */
async function continued(pe: Posenc, name: string, config: ContinueTrainingConfig, options?: TrainOptions): Promise<unknown> {
  const m = await pe.loadModel(shipped(name));
  try {
    (await pe.continueTraining(m, config, options)).delete();
    return undefined;
  } finally {
    m.delete();
  }
}

// Training calls reject (they are async).
const asyncCases: AsyncCase[] = [
  ['continueTraining without a model', (pe) => pe.continueTraining({} as TinyModel, { steps: 1 }),
    'TypeError', /model must be a TinyModel \(from loadModel, train or continueTraining\)/],
  ['continueTraining a deleted model', async (pe) => {
    const m = await pe.loadModel(shipped('language-rope'));
    m.delete();
    return pe.continueTraining(m, { steps: 1 });
  }, 'TypeError', /model: this model has been deleted/],
  ['continueTraining a deleted model of the other flavour', async (pe) => {
    const other = await flavours[pe.simd ? 1 : 0]![1];
    const m = await other.loadModel(shipped('language-rope'));
    m.delete();
    return pe.continueTraining(m, { steps: 1 });
  }, 'TypeError', /this model has been deleted/],
  ['continueTraining config string', (pe) => continued(pe, 'language-rope', 'x' as never),
    'TypeError', /config must be an options object, got 'x'/],
  ['continueTraining steps negative', (pe) => continued(pe, 'language-rope', { steps: -1 }),
    'RangeError', /steps must be an integer in \[0, 10000000\], got -1/],
  ['continueTraining steps missing', (pe) => continued(pe, 'language-rope', {} as ContinueTrainingConfig),
    'TypeError', /steps must be a number, got undefined/],
  ['continueTraining seqLen fractional', (pe) => continued(pe, 'language-rope', { steps: 1, seqLen: 100.5 }),
    'RangeError', /seqLen must be an integer, got 100.5/],
  ['continueTraining seqLen below the task minimum', (pe) => continued(pe, 'language-rope', { steps: 1, seqLen: 4 }),
    'RangeError', /task language needs length >= 8, got 4/],
  ['continueTraining lr 1', (pe) => continued(pe, 'language-rope', { steps: 1, lr: 1 }), 'RangeError', /lr must be in \(0, 1\), got 1/],
  ['continueTraining warmup past steps', (pe) => continued(pe, 'language-rope', { steps: 2, warmup: 3 }),
    'RangeError', /warmup must be an integer in \[0, 2\], got 3/],
  ['continueTraining learned past its table', (pe) => continued(pe, 'language-learned', { steps: 1, seqLen: 128 }),
    'RangeError', /continued training at seqLen 128 needs positions past the learned table \(maxLen 64\): a learned encoding cannot be extended/],
  ['continueTraining scaling on ALiBi', (pe) => continued(pe, 'language-alibi', { steps: 1, scaling: { type: 'linear', factor: 2 } }),
    'TypeError', /scaling applies to RoPE and xPos models; this model uses 'alibi'/],
  ['continueTraining scaling without factor', (pe) => continued(pe, 'language-rope', { steps: 1, scaling: { type: 'yarn' } as never }),
    'TypeError', /scaling.factor is required for scaling type 'yarn'/],
  ['continueTraining scaling factor 0', (pe) => continued(pe, 'language-rope', { steps: 1, scaling: { type: 'linear', factor: 0 } }),
    'RangeError', /scaling.factor must be > 0, got 0/],
  ['continueTraining onProgress string', (pe) => continued(pe, 'language-rope', { steps: 1 }, { onProgress: 'log' as never }),
    'TypeError', /onProgress must be a function/],
];


console.log(`RELIABILITY badInputs=${cases.length + modelCases.length}`);

for (const [name, loading] of flavours) {
  describe(`bad input (${name})`, () => {
    for (const [what, fn, type, msg] of cases) {
      it(what, async () => {
        const pe = await loading;
        assert.throws(() => fn(pe), (e: unknown) => {
          assert.ok(e instanceof Error);
          assert.equal(e.name, type, `${what}: ${e.message}`);
          assert.match(e.message, msg);
          return true;
        });
      });
    }

    for (const [what, fn, type, msg] of [...modelCases, ...asyncCases]) {
      it(what, async () => {
        const pe = await loading;
        const before = pe.memoryStats();
        await assert.rejects(fn(pe), (e: unknown) => {
          assert.ok(e instanceof Error);
          assert.equal(e.name, type, `${what}: ${e.message}`);
          assert.match(e.message, msg);
          return true;
        });
        const after = pe.memoryStats();
        assert.deepEqual([after.models, after.trainers], [before.models, before.trainers], 'no handle left behind');
      });
    }

    it('keeps working after 1000 bad calls, without leaking heap', async () => {
      const pe = await loading;
      const good = () => pe.applyRope(Float32Array.from({ length: 16 }, (_, i) => i), { heads: 1, seqLen: 2, headDim: 8, layout: 'half', offset: 3 });
      const before = good();
      pe.sinusoidal({ length: 64, dim: 64 });
      // heapBytes() counts the models module once it is loaded: load it before measuring.
      await pe.loadModels();
      const heap = pe.heapBytes();
      for (let i = 0; i < 1000; i++) {
        const j = i % (cases.length + modelCases.length);
        if (j < cases.length) {
          const [, fn] = cases[j]!;
          assert.throws(() => fn(pe));
        } else {
          const [, fn] = modelCases[j - cases.length]!;
          await assert.rejects(fn(pe));
        }
      }
      assert.deepEqual(good(), before);
      assert.equal(pe.heapBytes(), heap, 'failing calls must not grow the heap');
    });
  });
}

describe('init', () => {
  it('rejects bad options and bytes that are not wasm', async () => {
    await assert.rejects(init({ simd: 'yes' as unknown as boolean }), { name: 'TypeError', message: /simd must be a boolean/ });
    await assert.rejects(
      init({ wasmBinary: new TextEncoder().encode('<!DOCTYPE html><html>') }),
      /wasmBinary is not a WebAssembly binary \(expected magic word 00 61 73 6d, found 3c 21 44 4f\)/,
    );
    await assert.rejects(init({ wasmUrl: './missing.wasm' }), /could not read file:.*missing\.wasm/);
  });
});
