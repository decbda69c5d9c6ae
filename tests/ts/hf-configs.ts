/**
 * RoPE parts of published Hugging Face `config.json` files: only the keys
 * `ropeFromConfig` reads, with where each came from. `expect` holds what the
 * model's code does with them (head and rotary widths, the pair layout, the
 * scaling), worked out from the config by hand.
 */
import type { RopeLayout, RopeScalingType } from 'posenc';

export interface Fixture {
  name: string;
  source: string;
  config: Record<string, unknown>;
  expect: { headDim: number; rotaryDim: number; layout: RopeLayout; type: RopeScalingType; base: number };
}

// Phi-3-vision-128k-instruct's LongRoPE lists (48 = 96 / 2 values each).
const PHI3_LONG = [
  1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547, 1.2299998998641968, 1.2299998998641968,
  1.2999999523162842, 1.4499999284744263, 1.5999999046325684, 1.6499998569488525, 1.8999998569488525, 2.859999895095825,
  3.68999981880188, 5.419999599456787, 5.489999771118164, 5.489999771118164, 9.09000015258789, 11.579999923706055,
  15.65999984741211, 15.769999504089355, 15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055,
  30.009998321533203, 32.35000228881836, 32.590003967285156, 35.56000518798828, 39.95000457763672, 53.840003967285156,
  56.20000457763672, 57.95000457763672, 59.29000473022461, 59.77000427246094, 59.920005798339844, 61.190006256103516,
  61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086, 63.48000717163086, 63.66000747680664,
  63.850006103515625, 64.08000946044922, 64.760009765625, 64.80001068115234, 64.81001281738281, 64.81001281738281,
];
const PHI3_SHORT = [
  1.05, 1.05, 1.05, 1.1, 1.1, 1.1, 1.2500000000000002, 1.2500000000000002, 1.4000000000000004, 1.4500000000000004,
  1.5500000000000005, 1.8500000000000008, 1.9000000000000008, ...Array<number>(19).fill(2.000000000000001),
  2.1000000000000005, 2.1000000000000005, 2.2, 2.3499999999999996, 2.3499999999999996, 2.3499999999999996,
  2.3499999999999996, 2.3999999999999995, 2.3999999999999995, 2.6499999999999986, 2.6999999999999984,
  2.8999999999999977, 2.9499999999999975, 3.049999999999997, 3.049999999999997, 3.049999999999997,
];

