// Section "examples": the worked examples of the two articles, recomputed
// by the wasm core and printed the way PyTorch prints them, each beside the
// posenc call that produced it and an equivalent PyTorch snippet (not run).
// Shape legend: B batch, H heads, T tokens, D head or model dimension.
import type { Posenc, TinyModelConfig } from 'posenc';

import { errorText, onLangChange, t, type Key } from '../../i18n.js';
import { codePanels, rich, seeded, setValue, valueOut, type CodePanels } from '../../lessonkit.js';
import { maxDiff } from '../../vec.js';
import { getChoice } from '../../state.js';
import { liveText, sentenceGap, tf, valueGap } from '../../textfill.js';
import { EVAL_SET, evalCurve } from '../../evalset.js';
import { SEEDS } from '../../seedbands.js';
import { coalesce, el, lazyPanel, numberControl, select, text, timed } from '../../ui.js';
import { formatTensor, pythonFixed, torchSize } from '../../torchfmt.js';
import type { Ctx } from '../context.js';
import { cacheStepsExample } from './cache-steps.js';
import { alibiAttentionExample, sinusoidalModuleExample } from './module-steps.js';

/**
 * One worked example: title, one paragraph, controls, the printed output and,
 * under it at full width (no line cut off), the code, opened on PyTorch (the
 * articles' language).
 */
function lesson(id: string, title: Key, intro: Key, controls: HTMLElement[], output: Node[], code: CodePanels, look: Key): HTMLElement {
  code.select('py');
  return el(
    'div', { class: 'lesson', id },
    text(title, 'h3'),
    rich(intro, 'p', 'explain'),
    ...(controls.length > 0 ? [el('div', { class: 'controls' }, ...controls)] : []),
    el(
      'div', { class: 'lesson-stack' },
      el('figure', { class: 'lesson-out' }, text('examples.output', 'figcaption'), ...output, rich(look, 'p', 'note')),
      code.el,
    ),
  );
}

/** Comment text of a code panel, in the page's language. */
const c = (key: Key): string => t(key);

// ---- 1. Sinusoidal table, batch 2 x length 4 x dim 8, added to zero embeddings

function sinusoidalExample(pe: Posenc): HTMLElement {
  const batch = 2;
  const len = numberControl({ label: 'examples.sin.len', param: 'ex.len', min: 1, max: 12, step: 1, initial: 4 }, () => update());
  const dim = numberControl({ label: 'examples.sin.dim', param: 'ex.dim', min: 2, max: 16, step: 2, initial: 8 }, () => update());
  // An odd dim from the URL is taken to the even one the table needs.
  const st = { get seqLen(): number { return len.value(); }, get dModel(): number { return 2 * Math.round(dim.value() / 2); } };
  const pre = el('pre', { class: 'tensor', id: 'ex-sin-out', tabindex: '0' });
  const code = codePanels(
    'ex-sin',
    () => `import { init } from 'posenc';

const pe = await init();
const [batch, seqLen, dModel] = [${batch}, ${st.seqLen}, ${st.dModel}];
// ${c('examples.sin.c.table')}
const table = pe.sinusoidal({ length: seqLen, dim: dModel, layout: 'interleaved' });
// ${c('examples.sin.c.zeros')}: [batch, seqLen, dModel]
const x = new Float32Array(batch * seqLen * dModel);
const out = x.map((v, i) => v + table[i % (seqLen * dModel)]);
console.log(out.subarray(0, seqLen * dModel)); // out[0]: [${st.seqLen}, ${st.dModel}]`,
    () => `import torch
torch.set_printoptions(precision=4, sci_mode=False, linewidth=200)

batch, seq_len, d_model = ${batch}, ${st.seqLen}, ${st.dModel}
pos = torch.arange(seq_len, dtype=torch.float32)[:, None]          # [${st.seqLen}, 1]
inv_freq = 10000.0 ** (-torch.arange(0, d_model, 2) / d_model)     # [${st.dModel / 2}]
table = torch.zeros(seq_len, d_model)
table[:, 0::2] = torch.sin(pos * inv_freq)   # ${c('examples.sin.c.even')}
table[:, 1::2] = torch.cos(pos * inv_freq)   # ${c('examples.sin.c.odd')}
x = torch.zeros(batch, seq_len, d_model)     # ${c('examples.sin.c.zeros')}
out = x + table                              # ${c('examples.sin.c.broadcast')}
print("output shape:", out.shape)
print(out[0])`,
  );
  const render = (): void => {
    const { seqLen, dModel } = st;
    // The same steps as the TS panel: table [seqLen, dModel], x and out [batch, seqLen, dModel].
    const table = pe.sinusoidal({ length: seqLen, dim: dModel, layout: 'interleaved' });
    const x = new Float32Array(batch * seqLen * dModel);
    const out = x.map((v, i) => v + (table[i % (seqLen * dModel)] as number));
    const out0 = out.subarray(0, seqLen * dModel);
    pre.textContent = `output shape: ${torchSize([batch, seqLen, dModel])}\n${formatTensor(out0, [seqLen, dModel])}`;
    pre.dataset.values = JSON.stringify(Array.from(out0));
    pre.dataset.shape = JSON.stringify([batch, seqLen, dModel]);
    code.refresh();
  };
  const update = coalesce(render);
  const controls = [
    len.el,
    dim.el,
  ];
  render();
  return lesson('ex-sin', 'examples.sin.title', 'examples.sin.text', controls, [pre], code, 'examples.sin.look');
}

