/**
 * RoPE parts of published Hugging Face `config.json` files of current models,
 * for the per-layer `ropeFromConfig` tests: only the keys that decide RoPE
 * (the others dropped), each with its source. Where no byte copy of the Hub
 * file was reachable, the source says what the values were rebuilt from.
 * `plan` and `ropes` are what the model's code does with each layer, worked
 * out by hand from the config and the model's modeling file: one character
 * per decoder layer, a key of `ropes` or '.' for a layer without RoPE.
 */
import type { MropeOptions, QueryScaling, RopeLayout, RopeScalingType } from 'posenc';

export interface LayerFixture {
  name: string;
  source: string;
  config: Record<string, unknown>;
  plan: string;
  ropes: Record<string, { headDim: number; rotaryDim: number; base: number; layout: RopeLayout; type: RopeScalingType; mrope?: MropeOptions }>;
  /** The query scaling, with the number of layers it applies to. */
  queryScaling?: Omit<QueryScaling, 'layers'> & { layers: number };
  /** Leaves of `config` that ropeFromConfig does not read (alternatives it does not need). */
  unread?: string[];
}

export const LAYER_FIXTURES: LayerFixture[] = [
  {
    name: "Gemma 3 1B (two bases)",
    source: "google/gemma-3-1b-it (config.json); text from GitHub mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py @01ced331a9e155c5ba4e7625b027a51bee611450, MODEL_PRESETS['gemma3_1b_it']",
    config: {"model_type": "gemma3_text", "num_hidden_layers": 26, "hidden_size": 1152, "num_attention_heads": 4, "head_dim": 256, "max_position_embeddings": 32768, "rope_local_base_freq": 10000, "rope_scaling": null, "rope_theta": 1000000, "sliding_window_pattern": 6},
    plan: "lllllglllllglllllglllllgll",
    ropes: {"l": {"headDim": 256, "rotaryDim": 256, "base": 10000, "layout": "half", "type": "default"}, "g": {"headDim": 256, "rotaryDim": 256, "base": 1e6, "layout": "half", "type": "default"}},
  },
  {
    name: "Gemma 3 4B (sparse text_config: class defaults)",
    source: "google/gemma-3-4b-it (config.json); text from find_string '\"mm_tokens_per_image\": 256,' -> two independent reproductions: read_file id 70224130757 (Rust test const GEMMA3_4B, 'The shape of google/gemma-3-4b-it's config.json, vision tower omitted') and id 70892509106 (C# test: 'The original gemma-3-4b-it's config.json names few keys: transformers' defaults fill the rest'). Index did not return r...",
    config: {"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "num_hidden_layers": 34, "hidden_size": 2560, "rope_scaling": {"factor": 8.0, "rope_type": "linear"}}},
    plan: "lllllglllllglllllglllllglllllgllll",
    ropes: {"l": {"headDim": 256, "rotaryDim": 256, "base": 10000, "layout": "half", "type": "default"}, "g": {"headDim": 256, "rotaryDim": 256, "base": 1e6, "layout": "half", "type": "linear"}},
    unread: ["text_config.hidden_size"],
  },
  {
    name: "Gemma 3 12B (re-saved: layer_types and both pattern keys)",
    source: "google/gemma-3-12b-it (architecture); this serialization is the one embedded for the Lightricks LTX-2 text encoder; text from find_string '\"intermediate_size\": 15360,' -> read_file id 3438080689 (Python: class LTX2TextEncoder(Gemma3ForConditionalGeneration) with the full config dict inline; repository/path not returned by the index) [reconstructed: Not google's raw file: it is a transformers-4....",
    config: {"model_type": "gemma3", "text_config": {"_sliding_window_pattern": 6, "head_dim": 256, "hidden_size": 3840, "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"], "max_position_embeddings": 131072, "model_type": "gemma3_text", "num_attention_heads": 16, "num_hidden_layers": 48, "rope_local_base_freq": 10000, "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "rope_theta": 1000000, "sliding_window_pattern": 6}},
    plan: "lllllglllllglllllglllllglllllglllllglllllglllllg",
    ropes: {"l": {"headDim": 256, "rotaryDim": 256, "base": 10000, "layout": "half", "type": "default"}, "g": {"headDim": 256, "rotaryDim": 256, "base": 1e6, "layout": "half", "type": "linear"}},
    unread: ["text_config._sliding_window_pattern", "text_config.sliding_window_pattern"],
  },
  {
    name: "Gemma 3 27B (linear x8 on global layers only)",
    source: "google/gemma-3-27b-it (config.json); text from GitHub NVIDIA/TensorRT-LLM tests/unittest/_torch/modeling/test_modeling_gemma3.py (newer version, read via find_string '\"query_pre_attn_scalar\": 168,' -> id 9101267843), GEMMA3_27B_CONFIG [reconstructed: Test copy with edits: source has num_hidden_layers 6 and sliding_window 4 (test shrink); restored here to 62 and 1024, which several other copies ...",
    config: {"model_type": "gemma3", "text_config": {"head_dim": 128, "hidden_size": 5376, "model_type": "gemma3_text", "num_attention_heads": 32, "num_hidden_layers": 62, "rope_scaling": {"factor": 8.0, "rope_type": "linear"}, "sliding_window_pattern": 6}},
    plan: "lllllglllllglllllglllllglllllglllllglllllglllllglllllglllllgll",
    ropes: {"l": {"headDim": 128, "rotaryDim": 128, "base": 10000, "layout": "half", "type": "default"}, "g": {"headDim": 128, "rotaryDim": 128, "base": 1e6, "layout": "half", "type": "linear"}},
  },
  {
    name: "Gemma 3n E4B",
    source: "google/gemma-3n-E4B(-it) (config.json); text from find_string '\"num_kv_shared_layers\": 15,' -> read_file id 58141470368 (Python test 'Parse a minimal config.json' using E4B text_config values) and id 60700341801 ('Reference raw config.json dicts for 4 oracle models': _GEMMA_3N_E4B_RAW_CONFIG with layer_types ([sliding]*4+[full])*7). Repository/path not returned. [reconstructed: Assembled from t...",
    config: {"model_type": "gemma3n", "text_config": {"model_type": "gemma3n_text", "num_hidden_layers": 35, "hidden_size": 2048, "num_attention_heads": 8, "head_dim": 256, "max_position_embeddings": 32768, "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"], "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0}},
    plan: "llllgllllgllllgllllgllllgllllgllllg",
    ropes: {"l": {"headDim": 256, "rotaryDim": 256, "base": 10000, "layout": "half", "type": "default"}, "g": {"headDim": 256, "rotaryDim": 256, "base": 1e6, "layout": "half", "type": "default"}},
  },
  {
    name: "Gemma 4 31B (rope_parameters per layer type, proportional)",
    source: "google/gemma-4-31b-it (values taken from the NVFP4 repack nvidia/Gemma-4-31B-IT-NVFP4 @4135a98a, config.json); text from find_string '\"hidden_size\": 5376,' -> read_file id 70302083267 (a C++ test header 'gemma4_test' kConfig31b; repository/path not returned by the index). Same text_config RoPE block corroborated by several other copies (find_string '\"rope_type\": \"proportional\"', '\"global_head_d...",
    config: {"model_type": "gemma4", "text_config": {"model_type": "gemma4_text", "num_hidden_layers": 60, "hidden_size": 5376, "num_attention_heads": 32, "head_dim": 256, "global_head_dim": 512, "max_position_embeddings": 262144, "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"], "rope_parameters": {"full_attention": {"partial_rotary_factor": 0.25, "rope_theta": 1000000.0, "rope_type": "proportional"}, "sliding_attention": {"rope_theta": 10000.0, "rope_type": "default"}}}},
    plan: "lllllglllllglllllglllllglllllglllllglllllglllllglllllglllllg",
    ropes: {"l": {"headDim": 256, "rotaryDim": 256, "base": 10000, "layout": "half", "type": "default"}, "g": {"headDim": 512, "rotaryDim": 512, "base": 1e6, "layout": "half", "type": "proportional"}},
  },
  {
    name: "Llama 4 Scout (NoPE every 4th layer, llama3, temperature tuning)",
    source: "meta-llama/Llama-4-Scout-17B-16E (config.json); text from search corpus=issues: https://github.com/AMD-AGI/Primus/pull/165 (PR description pastes https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E/blob/main/config.json verbatim; excerpt cut off after router_jitter_noise, so keys after that — and vision_config — were not seen)",
    config: {"model_type": "llama4", "text_config": {"model_type": "llama4_text", "num_hidden_layers": 48, "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128, "max_position_embeddings": 262144, "no_rope_layers": [], "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 500000.0}},
    plan: "aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 500000.0, "layout": "interleaved", "type": "llama3"}},
    queryScaling: {"source": "llama4", "beta": 0.1, "length": 8192, "shift": 1, "layers": 12},
  },
  {
    name: "Llama 4 Maverick (no scaling)",
    source: "meta-llama/Llama-4-Maverick-17B-128E(-Instruct) (config.json) — exact variant not stated by the source; text from GitHub NVIDIA/TensorRT-LLM tests/unittest/_torch/modeling/test_modeling_llama_min_latency.py @0074a2241768e04f77f3ffa28c69bd210a0f11c9, LLAMA_4_MAVERICK_TWO_LAYER_CONFIG ('This is Llama4 Maverick config but with only 2 layers') [reconstructed: Near-verbatim copy edited by the test a...",
    config: {"model_type": "llama4", "text_config": {"model_type": "llama4_text", "num_hidden_layers": 48, "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128, "max_position_embeddings": 1048576, "rope_scaling": null, "rope_theta": 500000.0}},
    plan: "aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 500000.0, "layout": "interleaved", "type": "default"}},
    queryScaling: {"source": "llama4", "beta": 0.1, "length": 8192, "shift": 1, "layers": 12},
  },
  {
    name: "SmolLM3 3B (no_rope_layers)",
    source: "HuggingFaceTB/SmolLM3-3B (config.json); text from find_repos 'SmolLM3' -> GitHub fetchwiki/HuggingFaceTB-SmolLM3-3B config.json @24f7882f92998ee0e691d105ade637afc3e5171f (a committed copy of the HF config.json, transformers 4.54.0.dev0). Earlier reproductions agreeing: find_string ids 59415072007, 66655745670, 71621538784.",
    config: {"model_type": "smollm3", "num_hidden_layers": 36, "hidden_size": 2048, "num_attention_heads": 16, "max_position_embeddings": 65536, "layer_types": ["full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention"], "no_rope_layer_interval": 4, "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0], "rope_scaling": null, "rope_theta": 5000000.0},
    plan: "aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 5000000.0, "layout": "half", "type": "default"}},
  },
  {
    name: "Qwen3-Coder-Next (qwen3_next: linear attention, partial 0.25)",
    source: "Qwen/Qwen3-Coder-Next (values transcribed from the quantized re-releases RedHatAI/Qwen3-Coder-Next-NVFP4 and Intel/Qwen3-Coder-Next-int4-AutoRound); text from find_string '\"full_attention_interval\": 4,' -> read_file id 70175107227 ('The release's config.json, transcribed'); second agreeing transcription via find_string '\"architectures\": [\"Qwen3NextForCausalLM\"]' -> id 70106050264. Repository/pa...",
    config: {"model_type": "qwen3_next", "num_hidden_layers": 48, "hidden_size": 2048, "num_attention_heads": 16, "head_dim": 256, "max_position_embeddings": 262144, "full_attention_interval": 4, "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention"], "partial_rotary_factor": 0.25, "rope_scaling": null, "rope_theta": 5000000},
    plan: "...a...a...a...a...a...a...a...a...a...a...a...a",
    ropes: {"a": {"headDim": 256, "rotaryDim": 64, "base": 5000000.0, "layout": "half", "type": "default"}},
    unread: ["full_attention_interval"],
  },
  {
    name: "EXAONE 4.0 32B (global layers without RoPE)",
    source: "LGAI-EXAONE/EXAONE-4.0-32B (config.json); text from GitHub NVIDIA/TensorRT-LLM tests/unittest/_torch/modeling/test_modeling_exaone4.py @0acdecb2c3591335ecd56a8d3113ac84a1d995ff, EXAONE4_SINGLE_LAYER_CONFIG [reconstructed: Test copy with commented edits: num_hidden_layers 32 in source ('we use 32 instead of 64') -> restored 64; sliding_window 4 in source ('4 instead of 4096') -> restored 4096. T...",
    config: {"model_type": "exaone4", "num_hidden_layers": 64, "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128, "max_position_embeddings": 131072, "rope_scaling": {"factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 1000000, "sliding_window": 4096},
    plan: "aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.aaa.",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 1e6, "layout": "half", "type": "llama3"}},
  },
  {
    name: "EXAONE 4.0 1.2B (no sliding window: RoPE everywhere)",
    source: "LGAI-EXAONE/EXAONE-4.0-1.2B (architecture); this is a derived compressed-tensors export; text from find_repos 'EXAONE-4' -> GitHub his0si/EXAONE-4.0-1.2B model/config.json @1840ff905c28f1484fa9321ba9535d525ecfe998; identical RoPE/attention keys in GitHub leegongman/lg-exaone-4.0-quantization sources/scheme_vLLM_omniquant/OmniQuant_EXAONE_v4/config.json @fb67eea8d0ff5d8f35aae866cda0be5dfe0e25f2",
    config: {"model_type": "exaone4", "num_hidden_layers": 30, "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 64, "max_position_embeddings": 65536, "layer_types": ["full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention"], "rope_scaling": {"factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}, "rope_theta": 1000000.0, "sliding_window": null, "sliding_window_pattern": null},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 64, "rotaryDim": 64, "base": 1e6, "layout": "half", "type": "llama3"}},
  },
  {
    name: "gpt-oss 20B (alternating layer types, one RoPE)",
    source: "openai/gpt-oss-20b (config.json); text from find_files path='gpt-oss-20b/config.json' -> GitHub jihengzhang/jihz-gpt-oss-20b gpt-oss-20b/config.json @7ec89800d2b55da8f65106e8a6f794b7b6433df8 (a committed copy of the HF config.json)",
    config: {"model_type": "gpt_oss", "num_hidden_layers": 24, "hidden_size": 2880, "num_attention_heads": 64, "head_dim": 64, "max_position_embeddings": 131072, "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention"], "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": false}, "rope_theta": 150000},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 64, "rotaryDim": 64, "base": 150000, "layout": "half", "type": "yarn"}},
  },
  {
    name: "OLMo 3 7B (YaRN on full layers, plain on sliding)",
    source: "allenai/Olmo-3-7B-Instruct / -Think (config.json) — exact repo not stated by the sources; text from find_string '\"model_type\": \"olmo3\",' -> read_file id 71024905976 (C++ test Olmo3LayerPatternAndYarn: rope_theta 500000, sliding_window 4096, 3 sliding + 1 full, yarn rope_scaling with attention_factor) and id 60797780217 (Swift test 'olmo-3-7b' shape: 32 layers, 32 heads, max_position_embeddings ...",
    config: {"model_type": "olmo3", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 65536, "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention", "sliding_attention", "sliding_attention", "sliding_attention", "full_attention"], "rope_scaling": {"attention_factor": 1.2079441541679836, "beta_fast": 32.0, "beta_slow": 1.0, "factor": 8.0, "original_max_position_embeddings": 8192, "rope_type": "yarn"}, "rope_theta": 500000},
    plan: "lllglllglllglllglllglllglllglllg",
    ropes: {"l": {"headDim": 128, "rotaryDim": 128, "base": 500000.0, "layout": "half", "type": "default"}, "g": {"headDim": 128, "rotaryDim": 128, "base": 500000.0, "layout": "half", "type": "yarn"}},
  },
  {
    name: "Ministral 3 3B (v5 rope_parameters, llama_4_scaling_beta)",
    source: "mistralai/Ministral-3-3B-Reasoning-2512 (config.json); text from GitHub mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py @01ced331a9e155c5ba4e7625b027a51bee611450, MODEL_PRESETS['ministral3_3b_reasoning_2512']",
    config: {"model_type": "mistral3", "text_config": {"model_type": "ministral3", "num_hidden_layers": 26, "hidden_size": 3072, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 262144, "rope_parameters": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 16.0, "llama_4_scaling_beta": 0.1, "mscale": 1.0, "mscale_all_dim": 1.0, "original_max_position_embeddings": 16384, "rope_theta": 1000000.0, "rope_type": "yarn", "type": "yarn"}}},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 1e6, "layout": "half", "type": "yarn"}},
    queryScaling: {"source": "llama_4_scaling_beta", "beta": 0.1, "length": 16384, "shift": 0, "layers": 26},
  },
  {
    name: "Hunyuan Hy-MT2 1.8B (dynamic with alpha)",
    source: "tencent/Hy-MT2-1.8B (config.json; also mlx-community/Hy-MT2-1.8B-4bit); text from find_string '\"alpha\": 1000.0,' -> read_file id 55059126004 (test '_hymt_config_dict: Mirrors tencent/Hy-MT2-1.8B / mlx-community/Hy-MT2-1.8B-4bit config.json'). Repository/path not returned. [reconstructed: A test 'mirror' of the config, not a byte copy; it may have dropped keys (mlx-lm's hunyuan_v1_dense test fix...",
    config: {"model_type": "hunyuan_v1_dense", "num_hidden_layers": 32, "hidden_size": 2048, "num_attention_heads": 16, "head_dim": 128, "rope_theta": 10000.0, "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0, "mscale": 1.0}},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 10000, "layout": "half", "type": "ntk"}},
  },
  {
    name: "Apertus 8B (llama3, rope_type and type agree)",
    source: "swiss-ai/Apertus-8B(-Instruct-2509) (config.json); text from find_string '\"ApertusForCausalLM\"' -> read_file id 57924711764 (ollama Go test TestParseConfigApertus8B with the full config; imports github.com/ollama/ollama/x/...). Repository/path not returned. [reconstructed: Test copy; looks verbatim (keeps the odd INTEGER llama3 factors 8 / 4 / 1 and BOTH 'rope_type' and 'type' = 'llama3'), but ...",
    config: {"model_type": "apertus", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 65536, "rope_theta": 12000000, "rope_scaling": {"factor": 8, "high_freq_factor": 4, "low_freq_factor": 1, "original_max_position_embeddings": 8192, "rope_type": "llama3", "type": "llama3"}},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 12000000.0, "layout": "half", "type": "llama3"}},
  },
  {
    name: "Phi-4-mini (LongRoPE, partial 0.75, implied factor)",
    source: "microsoft/Phi-4-mini-instruct (config.json); text from GitHub mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py @01ced331a9e155c5ba4e7625b027a51bee611450, MODEL_PRESETS['phi-4'] (_name_or_path 'Phi-4-mini-instruct')",
    config: {"model_type": "phi3", "num_hidden_layers": 32, "hidden_size": 3072, "num_attention_heads": 24, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "partial_rotary_factor": 0.75, "rope_scaling": {"long_factor": [1, 1.118320672, 1.250641126, 1.398617824, 1.564103225, 1.74916897, 1.956131817, 2.187582649, 2.446418898, 2.735880826, 3.059592084, 3.421605075, 3.826451687, 4.279200023, 4.785517845, 5.351743533, 5.984965424, 6.693110555, 7.485043894, 8.370679318, 9.36110372, 10.4687158, 11.70738129, 13.09260651, 14.64173252, 16.37415215, 18.31155283, 20.47818807, 22.90118105, 25.61086418, 28.64115884, 32.03, 32.1, 32.13, 32.23, 32.6, 32.61, 32.64, 32.66, 32.7, 32.71, 32.93, 32.97, 33.28, 33.49, 33.5, 44.16, 47.77], "short_factor": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], "type": "longrope"}, "rope_theta": 10000.0},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 96, "base": 10000, "layout": "half", "type": "longrope"}},
  },
  {
    name: "Phi-3.5-mini (LongRoPE)",
    source: "microsoft/Phi-3.5-mini-instruct (config.json); text from GitHub mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py @01ced331a9e155c5ba4e7625b027a51bee611450, MODEL_PRESETS['phi-3_5'] (_name_or_path 'Phi-3.5-mini-instruct')",
    config: {"model_type": "phi3", "num_hidden_layers": 32, "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "rope_scaling": {"long_factor": [1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601, 1.5899999141693115, 1.600000023841858, 1.6200000047683716, 2.620000123977661, 3.2300000190734863, 3.2300000190734863, 4.789999961853027, 7.400000095367432, 7.700000286102295, 9.09000015258789, 12.199999809265137, 17.670000076293945, 24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523, 32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992, 50.340003967285156, 50.45000457763672, 57.55000305175781, 57.93000411987305, 58.21000289916992, 60.1400032043457, 62.61000442504883, 62.62000274658203, 62.71000289916992, 63.1400032043457, 63.1400032043457, 63.77000427246094, 63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688, 64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938, 64.4800033569336, 64.51000213623047, 64.52999877929688, 64.83999633789062], "short_factor": [1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0699999332427979, 1.0999999046325684, 1.1099998950958252, 1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378, 1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083, 1.8499997854232788, 1.8799997568130493, 1.9099997282028198, 1.9399996995925903, 1.9899996519088745, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0799996852874756, 2.0899996757507324, 2.189999580383301, 2.2199995517730713, 2.5899994373321533, 2.729999542236328, 2.749999523162842, 2.8399994373321533], "type": "longrope"}, "rope_theta": 10000.0},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 96, "rotaryDim": 96, "base": 10000, "layout": "half", "type": "longrope"}},
  },
  {
    name: "GLM-4.5-Air (glm4_moe: half layout, partial 0.5)",
    source: "zai-org/GLM-4.5-Air (config.json) — values from a conversion script's CONFIG dict; text from find_string '\"model_type\": \"glm4_moe\",' -> read_file id 54377337437 (convert_to_hf.py: 'Internal utility to convert a proprietary GLM-4-MoE checkpoint into Hugging Face format', CONFIG for Glm4MoeForCausalLM, transformers_version '4.54.0dev'). Repository/path not returned. [reconstructed: Dims match GLM...",
    config: {"model_type": "glm4_moe", "num_hidden_layers": 46, "hidden_size": 4096, "num_attention_heads": 96, "head_dim": 128, "max_position_embeddings": 131072, "partial_rotary_factor": 0.5, "rope_scaling": null, "rope_theta": 10000},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 64, "base": 10000, "layout": "half", "type": "default"}},
  },
  {
    name: "Mistral-Nemo (head_dim below hidden / heads)",
    source: "mistralai/Mistral-Nemo-Instruct-2407 (config.json); text from find_string '\"max_position_embeddings\": 1024000,' -> read_file id 62629770617 (Rust test test_mistral_config_parse_nemo), corroborated by id 3874440882 (NeMo MistralNeMoConfig12B comment '\"max_position_embeddings\": 1024000') and id 224192540 (Pixtral-12B text_config with the same Nemo dims). Repository/path not returned. [reconstruct...",
    config: {"model_type": "mistral", "num_hidden_layers": 40, "hidden_size": 5120, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 1024000, "rope_theta": 1000000.0},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 1e6, "layout": "half", "type": "default"}},
  },
  {
    name: "DeepSeek-V3 (no rope_theta)",
    source: "deepseek-ai/DeepSeek-V3 (config.json); text from search corpus=issues: https://github.com/NVIDIA/Megatron-LM/issues/1418 (comment quoting https://huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json: rope_scaling block + max_position_embeddings 163840). Dimensions from find_string '\"n_routed_experts\": 256,' -> id 1025404803 (verl flops test: DeepSeek-Prover-V2-671B config, same architec...",
    config: {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64, "max_position_embeddings": 163840, "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096, "type": "yarn"}},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 64, "rotaryDim": 64, "base": 10000, "layout": "interleaved", "type": "yarn"}},
  },
  {
    name: "Qwen3-30B-A3B (MoE)",
    source: "Qwen/Qwen3-30B-A3B (config.json); text from GitHub citsjtu2020/LLM-Prof sglang/Model_Config.md @8434c8d19c396b2f95d92a67845a7c0a0e0dd512 (section 'Qwen3-30B-A3B', full JSON copy, transformers 4.51.0)",
    config: {"model_type": "qwen3_moe", "num_hidden_layers": 48, "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 40960, "rope_scaling": null, "rope_theta": 1000000.0},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 1e6, "layout": "half", "type": "default"}},
  },
  {
    name: "Qwen2.5 7B Instruct with its model card's YaRN block",
    source: "Qwen/Qwen2.5-7B-Instruct (config.json: 28 layers, hidden 3584, 28 heads, rope_theta 1e6, max_position_embeddings 32768), plus the rope_scaling block the model card says to add for inputs past 32,768 tokens ({factor 4.0, original_max_position_embeddings 32768, type yarn})",
    config: {"model_type": "qwen2", "num_hidden_layers": 28, "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0, "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}},
    plan: "yyyyyyyyyyyyyyyyyyyyyyyyyyyy",
    ropes: {"y": {"headDim": 128, "rotaryDim": 128, "base": 1e6, "layout": "half", "type": "yarn"}},
  },
  {
    name: "Qwen2.5-VL 7B (M-RoPE in chunks, keys at both levels)",
    source: "Qwen/Qwen2.5-VL-7B-Instruct (architecture); this serialization matches the text_encoder/config.json shipped with Qwen-Image-style pipelines; text from find_string '\"tokens_per_second\": 2,' -> read_file id 1959876389 (Python QWEN2_5_VL_CONFIG_JSON string in a HunyuanImage-2.1 text-encoder loader; repository/path not returned). A second identical 4.53.1 copy: id 59734464781.",
    config: {"model_type": "qwen2_5_vl", "num_hidden_layers": 28, "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 128000, "rope_scaling": {"mrope_section": [16, 24, 24], "rope_type": "default", "type": "default"}, "rope_theta": 1000000.0, "text_config": {"model_type": "qwen2_5_vl_text", "num_hidden_layers": 28, "hidden_size": 3584, "num_attention_heads": 28, "layer_types": ["full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention"], "max_position_embeddings": 128000, "rope_scaling": {"mrope_section": [16, 24, 24], "rope_type": "default", "type": "default"}, "rope_theta": 1000000.0}},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 1e6, "layout": "half", "type": "default", "mrope": {"section": [16, 24, 24], "interleaved": false}}},
    // The top level repeats text_config's scaling (checked equal); the text model's copy is the one read.
    unread: ["rope_scaling.mrope_section", "rope_scaling.rope_type", "rope_scaling.type"],
  },
  {
    name: "Qwen2-VL 7B (M-RoPE in chunks)",
    source: "Qwen/Qwen2-VL-7B-Instruct (architecture); this is a derived export, not the Hub file; text from search corpus=issues: https://github.com/modelscope/ms-swift/issues/2340 (full exported config.json pasted). The original Hub file is quoted in https://github.com/huggingface/transformers/issues/33401 but the stored excerpt stops after the first keys. [reconstructed: Verbatim copy of a DERIVED config...",
    config: {"model_type": "qwen2_vl", "num_hidden_layers": 28, "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 32768, "rope_scaling": {"mrope_section": [16, 24, 24], "rope_type": "default", "type": "default"}, "rope_theta": 1000000.0},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 1e6, "layout": "half", "type": "default", "mrope": {"section": [16, 24, 24], "interleaved": false}}},
  },
  {
    name: "Qwen3-VL 8B (interleaved M-RoPE)",
    source: "Qwen/Qwen3-VL-8B-Instruct (config.json); text from find_string '\"mrope_section\": [24, 20, 20],' -> several agreeing reproductions: id 61007766600 (qwen3_vl_text_config: head_dim 128, hidden 4096, 32 heads, 36 layers, rope_theta 5e6, rope_scaling with mrope_interleaved), id 70552226956 (text_config with max_position_embeddings 262144), id 54687543601 (source config.json with rope_theta 5_000_000...",
    config: {"model_type": "qwen3_vl", "text_config": {"model_type": "qwen3_vl_text", "num_hidden_layers": 36, "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 262144, "rope_scaling": {"mrope_interleaved": true, "mrope_section": [24, 20, 20], "rope_type": "default"}, "rope_theta": 5000000}},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 5000000.0, "layout": "half", "type": "default", "mrope": {"section": [24, 20, 20], "interleaved": true}}},
  },
  {
    name: "Qwen3-VL 30B-A3B (MoE, interleaved M-RoPE)",
    source: "Qwen/Qwen3-VL-30B-A3B-Instruct (config.json) — values taken from a copy whose model_type/architecture were renamed to 'omega17_vl_exp'; text from find_string '\"mrope_interleaved\": true' -> read_file id 49726838099 (Python dict: architectures ['Omega17VLExpForConditionalGeneration'], model_type 'omega17_vl_exp', transformers_version 4.57.1). Repository/path not returned. [reconstructed: Every nu...",
    config: {"model_type": "qwen3_vl_moe", "text_config": {"model_type": "qwen3_vl_moe_text", "num_hidden_layers": 48, "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 262144, "rope_scaling": {"mrope_interleaved": true, "mrope_section": [24, 20, 20], "rope_type": "default"}, "rope_theta": 5000000}},
    plan: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    ropes: {"a": {"headDim": 128, "rotaryDim": 128, "base": 5000000.0, "layout": "half", "type": "default", "mrope": {"section": [24, 20, 20], "interleaved": true}}},
  },
  {
    name: "Qwen3.5 9B (interleaved M-RoPE over a quarter of the head, linear attention)",
    source: "Qwen/Qwen3.5-9B (config.json); text from find_string '\"mrope_interleaved\": true,' -> read_file id 71387934500 (test 'real Qwen3.5 9B config as a fixture', TEXT_CONFIG / VISION_CONFIG); same rope_parameters block in several other copies (ids 70254044795, 59300101109, 65741976164). Repository/path not returned. [reconstructed: Bonus fixture for the transformers-5 layout: text_config.rope_paramete...",
    config: {"model_type": "qwen3_5", "text_config": {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 16, "head_dim": 256, "full_attention_interval": 4, "layer_types": ["linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention", "linear_attention", "linear_attention", "linear_attention", "full_attention"], "rope_parameters": {"mrope_interleaved": true, "mrope_section": [11, 11, 10], "rope_type": "default", "rope_theta": 10000000, "partial_rotary_factor": 0.25}}},
    plan: "...a...a...a...a...a...a...a...a",
    ropes: {"a": {"headDim": 256, "rotaryDim": 64, "base": 10000000.0, "layout": "half", "type": "default", "mrope": {"section": [11, 11, 10], "interleaved": true}}},
    unread: ["text_config.full_attention_interval"],
  },
];
