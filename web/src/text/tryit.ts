// Text of the "Try this" prompts (web/src/tryit.ts), English and Chinese.
// A label names the setting; {param} is filled with the value the prompt sets
// (from its state, never typed twice). The ".look" line says what changes.
export const en = {
  'tryit.label': 'Try this:',
  'tryit.group': 'Try this: settings that show the point of this section',

  'tryit.order.none': 'Shuffle without any position encoding',
  'tryit.order.none.look': 'B equals A up to rounding: with no positions, attention only moves the output rows around (permutation equivariance).',
  'tryit.order.causal': 'Shuffle with the causal mask on, still no encoding',
  'tryit.order.causal.look': 'Now B differs from A: the causal mask alone lets order into the outputs, because each token sees a different set of earlier tokens.',
  'tryit.order.rope': 'Shuffle with RoPE',
  'tryit.order.rope.look': 'B differs from A: RoPE makes the same token produce a different output at a different place.',

  'tryit.sin.small': 'A small base: b = {s.base}',
  'tryit.sin.small.look': 'Every wave is now short: PE_p · PE_q collapses within a few offsets and then only wobbles around zero, so past a handful of tokens a near and a far position look the same.',
  'tryit.sin.default': 'Back to b = {s.base}',
  'tryit.sin.default.look': 'The slow waves barely move over these positions: PE_p · PE_q falls off gradually over the whole range, so a small offset still scores higher than a large one.',

  'tryit.rope.shift': 'Plain RoPE, shift both positions by {r.s}',
  'tryit.rope.shift.look': 'q·k at (m+s, n+s) equals q·k at (m, n), and the shift chart is a flat line: only m − n counts.',
  'tryit.rope.linear': 'Linear scaling ×{r.factor}, same shift',
  'tryit.rope.linear.look': 'The score changes (all frequencies are divided by the factor) but it is still shift invariant: a fixed scaling keeps RoPE relative.',
  'tryit.rope.dynamic': 'Dynamic NTK with an original context of {r.orig}',
  'tryit.rope.dynamic.look': 'The same (m, n) in a shorter sequence now scores differently. In the shift chart the change stays at 0 up to the dashed mark where L passes {r.orig}, then drifts away gradually: the frequencies follow the length, a little more with every extra token.',

  'tryit.bias.shared': '{b.heads} heads on one colour scale',
  'tryit.bias.shared.look': 'The steep heads turn dark within a few tokens; the gentlest heads stay the colour of zero (yellow) almost everywhere, their penalty tiny next to the steepest one’s.',
  'tryit.bias.perhead': '{b.heads} heads, one scale per head',
  'tryit.bias.perhead.look': 'Every head now shows the same pattern; only the slope above each map (and the numbers on its colour bar) tells them apart.',
  'tryit.bias.simple': 'The tutorial’s slopes 1/2^h with {b.heads} heads',
  'tryit.bias.simple.look': 'Head 0 gets slope 1 and the last heads almost 0: their lines in the chart below lie flat on zero, so those heads hardly see distance at all.',

  'tryit.ext.none': 'Evaluate at {e.len} tokens, no scaling',
  'tryit.ext.none.look': 'In the wavelength panel many pairs now meet angles never seen in training; in the loss chart, watch which lines climb after the vertical dashed line at the training length.',
  'tryit.ext.yarn': 'YaRN ×{e.factor} at {e.len} tokens',
  'tryit.ext.yarn.look': 'Scaled, no pair leaves the angles it met in training (the panel’s “scaled” count drops to 0), and a dashed RoPE + YaRN line joins the loss chart: compare it with plain RoPE past the training length. Inside the training length it sits higher than plain RoPE: the scaling slowed pairs the model had learned at their old speed, and this model had no extra training to adapt (section 12 shows what a few steps of training repair).',

  'tryit.ym.gemma': 'Gemma 3 27B: two RoPEs in one model',
  'tryit.ym.gemma.look': 'Two colours in the strip: five sliding layers with base 10,000 for each global layer with base 1,000,000 and linear ×8. At pair i the global layers’ wavelength is 100^(2i/128) times the sliding layers’ (the larger base), and 8 times that again with the linear scaling (the dashed line).',
  'tryit.ym.scout': 'Llama 4 Scout: layers without RoPE',
  'tryit.ym.scout.look': 'Every fourth cell is grey: those layers attend with no position at all (NoPE). The query scaling line names the same 12 layers: Llama 4 sharpens their queries as the position grows.',
  'tryit.ym.qwen3vl': 'Qwen3-VL 8B: M-RoPE with the pairs in turn',
  'tryit.ym.qwen3vl.look': 'The pair bar cycles temporal, height, width from pair 0 and ends on four temporal pairs: 24 temporal, 20 height, 20 width. Pick Qwen2.5-VL above to see the same rows in three blocks instead.',
  'tryit.bugs.onlyq': 'A bug that shows in the loss: only Q rotated',
  'tryit.bugs.onlyq.look': 'The loss with the bug rises far above the correct model’s, and decoding goes wrong the same way with and without the KV cache: the bug is in the model, not in the cache.',
  'tryit.bugs.restart': 'A cache bug: position ids restart at 0',
  'tryit.bugs.restart.look': 'Decoding without the cache still matches the correct text; only decoding through the KV cache parts from it (the note under each text says where). Here the cache is the cause.',
};