// ---- 2. RoPE on q, k: [1, 2, 4, 8], adjacent pairs (the articles' rotate_half)

/** The page's fixed inputs: `f(a * i + b)` for i = 0 .. n-1, in double, rounded to float32 once. */
export function waveInput(n: number, a: number, b: number, f: (x: number) => number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => f(a * i + b));
}

/** torch.allclose(a, b) with its defaults: |a - b| <= 1e-8 + 1e-5 |b| everywhere. */
function allClose(a: Float32Array, b: Float32Array): boolean {
  return a.every((v, i) => Math.abs(v - b[i]!) <= 1e-8 + 1e-5 * Math.abs(b[i]!));
}

/** `[..., D] -> [..., D/2]` norms of the adjacent pairs (x[2i], x[2i+1]). */
function pairNorms(x: Float32Array): Float32Array {
  return Float32Array.from({ length: x.length / 2 }, (_, i) => Math.hypot(x[2 * i] as number, x[2 * i + 1] as number));
}

function ropeExample(pe: Posenc): HTMLElement {
  const [H, T, D] = [2, 4, 8];
  // A select of the heads (not a slider): the URL value must be one of them.
  let head = Number(getChoice('x.rhead', '0', Array.from({ length: H }, (_, h) => String(h))));
  // q, k: [H, T, D] (batch 1 dropped; posenc's layout is [heads, seqLen, headDim])
  const q = waveInput(H * T * D, 0.9, 0.2, Math.sin);
  const k = waveInput(H * T * D, 1.7, 0.5, Math.cos);
  const pre = el('pre', { class: 'tensor', id: 'ex-rope-out', tabindex: '0' });
  const normDiff = valueOut('ex-rope-normdiff', 'big zero');
  const code = codePanels(
    'ex-rope',
    () => `const [heads, seqLen, headDim] = [2, 4, 8];            // batch 1
// ${c('examples.rope.c.inputs')}
const q = Float32Array.from({ length: 64 }, (_, i) => Math.sin(0.9 * i + 0.2));
const k = Float32Array.from({ length: 64 }, (_, i) => Math.cos(1.7 * i + 0.5));
// ${c('examples.rope.c.layout')}
const opts = { heads, seqLen, headDim, layout: 'interleaved' } as const;
const qRope = pe.applyRope(q, opts);   // [2, 4, 8]: ${c('examples.rope.c.shape')}
const kRope = pe.applyRope(k, opts);`,
    () => `import torch
torch.set_printoptions(precision=4, sci_mode=False, linewidth=200)

def rope_adjacent(x, base=10000.0):
    """x: [batch, heads, seq_len, head_dim]${c('examples.rope.c.pairs')}"""
    seq_len, d = x.shape[-2], x.shape[-1]
    inv_freq = base ** (-torch.arange(0, d, 2) / d)                  # [d/2]
    angle = torch.outer(torch.arange(seq_len).float(), inv_freq)    # [seq_len, d/2]
    cos = angle.cos().repeat_interleave(2, dim=-1)                  # [seq_len, d]
    sin = angle.sin().repeat_interleave(2, dim=-1)
    turned = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)  # (-x1, x0, -x3, x2, ...)
    return x * cos + turned * sin

# ${c('examples.rope.c.inputs')}
i = torch.arange(64, dtype=torch.float64)
q = torch.sin(0.9 * i + 0.2).float().view(1, 2, 4, 8)
k = torch.cos(1.7 * i + 0.5).float().view(1, 2, 4, 8)
q_rope, k_rope = rope_adjacent(q), rope_adjacent(k)
print("q shape:", q.shape)
print("q_rope shape:", q_rope.shape)
print("k_rope shape:", k_rope.shape)
print()
print("q[0, ${head}]:"); print(q[0, ${head}])
print("q_rope[0, ${head}]:"); print(q_rope[0, ${head}])
pair_norm = lambda x: x.unflatten(-1, (-1, 2)).norm(dim=-1)      # [..., d] -> [..., d/2]
print("pair norms of q[0, ${head}]:"); print(pair_norm(q[0, ${head}]))
print("pair norms of q_rope[0, ${head}]:"); print(pair_norm(q_rope[0, ${head}]))
print("pair norms unchanged:", all(torch.allclose(pair_norm(a), pair_norm(b)) for a, b in ((q_rope, q), (k_rope, k))))`,
  );
  const update = (): void => {
    const opts = { heads: H, seqLen: T, headDim: D, layout: 'interleaved' } as const;
    const qRope = pe.applyRope(q, opts);
    const kRope = pe.applyRope(k, opts);
    const rows = (x: Float32Array): Float32Array => x.subarray(head * T * D, (head + 1) * T * D);
    const shape = torchSize([1, H, T, D]);
    pre.textContent = [
      `q shape: ${shape}`, `q_rope shape: ${shape}`, `k_rope shape: ${shape}`, '',
      `q[0, ${head}]:`, formatTensor(rows(q), [T, D]),
      `q_rope[0, ${head}]:`, formatTensor(rows(qRope), [T, D]),
      `pair norms of q[0, ${head}]:`, formatTensor(pairNorms(rows(q)), [T, D / 2]),
      `pair norms of q_rope[0, ${head}]:`, formatTensor(pairNorms(rows(qRope)), [T, D / 2]),
      `pair norms unchanged: ${allClose(pairNorms(qRope), pairNorms(q)) && allClose(pairNorms(kRope), pairNorms(k)) ? 'True' : 'False'}`,
    ].join('\n');
    pre.dataset.q = JSON.stringify(Array.from(rows(q)));
    pre.dataset.values = JSON.stringify(Array.from(rows(qRope)));
    pre.dataset.head = String(head);
    setValue(normDiff, Math.max(maxDiff(pairNorms(qRope), pairNorms(q)), maxDiff(pairNorms(kRope), pairNorms(k))), 3);
    code.refresh();
  };
  const controls = [
    select<string>({ label: 'examples.rope.head', param: 'x.rhead', options: [['0', '0'], ['1', '1']], value: String(head), onChange: (v) => { head = Number(v); update(); } }).el,
  ];
  update();
  onLangChange(update);
  const summary = el('p', { class: 'lesson-readout' }, text('examples.rope.normdiff'), sentenceGap(), normDiff);
  return lesson('ex-rope', 'examples.rope.title', 'examples.rope.text', controls, [pre, summary], code, 'examples.rope.look');
}

