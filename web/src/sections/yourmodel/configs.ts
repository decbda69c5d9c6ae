// Published config.json files of current models, as the "Your model" section
// offers them: only the keys that decide RoPE (everything else dropped), each
// with the Hub repository it belongs to and, where the values reached us
// through a copy rather than the Hub file itself, how. The tests read every
// one of them against a float64 port of transformers' per-layer RoPE
// (tests/ts/hf-layers.test.ts).

/** One shipped config: `id` is its URL value, `name` the label, `repo` the Hub repository. */
export interface PublishedConfig {
  id: string;
  name: string;
  repo: string;
  /** How the values were obtained, when not from the Hub file itself. */
  how?: { en: string; zh: string };
  config: Record<string, unknown>;
}

export const PUBLISHED_CONFIGS: readonly PublishedConfig[] = [
  {
    id: 'llama-2-7b', name: 'Llama 2 7B', repo: 'meta-llama/Llama-2-7b-hf',
    config: {"model_type":"llama","num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":4096,"rope_theta":10000,"rope_scaling":null},
  },
  {
    id: 'llama-3.1-8b', name: 'Llama 3.1 8B', repo: 'meta-llama/Llama-3.1-8B',
    config: {"model_type":"llama","num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":131072,"rope_theta":500000,"rope_scaling":{"factor":8,"low_freq_factor":1,"high_freq_factor":4,"original_max_position_embeddings":8192,"rope_type":"llama3"}},
  },
  {
    id: 'llama-3.2-1b', name: 'Llama 3.2 1B', repo: 'meta-llama/Llama-3.2-1B',
    config: {"model_type":"llama","num_hidden_layers":16,"hidden_size":2048,"num_attention_heads":32,"head_dim":64,"max_position_embeddings":131072,"rope_theta":500000,"rope_scaling":{"factor":32,"high_freq_factor":4,"low_freq_factor":1,"original_max_position_embeddings":8192,"rope_type":"llama3"}},
  },
  {
    id: 'llama-4-scout', name: 'Llama 4 Scout', repo: 'meta-llama/Llama-4-Scout-17B-16E', how: { en: 'as pasted in a public pull request', zh: '取自一个公开 pull request 中粘贴的原文' },
    config: {"model_type":"llama4","text_config":{"model_type":"llama4_text","num_hidden_layers":48,"hidden_size":5120,"num_attention_heads":40,"head_dim":128,"max_position_embeddings":262144,"no_rope_layers":[],"rope_scaling":{"factor":16,"high_freq_factor":1,"low_freq_factor":1,"original_max_position_embeddings":8192,"rope_type":"llama3"},"rope_theta":500000}},
  },
  {
    id: 'qwen2.5-7b-yarn', name: 'Qwen2.5 7B + YaRN', repo: 'Qwen/Qwen2.5-7B-Instruct', how: { en: 'with the rope_scaling block its model card gives for inputs past 32,768 tokens', zh: '加上模型卡片为超过 32,768 个 token 的输入给出的 rope_scaling 设置' },
    config: {"model_type":"qwen2","num_hidden_layers":28,"hidden_size":3584,"num_attention_heads":28,"max_position_embeddings":32768,"rope_theta":1000000,"rope_scaling":{"factor":4,"original_max_position_embeddings":32768,"type":"yarn"}},
  },
  {
    id: 'qwen3-30b-a3b', name: 'Qwen3 30B-A3B', repo: 'Qwen/Qwen3-30B-A3B', how: { en: 'from a full copy in a public repository', zh: '取自一个公开仓库中的完整副本' },
    config: {"model_type":"qwen3_moe","num_hidden_layers":48,"hidden_size":2048,"num_attention_heads":32,"head_dim":128,"max_position_embeddings":40960,"rope_scaling":null,"rope_theta":1000000},
  },
  {
    id: 'qwen2.5-vl-7b', name: 'Qwen2.5-VL 7B', repo: 'Qwen/Qwen2.5-VL-7B-Instruct', how: { en: 'from a re-saved copy', zh: '取自一份重新保存的副本' },
    config: {"model_type":"qwen2_5_vl","num_hidden_layers":28,"hidden_size":3584,"num_attention_heads":28,"max_position_embeddings":128000,"rope_scaling":{"mrope_section":[16,24,24],"rope_type":"default","type":"default"},"rope_theta":1000000,"text_config":{"model_type":"qwen2_5_vl_text","num_hidden_layers":28,"hidden_size":3584,"num_attention_heads":28,"layer_types":["full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention"],"max_position_embeddings":128000,"rope_scaling":{"mrope_section":[16,24,24],"rope_type":"default","type":"default"},"rope_theta":1000000}},
  },
  {
    id: 'qwen3-vl-8b', name: 'Qwen3-VL 8B', repo: 'Qwen/Qwen3-VL-8B-Instruct', how: { en: 'from agreeing copies', zh: '取自几份一致的副本' },
    config: {"model_type":"qwen3_vl","text_config":{"model_type":"qwen3_vl_text","num_hidden_layers":36,"hidden_size":4096,"num_attention_heads":32,"head_dim":128,"max_position_embeddings":262144,"rope_scaling":{"mrope_interleaved":true,"mrope_section":[24,20,20],"rope_type":"default"},"rope_theta":5000000}},
  },
  {
    id: 'qwen3.5-9b', name: 'Qwen3.5 9B', repo: 'Qwen/Qwen3.5-9B', how: { en: 'from a copy used as a test fixture', zh: '取自一份测试用的副本' },
    config: {"model_type":"qwen3_5","text_config":{"num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":16,"head_dim":256,"full_attention_interval":4,"layer_types":["linear_attention","linear_attention","linear_attention","full_attention","linear_attention","linear_attention","linear_attention","full_attention","linear_attention","linear_attention","linear_attention","full_attention","linear_attention","linear_attention","linear_attention","full_attention","linear_attention","linear_attention","linear_attention","full_attention","linear_attention","linear_attention","linear_attention","full_attention","linear_attention","linear_attention","linear_attention","full_attention","linear_attention","linear_attention","linear_attention","full_attention"],"rope_parameters":{"mrope_interleaved":true,"mrope_section":[11,11,10],"rope_type":"default","rope_theta":10000000,"partial_rotary_factor":0.25}}},
  },
  {
    id: 'gemma-3-1b', name: 'Gemma 3 1B', repo: 'google/gemma-3-1b-it', how: { en: 'from a copy in a public repository', zh: '取自一个公开仓库中的副本' },
    config: {"model_type":"gemma3_text","num_hidden_layers":26,"hidden_size":1152,"num_attention_heads":4,"head_dim":256,"max_position_embeddings":32768,"rope_local_base_freq":10000,"rope_scaling":null,"rope_theta":1000000,"sliding_window_pattern":6},
  },
  {
    id: 'gemma-3-27b', name: 'Gemma 3 27B', repo: 'google/gemma-3-27b-it', how: { en: 'rebuilt from a test copy (layer count restored)', zh: '由一份测试副本还原（层数已恢复）' },
    config: {"model_type":"gemma3","text_config":{"head_dim":128,"hidden_size":5376,"model_type":"gemma3_text","num_attention_heads":32,"num_hidden_layers":62,"rope_scaling":{"factor":8,"rope_type":"linear"},"sliding_window_pattern":6}},
  },
  {
    id: 'gemma-4-31b', name: 'Gemma 4 31B', repo: 'google/gemma-4-31b-it', how: { en: 'values from a re-packed release', zh: '数值取自一个重新打包的发布版本' },
    config: {"model_type":"gemma4","text_config":{"model_type":"gemma4_text","num_hidden_layers":60,"hidden_size":5376,"num_attention_heads":32,"head_dim":256,"global_head_dim":512,"max_position_embeddings":262144,"layer_types":["sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","sliding_attention","full_attention"],"rope_parameters":{"full_attention":{"partial_rotary_factor":0.25,"rope_theta":1000000,"rope_type":"proportional"},"sliding_attention":{"rope_theta":10000,"rope_type":"default"}}}},
  },
  {
    id: 'phi-3.5-mini', name: 'Phi-3.5 mini', repo: 'microsoft/Phi-3.5-mini-instruct', how: { en: 'from a copy in a public repository', zh: '取自一个公开仓库中的副本' },
    config: {"model_type":"phi3","num_hidden_layers":32,"hidden_size":3072,"num_attention_heads":32,"max_position_embeddings":131072,"original_max_position_embeddings":4096,"rope_scaling":{"long_factor":[1.0800000429153442,1.1100000143051147,1.1399999856948853,1.340000033378601,1.5899999141693115,1.600000023841858,1.6200000047683716,2.620000123977661,3.2300000190734863,3.2300000190734863,4.789999961853027,7.400000095367432,7.700000286102295,9.09000015258789,12.199999809265137,17.670000076293945,24.46000099182129,28.57000160217285,30.420001983642578,30.840002059936523,32.590003967285156,32.93000411987305,42.320003509521484,44.96000289916992,50.340003967285156,50.45000457763672,57.55000305175781,57.93000411987305,58.21000289916992,60.1400032043457,62.61000442504883,62.62000274658203,62.71000289916992,63.1400032043457,63.1400032043457,63.77000427246094,63.93000411987305,63.96000289916992,63.970001220703125,64.02999877929688,64.06999969482422,64.08000183105469,64.12000274658203,64.41000366210938,64.4800033569336,64.51000213623047,64.52999877929688,64.83999633789062],"short_factor":[1,1.0199999809265137,1.0299999713897705,1.0299999713897705,1.0499999523162842,1.0499999523162842,1.0499999523162842,1.0499999523162842,1.0499999523162842,1.0699999332427979,1.0999999046325684,1.1099998950958252,1.1599998474121094,1.1599998474121094,1.1699998378753662,1.2899998426437378,1.339999794960022,1.679999828338623,1.7899998426437378,1.8199998140335083,1.8499997854232788,1.8799997568130493,1.9099997282028198,1.9399996995925903,1.9899996519088745,2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0799996852874756,2.0899996757507324,2.189999580383301,2.2199995517730713,2.5899994373321533,2.729999542236328,2.749999523162842,2.8399994373321533],"type":"longrope"},"rope_theta":10000},
  },
  {
    id: 'phi-4-mini', name: 'Phi-4 mini', repo: 'microsoft/Phi-4-mini-instruct', how: { en: 'from a copy in a public repository', zh: '取自一个公开仓库中的副本' },
    config: {"model_type":"phi3","num_hidden_layers":32,"hidden_size":3072,"num_attention_heads":24,"max_position_embeddings":131072,"original_max_position_embeddings":4096,"partial_rotary_factor":0.75,"rope_scaling":{"long_factor":[1,1.118320672,1.250641126,1.398617824,1.564103225,1.74916897,1.956131817,2.187582649,2.446418898,2.735880826,3.059592084,3.421605075,3.826451687,4.279200023,4.785517845,5.351743533,5.984965424,6.693110555,7.485043894,8.370679318,9.36110372,10.4687158,11.70738129,13.09260651,14.64173252,16.37415215,18.31155283,20.47818807,22.90118105,25.61086418,28.64115884,32.03,32.1,32.13,32.23,32.6,32.61,32.64,32.66,32.7,32.71,32.93,32.97,33.28,33.49,33.5,44.16,47.77],"short_factor":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"type":"longrope"},"rope_theta":10000},
  },
  {
    id: 'deepseek-v3', name: 'DeepSeek-V3', repo: 'deepseek-ai/DeepSeek-V3',
    config: {"model_type":"deepseek_v3","num_hidden_layers":61,"hidden_size":7168,"num_attention_heads":128,"qk_rope_head_dim":64,"max_position_embeddings":163840,"rope_theta":10000,"rope_scaling":{"beta_fast":32,"beta_slow":1,"factor":40,"mscale":1,"mscale_all_dim":1,"original_max_position_embeddings":4096,"type":"yarn"}},
  },
  {
    id: 'gpt-oss-20b', name: 'gpt-oss 20B', repo: 'openai/gpt-oss-20b', how: { en: 'from a committed copy', zh: '取自一份提交到仓库的副本' },
    config: {"model_type":"gpt_oss","num_hidden_layers":24,"hidden_size":2880,"num_attention_heads":64,"head_dim":64,"max_position_embeddings":131072,"layer_types":["sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention","sliding_attention","full_attention"],"rope_scaling":{"beta_fast":32,"beta_slow":1,"factor":32,"original_max_position_embeddings":4096,"rope_type":"yarn","truncate":false},"rope_theta":150000},
  },
  {
    id: 'mistral-nemo', name: 'Mistral-Nemo 12B', repo: 'mistralai/Mistral-Nemo-Instruct-2407', how: { en: 'from agreeing copies', zh: '取自几份一致的副本' },
    config: {"model_type":"mistral","num_hidden_layers":40,"hidden_size":5120,"num_attention_heads":32,"head_dim":128,"max_position_embeddings":1024000,"rope_theta":1000000},
  },
  {
    id: 'smollm3-3b', name: 'SmolLM3 3B', repo: 'HuggingFaceTB/SmolLM3-3B', how: { en: 'from a committed copy', zh: '取自一份提交到仓库的副本' },
    config: {"model_type":"smollm3","num_hidden_layers":36,"hidden_size":2048,"num_attention_heads":16,"max_position_embeddings":65536,"layer_types":["full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention","full_attention"],"no_rope_layer_interval":4,"no_rope_layers":[1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0,1,1,1,0],"rope_scaling":null,"rope_theta":5000000},
  },
  {
    id: 'olmo-3-7b', name: 'OLMo 3 7B', repo: 'allenai/Olmo-3-7B-Instruct', how: { en: 'values from test copies', zh: '数值取自几份测试副本' },
    config: {"model_type":"olmo3","num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32,"max_position_embeddings":65536,"layer_types":["sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","full_attention","sliding_attention","sliding_attention","sliding_attention","full_attention"],"rope_scaling":{"attention_factor":1.2079441541679836,"beta_fast":32,"beta_slow":1,"factor":8,"original_max_position_embeddings":8192,"rope_type":"yarn"},"rope_theta":500000},
  },
  {
    id: 'exaone-4-32b', name: 'EXAONE 4.0 32B', repo: 'LGAI-EXAONE/EXAONE-4.0-32B', how: { en: 'rebuilt from a test copy (layer count restored)', zh: '由一份测试副本还原（层数已恢复）' },
    config: {"model_type":"exaone4","num_hidden_layers":64,"hidden_size":5120,"num_attention_heads":40,"head_dim":128,"max_position_embeddings":131072,"rope_scaling":{"factor":16,"high_freq_factor":4,"low_freq_factor":1,"original_max_position_embeddings":8192,"rope_type":"llama3"},"rope_theta":1000000,"sliding_window":4096},
  },
  {
    id: 'glm-4.5-air', name: 'GLM-4.5-Air', repo: 'zai-org/GLM-4.5-Air', how: { en: 'values from a conversion script', zh: '数值取自一个转换脚本' },
    config: {"model_type":"glm4_moe","num_hidden_layers":46,"hidden_size":4096,"num_attention_heads":96,"head_dim":128,"max_position_embeddings":131072,"partial_rotary_factor":0.5,"rope_scaling":null,"rope_theta":10000},
  },
  {
    id: 'gpt-j-6b', name: 'GPT-J 6B', repo: 'EleutherAI/gpt-j-6b',
    config: {"model_type":"gptj","n_layer":28,"n_embd":4096,"n_head":16,"rotary_dim":64,"n_positions":2048},
  },
];
