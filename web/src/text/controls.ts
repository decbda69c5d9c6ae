// Text of the shared controls (sliders, the encoding names, the navigation), English and Chinese.
export const en = {
  'controls.enc.nope': 'NoPE (no position information)',
  'controls.enc.sinusoidal': 'sinusoidal (absolute)',
  'controls.enc.learned': 'learned absolute positions',
  'controls.enc.rope': 'RoPE (rotary)',
  'controls.enc.alibi': 'ALiBi (linear distance bias)',
  'controls.enc.t5': 'T5 relative bias (buckets)',
  'controls.enc.shaw': 'Shaw relative positions (clipped)',
  'controls.enc.xpos': 'xPos (RoPE with decay)',
  'controls.model.language-rope': 'language model with RoPE',
  'controls.model.language-xpos': 'language model with xPos',
  'controls.model.language-sinusoidal': 'language model with sinusoidal positions',
  'controls.model.language-rope-partial': 'language model with partial RoPE (8 of 16 dims rotate)',
};

export const zh: Record<keyof typeof en, string> = {
  'controls.enc.nope': 'NoPE（不加位置信息）',
  'controls.enc.sinusoidal': '正弦位置编码（绝对位置）',
  'controls.enc.learned': '可学习的绝对位置编码',
  'controls.enc.rope': 'RoPE（旋转位置编码）',
  'controls.enc.alibi': 'ALiBi（按距离线性偏置）',
  'controls.enc.t5': 'T5 相对位置偏置（分桶）',
  'controls.enc.shaw': 'Shaw 相对位置编码（截断）',
  'controls.enc.xpos': 'xPos（带衰减的 RoPE）',
  'controls.model.language-rope': 'RoPE 语言模型',
  'controls.model.language-xpos': 'xPos 语言模型',
  'controls.model.language-sinusoidal': '正弦位置编码的语言模型',
  'controls.model.language-rope-partial': '部分旋转的 RoPE 语言模型（16 维中转 8 维）',
};
