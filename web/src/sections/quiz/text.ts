// Text of the "quiz" section, English and Chinese (see i18n.ts).
// {name} placeholders are filled with values the core computes at answer time.
export const en = {
  'quiz.title': 'Check yourself',
  'quiz.text': `Questions of the kind interviews ask. Each answer is checked by <b>computing</b> it with the posenc core in your browser, and the computation is shown under the question. A summary and the papers follow.`,
  'quiz.correct': '✓ Correct.',
  'quiz.incorrect': '✗ Not quite.',
  'quiz.checked': 'Checked:',
  'quiz.submit': 'Check',
  'quiz.yours': 'Your answer',
  'quiz.score': 'Answered {n} of {total}, {c} correct.',

  'quiz.kv.q': 'A 128-token prompt has been run; its keys and values are in the KV cache. What position id does the first generated token get?',
  'quiz.kv.check': 'after the prompt the cache holds {len} tokens, so the next one sits at position {len}. Decoding it through the cache at position {len} matches a full 129-token pass (max |Δ| = {good}); at position {yours} the output is off by {bad}.',
  'quiz.kv.why': 'Position ids count the whole context, cached tokens included. Restarting at 0 for every new token is one of the most common RoPE bugs: nothing crashes, the text just gets worse.',

  'quiz.qkv.q': 'Which of Q, K and V does RoPE rotate?',
  'quiz.qkv.o.q': 'Q only',
  'quiz.qkv.o.qk': 'Q and K',
  'quiz.qkv.o.qkv': 'Q, K and V',
  'quiz.qkv.o.k': 'K only',
  'quiz.qkv.check': 'six tokens, all positions shifted by 50; max |output change| when rotating Q only: {q}; Q and K: {qk}; Q, K and V: {qkv}; K only: {k}. Only Q and K leave the output depending on distances alone.',
  'quiz.qkv.why': 'The position should decide who attends to whom, which is the score q·k. Rotating V too would make what is read depend on absolute positions.',

  'quiz.shift.q': 'Under RoPE, q is at position 12 and k at position 5. Both move 100 positions further. Does q·k change?',
  'quiz.shift.o.same': 'No (up to float rounding)',
  'quiz.shift.o.changes': 'Yes',
  'quiz.shift.check': 'q·k at (12, 5) = {a}; at (112, 105) = {b}; difference {diff}.',
  'quiz.shift.why': '$(R_m q)^\\top (R_n k) = q^\\top R_{n-m} k$: only the distance $m-n$ is left.',

  'quiz.norm.q': 'How does $\\lVert R_m x \\rVert$ compare with $\\lVert x \\rVert$?',
  'quiz.norm.o.equal': 'Equal, for every m',
  'quiz.norm.o.grows': 'It grows with m',
  'quiz.norm.o.shrinks': 'It shrinks with m',
  'quiz.norm.check': 'a {d}-dimensional x: ‖x‖ = {x}, ‖R₁₀₀₀ x‖ = {rx}. For contrast, xPos (which scales as well) gives {xpos}.',
  'quiz.norm.why': 'Each pair is turned by a rotation matrix, which is orthogonal: directions change, lengths do not.',

  'quiz.lowfreq.q': 'Head dim 128, base 10000, trained on 4096 tokens (Llama 2). Which pairs reach angles they never saw in training as soon as you run longer?',
  'quiz.lowfreq.o.high': 'The fast, high-frequency pairs (small i)',
  'quiz.lowfreq.o.low': 'The slow, low-frequency pairs (large i)',
  'quiz.lowfreq.o.all': 'All pairs equally',
  'quiz.lowfreq.check': 'wavelength $2\\pi\\cdot 10000^{2i/128}$ of each pair, from pe.ropeFrequencies: pairs {first}–{last} ({count} of {pairs}) need more than {train} positions for one turn (pair {first}: {wl}). They never complete a turn in training.',
  'quiz.lowfreq.why': 'A fast pair has turned many times within the training length, so every angle is familiar. A slow pair has only covered part of its circle; past the training length it enters angles the model has never seen. That is why NTK-aware scaling and YaRN change the slow pairs most and leave the fast ones nearly alone. PI is the exception: it divides every pair’s frequency by the same factor, fast pairs included.',

  'quiz.slope.q': 'ALiBi with 8 heads and the paper’s slopes: what is the slope of head 0?',
  'quiz.slope.check': 'pe.alibiSlopes(8) = [{slopes}]; head 0: {s0} = $2^{-8\\cdot 1/8}$.',
  'quiz.slope.why': 'For a power-of-two head count the slopes form a geometric sequence $2^{-8(h+1)/H}$, from 1/2 down to 1/256 for 8 heads: some heads look far, some only nearby. (For other head counts the paper mixes in slopes from the next power of two, see the ALiBi section.) (The tutorial’s $1/2^h$ is a teaching simplification.)',

  'quiz.mask.q': 'Can ALiBi’s bias replace the causal mask?',
  'quiz.mask.o.no': 'No: the bias is finite, the mask is −∞',
  'quiz.mask.o.yes': 'Yes: far future keys get a large penalty anyway',
  'quiz.mask.check': 'query 0 over 4 keys, equal q·k, head 0 of 8 (slope {slope}): with the bias alone (−s·|m − n|, the same penalty on both sides) the future keys still get {future} of the attention; with the causal mask, {masked}.',
  'quiz.mask.why': 'A linear bias only makes a key less likely; the mask makes it impossible. They are two steps (see the pipeline section).',

  'quiz.learned.q': 'Why can’t a model with a learned absolute position table run past its training length?',
  'quiz.learned.o.norow': 'There is no row for positions ≥ max_len',
  'quiz.learned.o.small': 'Its rows are too small there',
  'quiz.learned.o.softmax': 'Softmax overflows at long lengths',
  'quiz.learned.check': 'a {rows}-row table through pe.learnedPositions: positions 0–{last} are returned; position {max} throws “{error}”.',
  'quiz.learned.why': 'Each row was trained only because some training token sat at that position. Beyond the table there is nothing to look up, and nothing was learned to put there.',

  'quiz.ntk.q': 'What does dynamic NTK scaling change once the sequence grows past the original context?',
  'quiz.ntk.o.base': 'The RoPE base, recomputed from the current length',
  'quiz.ntk.o.positions': 'The positions, divided by a fixed factor',
  'quiz.ntk.o.temperature': 'Only the softmax temperature',
  'quiz.ntk.o.nothing': 'Nothing: it only matters for training',
  'quiz.ntk.check': 'factor {factor}, original context {M}, head dim {d}, pe.ropeFrequencies: at length {M} every frequency is the default one (largest change {same}); at {T} all pairs fit one new base {base} (largest misfit {fit}), i.e. $10000\\cdot({factor}\\cdot {T}/{M}-1)^{{d}/{d2}}$.',
  'quiz.ntk.why': 'Static NTK raises the base once; the dynamic variant raises it more as the text grows, and not at all below the original length. The first pair (θ₀ = 1) never changes; slow pairs slow down the most.',

  'quiz.first.q': 'Llama 3 uses base 500000 and head dim 128. What is θ₀, the frequency of the first RoPE pair (radians per position)?',
  'quiz.first.check': 'pe.ropeFrequencies gives θ₀ = {t0} for base 500000, and {t10k} for base 10000.',
  'quiz.first.why': '$\\theta_i = b^{-2i/d}$ and $i = 0$: whatever the base, $b^0 = 1$. The base only sets how slow the other pairs get.',

  'quiz.sin.q': 'For sinusoidal encodings, the dot product $\\mathrm{PE}_p\\cdot \\mathrm{PE}_q$ depends on…',
  'quiz.sin.o.diff': 'only p − q',
  'quiz.sin.o.sum': 'only p + q',
  'quiz.sin.o.both': 'p and q separately',
  'quiz.sin.check': 'pe.sinusoidal, d = {d}: PE₁₀·PE₃ = {a}; PE₁₁₀·PE₁₀₃ = {b} (same p − q); PE₈·PE₅ = {c} (same p + q).',
  'quiz.sin.why': 'Per pair, $\\sin a \\sin b + \\cos a \\cos b = \\cos(a-b)$: the sum over pairs is $\\sum_i \\cos((p-q)\\,\\omega_i)$.',

  'quiz.t5.q': 'T5 in a decoder (32 buckets, max_distance 128): which bucket does a key 1000 positions back fall into?',
  'quiz.t5.check': 'pe.t5Buckets: distance 1000 → bucket {b1000}; distance 200 → {b200}; distance 20 → {b20}; distance 3 → {b3}.',
  'quiz.t5.why': 'The first 16 distances have a bucket each, then buckets widen logarithmically up to max_distance, and everything farther shares the last bucket.',

  'quiz.pi.q': 'Position interpolation with factor 4: a model trained on 2048 tokens now runs on 8192. Position 6000 is rotated exactly like which original position?',
  'quiz.pi.check': 'pe.ropeFrequencies with linear scaling ×4: every pair’s angle at 6000 equals its default angle at {p} (largest difference over all pairs {diff} rad).',
  'quiz.pi.why': 'PI divides every frequency by the factor, which is the same as dividing the positions: 0–8191 are squeezed into the trained range 0–2047, at the price of finer spacing between neighbours.',

  'quiz.nope.q': 'No positional encoding at all, but a causal mask: can a decoder tell positions apart?',
  'quiz.nope.o.yes': 'Yes: the mask alone leaks position',
  'quiz.nope.o.no': 'No: without an encoding every position looks the same',
  'quiz.nope.check': 'six tokens with equal scores, the first with value 1 and the rest 0: causal outputs {causal}; without the mask {full}.',
  'quiz.nope.why': 'The token at position m averages over m + 1 keys, so how diluted the first token is reveals m. Causal NoPE models do learn positions this way (Kazemnejad et al. 2023).',

  'quiz.shaw.q': 'Shaw et al. with clip k = 16: do distances 20 and 200 get different relative vectors?',
  'quiz.shaw.o.same': 'No, the same vector',
  'quiz.shaw.o.different': 'Yes, different vectors',
  'quiz.shaw.check': 'pe.shawIndices: distance 200 → row {r200}, distance 20 → row {r20}, distance 16 → row {r16}, distance 3 → row {r3} (of {rows}).',
  'quiz.shaw.why': 'The relative position clip(n − m, −k, k) picks the row, and it is negative for keys before the query: every key 16 or more tokens back gets −16, row 0, the same vector.',

  'quiz.summary.title': 'Summary',
  'quiz.summary': `<ul class="summary">
<li>Attention by itself has no order: without a mask, shuffling the tokens only shuffles the outputs. Position has to be put in.</li>
<li><b>Absolute</b> encodings (sinusoidal, learned) add a vector for position $p$ to the token embedding. <b>Relative</b> ones (Shaw, T5, ALiBi) add something that depends on the distance $m-n$ inside attention.</li>
<li><b>Sinusoidal</b>: fixed sin / cos at wavelengths from $2\\pi$ to just under $2\\pi b$; $\\mathrm{PE}_p\\cdot\\mathrm{PE}_q$ depends only on $p-q$. It exists for any $p$, but a model need not use unseen positions well.</li>
<li><b>Learned</b>: a $\\text{max\\_len}\\times d$ table. Past its last row there is nothing: it cannot extrapolate at all.</li>
<li><b>RoPE</b> rotates each pair of $q$ and $k$ by $p\\,\\theta_i$, $\\theta_i=b^{-2i/d}$. Since $R_m^\\top R_n = R_{n-m}$, the score depends only on the distance $m-n$: absolute rotation, relative score. Norms do not change. Q and K only, never V.</li>
<li><b>In code</b>: a cos / sin cache and <code>rotate_half</code>; the pair layout (half or interleaved) must match the weights; with a KV cache, the new token’s position is the cache length; left padding is left out of the positions.</li>
<li><b>Longer contexts</b>: slow pairs never complete a turn within the training length, so they are the first to see new angles. PI divides positions by $s$; NTK raises the base; dynamic NTK raises it with the current length; YaRN keeps fast pairs, interpolates slow ones and sharpens attention slightly; LongRoPE searches a factor per pair. All work best with some further training.</li>
<li><b>ALiBi</b> adds $-s_h(m-n)$ with slopes $s_h=2^{-8(h+1)/H}$ when $H$ is a power of two (for other $H$, $c = 2^{\\lfloor\\log_2 H\\rfloor}$ heads get the $c$-head slopes and the rest take every other slope of the $2c$-head rule): no parameters, extrapolates well, but its prior is fixed and linear. It does not replace the causal mask.</li>
<li><b>T5</b> learns a scalar per head and distance bucket (one bucket per distance up close, log-spaced buckets farther out); <b>Shaw</b> learns vectors for distances clipped to $[-k,k]$, on keys and values. Both give every distance beyond a limit the same treatment, which is why they run at any length.</li>
<li><b>xPos</b> is RoPE with a scale that makes scores decay with distance. <b>NoPE</b> adds nothing: in a causal decoder the mask alone leaks position.</li>
</ul>`,
  'quiz.refs.title': 'References',
  'nav.quiz': 'Check yourself',
  'quiz.takeaway': 'Every answer above is computed by the posenc core in your browser, not asserted.',
};

