// Text of the "derivation" section, English and Chinese (see i18n.ts).
export const en = {
  'derivation.title': 'RoPE, step by step',
  'derivation.text': `From one rotated pair of numbers to the reason RoPE sits on Q and K, in five steps. Every number is computed by posenc (<code>applyRope</code>, <code>ropeFrequencies</code>, <code>attention</code>, <code>sinusoidal</code>) on small inputs: move the controls and watch which numbers stay fixed.`,

  'der.s1.title': '1. A rotation keeps the length',
  'der.s1.text': `RoPE works on pairs of numbers. The pair $x=(x_0,x_1)$ of a token at position $m$ is turned by the angle $m\\theta$:
$$R(m\\theta)=\\begin{pmatrix}\\cos m\\theta & -\\sin m\\theta\\\\ \\sin m\\theta & \\cos m\\theta\\end{pmatrix},$$ $$R(m\\theta)\\,x=\\begin{pmatrix}x_0\\cos m\\theta - x_1\\sin m\\theta\\\\ x_0\\sin m\\theta + x_1\\cos m\\theta\\end{pmatrix}.$$
$R$ is orthogonal ($R^\\top R = I$), so $\\lVert R x\\rVert=\\lVert x\\rVert$: the position changes the direction of the pair, never its length.`,
  'der.s1.look': 'Drag the blue tip of x (or focus it and use the arrow keys): R x, in orange, stays on the dashed circle, and the two norms agree.',
  'der.s1.fig': 'The pair x and R(mθ)x in the plane of dims 2i and 2i+1 (no units)',
  'der.s1.axis0': 'x₀ (dim 2i)',
  'der.s1.axis1': 'x₁ (dim 2i+1)',
  'der.s1.m': 'Position m',
  'der.s1.theta': 'θ (radians per position)',

  'der.s2.title': '2. Only the distance is left: Rₘᵀ Rₙ = Rₙ₋ₘ',
  'der.s2.text': `Rotate the query at position $m$ and the key at position $n$. Their dot product is $(R_m q)^\\top (R_n k) = q^\\top R_m^\\top R_n\\, k$, and turning back by $m\\theta$, then forward by $n\\theta$, is one turn by $(n-m)\\theta$: $R_m^\\top R_n = R_{n-m}$. Each vector was rotated by its own absolute position, yet the score depends on the positions only through $n-m$. (θ as set in step 1.)`,
  'der.s2.look': 'Move m and n by the same amount: the two matrices on the left change, their product and the three scores do not.',
  'der.s2.m': 'Query position m',
  'der.s2.n': 'Key position n',
  'der.s2.mn': '$(R_m q)\\cdot(R_n k)$, applyRope at $m$ and at $n$:',
  'der.s2.rel': '$q\\cdot(R_{n-m} k)$, applyRope at $n-m$:',
  'der.s2.mat': '$q\\cdot(R_m^\\top R_n k)$, from the matrix product:',

  'der.s3.title': '3. x·cos + rotate_half(x)·sin, in both layouts',
  'der.s3.text': `Real code never builds the matrices: the block-diagonal rotation is $x\\odot\\cos + \\mathrm{rotate\\_half}(x)\\odot\\sin$, element by element. Which dimensions form a pair is a convention. <b>Interleaved</b>: pairs $(2i, 2i+1)$, cos/sin expanded with <code>repeat_interleave</code>; this is the articles’ <code>rotate_half</code>, GPT-J, and Meta’s original Llama code. <b>Half</b>: pairs $(i, i+d/2)$, cos/sin built with <code>cat</code>; this is Hugging Face’s <code>rotate_half</code> and GPT-NeoX. The two functions share a name and do different things. Meta’s Llama weights rotate adjacent pairs; Hugging Face’s conversion script permutes the rows of the $W_q$ and $W_k$ projections, so that its half layout computes the same attention scores.`,
  'der.s3.look': 'Same colour, same pair. In each layout the formula row equals posenc’s applyRope row. Mixing the conventions (below) changes the norm: that is not a rotation at all.',
  'der.s3.m': 'Position m',
  'der.s3.dim': 'dim',
  'der.s3.pair': 'pair',
  'der.s3.interleaved': 'interleaved: pairs (2i, 2i+1), cos/sin by repeat_interleave',
  'der.s3.half': 'half: pairs (i, i + d/2), cos/sin by cat',
  'der.s3.mis': 'Mismatch, the articles’ rotate_half (adjacent pairs) with cos/sin built by cat (half layout):',
  'der.s3.perm': 'Hugging Face’s way: permute x so that dims (2i, 2i+1) land on (i, i + d/2), rotate in the half layout, permute back. Max difference from the interleaved rotation:',

  'der.s4.title': '4. Why Q and K, and not V',
  'der.s4.text': `The attention weights come from $q\\cdot k$, so that is where position has to enter: with $q$ and $k$ rotated, each score depends on the distance. $V$ is the content that those weights average. Rotate it too and every value vector is turned by the absolute position of its token, so the output changes when all positions shift by the same amount, which should change nothing. Below: 6 tokens, head_dim 8, every position shifted by $s$.`,
  'der.s4.look': 'The blue line stays at 0: with only Q and K rotated, shifting every position changes nothing. The orange one does not: with V rotated, the output depends on where the sequence starts. The weights are the same in both columns, since V never enters them.',
  'der.s4.fig': 'Change of the attention output when every position shifts by s',
  'der.s4.x': 'shift s (positions)',
  'der.s4.qk': 'RoPE on Q, K',
  'der.s4.qkv': 'RoPE on Q, K and V',
  'der.s4.s': 'Shift s',
  'der.s4.wrow': 'max |weights − weights without position|',
  'der.s4.orow': 'max |out(s) − out(0)|',

  'der.s5.title': '5. Added or rotated: sinusoidal vs RoPE inside the score',
  'der.s5.text': `With an additive encoding the projections see $x_m+p_m$, and the score splits into four terms:
$$\\begin{aligned}&(W_q(x_m+p_m))\\cdot(W_k(x_n+p_n))\\\\ &\\quad= W_qx_m\\cdot W_kx_n + W_qx_m\\cdot W_kp_n\\\\ &\\qquad+ W_qp_m\\cdot W_kx_n + W_qp_m\\cdot W_kp_n.\\end{aligned}$$
The first is content only; the middle two mix content with absolute positions; and after arbitrary $W_q$, $W_k$ even the last one is no longer a function of $m-n$ alone. RoPE rotates after the projections: $(R_mW_qx_m)\\cdot(R_nW_kx_n) = (W_qx_m)\\cdot R_{n-m}(W_kx_n)$, a function of $n-m$ only. Below: fixed random $W_q$, $W_k$ ($8\\times 8$), the same two tokens placed at $(m, n)$ and at $(m+s, n+s)$.`,
  'der.s5.look': 'Slide s: the content term stays, the three position terms move, and so does the sinusoidal score; the RoPE score does not move (up to float rounding) and equals its relative form.',
  'der.s5.fig': 'Score of the same two tokens at (m+s, n+s), against s',
  'der.s5.y': 'score (no 1/√d)',
  'der.s5.add': 'sinusoidal, added',
  'der.s5.rope': 'RoPE, rotated',
  'der.s5.term': 'term',
  'der.s5.sum': 'sinusoidal score (sum of the four)',
  'der.s5.ropeRow': 'RoPE score $(R_mW_qx_m)\\cdot(R_nW_kx_n)$',
  'der.s5.rel': 'relative form $(W_qx_m)\\cdot R_{n-m}(W_kx_n)$',
  'der.s3.diff': 'max |formula − applyRope| = ',
};