// ---- 3. ALiBi bias, 4 heads x 5 x 5, slopes 1/2^h (and the paper's)

function alibiExample(pe: Posenc): HTMLElement {
  const heads = 4;
  const len = numberControl({ label: 'examples.alibi.len', param: 'x.alen', min: 2, max: 12, step: 1, initial: 5 }, () => update());
  // The head is a select (not a slider): the URL value must be one of the heads.
  const st = {
    get len(): number { return len.value(); },
    head: Number(getChoice('x.ahead', '0', Array.from({ length: heads }, (_, h) => String(h)))),
  };
  const simplePre = el('pre', { class: 'tensor', id: 'ex-alibi-simple', tabindex: '0' });
  const paperPre = el('pre', { class: 'tensor', id: 'ex-alibi-paper', tabindex: '0' });
  const code = codePanels(
    'ex-alibi',
    () => `const [heads, seqLen] = [4, ${st.len}];
const slopes = pe.alibiSlopes(heads, { variant: 'simple' });      // 1 / 2^h
// ${c('examples.alibi.c.bias')}
const bias = pe.alibiBias({ heads, queryLength: seqLen, keyLength: seqLen, variant: 'simple' });
const head${st.head} = bias.subarray(${st.head} * seqLen * seqLen, ${st.head + 1} * seqLen * seqLen);
// ${c('examples.alibi.c.paper')}
const paper = pe.alibiSlopes(heads, { variant: 'paper' });`,
    () => `import torch
torch.set_printoptions(precision=4, sci_mode=False, linewidth=200)

n_heads, seq_len = 4, ${st.len}
slopes = 1.0 / 2.0 ** torch.arange(n_heads)                       # ${c('examples.alibi.c.simple')}
paper = 2.0 ** (-8.0 * torch.arange(1, n_heads + 1) / n_heads)    # ${c('examples.alibi.c.paperpy')}

def alibi_bias(slopes):
    m = torch.arange(seq_len)[:, None]                             # query
    n = torch.arange(seq_len)[None, :]                             # key
    # ${tf('examples.alibi.c.shape', { shape: `[4, ${st.len}, ${st.len}]` })}
    bias = -torch.einsum("h,mn->hmn", slopes, (m - n).clamp(min=0).float()) + 0.0   # ${c('examples.alibi.c.zero')}
    return bias.masked_fill(n > m, float("-inf"))                 # ${c('examples.alibi.c.mask')}

bias = alibi_bias(slopes)
print("ALiBi bias shape:", bias[None].shape)
print("slopes 1/2^h:", slopes)
print("Head ${st.head} bias:")
print(bias[${st.head}])
print("slopes 2^(-8(h+1)/n):", paper)
print("Head ${st.head} bias:")
print(alibi_bias(paper)[${st.head}])`,
  );
  const render = (): void => {
    const { len, head } = st;
    const block = (b: Float32Array): Float32Array => b.subarray(head * len * len, (head + 1) * len * len);
    const show = (pre: HTMLElement, variant: 'simple' | 'paper', rule: string): void => {
      const slopes = pe.alibiSlopes(heads, { variant });
      // [heads, len, len], causal: -m (i - j) for j <= i, -inf above the diagonal
      // + 0.0, as the snippet adds it: a -0. would print as 0.
      const bias = pe.alibiBias({ heads, queryLength: len, keyLength: len, variant }).map((v) => v + 0);
      pre.textContent = [
        ...(variant === 'simple' ? [`ALiBi bias shape: ${torchSize([1, heads, len, len])}`] : []),
        `slopes ${rule}: ${formatTensor(slopes, [heads])}`,
        `Head ${head} bias:`,
        formatTensor(block(bias), [len, len]),
      ].join('\n');
      pre.dataset.values = JSON.stringify(Array.from(block(bias), (v) => (Number.isFinite(v) ? v : null)));
      pre.dataset.slopes = JSON.stringify(Array.from(slopes));
      pre.dataset.len = String(len);
      pre.dataset.head = String(head);
    };
    show(simplePre, 'simple', '1/2^h');
    show(paperPre, 'paper', '2^(-8(h+1)/n)');
    code.refresh();
  };
  const update = coalesce(timed('ex-alibi', render));
  const controls = [
    len.el,
    select<string>({
      label: 'examples.alibi.head', param: 'x.ahead', options: [['0', '0'], ['1', '1'], ['2', '2'], ['3', '3']],
      value: String(st.head), onChange: (v) => { st.head = Number(v); update(); },
    }).el,
  ];
  render();
  onLangChange(update);
  const out = [
    text('examples.alibi.simple', 'div', 'tensor-label'), simplePre,
    text('examples.alibi.paper', 'div', 'tensor-label'), paperPre,
  ];
  return lesson('ex-alibi', 'examples.alibi.title', 'examples.alibi.text', controls, out, code, 'examples.alibi.look');
}