export const FIXTURES: Fixture[] = [
  {
    name: 'Llama 2 7B',
    source: 'meta-llama/Llama-2-7b-hf config.json',
    config: { model_type: 'llama', num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 4096, rope_theta: 10000.0, rope_scaling: null },
    expect: { headDim: 128, rotaryDim: 128, layout: 'half', type: 'default', base: 10000 },
  },
  {
    name: 'Vicuna 7B v1.5 16k (linear)',
    source: 'lmsys/vicuna-7b-v1.5-16k config.json (no rope_theta: transformers assumes 10000)',
    config: { model_type: 'llama', num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 4096, rope_scaling: { factor: 4.0, type: 'linear' } },
    expect: { headDim: 128, rotaryDim: 128, layout: 'half', type: 'linear', base: 10000 },
  },
  {
    name: 'InternLM2.5 7B chat (dynamic NTK)',
    source: 'internlm/internlm2_5-7b-chat config.json (the language model of InternVL2-8B)',
    config: { model_type: 'internlm2', num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 32768, rope_theta: 1000000, rope_scaling: { factor: 2.0, type: 'dynamic' } },
    expect: { headDim: 128, rotaryDim: 128, layout: 'half', type: 'dynamic', base: 1000000 },
  },
  {
    name: 'Llama 3.1 8B (llama3)',
    source: 'meta-llama/Llama-3.1-8B config.json',
    config: {
      model_type: 'llama', num_hidden_layers: 32, hidden_size: 4096, num_attention_heads: 32, max_position_embeddings: 131072, rope_theta: 500000.0,
      rope_scaling: { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
    },
    expect: { headDim: 128, rotaryDim: 128, layout: 'half', type: 'llama3', base: 500000 },
  },
  {
    name: 'Llama 3.2 1B (llama3, factor 32)',
    source: 'meta-llama/Llama-3.2-1B config.json',
    config: {
      model_type: 'llama', num_hidden_layers: 16, hidden_size: 2048, num_attention_heads: 32, head_dim: 64, max_position_embeddings: 131072, rope_theta: 500000.0,
      rope_scaling: { factor: 32.0, high_freq_factor: 4.0, low_freq_factor: 1.0, original_max_position_embeddings: 8192, rope_type: 'llama3' },
    },
    expect: { headDim: 64, rotaryDim: 64, layout: 'half', type: 'llama3', base: 500000 },
  },
  {
    name: 'DeepSeek-V3 (yarn, mscale = mscale_all_dim)',
    source: 'deepseek-ai/DeepSeek-V3 config.json',
    config: {
      model_type: 'deepseek_v3', num_hidden_layers: 61, hidden_size: 7168, num_attention_heads: 128, qk_rope_head_dim: 64, max_position_embeddings: 163840, rope_theta: 10000,
      rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 1.0, mscale_all_dim: 1.0, original_max_position_embeddings: 4096, type: 'yarn' },
    },
    expect: { headDim: 64, rotaryDim: 64, layout: 'interleaved', type: 'yarn', base: 10000 },
  },
  {
    name: 'DeepSeek-V2-Lite (yarn, mscale 0.707)',
    source: 'deepseek-ai/DeepSeek-V2-Lite config.json',
    config: {
      model_type: 'deepseek_v2', num_hidden_layers: 27, hidden_size: 2048, num_attention_heads: 16, qk_rope_head_dim: 64, max_position_embeddings: 163840, rope_theta: 10000,
      rope_scaling: { beta_fast: 32, beta_slow: 1, factor: 40, mscale: 0.707, mscale_all_dim: 0.707, original_max_position_embeddings: 4096, type: 'yarn' },
    },
    expect: { headDim: 64, rotaryDim: 64, layout: 'interleaved', type: 'yarn', base: 10000 },
  },
  {
    name: 'gpt-oss 20B (yarn, truncate false)',
    source: 'openai/gpt-oss-20b config.json',
    config: {
      model_type: 'gpt_oss', num_hidden_layers: 24, hidden_size: 2880, num_attention_heads: 64, head_dim: 64, max_position_embeddings: 131072, rope_theta: 150000,
      rope_scaling: { beta_fast: 32.0, beta_slow: 1.0, factor: 32.0, original_max_position_embeddings: 4096, rope_type: 'yarn', truncate: false },
    },
    expect: { headDim: 64, rotaryDim: 64, layout: 'half', type: 'yarn', base: 150000 },
  },
  {
    name: 'Phi-3 vision 128k (LongRoPE, legacy type "su")',
    source: 'microsoft/Phi-3-vision-128k-instruct config.json (as quoted in the OmniGen pipeline tests of huggingface/diffusers)',
    config: {
      model_type: 'phi3', num_hidden_layers: 32, hidden_size: 3072, num_attention_heads: 32, max_position_embeddings: 131072, original_max_position_embeddings: 4096,
      rope_theta: 10000.0, rope_scaling: { long_factor: PHI3_LONG, short_factor: PHI3_SHORT, type: 'su' },
    },
    expect: { headDim: 96, rotaryDim: 96, layout: 'half', type: 'longrope', base: 10000 },
  },
  {
    name: 'Pythia 70M (GPT-NeoX, rotary_pct)',
    source: 'EleutherAI/pythia-70m config.json',
    config: { model_type: 'gpt_neox', num_hidden_layers: 6, hidden_size: 512, num_attention_heads: 8, rotary_pct: 0.25, rotary_emb_base: 10000, max_position_embeddings: 2048 },
    expect: { headDim: 64, rotaryDim: 16, layout: 'half', type: 'default', base: 10000 },
  },
  {
    name: 'GPT-J 6B (rotary_dim, adjacent pairs)',
    source: 'EleutherAI/gpt-j-6b config.json',
    config: { model_type: 'gptj', n_layer: 28, n_embd: 4096, n_head: 16, rotary_dim: 64, n_positions: 2048 },
    expect: { headDim: 256, rotaryDim: 64, layout: 'interleaved', type: 'default', base: 10000 },
  },
  {
    name: 'Phi-2 (partial_rotary_factor)',
    source: 'microsoft/phi-2 config.json',
    config: { model_type: 'phi', num_hidden_layers: 32, hidden_size: 2560, num_attention_heads: 32, partial_rotary_factor: 0.4, rope_theta: 10000.0, max_position_embeddings: 2048 },
    expect: { headDim: 80, rotaryDim: 32, layout: 'half', type: 'default', base: 10000 },
  },
  {
    name: 'Gemma 7B (head_dim larger than hidden / heads)',
    source: 'google/gemma-7b config.json',
    config: { model_type: 'gemma', num_hidden_layers: 28, hidden_size: 3072, num_attention_heads: 16, head_dim: 256, rope_theta: 10000.0, max_position_embeddings: 8192 },
    expect: { headDim: 256, rotaryDim: 256, layout: 'half', type: 'default', base: 10000 },
  },
  {
    name: 'GLM-4 9B chat (GLM pairs, half rotated)',
    source: 'THUDM/glm-4-9b-chat-hf config.json',
    config: { model_type: 'glm', num_hidden_layers: 40, hidden_size: 4096, num_attention_heads: 32, head_dim: 128, partial_rotary_factor: 0.5, rope_theta: 10000.0, max_position_embeddings: 131072 },
    expect: { headDim: 128, rotaryDim: 64, layout: 'interleaved', type: 'default', base: 10000 },
  },
];
