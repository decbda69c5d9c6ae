// The page's text in English and Chinese (ours, written for this page).
// Strings may hold small inline markup and TeX between $...$ (inline) or
// $$...$$ (display), rendered by tex.ts.

export type Lang = 'en' | 'zh';

const en = {
  'title': 'posenc: positional encodings you can touch',
  'subtitle': 'Every number on this page is computed live by the posenc WebAssembly core running in your browser.',
  'lang.switch': '中文',
  'theme.switch': 'Theme',
  'runtime': 'Runtime',
  'loading': 'Loading the WebAssembly core…',
  'nav.label': 'Sections',

  'order.title': '1. Why order matters',
  'order.text': `Attention compares every token with every other one: $\\mathrm{softmax}(QK^\\top/\\sqrt d)V$. Nothing in that formula knows where a token sits. Reorder the tokens below and, without a positional encoding and without a causal mask, the output rows are the <b>same rows, reordered</b>: attention is permutation-equivariant. Un-permute them and the difference from the original is zero up to float rounding. Turn on the causal mask or an encoding, and order leaks in.`,
  'order.tokens': 'Tokens (drag, or focus one and use ← →)',
  'order.shuffle': 'Shuffle',
  'order.reset': 'Reset',
  'order.long': '256 tokens',
  'order.causal': 'Causal mask',
  'order.encoding': 'Encoding',
  'order.diff': 'max |output(permuted), un-permuted − output(original)|',
  'order.out': 'Attention output rows (one row per token, in the current order)',
  'order.weights': 'Attention weights',
  'order.models': 'Tiny models trained to answer “who does it?”',
  'order.models.text': `Seven tiny transformers, one per encoding, were trained by posenc itself to name the subject of short sentences. Without position (NoPE) a sentence and its mirror have the same tokens, so the model must give the same answer to both: it is at chance.`,
  'order.sentence': 'Sentence',
  'order.model': 'Model',
  'order.answer': 'Answer',
  'order.accuracy': 'Test accuracy',

  'sin.title': '2. Sinusoidal encoding',
  'sin.text': `The original Transformer adds $PE_{p,2i}=\\sin(p/b^{2i/d})$ and $PE_{p,2i+1}=\\cos(p/b^{2i/d})$ to each token. Each pair of dimensions is a wave with its own wavelength, from $2\\pi$ up to $2\\pi b$: like a set of rulers of different scale, fine ones for nearby positions and coarse ones for far positions. The dot product $PE_p\\cdot PE_q$ depends only on $p-q$.`,
  'sin.base': 'Base b',
  'sin.dim': 'Dimension d',
  'sin.length': 'Positions',
  'sin.heatmap': 'PE[position, dimension]',
  'sin.waves': 'Waves of a few dimensions (the rulers)',
  'sin.sim': 'Similarity PE·PEᵀ',
  'sin.position': 'position',
  'sin.dimension': 'dimension',

  'rope.title': '3. RoPE lab',
  'rope.text': `RoPE rotates each pair of dimensions of $q$ and $k$ by an angle proportional to the position: $\\theta_i = b^{-2i/r}$, pair $i$ of a token at position $m$ turns by $m\\theta_i$. Then $\\langle R_m q, R_n k\\rangle$ depends only on $m-n$: drag both positions together and the score does not move. Scaling methods (linear, NTK, YaRN, Llama 3, LongRoPE) change the frequencies to stretch the context.`,
  'rope.m': 'Query position m',
  'rope.n': 'Key position n',
  'rope.shift': 'Shift both by',
  'rope.score': 'q·k at (m, n)',
  'rope.score.shifted': 'q·k at (m+s, n+s)',
  'rope.layout': 'Layout',
  'rope.headDim': 'Head dim',
  'rope.rotary': 'Rotary fraction',
  'rope.base': 'Base',
  'rope.scaling': 'Scaling',
  'rope.factor': 'Factor',
  'rope.orig': 'Original context',
  'rope.pairs': 'Each pair of q (blue) and k (orange) as 2D vectors',
  'rope.angles': 'Angle (mod 2π) of each pair (rows) at positions 0–255 (columns)',
  'rope.decay': 'Long-term decay: q·k of two all-ones vectors against distance',
  'rope.wavelength': 'Wavelength of each pair (positions per turn), default vs scaled; the dashed line is the original context',
  'rope.ramp': 'Per-pair frequency ratio θ_scaled/θ (YaRN’s ramp between 1/s and 1)',
  'rope.distance': 'distance m − n',
  'rope.pair': 'pair i',

  'bias.title': '4. ALiBi and T5 bias',
  'bias.text': `ALiBi adds no vectors at all: head $h$ adds $-m_h\\,(i-j)$ to the logit of query $i$ and key $j$, with slopes $m_h = 2^{-8(h+1)/H}$. T5 learns one bias per head for each of a few log-spaced distance buckets.`,
  'bias.heads': 'Heads',
  'bias.variant': 'Slopes',
  'bias.length': 'Length',
  'bias.alibi': 'ALiBi bias per head (slope above each map)',
  'bias.buckets': 'Number of buckets',
  'bias.maxDistance': 'Max distance',
  'bias.bidirectional': 'Bidirectional',
  'bias.bucketMap': 'T5 bucket of (query i, key j)',
  'bias.learned': 'Learned T5 bias of the shipped language model, per head',

  'ext.title': '5. Train short, test long',
  'ext.text': `Every language model here was trained on sequences of 64 tokens from the same synthetic language (its best possible loss, the entropy rate, is marked). Evaluate them on longer sequences: the loss at each position shows exactly where each encoding breaks down. RoPE can be rescued partly by scaling at inference; ALiBi barely notices.`,
  'ext.length': 'Evaluation length',
  'ext.scaling': 'Scaling for the RoPE model',
  'ext.factor': 'Factor',
  'ext.loss': 'Loss at each position (mean over examples)',
  'ext.position': 'position',
  'ext.trainLen': 'training length',
  'ext.retrieval': 'Retrieval accuracy against length',
  'ext.maps': 'Attention map at long length',
  'ext.mapModel': 'Model',
  'ext.mapLayer': 'Layer',
  'ext.mapHead': 'Head',
  'ext.entropy': 'entropy rate',
  'ext.running': 'Evaluating…',

  'bugs.title': '6. Bug zoo',
  'bugs.text': `Real bugs from real codebases, applied to a real shipped model. Toggle one and see what it does to the loss, to the generated text, and to cached versus uncached decoding.`,
  'bugs.bug': 'Bug',
  'bugs.model': 'Model',
  'bugs.loss': 'Loss at length 64',
  'bugs.generated': 'Greedy continuation of the same prompt',
  'bugs.cached': 'max |cached − uncached logits|',

  'train.title': '7. Train your own',
  'train.text': `Pick an encoding and a task and train a tiny transformer right here, in a Worker, with the same C++ trainer that made the shipped models. Then use it in sections 1 and 5.`,
  'train.task': 'Task',
  'train.encoding': 'Encoding',
  'train.steps': 'Steps',
  'train.start': 'Train',
  'train.cancel': 'Cancel',
  'train.loss': 'Training loss',
  'train.step': 'step',
  'train.done': 'Done: your model is now available in sections 1 and 5 as “yours”.',
  'train.cancelled': 'Cancelled.',

  'footer': 'posenc: positional encodings for transformers, in a Highway SIMD core compiled to WebAssembly.',
};