export const zh: Record<keyof typeof en, string> = {
  'tryit.label': '试一试：',
  'tryit.group': '试一试：一键切到最能说明本节要点的设置',

  'tryit.order.none': '不加位置编码，打乱顺序',
  'tryit.order.none.look': 'B 和 A 只差浮点误差：没有位置信息时，注意力只是把输出行换了位置（置换等变）。',
  'tryit.order.causal': '打开 causal mask，仍不加位置编码',
  'tryit.order.causal.look': '这次 B 和 A 不同了：每个 token 能看到的前文集合变了，光靠 causal mask 就把顺序信息带进了输出。',
  'tryit.order.rope': '用 RoPE，打乱顺序',
  'tryit.order.rope.look': 'B 和 A 不同：加了 RoPE 后，同一个 token 换了位置，输出也跟着变。',

  'tryit.sin.small': '把 base 调小：b = {s.base}',
  'tryit.sin.small.look': '所有波都变短了：PE_p · PE_q 在相对距离很小时就掉下去，之后只在 0 附近来回振荡。隔了几个 token 以后，近的位置和远的位置就分不出来了。',
  'tryit.sin.default': '改回 b = {s.base}',
  'tryit.sin.default.look': '低频的几条波在这些位置上几乎不动：PE_p · PE_q 在整个范围内缓慢下降，相对距离小的分数仍然比距离大的高。',

  'tryit.rope.shift': '原版 RoPE，两个位置一起平移 {r.s}',
  'tryit.rope.shift.look': '(m+s, n+s) 处的 q·k 和 (m, n) 处完全一样，平移曲线是一条水平线：只有 m − n 起作用。',
  'tryit.rope.linear': '线性插值 ×{r.factor}，同样平移',
  'tryit.rope.linear.look': '分数变了（所有频率都除以了倍数），但依然平移不变：固定的缩放不破坏 RoPE 的相对位置性质。',
  'tryit.rope.dynamic': '动态 NTK，原始上下文长度 {r.orig}',
  'tryit.rope.dynamic.look': '同一组 (m, n) 放进更短的序列，分数就不一样了。平移图里，变化量在 L 超过 {r.orig} 的虚线之前一直是 0，过了虚线就逐渐偏离：频率跟着长度走，每多一个 token 就变一点。',

  'tryit.bias.shared': '{b.heads} 个 head 共用一个色标',
  'tryit.bias.shared.look': '斜率大的 head 隔几个 token 就变深；斜率最小的几个 head 几乎处处是 0 对应的颜色（黄色），它们的惩罚和最陡的 head 比起来太小了。',
  'tryit.bias.perhead': '{b.heads} 个 head，各用各的色标',
  'tryit.bias.perhead.look': '每个 head 的图案都一样了，只有图上方的斜率（和色条上的数值）不同。',
  'tryit.bias.simple': '教程里的 1/2^h 斜率，{b.heads} 个 head',
  'tryit.bias.simple.look': 'head 0 的斜率是 1，最后几个 head 接近 0：下面图里它们的线贴着 0 走，这几个 head 基本感知不到距离。',

  'tryit.ext.none': '在 {e.len} 个 token 上评估，不缩放',
  'tryit.ext.none.look': '波长面板里，很多维度对转到了训练时没见过的角度；loss 曲线图里，有些线一过训练长度那条竖虚线就往上走。',
  'tryit.ext.yarn': 'YaRN ×{e.factor}，{e.len} 个 token',
  'tryit.ext.yarn.look': '缩放后没有一个维度对超出训练时见过的角度（面板里“缩放后”的个数降到 0），loss 曲线图里多了一条 RoPE + YaRN 的虚线：对比一下它和原版 RoPE 在训练长度之后的走势。在训练长度以内，它比原版 RoPE 高：缩放放慢了模型按原速度学会的那些维度对，而这个模型没有再训练去适应（第 12 节演示了再训练几步能补回多少）。',

  'tryit.ym.gemma': 'Gemma 3 27B：一个模型里有两种 RoPE',
  'tryit.ym.gemma.look': '条带里有两种颜色：每五个 base 为 10,000 的滑动窗口层，跟着一个 base 为 1,000,000、带 ×8 线性缩放的全局层。在第 i 个维度对上，全局层的波长是滑动窗口层的 100^(2i/128) 倍（来自更大的 base），加上线性缩放后再乘以 8（虚线）。',
  'tryit.ym.scout': 'Llama 4 Scout：不用 RoPE 的层',
  'tryit.ym.scout.look': '每隔三格就有一格是灰色：这些层计算注意力时完全没有位置信息（NoPE）。query 缩放那一行说的正是这 12 层：位置越靠后，Llama 4 把它们的 query 放得越大，注意力分布也就越尖。',
  'tryit.ym.qwen3vl': 'Qwen3-VL 8B：维度对轮流分给三行的 M-RoPE',
  'tryit.ym.qwen3vl.look': '色条上的维度对从第 0 个起按时间、高度、宽度轮流排列，最后四个都归时间：时间 24 个，高度 20 个，宽度 20 个。在上面选 Qwen2.5-VL，可以看到同样三行分成三个连续的块。',
  'tryit.bugs.onlyq': '会体现在 loss 上的 bug：只旋转 Q',
  'tryit.bugs.onlyq.look': '带 bug 的 loss 比正确模型高出一大截；用不用 KV cache，解码都错得一模一样：问题出在模型本身，不在 cache。',
  'tryit.bugs.restart': 'KV cache 相关的 bug：position id 从 0 重新开始',
  'tryit.bugs.restart.look': '不用 cache 解码，结果仍和正确答案一致；只有走 KV cache 的解码会偏离（每段文本下面注明了从哪里开始不同）。这里的元凶就是 cache。',
};