// ---- 4. A 128-token prompt in a KV cache: the next token's position id is 128

/** The KV example's inputs: `amp * f(a * i + b)` for i = 0 .. n-1, in double, rounded to float32 once (as the snippet's `wave`). */
function kvWave(n: number, amp: number, a: number, b: number, f: (x: number) => number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => amp * f(a * i + b));
}

/** The KV example's fixed inputs: `[amp, a, b, f]` of q, k and v (the snippet builds the same). */
export const KV_WAVES = {
  q: [2.0, 0.7, 0.2, 'cos'],
  k: [2.0, 0.53, 0.5, 'sin'],
  v: [1.0, 1.7, 1.1, 'sin'],
} as const;

function kvCacheExample(pe: Posenc): HTMLElement {
  const D = 8;
  const steps = 3;
  const promptControl = numberControl({ label: 'examples.kv.prompt', param: 'x.prompt', min: 1, max: 1024, step: 1, initial: 128 }, () => update());
  const prompt = (): number => promptControl.value();
  const pre = el('pre', { class: 'tensor', id: 'ex-kv-out', tabindex: '0' });
  const wave = (n: number, w: readonly [number, number, number, 'sin' | 'cos']): Float32Array => kvWave(n, w[0], w[1], w[2], Math[w[3]]);
  const pyWave = (w: readonly [number, number, number, 'sin' | 'cos']): string => `wave(${w[0].toFixed(1)}, ${w[1]}, ${w[2]}, torch.${w[3]})`;
  const code = codePanels(
    'ex-kv',
    () => `// ${c('examples.kv.c.kvcache')}
const cache = new pe.KvCache({ kvHeads: 1, headDim: 8, rope: { layout: 'interleaved' } });
cache.append(kPrompt, vPrompt);   // [1, ${prompt()}, 8], ${c('examples.kv.c.positions')} 0..${prompt() - 1}
const next = cache.length;        // ${prompt()}: ${c('examples.kv.c.next')}
cache.append(kNew, vNew);         // [1, 1, 8] ${c('examples.kv.c.at')} ${prompt()}
const { out } = cache.attend(qNew, { heads: 1, queryLength: 1 });
// ${c('examples.kv.c.check')}
const full = pe.attention({ q: qNew, k: kAll, v: vAll, heads: 1, queryLength: 1,
  keyLength: ${prompt() + 1}, headDim: 8, rope: { layout: 'interleaved' } }).out;
cache.delete();`,
    () => `import torch
torch.set_printoptions(precision=4, sci_mode=False, linewidth=200)

def rope(x, pos, base=10000.0):
    """x: [t, d], pos: [t]${c('examples.kv.c.rope')}"""
    d = x.shape[-1]
    inv_freq = base ** (-torch.arange(0, d, 2) / d)
    angle = (pos[:, None].float() * inv_freq).repeat_interleave(2, dim=-1)
    turned = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)
    return x * angle.cos() + turned * angle.sin()

def attend(q, k, v):     # ${c('examples.kv.c.attend')}
    return (q @ k.T / k.shape[-1] ** 0.5).softmax(dim=-1) @ v

prompt_len, steps, d = ${prompt()}, ${steps}, ${D}
t_all = prompt_len + steps
# ${c('examples.kv.c.inputs')}
wave = lambda amp, a, b, f: (amp * f(a * torch.arange(t_all * d, dtype=torch.float64) + b)).float().view(t_all, d)
q, k, v = ${pyWave(KV_WAVES.q)}, ${pyWave(KV_WAVES.k)}, ${pyWave(KV_WAVES.v)}
position_ids = torch.arange(prompt_len)   # ${c('examples.kv.c.prefill')}
print(f"prompt: {prompt_len} tokens")
print("position_ids:")
print(position_ids)
for restart_at_zero in (False, True):
    k_cache, v_cache = rope(k[:prompt_len], position_ids), v[:prompt_len]   # ${c('examples.kv.c.cache')}
    diff = 0.0
    for step in range(steps):
        t = prompt_len + step
        pos = torch.tensor([step if restart_at_zero else len(k_cache)])     # ${c('examples.kv.c.pos')}
        if not restart_at_zero:
            print(f"new token {step + 1}: cache length {len(k_cache)} -> position_id {pos.item()}")
        k_cache = torch.cat((k_cache, rope(k[t:t + 1], pos)))               # ${c('examples.kv.c.append')}
        v_cache = torch.cat((v_cache, v[t:t + 1]))
        cached = attend(rope(q[t:t + 1], pos), k_cache, v_cache)
        # ${c('examples.kv.c.check')}
        full = attend(rope(q[t:t + 1], torch.tensor([t])), rope(k[:t + 1], torch.arange(t + 1)), v[:t + 1])
        diff = max(diff, (cached - full).abs().max().item())
    print("positions restarting at 0 (the bug):" if restart_at_zero else "positions from the cache length:",
          f"max |cached - full pass| = {diff:.4f}")`,
  );
  const render = (): void => {
    const P = prompt();
    const n = P + steps;
    // q, k, v: [1, n, D] for every token (only the new tokens' q are used)
    const q = wave(n * D, KV_WAVES.q), k = wave(n * D, KV_WAVES.k), v = wave(n * D, KV_WAVES.v);
    const rope = { layout: 'interleaved' } as const;
    const run = (bugAtZero: boolean): { ids: number[][]; lens: number[]; diff: number } => {
      const cache = new pe.KvCache({ kvHeads: 1, headDim: D, rope });
      try {
        const ids: number[][] = [];
        const lens: number[] = [];
        const start = cache.length;
        cache.append(k.subarray(0, P * D), v.subarray(0, P * D));
        ids.push(Array.from({ length: cache.length - start }, (_, i) => start + i));
        let diff = 0;
        for (let s = 0; s < steps; s++) {
          const at = cache.length;
          lens.push(at);
          const t0 = P + s;
          const kt = k.subarray(t0 * D, (t0 + 1) * D), vt = v.subarray(t0 * D, (t0 + 1) * D), qt = q.subarray(t0 * D, (t0 + 1) * D);
          if (bugAtZero) cache.append(kt, vt, { positions: Int32Array.of(s) });
          else cache.append(kt, vt);
          ids.push([bugAtZero ? s : at]);
          const cached = cache.attend(qt, { heads: 1, queryLength: 1 }).out;
          const full = pe.attention({
            q: qt, k: k.subarray(0, (t0 + 1) * D), v: v.subarray(0, (t0 + 1) * D),
            heads: 1, queryLength: 1, keyLength: t0 + 1, headDim: D, rope,
          }).out;
          diff = Math.max(diff, maxDiff(cached, full));
        }
        return { ids, lens, diff };
      } finally {
        cache.delete();
      }
    };
    const good = run(false);
    const bad = run(true);
    const promptIds = Int32Array.from(good.ids[0] ?? []);
    const newIds = good.ids.slice(1).map((x) => x[0] as number);
    // Exactly what the snippet prints, line by line.
    pre.textContent = [
      `prompt: ${P} tokens`,
      'position_ids:',
      formatTensor(promptIds, [promptIds.length], { integer: true }),
      ...newIds.map((id, s) => `new token ${s + 1}: cache length ${good.lens[s]!} -> position_id ${id}`),
      `positions from the cache length: max |cached - full pass| = ${pythonFixed(good.diff, 4)}`,
      `positions restarting at 0 (the bug): max |cached - full pass| = ${pythonFixed(bad.diff, 4)}`,
    ].join('\n');
    pre.dataset.prompt = JSON.stringify([promptIds[0], promptIds[promptIds.length - 1], promptIds.length]);
    pre.dataset.next = JSON.stringify(newIds);
    pre.dataset.diffs = JSON.stringify([good.diff, bad.diff]);
    code.refresh();
  };
  const update = coalesce(render);
  const controls = [
    promptControl.el,
  ];
  render();
  onLangChange(update);
  return lesson('ex-kv', 'examples.kv.title', 'examples.kv.text', controls, [pre], code, 'examples.kv.look');
}