export const zh: Record<keyof typeof en, string> = {
  'quiz.title': '自测',
  'quiz.text': `下面是面试中常见的问题。每个答案都由你浏览器里的 posenc 内核<b>现场算出来</b>检查，计算过程就显示在题目下方。最后是总结和论文列表。`,
  'quiz.correct': '✓ 答对了。',
  'quiz.incorrect': '✗ 不对。',
  'quiz.checked': '验算：',
  'quiz.submit': '检查',
  'quiz.yours': '你的答案',
  'quiz.score': '已答 {n} / {total} 题，答对 {c} 题。',

  'quiz.kv.q': '一个 128 个 token 的 prompt 已经跑完，它的 K、V 都在 KV cache 里。生成的第一个 token 的 position id 是多少？',
  'quiz.kv.check': 'prompt 跑完后 cache 里有 {len} 个 token，所以下一个 token 的位置是 {len}。在位置 {len} 上经 cache 解码，与完整跑 129 个 token 的结果一致（max |Δ| = {good}）；放在位置 {yours} 上，输出偏差 {bad}。',
  'quiz.kv.why': 'position id 要按完整上下文来数，cache 里的 token 也算在内。每个新 token 都从 0 开始编号是最常见的 RoPE bug 之一：不会报错，只是生成质量悄悄变差。',

  'quiz.qkv.q': 'RoPE 旋转的是 Q、K、V 中的哪些？',
  'quiz.qkv.o.q': '只有 Q',
  'quiz.qkv.o.qk': 'Q 和 K',
  'quiz.qkv.o.qkv': 'Q、K 和 V',
  'quiz.qkv.o.k': '只有 K',
  'quiz.qkv.check': '6 个 token，所有位置整体平移 50，输出的最大变化：只转 Q 为 {q}；转 Q 和 K 为 {qk}；Q、K、V 都转为 {qkv}；只转 K 为 {k}。只有旋转 Q 和 K 时，输出才只取决于距离。',
  'quiz.qkv.why': '位置应当决定谁关注谁，也就是分数 q·k。如果连 V 也旋转，读到的内容就会随绝对位置变化。',

  'quiz.shift.q': '在 RoPE 下，q 在位置 12，k 在位置 5。两者都往后挪 100 个位置，q·k 会变吗？',
  'quiz.shift.o.same': '不会（只差浮点舍入）',
  'quiz.shift.o.changes': '会',
  'quiz.shift.check': '(12, 5) 处 q·k = {a}；(112, 105) 处 = {b}；差 {diff}。',
  'quiz.shift.why': '$(R_m q)^\\top (R_n k) = q^\\top R_{n-m} k$：最后只剩下距离 $m-n$。',

  'quiz.norm.q': '$\\lVert R_m x \\rVert$ 和 $\\lVert x \\rVert$ 相比如何？',
  'quiz.norm.o.equal': '相等，对任何 m 都是',
  'quiz.norm.o.grows': '随 m 增大',
  'quiz.norm.o.shrinks': '随 m 减小',
  'quiz.norm.check': '一个 {d} 维的 x：‖x‖ = {x}，‖R₁₀₀₀ x‖ = {rx}。作为对比，xPos（它还会缩放）得到 {xpos}。',
  'quiz.norm.why': '每个维度对乘的是旋转矩阵，它是正交矩阵：方向变了，长度不变。',

  'quiz.lowfreq.q': 'head_dim 128、base 10000、在 4096 个 token 上训练（Llama 2）。一旦推理长度超过训练长度，哪些维度对最先遇到训练中从没见过的角度？',
  'quiz.lowfreq.o.high': '转得快的高频维度对（i 小）',
  'quiz.lowfreq.o.low': '转得慢的低频维度对（i 大）',
  'quiz.lowfreq.o.all': '所有维度对同时',
  'quiz.lowfreq.check': '每对维度的波长 $2\\pi\\cdot 10000^{2i/128}$，由 pe.ropeFrequencies 算出：第 {first}–{last} 对（共 {pairs} 对中的 {count} 对）转一圈需要超过 {train} 个位置（第 {first} 对：{wl}）。训练时它们一圈都没转完。',
  'quiz.lowfreq.why': '高频维度对在训练长度内已经转了很多圈，所有角度都见过；低频维度对只走过圆周的一部分，超出训练长度后就进入模型从没见过的角度。所以 NTK-aware 缩放和 YaRN 主要改动低频维度对，高频维度对几乎不动。PI 是例外：它把每个维度对的频率都除以同一个倍数，高频维度对也不例外。',

  'quiz.slope.q': 'ALiBi，8 个 head，用论文的斜率：head 0 的斜率是多少？',
  'quiz.slope.check': 'pe.alibiSlopes(8) = [{slopes}]；head 0：{s0} = $2^{-8\\cdot 1/8}$。',
  'quiz.slope.why': 'head 数是 2 的幂时，斜率是等比数列 $2^{-8(h+1)/H}$，8 个 head 时从 1/2 一直到 1/256：有的 head 看得远，有的只看近处。（head 数不是 2 的幂时，论文会从下一个 2 的幂的那组斜率里补齐，见 ALiBi 一节；教程里的 $1/2^h$ 是为了讲解做的简化。）',

  'quiz.mask.q': 'ALiBi 的偏置能代替 causal mask 吗？',
  'quiz.mask.o.no': '不能：偏置是有限值，mask 是 −∞',
  'quiz.mask.o.yes': '能：远处的未来 key 反正会被重罚',
  'quiz.mask.check': 'query 0 对 4 个 key，q·k 都相同，8 个 head 中的 head 0（斜率 {slope}）：只有偏置时（−s·|m − n|，两侧按同样的距离惩罚），未来的 key 仍分走 {future} 的注意力；加上 causal mask 后为 {masked}。',
  'quiz.mask.why': '线性偏置只是让某个 key 不太可能被关注，mask 才让它完全不可能被关注。它们是两个独立的步骤（见“作用在哪一步”一节）。',

  'quiz.learned.q': '为什么用可学习绝对位置表的模型不能超出训练长度运行？',
  'quiz.learned.o.norow': '位置 ≥ max_len 时表里根本没有这一行',
  'quiz.learned.o.small': '那些行的数值太小',
  'quiz.learned.o.softmax': '长度一长 softmax 就溢出',
  'quiz.learned.check': '一张 {rows} 行的表，经 pe.learnedPositions 查询：位置 0–{last} 都能返回；位置 {max} 超出了表的行数，直接报错（英文原文）：“{error}”。',
  'quiz.learned.why': '表里的每一行都训练过，因为训练时有 token 出现在那个位置。表外没有东西可查，也没有学过任何东西可以放进去。',

  'quiz.ntk.q': '序列长度超过原始上下文之后，动态 NTK 缩放改变的是什么？',
  'quiz.ntk.o.base': 'RoPE 的 base，按当前长度重新计算',
  'quiz.ntk.o.positions': '位置，除以一个固定倍数',
  'quiz.ntk.o.temperature': '只改 softmax 的温度',
  'quiz.ntk.o.nothing': '什么都不改，它只影响训练',
  'quiz.ntk.check': 'factor {factor}、原始上下文 {M}、head dim {d}，用 pe.ropeFrequencies 算：长度 {M} 时每个频率都和默认值相同（最大变化 {same}）；长度 {T} 时所有维度对都符合同一个新 base {base}（最大偏差 {fit}），即 $10000\\cdot({factor}\\cdot {T}/{M}-1)^{{d}/{d2}}$。',
  'quiz.ntk.why': '静态 NTK 一次性调大 base；动态版本随文本变长把 base 调得越来越大，不超过原始长度时完全不变。第一个维度对（θ₀ = 1）永远不变，越慢的维度对降得越多。',

  'quiz.first.q': 'Llama 3 用 base 500000、head_dim 128。RoPE 第一个维度对的频率 θ₀ 是多少（弧度/位置）？',
  'quiz.first.check': 'pe.ropeFrequencies 给出：base 500000 时 θ₀ = {t0}，base 10000 时为 {t10k}。',
  'quiz.first.why': '$\\theta_i = b^{-2i/d}$，而 $i = 0$：不管 base 是多少，$b^0 = 1$。base 只决定其余维度对能慢到什么程度。',

  'quiz.sin.q': '对正弦位置编码，点积 $\\mathrm{PE}_p\\cdot \\mathrm{PE}_q$ 取决于……',
  'quiz.sin.o.diff': '只取决于 p − q',
  'quiz.sin.o.sum': '只取决于 p + q',
  'quiz.sin.o.both': '分别取决于 p 和 q',
  'quiz.sin.check': 'pe.sinusoidal，d = {d}：PE₁₀·PE₃ = {a}；PE₁₁₀·PE₁₀₃ = {b}（p − q 相同）；PE₈·PE₅ = {c}（p + q 相同）。',
  'quiz.sin.why': '每个维度对上 $\\sin a \\sin b + \\cos a \\cos b = \\cos(a-b)$，对所有维度对求和就是 $\\sum_i \\cos((p-q)\\,\\omega_i)$。',

  'quiz.t5.q': 'Decoder 里的 T5（32 个桶，max_distance 128）：往前 1000 个位置的 key 落在哪个桶？',
  'quiz.t5.check': 'pe.t5Buckets：距离 1000 → 桶 {b1000}；距离 200 → {b200}；距离 20 → {b20}；距离 3 → {b3}。',
  'quiz.t5.why': '前 16 个距离各占一个桶，之后桶按对数变宽直到 max_distance，再远的距离全部共用最后一个桶。',

  'quiz.pi.q': '位置插值（PI），倍数 4：一个在 2048 个 token 上训练的模型现在要跑 8192 个。位置 6000 的旋转和原来哪个位置完全相同？',
  'quiz.pi.check': 'pe.ropeFrequencies，线性缩放 ×4：每对维度在位置 6000 上的角度都等于默认频率下位置 {p} 的角度（所有维度对中最大差 {diff} 弧度）。',
  'quiz.pi.why': 'PI 把每个频率除以倍数，等价于把位置除以倍数：0–8191 压进了训练见过的 0–2047，代价是相邻位置挨得更近。',

  'quiz.nope.q': '完全不加位置编码，但有 causal mask：decoder 能区分不同位置吗？',
  'quiz.nope.o.yes': '能：光靠 mask 就会漏出位置信息',
  'quiz.nope.o.no': '不能：没有位置编码时每个位置看起来都一样',
  'quiz.nope.check': '6 个 token，分数全都相同，第一个 token 的 value 为 1，其余为 0：causal 时各位置输出 {causal}；没有 mask 时 {full}。',
  'quiz.nope.why': '位置 m 上的 token 对 m + 1 个 key 取平均，第一个 token 被稀释的程度就暴露了 m。causal 的 NoPE 模型确实会这样学到位置（Kazemnejad 等人，2023）。',

  'quiz.shaw.q': 'Shaw 等人的方法，截断 k = 16：距离 20 和距离 200 用的是不同的相对位置向量吗？',
  'quiz.shaw.o.same': '不是，同一个向量',
  'quiz.shaw.o.different': '是，不同的向量',
  'quiz.shaw.check': 'pe.shawIndices：距离 200 → 第 {r200} 行，距离 20 → 第 {r20} 行，距离 16 → 第 {r16} 行，距离 3 → 第 {r3} 行（共 {rows} 行）。',
  'quiz.shaw.why': '查表用的是相对位置 clip(n − m, −k, k)，key 在 query 之前时它是负数：往前 16 个及以上的 key 都得到 −16，也就是第 0 行，同一个向量。',

  'quiz.summary.title': '总结',
  'quiz.summary': `<ul class="summary">
<li>Attention 本身没有顺序：不加 mask 时，打乱 token 只会让输出跟着打乱。位置信息必须另外加进去。</li>
<li><b>绝对</b>位置编码（正弦位置编码、可学习位置编码）把位置 $p$ 的向量加到 token embedding 上；<b>相对</b>位置编码（Shaw、T5、ALiBi）在注意力内部加一个只取决于距离 $m-n$ 的量。</li>
<li><b>正弦位置编码（Sinusoidal）</b>：固定的 sin / cos，波长从 $2\\pi$ 到略小于 $2\\pi b$；$\\mathrm{PE}_p\\cdot\\mathrm{PE}_q$ 只取决于 $p-q$。任何位置都能算出来，但模型不一定用得好没见过的位置。</li>
<li><b>可学习</b>：一张 $\\text{max\\_len}\\times d$ 的表。最后一行之后什么都没有，完全不能外推。</li>
<li><b>RoPE</b> 把 $q$、$k$ 的每个维度对旋转 $p\\,\\theta_i$，$\\theta_i=b^{-2i/d}$。由于 $R_m^\\top R_n = R_{n-m}$，分数只取决于距离 $m-n$：按绝对位置旋转，得到相对位置的分数。范数不变。只作用于 Q 和 K，不作用于 V。</li>
<li><b>工程实现</b>：cos / sin cache 加 <code>rotate_half</code>；维度配对方式（half 或 interleaved）必须和权重一致；有 KV cache 时，新 token 的位置等于 cache 长度；左填充不能算进位置。</li>
<li><b>长上下文</b>：低频维度对在训练长度内一圈都没转完，所以最先遇到新角度。PI 把位置除以 $s$；NTK 调大 base；动态 NTK 随当前长度调大 base；YaRN 保留高频维度对、插值低频维度对，并把注意力稍微调尖；LongRoPE 为每个维度对搜索一个倍数。配合少量继续训练效果最好。</li>
<li><b>ALiBi</b> 加上 $-s_h(m-n)$，$H$ 为 2 的幂时斜率 $s_h=2^{-8(h+1)/H}$（其他 $H$：取 $c = 2^{\\lfloor\\log_2 H\\rfloor}$，先按 $c$ 个 head 的规则算出 $c$ 个斜率，其余的从 $2c$ 个 head 那组斜率里隔一个取一个补齐）：没有参数，外推能力强，但先验固定为线性。它不能代替 causal mask。</li>
<li><b>T5</b> 为每个 head、每个按对数划分的距离桶学一个标量；<b>Shaw</b> 为截断到 $[-k,k]$ 的距离学向量，加在 key 和 value 上。两者对超过某个界限的距离一视同仁，所以在任何长度上都能跑。</li>
<li><b>xPos</b> 是 RoPE 再加一个缩放，让分数随距离衰减。<b>NoPE</b> 什么都不加：在 causal decoder 里，光靠 mask 就会漏出位置信息。</li>
</ul>`,
  'quiz.refs.title': '参考文献',
  'nav.quiz': '自测',
  'quiz.takeaway': '上面每个答案都由 posenc 核心在你的浏览器里算出来，而不是直接给出的结论。',
};
