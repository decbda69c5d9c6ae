/**
 * pe.ropeFromConfig on published configs: the options it derives give the
 * frequencies and attention factor that transformers computes (float64
 * reference from the raw config), in both flavours; unknown keys and
 * unknown model types are errors naming them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { LAYOUT_BY_MODEL_TYPE, type RopeScaling } from 'posenc';

import { flavours } from './flavours.js';
import { at, leaves } from './config-paths.js';
import { FIXTURES } from './hf-configs.js';
import { hfDims, hfLayers, hfRope } from './hf-reference.js';

/** Positions before and past the context each scaling switches at. */
function lengths(scaling: RopeScaling): number[] {
  if (scaling.type === 'dynamic') return [16, scaling.maxPositionEmbeddings, scaling.maxPositionEmbeddings * 3];
  if (scaling.type === 'longrope') return [16, scaling.originalMaxPositionEmbeddings, scaling.originalMaxPositionEmbeddings + 1];
  return [16];
}

for (const [flavour, ready] of flavours) {
  describe(`ropeFromConfig (${flavour})`, () => {
    for (const f of FIXTURES) {
      it(`${f.name}: the widths, layout and scaling, and transformers' frequencies`, async () => {
        const pe = await ready;
        const got = pe.ropeFromConfig(f.config);
        assert.ok(got.uniform, `${f.name}: every layer rotates alike`);
        assert.equal(got.layers.length, hfLayers(f.config, 16).length);
        for (const layer of got.layers) assert.deepEqual(layer, { headDim: got.headDim, rotaryDim: got.rotaryDim, base: got.base, layout: got.layout, scaling: got.scaling, attentionFactor: got.attentionFactor });
        assert.deepEqual(
          { headDim: got.headDim, rotaryDim: got.rotaryDim, layout: got.layout, type: got.scaling.type, base: got.base },
          f.expect, f.source);
        assert.equal(hfDims(f.config).dim, got.rotaryDim, 'the reference reads the same width');
        for (const seqLen of lengths(got.scaling)) {
          const want = hfRope(f.config, seqLen);
          const freq = pe.ropeFrequencies({ headDim: got.headDim, rotaryDim: got.rotaryDim, base: got.base, scaling: got.scaling, seqLen });
          assert.equal(freq.invFreq.length, want.invFreq.length);
          for (let i = 0; i < want.invFreq.length; i++) {
            const w = want.invFreq[i]!;
            // One float32 rounding of a float64 value.
            assert.ok(Math.abs(freq.invFreq[i]! - w) <= 2 ** -23 * w, `${f.name} T=${seqLen}: invFreq[${i}] ${freq.invFreq[i]} vs ${w}`);
          }
          assert.ok(Math.abs(got.attentionFactor - want.attention) <= 1e-12 * want.attention,
            `${f.name}: attention factor ${got.attentionFactor} vs ${want.attention}`);
        }
        assert.ok(got.keysRead.length > 0);
        for (const key of got.keysRead) assert.ok(at(f.config, key) !== undefined, `${key} is in the config`);
      });
    }

    it('reads every key the fixtures store (nothing stored goes unread)', async () => {
      const pe = await ready;
      for (const f of FIXTURES) {
        const read = new Set(pe.ropeFromConfig(f.config).keysRead);
        for (const k of leaves(f.config)) {
          // Alternatives a config gives only one of are read in order; the head size keys are skipped when head_dim is there.
          const skipped = ['hidden_size', 'num_attention_heads', 'n_embd', 'n_head'].includes(k) && (f.config.head_dim !== undefined || f.config.qk_rope_head_dim !== undefined);
          if (!skipped) assert.ok(read.has(k), `${f.name}: ${k} unread`);
        }
      }
    });

    it('the rope_parameters form (with rope_theta inside) gives what the rope_scaling form gives', async () => {
      const pe = await ready;
      const llama = FIXTURES.find((f) => f.name.startsWith('Llama 3.1'))!.config;
      const { rope_scaling: scaling, rope_theta: theta, ...rest } = llama as Record<string, unknown>;
      const v5 = { ...rest, rope_parameters: { ...(scaling as object), rope_theta: theta } };
      const a = pe.ropeFromConfig(llama);
      const b = pe.ropeFromConfig(v5);
      assert.deepEqual({ ...b, keysRead: [] }, { ...a, keysRead: [] });
      assert.ok(b.keysRead.includes('rope_parameters.rope_theta'));
    });

    it('a config without rope_theta says which default it used', async () => {
      const pe = await ready;
      const got = pe.ropeFromConfig(FIXTURES.find((f) => f.name.startsWith('Vicuna'))!.config);
      assert.ok(got.uniform);
      assert.equal(got.base, 10000);
      assert.match(got.defaulted.join('\n'), /base = 10000/);
    });

    it('model-type rules a porter found missing: DeepSeek-V3 rope_interleave, dynamic NTK\'s length, PhiMoE\'s mscales, DeepSeek\'s softmax scale', async () => {
      const pe = await ready;
      const ds = { model_type: 'deepseek_v3', num_hidden_layers: 2, qk_rope_head_dim: 64, max_position_embeddings: 163840, rope_theta: 10000,
        rope_scaling: { type: 'yarn', factor: 40, original_max_position_embeddings: 4096, beta_fast: 32, beta_slow: 1, mscale: 1, mscale_all_dim: 1 } };
      // modeling_deepseek_v3: apply_rotary_pos_emb_interleave when config.rope_interleave (default true), rotate_half otherwise.
      const interleaved = pe.ropeFromConfig(ds);
      assert.equal(interleaved.uniform && interleaved.layout, 'interleaved');
      assert.ok(interleaved.defaulted.some((d) => d.startsWith('rope_interleave = true')));
      const half = pe.ropeFromConfig({ ...ds, rope_interleave: false });
      assert.equal(half.uniform && half.layout, 'half');
      assert.ok(half.keysRead.includes('rope_interleave'));
      assert.throws(() => pe.ropeFromConfig({ ...ds, rope_interleave: 'no' }), /config.rope_interleave must be a boolean, got "no"/);
      // DeepseekV3Attention: scaling *= yarn_get_mscale(factor, mscale_all_dim)^2.
      const m = 0.1 * 1 * Math.log(40) + 1;
      assert.ok(Math.abs(interleaved.softmaxScale! - m * m) < 1e-15, `softmaxScale ${interleaved.softmaxScale}`);
      assert.equal(pe.ropeFromConfig({ model_type: 'llama', num_hidden_layers: 1, head_dim: 64, rope_scaling: { type: 'yarn', factor: 4, original_max_position_embeddings: 4096 } }).softmaxScale, undefined);
      // _compute_dynamic_ntk_parameters: config.max_position_embeddings, whatever the scaling's own original length says.
      const dyn = pe.ropeFromConfig({ model_type: 'llama', num_hidden_layers: 1, head_dim: 64, max_position_embeddings: 4096,
        rope_scaling: { rope_type: 'dynamic', factor: 2, original_max_position_embeddings: 2048 } });
      assert.deepEqual(dyn.uniform && dyn.scaling, { type: 'dynamic', factor: 2, maxPositionEmbeddings: 4096 });
      // PhimoeRotaryEmbedding: cos and sin times short_mscale / long_mscale instead of the attention factor.
      const phimoe = { model_type: 'phimoe', num_hidden_layers: 1, hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 131072,
        rope_scaling: { type: 'longrope', original_max_position_embeddings: 4096, short_factor: Array(64).fill(1), long_factor: Array(64).fill(2),
          short_mscale: 1.243163121016122, long_mscale: 1.243163121016122 } };
      const moe = pe.ropeFromConfig(phimoe);
      assert.equal(moe.uniform && moe.attentionFactor, 1.243163121016122);
      assert.throws(() => pe.ropeFromConfig({ ...phimoe, rope_scaling: { ...phimoe.rope_scaling, short_mscale: 1.1 } }),
        /config.rope_scaling: short_mscale \(1.1\) and long_mscale \(1.243163121016122\) differ/);
      assert.throws(() => pe.ropeFromConfig({ ...phimoe, model_type: 'phi3' }), /config.rope_scaling.short_mscale is not a key posenc understands/);
      // An odd rotated width names where it came from.
      assert.throws(() => pe.ropeFromConfig({ model_type: 'llama', num_hidden_layers: 1, hidden_size: 4000, num_attention_heads: 32 }),
        /config: layer 0 would rotate 125 dims .*hidden_size \/ num_attention_heads/);
      // Gemma 3's class default for max_position_embeddings, each default listed once.
      const gemma = pe.ropeFromConfig({ model_type: 'gemma3_text', num_hidden_layers: 6 });
      assert.equal(gemma.maxPositions, 131072);
      assert.equal(new Set(gemma.defaulted).size, gemma.defaulted.length);
      assert.ok(gemma.defaulted.includes('max_position_embeddings = 131072 (gemma3_text\'s default)'));
    });

    it('the layout table and its override', async () => {
      const pe = await ready;
      assert.equal(LAYOUT_BY_MODEL_TYPE.gptj, 'interleaved');
      assert.equal(LAYOUT_BY_MODEL_TYPE.llama, 'half');
      const cfg = { model_type: 'my_port', num_hidden_layers: 2, head_dim: 64, rope_theta: 10000 };
      assert.throws(() => pe.ropeFromConfig(cfg), { name: 'RangeError', message: /model_type 'my_port' is not in posenc's layout table: pass options.layout/ });
      assert.equal(pe.ropeFromConfig(cfg, { layout: 'interleaved' }).layers[1]?.layout, 'interleaved');
      assert.equal(pe.ropeFromConfig({ model_type: 'llama', num_hidden_layers: 2, head_dim: 64 }, { layout: 'interleaved' }).layers[0]?.layout, 'interleaved');
    });

    it('unknown keys and types in the RoPE part are errors naming them', async () => {
      const pe = await ready;
      const base = { model_type: 'llama', num_hidden_layers: 2, head_dim: 64, max_position_embeddings: 4096 };
      const cases: Array<[object, string, RegExp]> = [
        [{ ...base, rope_scaling: { type: 'linear', factor: 2, scale: 3 } }, 'RangeError', /config.rope_scaling.scale is not a key posenc understands for rope type 'linear'/],
        [{ ...base, rope_scaling: { rope_type: 'yarn', factor: 4, low_freq_factor: 1 } }, 'RangeError', /rope_scaling.low_freq_factor is not a key posenc understands for rope type 'yarn'/],
        [{ ...base, rope_scaling: { rope_type: 'mrope', factor: 2 } }, 'TypeError', /config.rope_scaling: rope type 'mrope' needs rope_scaling.mrope_section/],
        [{ ...base, rope_scaling: { rope_type: 'default', mrope_section: [16, 8, 8] } }, 'RangeError',
          /config.rope_scaling.mrope_section: posenc does not know how model type "llama" deals its pairs to the three rows/],
        [{ ...base, model_type: 'qwen2_vl', rope_scaling: { rope_type: 'default', mrope_section: [16, 8] } }, 'RangeError',
          /config.rope_scaling.mrope_section must be 3 integers >= 0/],
        [{ ...base, model_type: 'qwen2_vl', rope_scaling: { rope_type: 'default', mrope_section: [16, 8, 8], mrope_interleaved: true } }, 'RangeError',
          /config.rope_scaling.mrope_interleaved is true, but qwen2_vl_text's code deals the pairs in chunks/],
        [{ ...base, model_type: 'qwen2_vl', rope_scaling: { rope_type: 'default', mrope_section: [16, 8, 7] } }, 'RangeError',
          /mropeSection \(16, 8, 7\) must sum to rotaryDim \/ 2 = 32, got 31/],
        [{ ...base, rope_scaling: { rope_type: 'fancy' } }, 'RangeError', /rope type "fancy" is not one posenc reads/],
        [{ ...base, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4 } }, 'TypeError', /rope type 'llama3' needs rope_scaling.original_max_position_embeddings/],
        [{ ...base, rope_scaling: { type: 'linear' } }, 'TypeError', /rope type 'linear' needs rope_scaling.factor/],
        [{ ...base, rope_scaling: { type: 'linear', factor: '2' } }, 'TypeError', /config.rope_scaling.factor must be a finite number, got "2"/],
        [{ ...base, rope_scaling: { type: 'linear', factor: 0 } }, 'RangeError', /scaling.factor must be > 0, got 0/],
        [{ ...base, rope_scaling: { type: 'linear', factor: 2 }, rope_parameters: { rope_type: 'default' } }, 'RangeError', /both rope_scaling and rope_parameters/],
        [{ model_type: 'llama', num_hidden_layers: 2, hidden_size: 100, num_attention_heads: 3 }, 'RangeError', /hidden size 100 is not a multiple of the 3 attention heads/],
        [{ model_type: 'llama', num_hidden_layers: 2 }, 'TypeError', /config has no head size/],
        [{ model_type: 'llama', head_dim: 64 }, 'TypeError', /config.num_hidden_layers is missing/],
        [{ ...base, rope_scaling: { rope_type: 'linear', type: 'dynamic', factor: 2 } }, 'RangeError', /config.rope_scaling: rope_type "linear" and type "dynamic" differ/],
        [{ ...base, partial_rotary_factor: 1.5 }, 'RangeError', /rotary share must be in \(0, 1\], got 1.5/],
        ['config' as unknown as object, 'TypeError', /config must be an options object/],
      ];
      for (const [cfg, name, message] of cases) assert.throws(() => pe.ropeFromConfig(cfg), { name, message }, JSON.stringify(cfg));
    });
  });
}