// ---- 5. A whole attention layer with RoPE: x -> q, k, v -> rotate q, k ->
// causal softmax -> merge heads -> output projection; shifting every position
// by the same offset leaves its output unchanged.

/** [rows, n] = a [rows, m] times b [m, n], row-major, in float64 rounded to float32 at the end. */
function matMul(a: ArrayLike<number>, b: ArrayLike<number>, rows: number, m: number, n: number): Float32Array {
  const out = new Float32Array(rows * n);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let i = 0; i < m; i++) s += (a[r * m + i] as number) * (b[i * n + j] as number);
      out[r * n + j] = s;
    }
  }
  return out;
}

/** [T, H * D] -> [H, T, D] (split heads) and back (merge). */
function splitHeads(x: Float32Array, T: number, H: number, D: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let t = 0; t < T; t++) for (let h = 0; h < H; h++) for (let d = 0; d < D; d++) out[(h * T + t) * D + d] = x[t * H * D + h * D + d] as number;
  return out;
}
function mergeHeads(x: Float32Array, T: number, H: number, D: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let t = 0; t < T; t++) for (let h = 0; h < H; h++) for (let d = 0; d < D; d++) out[t * H * D + h * D + d] = x[(h * T + t) * D + d] as number;
  return out;
}

/** The fixed inputs of the layer example (the PyTorch snippet builds the same ones). */
function layerInputs(): { x: Float32Array; wq: Float32Array; wk: Float32Array; wv: Float32Array; wo: Float32Array } {
  const wave = (n: number, amp: number, a: number, b: number, f: (v: number) => number): Float32Array =>
    Float32Array.from({ length: n }, (_, i) => amp * f(a * i + b));
  return {
    x: wave(32, 1, 0.7, 0.1, Math.sin),
    wq: wave(64, 0.4, 1.3, 0.2, Math.sin),
    wk: wave(64, 0.4, 0.9, 0.3, Math.cos),
    wv: wave(64, 0.4, 0.5, 1.1, Math.sin),
    wo: wave(64, 0.4, 1.1, 0.7, Math.cos),
  };
}

