/**
 * pe.ropeFromConfig per decoder layer, on published configs of models whose
 * layers differ (Gemma 3's two bases, Llama 4's and SmolLM3's NoPE layers,
 * Cohere2 / EXAONE 4 global layers without RoPE, Qwen3-Next's linear
 * attention, ...): the plan written by hand from each config, the frequencies
 * and attention factor of every layer against a float64 port of how
 * transformers routes RoPE to each layer (hfLayers), and each distinct
 * layer's cos / sin tables before and past the positions where its scaling
 * switches.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ropeGroups, ropeOriginalContext, type Posenc, type RopeLayerOptions, type RopeScalingType } from 'posenc';

import { PUBLISHED_CONFIGS } from '../../web/src/sections/yourmodel/configs.js';

import { flavours } from './flavours.js';
import { at, leaves } from './config-paths.js';
import { FIXTURES } from './hf-configs.js';
import { LAYER_FIXTURES, type LayerFixture } from './hf-layer-configs.js';
import { hfLayers, hfMropeRows } from './hf-reference.js';

/** The context lengths to check a layer at: short, and before and past each switch of its scaling. */
function lengths(layer: RopeLayerOptions): number[] {
  const s = layer.scaling;
  if (s.type === 'dynamic') return [16, s.maxPositionEmbeddings, s.maxPositionEmbeddings + 1, s.maxPositionEmbeddings * 3];
  if (s.type === 'longrope') return [16, s.originalMaxPositionEmbeddings, s.originalMaxPositionEmbeddings + 1];
  return [16];
}

/** Positions 0, 1, and the last few below `T`. */
function positionsBelow(T: number): Int32Array {
  const p = new Set([0, 1, Math.max(0, T - 2), T - 1]);
  return Int32Array.from([...p].filter((v) => v >= 0 && v < T).sort((a, b) => a - b));
}