export const zh: Record<keyof typeof en, string> = {
  'derivation.title': 'RoPE 一步步推导',
  'derivation.text': `从旋转一对数开始，到 RoPE 为什么放在 Q、K 上，一共五步。每个数都由 posenc（<code>applyRope</code>、<code>ropeFrequencies</code>、<code>attention</code>、<code>sinusoidal</code>）在小输入上算出：拖动控件，看哪些数保持不变。`,

  'der.s1.title': '1. 旋转不改变长度',
  'der.s1.text': `RoPE 以“一对数”为单位操作。位置 $m$ 上的 token，它的一对 $x=(x_0,x_1)$ 旋转 $m\\theta$ 角：
$$R(m\\theta)=\\begin{pmatrix}\\cos m\\theta & -\\sin m\\theta\\\\ \\sin m\\theta & \\cos m\\theta\\end{pmatrix},$$ $$R(m\\theta)\\,x=\\begin{pmatrix}x_0\\cos m\\theta - x_1\\sin m\\theta\\\\ x_0\\sin m\\theta + x_1\\cos m\\theta\\end{pmatrix}.$$
$R$ 是正交矩阵（$R^\\top R = I$），所以 $\\lVert R x\\rVert=\\lVert x\\rVert$：位置只改变这一对的方向，不改变它的长度。`,
  'der.s1.look': '拖动蓝色向量 x 的端点（或选中后用方向键）：橙色的 R x 始终落在虚线圆上，两个模长始终相等。',
  'der.s1.fig': '向量 x 与 R(mθ)x，坐标轴是第 2i 维和第 2i+1 维（无单位）',
  'der.s1.axis0': 'x₀（第 2i 维）',
  'der.s1.axis1': 'x₁（第 2i+1 维）',
  'der.s1.m': '位置 m',
  'der.s1.theta': 'θ（每个位置转过的弧度）',

  'der.s2.title': '2. 只剩下相对距离：Rₘᵀ Rₙ = Rₙ₋ₘ',
  'der.s2.text': `把位置 $m$ 的 query 和位置 $n$ 的 key 分别旋转。它们的点积是 $(R_m q)^\\top (R_n k) = q^\\top R_m^\\top R_n\\, k$；先倒转 $m\\theta$ 再正转 $n\\theta$，等于一次转 $(n-m)\\theta$：$R_m^\\top R_n = R_{n-m}$。每个向量都是按自己的绝对位置旋转的，可 attention score 只通过 $n-m$ 依赖位置。（θ 沿用第 1 步的设置。）`,
  'der.s2.look': '让 m 和 n 同时移动相同的步数：左边两个矩阵都在变，它们的乘积和三个 score 都不变。',
  'der.s2.m': 'query 位置 m',
  'der.s2.n': 'key 位置 n',
  'der.s2.mn': '$(R_m q)\\cdot(R_n k)$，applyRope 分别在 $m$、$n$ 处旋转：',
  'der.s2.rel': '$q\\cdot(R_{n-m} k)$，applyRope 在 $n-m$ 处旋转：',
  'der.s2.mat': '$q\\cdot(R_m^\\top R_n k)$，由矩阵乘积算出：',

  'der.s3.title': '3. x·cos + rotate_half(x)·sin：两种布局',
  'der.s3.text': `实际代码从不构造旋转矩阵：分块对角的旋转可以逐元素写成 $x\\odot\\cos + \\mathrm{rotate\\_half}(x)\\odot\\sin$。哪些维度配成一对，只是一种约定。<b>interleaved</b>：$(2i, 2i+1)$ 配对，cos/sin 用 <code>repeat_interleave</code> 展开；文章里的 <code>rotate_half</code>、GPT-J 和 Meta 原版 Llama 代码都是这种。<b>half</b>：$(i, i+d/2)$ 配对，cos/sin 用 <code>cat</code> 拼接；Hugging Face 的 <code>rotate_half</code> 和 GPT-NeoX 是这种。两个函数同名，干的却是不同的事。Meta 发布的 Llama 权重按相邻维度旋转；Hugging Face 的转换脚本对 $W_q$、$W_k$ 投影矩阵的行做了重排，让它的 half 布局算出同样的 attention score。`,
  'der.s3.look': '颜色相同就是同一对。每种布局下，按公式算出的那一行都和 posenc 的 applyRope 一致。把两种约定混着用（见下方）会改变模长，那就根本不是旋转了。',
  'der.s3.m': '位置 m',
  'der.s3.dim': '维度',
  'der.s3.pair': '对',
  'der.s3.interleaved': 'interleaved：(2i, 2i+1) 配对，cos/sin 用 repeat_interleave',
  'der.s3.half': 'half：(i, i + d/2) 配对，cos/sin 用 cat',
  'der.s3.mis': '配对不一致：文章的 rotate_half（相邻配对）配上用 cat 构造的 cos/sin（half 布局）：',
  'der.s3.perm': 'Hugging Face 的做法：先重排 x，把第 (2i, 2i+1) 维放到 (i, i + d/2)，按 half 布局旋转，再排回原来的顺序。与 interleaved 旋转之差的最大值：',

  'der.s4.title': '4. 为什么旋转 Q、K，而不旋转 V',
  'der.s4.text': `attention 权重来自 $q\\cdot k$，位置信息就应该从这里进入：旋转 $q$、$k$ 之后，每个 score 都取决于相对距离。$V$ 是被这些权重加权平均的内容。要是把 $V$ 也转了，每个 value 向量都会按所在 token 的绝对位置转一个角度，于是所有位置整体平移同样的距离时，输出也会跟着变，而这本来不该有任何影响。下面是 6 个 token、head_dim 为 8 的例子，所有位置整体平移 $s$。`,
  'der.s4.look': '蓝线一直贴着 0：只旋转 Q、K 时，整体平移位置什么都不改变。橙线则不然：V 也被旋转后，输出取决于序列从哪个位置开始。两列的权重完全一样，因为 V 根本不参与权重的计算。',
  'der.s4.fig': '所有位置整体平移 s 后，attention 输出的变化',
  'der.s4.x': '平移量 s（位置数）',
  'der.s4.qk': '只对 Q、K 做 RoPE',
  'der.s4.qkv': 'Q、K、V 都做 RoPE',
  'der.s4.s': '平移量 s',
  'der.s4.wrow': '与不加位置时的权重之差（最大值）',
  'der.s4.orow': 'max |out(s) − out(0)|',

  'der.s5.title': '5. 相加还是旋转：正弦位置编码与 RoPE 在 score 里的区别',
  'der.s5.text': `用加性位置编码时，投影看到的是 $x_m+p_m$，score 可以拆成四项：
$$\\begin{aligned}&(W_q(x_m+p_m))\\cdot(W_k(x_n+p_n))\\\\ &\\quad= W_qx_m\\cdot W_kx_n + W_qx_m\\cdot W_kp_n\\\\ &\\qquad+ W_qp_m\\cdot W_kx_n + W_qp_m\\cdot W_kp_n.\\end{aligned}$$
第一项只跟内容有关；中间两项把内容和绝对位置搅在一起；经过任意的 $W_q$、$W_k$ 之后，连最后一项也不再只是 $m-n$ 的函数。RoPE 在投影之后才旋转：$(R_mW_qx_m)\\cdot(R_nW_kx_n) = (W_qx_m)\\cdot R_{n-m}(W_kx_n)$，只取决于 $n-m$。下面用固定的随机矩阵 $W_q$、$W_k$（$8\\times 8$），把同样两个 token 分别放在 $(m, n)$ 和 $(m+s, n+s)$。`,
  'der.s5.look': '拖动 s：内容项不变，三个跟位置有关的项在变，正弦位置编码的 score 也跟着变；RoPE 的 score 纹丝不动（只差浮点舍入），并且等于它的相对形式。',
  'der.s5.fig': '同样两个 token 放在 (m+s, n+s) 时的 score，随 s 变化',
  'der.s5.y': 'score（未除以 √d）',
  'der.s5.add': '正弦位置编码（相加）',
  'der.s5.rope': 'RoPE（旋转）',
  'der.s5.term': '项',
  'der.s5.sum': '正弦位置编码的 score（四项之和）',
  'der.s5.ropeRow': 'RoPE 的 score $(R_mW_qx_m)\\cdot(R_nW_kx_n)$',
  'der.s5.rel': '相对形式 $(W_qx_m)\\cdot R_{n-m}(W_kx_n)$',
  'der.s3.diff': 'max |公式 − applyRope| = ',
};