function layerExample(pe: Posenc): HTMLElement {
  const [T, C, H] = [4, 8, 2];
  const D = C / H;
  const offsetControl = numberControl({ label: 'examples.layer.offset', param: 'x.loff', min: 0, max: 1000, step: 1, initial: 0 }, () => update());
  const offset = (): number => offsetControl.value();
  const inp = layerInputs();
  const pre = el('pre', { class: 'tensor', id: 'ex-layer-out', tabindex: '0' });
  const shift = valueOut('ex-layer-shift', 'big zero');
  const code = codePanels(
    'ex-layer',
    () => `const [seqLen, dModel, heads, headDim] = [4, 8, 2, 4];   // batch 1
// ${c('examples.layer.c.inputs')}
// ${c('examples.layer.c.helpers')}
const q = splitHeads(matMul(x, wq));   // [4, 8] -> [2, 4, 4]: ${c('examples.layer.c.split')}
const k = splitHeads(matMul(x, wk));
const v = splitHeads(matMul(x, wv));
const positions = Int32Array.from({ length: 4 }, (_, i) => ${offset()} + i);
const { out } = pe.attention({ q, k, v, heads, queryLength: 4, keyLength: 4, headDim,
  causal: true,                         // ${c('examples.layer.c.causal')}
  rope: { layout: 'half', queryPositions: positions, keyPositions: positions } });
const y = matMul(mergeHeads(out), wo);  // [4, 8]`,
    () => `import torch
import torch.nn.functional as F
torch.set_printoptions(precision=4, sci_mode=False, linewidth=200)

def rotate_half(x):                     # ${c('examples.layer.c.half')}
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)

def attention_layer(x, wq, wk, wv, wo, heads, offset=0, base=10000.0):
    """x: [batch, seq_len, d_model]; wq, wk, wv, wo: [d_model, d_model]"""
    b, t, d_model = x.shape
    hd = d_model // heads
    split = lambda y: y.view(b, t, heads, hd).transpose(1, 2)    # [b, heads, t, hd]
    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    inv_freq = base ** (-torch.arange(0, hd, 2) / hd)              # [hd/2]
    pos = torch.arange(offset, offset + t).float()                 # ${c('examples.layer.c.positions')}
    angle = torch.outer(pos, inv_freq).repeat(1, 2)                # [t, hd]${c('examples.layer.c.angles')}
    q = q * angle.cos() + rotate_half(q) * angle.sin()             # ${c('examples.layer.c.rotate')}
    k = k * angle.cos() + rotate_half(k) * angle.sin()
    att = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # softmax(q k^T / sqrt(hd)) v
    return att.transpose(1, 2).reshape(b, t, d_model) @ wo         # ${c('examples.layer.c.merge')}

# ${c('examples.layer.c.inputs')}
wave = lambda n, amp, a, c, f: (amp * f(a * torch.arange(n, dtype=torch.float64) + c)).float()
x = wave(32, 1.0, 0.7, 0.1, torch.sin).view(1, 4, 8)
wq, wk = wave(64, 0.4, 1.3, 0.2, torch.sin).view(8, 8), wave(64, 0.4, 0.9, 0.3, torch.cos).view(8, 8)
wv, wo = wave(64, 0.4, 0.5, 1.1, torch.sin).view(8, 8), wave(64, 0.4, 1.1, 0.7, torch.cos).view(8, 8)
y = attention_layer(x, wq, wk, wv, wo, heads=2, offset=${offset()})
print("y shape:", y.shape)
print(y[0])`,
  );
  /** y [T, C] of the layer with positions offset .. offset + T - 1. */
  const layer = (at: number): Float32Array => {
    const positions = Int32Array.from({ length: T }, (_, i) => at + i);
    const q = splitHeads(matMul(inp.x, inp.wq, T, C, C), T, H, D);
    const k = splitHeads(matMul(inp.x, inp.wk, T, C, C), T, H, D);
    const v = splitHeads(matMul(inp.x, inp.wv, T, C, C), T, H, D);
    const { out } = pe.attention({
      q, k, v, heads: H, queryLength: T, keyLength: T, headDim: D, causal: true,
      rope: { layout: 'half', queryPositions: positions, keyPositions: positions },
    });
    return matMul(mergeHeads(out, T, H, D), inp.wo, T, C, C);
  };
  const render = (): void => {
    const y = layer(offset());
    const y0 = offset() === 0 ? y : layer(0);
    pre.textContent = [`y shape: ${torchSize([1, T, C])}`, formatTensor(y, [T, C])].join('\n');
    pre.dataset.values = JSON.stringify(Array.from(y));
    pre.dataset.offset = String(offset());
    setValue(shift, maxDiff(y, y0), 3);
    code.refresh();
  };
  const update = coalesce(render);
  const controls = [
    offsetControl.el,
  ];
  render();
  onLangChange(update);
  const out = [pre, el('p', { class: 'lesson-readout' }, text('examples.layer.shift'), valueGap(), shift)];
  return lesson('ex-layer', 'examples.layer.title', 'examples.layer.text', controls, out, code, 'examples.layer.look');
}