export type Key = keyof typeof en;

const zh: Record<Key, string> = {
  'title': 'posenc：可以亲手操作的位置编码',
  'subtitle': '本页的每一个数字都由 posenc 的 WebAssembly 内核在你的浏览器里实时算出。',
  'lang.switch': 'English',
  'theme.switch': '主题',
  'runtime': '运行时',
  'loading': '正在加载 WebAssembly 内核…',
  'nav.label': '章节',

  'order.title': '1. 为什么顺序重要',
  'order.text': `注意力让每个词元与所有其他词元比较：$\\mathrm{softmax}(QK^\\top/\\sqrt d)V$。这个公式里没有任何东西知道词元在哪个位置。在下面重新排列词元：没有位置编码、也没有因果掩码时，输出的各行只是<b>同样的行换了顺序</b>——注意力对排列是等变的。把它们换回原来的顺序，与原始输出的差在浮点舍入以内为零。打开因果掩码或某种位置编码，顺序的信息就进来了。`,
  'order.tokens': '词元（拖动，或选中后用 ← → 移动）',
  'order.shuffle': '打乱',
  'order.reset': '复原',
  'order.long': '256 个词元',
  'order.causal': '因果掩码',
  'order.encoding': '位置编码',
  'order.diff': 'max |输出(打乱后)按原顺序还原 − 输出(原顺序)|',
  'order.out': '注意力输出（每个词元一行，按当前顺序）',
  'order.weights': '注意力权重',
  'order.models': '训练来回答“谁做了这件事”的小模型',
  'order.models.text': `七个小 Transformer，每种位置编码一个，都由 posenc 自己训练，任务是说出短句的主语。没有位置信息（NoPE）时，一个句子和主宾互换后的句子词元完全相同，模型只能给出同样的答案，所以正确率只有一半。`,
  'order.sentence': '句子',
  'order.model': '模型',
  'order.answer': '回答',
  'order.accuracy': '测试正确率',

  'sin.title': '2. 正弦位置编码',
  'sin.text': `原始 Transformer 给每个词元加上 $PE_{p,2i}=\\sin(p/b^{2i/d})$ 与 $PE_{p,2i+1}=\\cos(p/b^{2i/d})$。每一对维度是一条波，波长从 $2\\pi$ 到 $2\\pi b$ 各不相同，就像一组刻度不同的尺子：细尺量近处，粗尺量远处。点积 $PE_p\\cdot PE_q$ 只取决于 $p-q$。`,
  'sin.base': '底数 b',
  'sin.dim': '维度 d',
  'sin.length': '位置数',
  'sin.heatmap': 'PE[位置, 维度]',
  'sin.waves': '几个维度的波形（尺子）',
  'sin.sim': '相似度 PE·PEᵀ',
  'sin.position': '位置',
  'sin.dimension': '维度',

  'rope.title': '3. RoPE 实验室',
  'rope.text': `RoPE 把 $q$、$k$ 的每一对维度按与位置成正比的角度旋转：$\\theta_i = b^{-2i/r}$，位置 $m$ 上第 $i$ 对转过 $m\\theta_i$。于是 $\\langle R_m q, R_n k\\rangle$ 只取决于 $m-n$：把两个位置一起拖动，分数不变。各种缩放方法（线性、NTK、YaRN、Llama 3、LongRoPE）通过改变频率来延长上下文。`,
  'rope.m': '查询位置 m',
  'rope.n': '键位置 n',
  'rope.shift': '两者同时平移',
  'rope.score': '(m, n) 处的 q·k',
  'rope.score.shifted': '(m+s, n+s) 处的 q·k',
  'rope.layout': '布局',
  'rope.headDim': '头维度',
  'rope.rotary': '旋转比例',
  'rope.base': '底数',
  'rope.scaling': '缩放',
  'rope.factor': '倍数',
  'rope.orig': '原始上下文',
  'rope.pairs': 'q（蓝）与 k（橙）的每一对维度，画成二维向量',
  'rope.angles': '每一对维度（行）在位置 0–255（列）上的角度（模 2π）',
  'rope.decay': '远程衰减：两个全 1 向量的 q·k 随距离的变化',
  'rope.wavelength': '每一对维度的波长（转一圈所需的位置数），默认与缩放后对比；虚线为原始上下文长度',
  'rope.ramp': '每对维度的频率比 θ_缩放/θ（YaRN 在 1/s 与 1 之间的过渡）',
  'rope.distance': '距离 m − n',
  'rope.pair': '第 i 对',

  'bias.title': '4. ALiBi 与 T5 偏置',
  'bias.text': `ALiBi 根本不加向量：第 $h$ 个头给查询 $i$ 与键 $j$ 的 logit 加上 $-m_h\\,(i-j)$，斜率 $m_h = 2^{-8(h+1)/H}$。T5 则为每个头、每个按对数划分的距离桶学习一个偏置。`,
  'bias.heads': '头数',
  'bias.variant': '斜率',
  'bias.length': '长度',
  'bias.alibi': '每个头的 ALiBi 偏置（图上方为斜率）',
  'bias.buckets': '桶数',
  'bias.maxDistance': '最大距离',
  'bias.bidirectional': '双向',
  'bias.bucketMap': '(查询 i, 键 j) 所在的 T5 桶',
  'bias.learned': '随附语言模型学到的 T5 偏置（每个头）',

  'ext.title': '5. 短训练，长测试',
  'ext.text': `这里的每个语言模型都只在同一种合成语言的 64 词元序列上训练（图中标出了它能达到的最低损失，即熵率）。在更长的序列上评估它们：每个位置上的损失清楚地显示出每种编码在哪里失效。RoPE 可以靠推理时缩放部分挽救；ALiBi 几乎不受影响。`,
  'ext.length': '评估长度',
  'ext.scaling': 'RoPE 模型的缩放方法',
  'ext.factor': '倍数',
  'ext.loss': '每个位置上的损失（多个样本的平均）',
  'ext.position': '位置',
  'ext.trainLen': '训练长度',
  'ext.retrieval': '检索任务正确率随长度的变化',
  'ext.maps': '长序列上的注意力图',
  'ext.mapModel': '模型',
  'ext.mapLayer': '层',
  'ext.mapHead': '头',
  'ext.entropy': '熵率',
  'ext.running': '正在评估…',

  'bugs.title': '6. 错误动物园',
  'bugs.text': `来自真实代码库的真实错误，应用到一个真实的随附模型上。打开一个开关，看看它对损失、生成的文本、以及带缓存与不带缓存解码的一致性有什么影响。`,
  'bugs.bug': '错误',
  'bugs.model': '模型',
  'bugs.loss': '长度 64 上的损失',
  'bugs.generated': '同一提示的贪心续写',
  'bugs.cached': 'max |带缓存 − 不带缓存的 logits|',

  'train.title': '7. 自己训练一个',
  'train.text': `选一种位置编码和一个任务，就在这里、在一个 Worker 里训练一个小 Transformer，用的正是训练随附模型的同一套 C++ 训练器。训练完成后可以在第 1 节和第 5 节中使用它。`,
  'train.task': '任务',
  'train.encoding': '位置编码',
  'train.steps': '步数',
  'train.start': '开始训练',
  'train.cancel': '取消',
  'train.loss': '训练损失',
  'train.step': '步',
  'train.done': '完成：你的模型现在以“你的模型”出现在第 1 节和第 5 节中。',
  'train.cancelled': '已取消。',

  'footer': 'posenc：Transformer 的位置编码，Highway SIMD 内核编译为 WebAssembly。',
};

const tables: Record<Lang, Record<Key, string>> = { en, zh };
let current: Lang = 'en';
const listeners: Array<() => void> = [];

export function lang(): Lang {
  return current;
}

export function setLang(l: Lang): void {
  current = l;
  document.documentElement.lang = l === 'zh' ? 'zh-CN' : 'en';
  for (const f of listeners) f();
}

/** Called after every language change (and not now). */
export function onLangChange(f: () => void): void {
  listeners.push(f);
}

export function t(key: Key): string {
  return tables[current][key];
}