function checkFixture(pe: Posenc, f: LayerFixture): void {
  const got = pe.ropeFromConfig(f.config);
  // The plan written by hand from the config.
  assert.equal(got.layers.length, f.plan.length, `${f.name}: one entry per layer`);
  for (const [i, layer] of got.layers.entries()) {
    const key = f.plan[i]!;
    if (key === '.') {
      assert.equal(layer, null, `${f.name}: layer ${i} has no RoPE`);
      continue;
    }
    assert.ok(layer !== null, `${f.name}: layer ${i} has RoPE`);
    const want = f.ropes[key]!;
    assert.deepEqual(
      {
        headDim: layer.headDim, rotaryDim: layer.rotaryDim, base: layer.base, layout: layer.layout, type: layer.scaling.type,
        ...(layer.mrope === undefined ? {} : { mrope: layer.mrope }),
      },
      want, `${f.name}: layer ${i} (${key})`);
  }
  assert.equal(got.uniform, new Set(f.plan.replaceAll('.', '')).size === 1, `${f.name}: uniform`);
  assert.deepEqual(got.queryScaling === undefined ? undefined : { ...got.queryScaling, layers: got.queryScaling.layers.length },
    f.queryScaling, `${f.name}: query scaling`);
  for (const k of got.keysRead) assert.ok(at(f.config, k) !== undefined, `${f.name}: ${k} is in the config`);
  const read = new Set(got.keysRead);
  for (const k of leaves(f.config)) {
    // The head size keys are alternatives to head_dim, read only without it.
    const dir = k.includes('.') ? k.slice(0, k.lastIndexOf('.') + 1) : '';
    const alternative = /(^|\.)(hidden_size|num_attention_heads)$/.test(k) &&
      (at(f.config, `${dir}head_dim`) !== undefined || at(f.config, `${dir}qk_rope_head_dim`) !== undefined);
    if (!alternative && !(f.unread ?? []).includes(k)) assert.ok(read.has(k), `${f.name}: ${k} unread`);
  }

  // Every layer against the float64 port of transformers, and the cos / sin of each distinct RoPE.
  const checked = new Set<string>();
  for (const [i, layer] of got.layers.entries()) {
    if (layer === null) continue;
    for (const T of lengths(layer)) {
      const want = hfLayers(f.config, T)[i];
      assert.ok(want !== null && want !== undefined, `${f.name}: transformers rotates layer ${i}`);
      assert.equal(want.dims.headDim, layer.headDim, `${f.name}: layer ${i} head width`);
      assert.equal(want.dims.dim, layer.rotaryDim, `${f.name}: layer ${i} rotated width`);
      const freq = pe.ropeFrequencies({ ...layer, seqLen: T });
      assert.equal(freq.invFreq.length, want.invFreq.length);
      for (const [j, w] of want.invFreq.entries()) {
        assert.ok(Math.abs(freq.invFreq[j]! - w) <= 2 ** -23 * w, `${f.name} layer ${i} T=${T}: invFreq[${j}] ${freq.invFreq[j]} vs ${w}`);
      }
      assert.ok(Math.abs(layer.attentionFactor - want.attention) <= 1e-12 * want.attention, `${f.name} layer ${i}: attention factor`);
      const key = `${f.plan[i]} ${T}`;
      if (checked.has(key)) continue;
      checked.add(key);
      // Hugging Face's full-width cos / sin at positions below T (T is the context the frequencies are for).
      const positions = positionsBelow(T);
      const n = positions.length;
      // M-RoPE: three rows that differ (text runs on all three at once; here each row its own shift).
      const rows = layer.mrope === undefined ? positions : Int32Array.from([...positions, ...positions.map((p) => p + 1), ...positions.map((p) => p + 2)]);
      const { cos, sin, width } = pe.ropeCache({ ...layer, positions: rows, contextLength: T });
      const h = width / 2;
      const axis = layer.mrope === undefined ? Array<number>(h).fill(0) : hfMropeRows(layer.mrope.section, layer.mrope.interleaved ?? false, h);
      for (let t = 0; t < n; t++) {
        for (let j = 0; j < h; j++) {
          // HF's angle: the float32 inverse frequency times the position (of the pair's row).
          const p = rows[axis[j]! * n + t]!;
          const angle = p * Math.fround(want.invFreq[j]!);
          const slots = layer.layout === 'half' ? [j, j + h] : [2 * j, 2 * j + 1];
          for (const s of slots) {
            const c = cos[t * width + s]!;
            const sn = sin[t * width + s]!;
            assert.ok(Math.abs(c - want.attention * Math.cos(angle)) < 4e-6 * want.attention, `${f.name} layer ${i} t=${t}: cos[${s}] ${c}`);
            assert.ok(Math.abs(sn - want.attention * Math.sin(angle)) < 4e-6 * want.attention, `${f.name} layer ${i} t=${t}: sin[${s}] ${sn}`);
          }
        }
      }
    }
  }
  // Every layer transformers rotates, posenc rotates.
  const ref = hfLayers(f.config, 16);
  assert.deepEqual(got.layers.map((l) => l === null), ref.map((l) => l === null), `${f.name}: layers without RoPE`);
}

/** Transformers' query multiplier, float64 (Llama 4's `_get_attn_scale`, Ministral 3's `get_llama_4_attn_scale`). */
function hfQueryScale(source: string, p: number, beta: number, length: number): number {
  if (source === 'llama4') return Math.log(Math.floor((p + 1) / length) + 1) * beta + 1;
  return 1 + beta * Math.log(1 + Math.floor(p / length));
}