// ---- 6. A learned table of 1024 rows asked for position 2048

function learnedExample(ctx: Ctx): HTMLElement {
  const pe = ctx.pe;
  const rows = 1024, dim = 8;
  const positionControl = numberControl({ label: 'examples.learned.position', param: 'x.pos', min: 0, max: 4096, step: 1, initial: 2048 }, () => update());
  const position = (): number => positionControl.value();
  // [rows, dim]: stands for a trained table (the values do not matter here)
  const table = seeded(rows * dim, 51);
  const pre = el('pre', { class: 'tensor', id: 'ex-learned-out', tabindex: '0' });
  const modelPre = el('pre', { class: 'tensor wrap', id: 'ex-learned-model', tabindex: '0' });
  modelPre.dataset.i18n = 'examples.learned.waiting';
  modelPre.textContent = t('examples.learned.waiting');
  const code = codePanels(
    'ex-learned',
    () => `// [1024, 8]: ${c('examples.learned.c.table')}
const table = learnedRows;
try {
  pe.learnedPositions({ table, maxLength: 1024, dim: 8, positions: Int32Array.of(${position()}) });
} catch (e) {
  console.log(\`\${e.name}: \${e.message}\`);
}
// ${c('examples.learned.c.model')}
const model = await pe.loadModel(bytes);    // language-learned.safetensors
model.evaluate({ lengths: [2 * model.config.maxLen] });  // RangeError`,
    () => `import torch
from torch import nn
torch.set_printoptions(precision=4, sci_mode=False, linewidth=200)

pos_table = nn.Embedding(1024, 8)     # ${c('examples.learned.c.rows')}
p = ${position()}
print(f"position {p}:")
with torch.no_grad():
    print(pos_table(torch.tensor([p])))
# ${position() < rows ? c('examples.learned.c.fine') : 'IndexError: index out of range in self'}`,
  );
  const update = (): void => {
    try {
      const row = pe.learnedPositions({ table, maxLength: rows, dim, positions: Int32Array.of(position()) });
      pre.textContent = `position ${position()}:\n${formatTensor(row, [1, dim])}`;
      pre.dataset.error = '';
      pre.classList.remove('error-out');
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      pre.textContent = `position ${position()}:\n${errorText(err)}`;
      pre.dataset.error = err.message;
      pre.classList.add('error-out');
    }
    code.refresh();
  };
  const controls = [
    positionControl.el,
  ];
  update();
  onLangChange(update);
  // The shipped model on the page's evaluation set, as every section shows it; it is seed 1 of the families table's runs.
  const about = liveText('p', 'note');
  about.el.id = 'ex-learned-about';
  const aboutVars = (len: number | string): Record<string, number | string> =>
    ({ n: EVAL_SET.examples, len, seed: EVAL_SET.seed, seeds: SEEDS.length, others: SEEDS.length - 1 });
  about.set('examples.learned.about', aboutVars('…'));
  const node = lesson('ex-learned', 'examples.learned.title', 'examples.learned.text', controls,
    [pre, text('examples.learned.model', 'div', 'tensor-label'), modelPre, about.el], code, 'examples.learned.look');
  lazyPanel(node, () => evalLearned(ctx), (r) => {
    showLearned(modelPre, r);
    about.set('examples.learned.about', aboutVars(r.config.maxLen));
  }, { errorBox: modelPre });
  return node;
}