for (const [flavour, ready] of flavours) {
  describe(`ropeFromConfig per layer (${flavour})`, () => {
    for (const f of LAYER_FIXTURES) {
      it(`${f.name}: the plan, each layer's frequencies and cos / sin`, async () => {
        checkFixture(await ready, f);
      });
    }

    it('ropeGroups: each distinct RoPE once, with its layers and their runs; the layers without RoPE last', async () => {
      const pe = await ready;
      for (const f of LAYER_FIXTURES) {
        const rc = pe.ropeFromConfig(f.config);
        const gs = ropeGroups(rc);
        // Expected from the hand-written plan: one group per distinct key, in order of first layer; '.' last.
        const keys = [...new Set(f.plan.replaceAll('.', ''))];
        assert.equal(gs.length, keys.length + (f.plan.includes('.') ? 1 : 0), `${f.name}: groups`);
        for (const [k, g] of gs.entries()) {
          const key = k < keys.length ? keys[k]! : '.';
          const want = [...f.plan].flatMap((c, i) => (c === key ? [i] : []));
          assert.deepEqual(g.layers, want, `${f.name}: group ${k} layers`);
          assert.deepEqual(g.spans.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, j) => a + j)), want, `${f.name}: group ${k} spans`);
          assert.ok(g.spans.every(([a, b], j) => a <= b && (j === 0 || a > g.spans[j - 1]![1] + 1)), `${f.name}: spans are maximal runs`);
          if (key === '.') {
            assert.equal(g.rope, null);
            assert.equal(g.originalContext, undefined);
          } else {
            for (const i of g.layers) assert.deepEqual(rc.layers[i], g.rope, `${f.name}: layer ${i} in group ${k}`);
            assert.equal(g.originalContext, ropeOriginalContext(g.rope!, rc.maxPositions));
          }
        }
      }
      // The original context: the scaling's own, else max_position_embeddings.
      const layer = (scaling: RopeLayerOptions['scaling']): RopeLayerOptions => ({ headDim: 8, rotaryDim: 8, base: 1e4, layout: 'half', scaling, attentionFactor: 1 });
      assert.equal(ropeOriginalContext(layer({ type: 'yarn', factor: 4, originalMaxPositionEmbeddings: 32768 }), 131072), 32768);
      assert.equal(ropeOriginalContext(layer({ type: 'dynamic', factor: 2, maxPositionEmbeddings: 2048 }), 4096), 2048);
      assert.equal(ropeOriginalContext(layer({ type: 'linear', factor: 8 }), 131072), 131072);
      assert.equal(ropeOriginalContext(layer({ type: 'default' }), undefined), undefined);
    });

    it('every config the page offers is one of the published configs checked here, key for key', () => {
      const published = [...FIXTURES, ...LAYER_FIXTURES];
      assert.ok(PUBLISHED_CONFIGS.length >= 20, `${PUBLISHED_CONFIGS.length} configs on the page`);
      assert.equal(new Set(PUBLISHED_CONFIGS.map((c) => c.id)).size, PUBLISHED_CONFIGS.length, 'ids are unique');
      for (const c of PUBLISHED_CONFIGS) {
        const same = published.filter((f) => JSON.stringify(f.config) === JSON.stringify(c.config));
        assert.ok(same.length > 0, `${c.name}: not among the checked configs`);
      }
    });

    it('model-type rules on configs written here: Cohere2, LFM2, EXAONE 4\'s "LLLG", Gemma 4\'s defaults', async () => {
      const pe = await ready;
      const R = (headDim: number, rotaryDim: number, base: number, layout: 'half' | 'interleaved', type: RopeScalingType) =>
        ({ headDim, rotaryDim, base, layout, type });
      const cases: LayerFixture[] = [
        {
          name: 'Cohere2 (RoPE on sliding layers only)', source: 'written here',
          config: { model_type: 'cohere2', num_hidden_layers: 8, head_dim: 128, rope_theta: 50000, sliding_window: 4096, sliding_window_pattern: 4 },
          plan: 'aaa.aaa.', ropes: { a: R(128, 128, 50000, 'interleaved', 'default') },
        },
        {
          name: 'Cohere2 without a sliding window (no RoPE at all)', source: 'written here',
          config: { model_type: 'cohere2', num_hidden_layers: 4, head_dim: 128, rope_theta: 50000, sliding_window: null, sliding_window_pattern: 4 },
          plan: '....', ropes: {}, unread: ['head_dim', 'rope_theta'],
        },
        {
          name: 'LFM2 (attention at full_attn_idxs, convolutions elsewhere)', source: 'written here',
          config: { model_type: 'lfm2', num_hidden_layers: 6, head_dim: 64, rope_theta: 1e6, full_attn_idxs: [2, 5] },
          plan: '..a..a', ropes: { a: R(64, 64, 1e6, 'half', 'default') },
        },
        {
          name: 'EXAONE 4 with a string pattern (the last layer global)', source: 'written here',
          config: { model_type: 'exaone4', num_hidden_layers: 6, head_dim: 64, rope_theta: 1e6, sliding_window: 4096, sliding_window_pattern: 'LLLG' },
          plan: 'aaa.a.', ropes: { a: R(64, 64, 1e6, 'half', 'default') },
        },
        {
          name: 'Gemma 4 with its class defaults', source: 'written here',
          config: { model_type: 'gemma4_text', num_hidden_layers: 8, head_dim: 256 },
          plan: 'lllllgll'.slice(0, 7) + 'g', ropes: { l: R(256, 256, 10000, 'half', 'default'), g: R(512, 512, 1e6, 'half', 'proportional') },
        },
      ];
      for (const f of cases) checkFixture(pe, f);
    });

    it('a result whose layers differ cannot be spread into a call: a TypeError naming layers', async () => {
      const pe = await ready;
      const gemma = LAYER_FIXTURES.find((f) => f.name.startsWith('Gemma 3 1B'))!;
      const got = pe.ropeFromConfig(gemma.config);
      assert.equal(got.uniform, false);
      assert.ok(!('base' in got) && !('headDim' in got), 'no top-level RoPE fields');
      const x = Float32Array.from({ length: 2 * 256 }, (_, i) => Math.sin(i * 1.7));
      const spread = got as unknown as RopeLayerOptions;
      assert.throws(() => pe.applyRope(x, { ...spread, heads: 1, seqLen: 2 }), { name: 'TypeError', message: /layers/ });
      assert.throws(() => pe.rerotateRope(x, { ...spread, heads: 1, seqLen: 2, delta: 1 }), { name: 'TypeError', message: /layers/ });
      assert.throws(() => pe.ropeCache({ ...spread, seqLen: 2 }), { name: 'TypeError', message: /layers/ });
      assert.throws(() => pe.ropeFrequencies({ ...spread }), { name: 'TypeError', message: /layers/ });
      const q = new Float32Array(2 * 256);
      assert.throws(() => pe.attention({ q, k: q, v: q, heads: 1, queryLength: 2, keyLength: 2, headDim: 256, causal: true, rope: spread }),
        { name: 'TypeError', message: /layers/ });
      // Each layer spreads.
      const local = got.layers[0]!;
      const global = got.layers[5]!;
      assert.equal(pe.applyRope(x, { ...local, heads: 1, seqLen: 2 }).length, x.length);
      assert.notDeepEqual(pe.applyRope(x, { ...local, heads: 1, seqLen: 2 }), pe.applyRope(x, { ...global, heads: 1, seqLen: 2 }));
    });

    it('a spread layer checks its head size against the call (Gemma 4: 256 local, 512 global)', async () => {
      const pe = await ready;
      const gemma = LAYER_FIXTURES.find((f) => f.name.startsWith('Gemma 4 31B'))!;
      const got = pe.ropeFromConfig(gemma.config);
      const local = got.layers[0]!;
      const global = got.layers[5]!;
      assert.equal(local.headDim, 256);
      assert.equal(global.headDim, 512);
      const call = (D: number, rope: RopeLayerOptions) => {
        const q = Float32Array.from({ length: 2 * D }, (_, i) => Math.sin(i * 0.37));
        return { q, k: q, v: q, heads: 1, queryLength: 2, keyLength: 2, headDim: D, causal: true, rope };
      };
      // The global layer on the local heads (and the other way) was silently the wrong rotation.
      assert.throws(() => pe.attention(call(256, global)), { name: 'RangeError', message: 'rope.headDim is 512 but headDim is 256: this RoPE layer is for heads of another size (pass the layer of this call\'s heads)' });
      assert.throws(() => pe.attention(call(512, local)), { name: 'RangeError', message: /rope.headDim is 256 but headDim is 512/ });
      assert.throws(() => new pe.KvCache({ kvHeads: 1, headDim: 256, rope: global }), { name: 'RangeError', message: /rope.headDim is 512 but headDim is 256/ });
      // Each layer on its own heads works, and pe keeps working after the errors.
      assert.equal(pe.attention(call(256, local)).out.length, 2 * 256);
      assert.equal(pe.attention(call(512, global)).out.length, 2 * 512);
      const cache = new pe.KvCache({ kvHeads: 1, headDim: 512, rope: global });
      cache.delete();
    });

    it('malformed layer keys are errors naming them', async () => {
      const pe = await ready;
      const base = { model_type: 'llama', num_hidden_layers: 4, head_dim: 64 };
      const cases: Array<[object, string, RegExp]> = [
        [{ ...base, layer_types: ['full_attention', 'sliding_attention'] }, 'RangeError', /config.layer_types must be an array of 4 strings \(num_hidden_layers\), got 2 entries/],
        [{ ...base, layer_types: ['full_attention', 'sliding_attention', 'mystery', 'full_attention'] }, 'RangeError', /config.layer_types\[2\] is 'mystery'/],
        [{ ...base, model_type: 'smollm3', no_rope_layers: [1, 1, 0] }, 'RangeError', /config.no_rope_layers must be an array of 4 values 0 or 1/],
        [{ ...base, model_type: 'smollm3', no_rope_layers: [1, 1, 2, 0] }, 'RangeError', /config.no_rope_layers must be an array of 4 values 0 or 1/],
        [{ ...base, no_rope_layers: [1, 1, 1, 0] }, 'RangeError', /config.no_rope_layers: posenc does not know whether model type 'llama' reads it/],
        [{ ...base, sliding_window_pattern: 'LLXG' }, 'RangeError', /config.sliding_window_pattern must be an integer >= 1 or a string of L and G/],
        [{ ...base, sliding_window_pattern: 0 }, 'RangeError', /config.sliding_window_pattern must be an integer >= 1, got 0/],
        [{ ...base, num_hidden_layers: 0 }, 'RangeError', /config.num_hidden_layers must be an integer >= 1, got 0/],
        [{ model_type: 'gemma3', text_config: { num_hidden_layers: 6, head_dim: 64, rope_theta: 1 }, rope_theta: 2 }, 'RangeError',
          /config.rope_theta \(2\) and config.text_config.rope_theta \(1\) differ/],
        [{ ...base, layer_types: ['full_attention', 'sliding_attention', 'full_attention', 'full_attention'],
          rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 1e6 } } }, 'RangeError',
          /config.rope_parameters has no entry for layer type 'sliding_attention' \(layer 1\)/],
      ];
      for (const [cfg, name, message] of cases) assert.throws(() => pe.ropeFromConfig(cfg), { name, message }, JSON.stringify(cfg));
      // And the next call works.
      assert.equal(pe.ropeFromConfig(base).layers.length, 4);
    });

    it('queryScale gives transformers\' multipliers (Llama 4 temperature tuning, llama_4_scaling_beta)', async () => {
      const pe = await ready;
      const positions = Int32Array.from([0, 1, 8190, 8191, 8192, 16383, 16384, 100000, 2 ** 31 - 2]);
      for (const [source, beta, length, shift] of [['llama4', 0.1, 8192, 1], ['llama_4_scaling_beta', 0.1, 16384, 0]] as const) {
        const got = pe.queryScale(positions, { source, beta, length, shift, layers: [0] });
        for (const [t, p] of positions.entries()) {
          assert.equal(got[t], Math.fround(hfQueryScale(source, p, beta, length)), `${source} p=${p}`);
        }
      }
      assert.throws(() => pe.queryScale(Int32Array.from([-1]), { source: 'llama4', beta: 0.1, length: 8192, shift: 1, layers: [] }),
        { name: 'RangeError', message: /positions\[0\] must be >= 0, got -1/ });
      assert.throws(() => pe.queryScale(Int32Array.from([1]), { source: 'llama4', beta: 0.1, length: 0, shift: 1, layers: [] }),
        { name: 'RangeError', message: /queryScaling.length/ });
      assert.throws(() => pe.queryScale(Int32Array.from([1]), { source: 'x' as never, beta: 0.1, length: 1, shift: 1, layers: [] }),
        { name: 'RangeError', message: /queryScaling.source must be one of/ });
    });
  });
}