/** The shipped language model with a learned table, on the page's evaluation set inside its table and asked past it (in the Worker). */
async function evalLearned(ctx: Ctx): Promise<{ model: string; config: TinyModelConfig; inside: number; past: number; message: string }> {
  const model = 'language-learned';
  const { config } = await ctx.worker.call('describe', { model });
  const inside = await evalCurve(ctx, model, config.maxLen);
  const past = 2 * config.maxLen;
  let message = '';
  try {
    await evalCurve(ctx, model, past);
  } catch (e) {
    message = e instanceof Error ? e.message : String(e);
  }
  return { model, config, inside: inside.loss, past, message };
}

/** Shows evalLearned's result: the call lines are code; the outcome line is in the page's language. */
function showLearned(pre: HTMLElement, r: Awaited<ReturnType<typeof evalLearned>>): void {
  const { model, config, message } = r;
  delete pre.dataset.i18n;
  const show = (): void => {
    pre.textContent = [
      `m = loadModel('${model}.safetensors') -> m.config.maxLen = ${config.maxLen}, m.config.trainLen = ${config.trainLen}`,
      `m.evaluate({ lengths: [${config.maxLen}], examples: ${EVAL_SET.examples}, seed: ${EVAL_SET.seed} }) -> loss ${r.inside.toFixed(3)}`,
      `m.evaluate({ lengths: [${r.past}], examples: ${EVAL_SET.examples}, seed: ${EVAL_SET.seed} }) ->`,
      message === '' ? t('error.none') : `${t('error.throws')}${message}`,
    ].join('\n');
  };
  show();
  onLangChange(show, pre);
  pre.dataset.error = message;
  pre.dataset.maxLen = String(config.maxLen);
  pre.dataset.inside = String(r.inside);
  pre.dataset.ready = '1';
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  root.append(sinusoidalExample(ctx.pe), sinusoidalModuleExample(ctx.pe), ropeExample(ctx.pe), cacheStepsExample(ctx.pe), alibiExample(ctx.pe), alibiAttentionExample(ctx.pe), kvCacheExample(ctx.pe), layerExample(ctx.pe), learnedExample(ctx));
}
