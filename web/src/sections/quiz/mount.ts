// Section "quiz": self-check questions whose answers are computed live with
// the core (never compared with a typed-in constant), a summary and the
// references.
import type { Posenc } from 'posenc';

import './style.css';
import { errorText, t, type Key } from '../../i18n.js';
import { liveText, rich, sentenceGap, type Vars } from '../../textfill.js';
import { el, fmtNum, text } from '../../ui.js';
import { dot, maxDiff, norm } from '../../vec.js';
import type { Ctx } from '../context.js';

/** Deterministic inputs in [-1, 1) (a 32-bit LCG), rounded to float32. */
export function lcg(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32) * 2 - 1;
  });
}

/** Small numbers in scientific notation, others with `digits` decimals. */
const show = (v: number, digits = 4): string => (v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential(1) : fmtNum(v, digits));

/** What the core computed for a question: the number shown (data-value), the text's values, and the right answer. */
export interface Checked {
  value: number;
  vars: Vars;
  /** The option that the computation shows to be right (choice questions). */
  right?: string;
  /** Extra values for the tests (data-* on the output). */
  extra?: Record<string, number>;
}

export interface Question {
  id: string;
  /** Choice values (keys quiz.<id>.o.<value>); none for a number question. */
  options?: readonly string[];
  /** Number questions: largest |answer - computed| still right. */
  tol?: number;
  compute(pe: Posenc, answer: number | string): Checked;
}

// ---- The questions. Each compute() derives the answer from the core.

/** 1. Position id of the first generated token after a 128-token prompt (KvCache). */
const kv: Question = {
  id: 'kv', tol: 0,
  compute(pe, answer) {
    const P = 128, d = 8;
    // [1, P + 1, d]: the prompt and the first generated token.
    const q = lcg((P + 1) * d, 21), k = lcg((P + 1) * d, 22), v = lcg((P + 1) * d, 23);
    const cache = new pe.KvCache({ kvHeads: 1, headDim: d, rope: { layout: 'half' } });
    try {
      cache.append(k.subarray(0, P * d), v.subarray(0, P * d));
      const len = cache.length;
      cache.append(k.subarray(P * d), v.subarray(P * d));
      const qNew = q.subarray(P * d);
      const full = pe.attention({ q, k, v, heads: 1, queryLength: P + 1, keyLength: P + 1, headDim: d, rope: { layout: 'half' } }).out;
      const last = full.subarray(P * d);
      const at = (p: number): number => maxDiff(cache.attend(qNew, { heads: 1, queryLength: 1, queryPositions: Int32Array.of(p) }).out, last);
      const a = typeof answer === 'number' && Number.isInteger(answer) && answer >= 0 && answer < 1 << 20 && answer !== len ? answer : 0;
      return { value: len, vars: { len, good: show(at(len)), yours: a, bad: show(at(a)) } };
    } finally {
      cache.delete();
    }
  },
};

/** 2. Which of Q, K, V RoPE rotates: the set whose attention output ignores a global shift. */
const QKV_SETS = ['q', 'qk', 'qkv', 'k'] as const;
const qkv: Question = {
  id: 'qkv', options: QKV_SETS,
  compute(pe) {
    const T = 6, d = 8, shift = 50;
    const x = { q: lcg(T * d, 1), k: lcg(T * d, 2), v: lcg(T * d, 3) };  // each [1, T, d]
    const rot = (a: Float32Array, offset: number): Float32Array => pe.applyRope(a, { heads: 1, seqLen: T, headDim: d, layout: 'half', offset });
    const run = (set: string, offset: number): Float32Array => {
      const pick = (name: 'q' | 'k' | 'v'): Float32Array => (set.includes(name) ? rot(x[name], offset) : x[name]);
      return pe.attention({ q: pick('q'), k: pick('k'), v: pick('v'), heads: 1, queryLength: T, keyLength: T, headDim: d }).out;
    };
    const delta: Record<string, number> = {};
    for (const set of QKV_SETS) delta[set] = maxDiff(run(set, 0), run(set, shift));
    const invariant = QKV_SETS.filter((s) => delta[s]! < 1e-4);
    return {
      value: delta.qk!, extra: delta, ...(invariant.length === 1 ? { right: invariant[0]! } : {}),
      vars: { q: show(delta.q!), qk: show(delta.qk!), qkv: show(delta.qkv!), k: show(delta.k!) },
    };
  },
};

/** 3. q.k under a common shift of both positions. */
const shift: Question = {
  id: 'shift', options: ['same', 'changes'],
  compute(pe) {
    const d = 16;
    const q = lcg(d, 7), k = lcg(d, 11);
    const at = (x: Float32Array, p: number): Float32Array => pe.applyRope(x, { heads: 1, seqLen: 1, headDim: d, layout: 'half', offset: p });
    const a = dot(at(q, 12), at(k, 5)), b = dot(at(q, 112), at(k, 105));
    const diff = Math.abs(a - b);
    return { value: a, extra: { shifted: b }, right: diff <= 1e-4 * Math.max(1, Math.abs(a)) ? 'same' : 'changes', vars: { a: show(a, 5), b: show(b, 5), diff: show(diff) } };
  },
};

/**
 * Dimension of the quiz's demo vectors (head dim of RoPE, d of the
 * sinusoidal table, rows of the learned table): a demo choice, not a model's.
 * The checks name it through {d} (and {rows}).
 */
const D = 64;

/** 4. ||R_m x|| against ||x|| (and xPos, which is not a pure rotation). */
const normQ: Question = {
  id: 'norm', options: ['equal', 'grows', 'shrinks'],
  compute(pe) {
    const d = D, m = 1000;
    const x = lcg(d, 5);
    const rx = pe.applyRope(x, { heads: 1, seqLen: 1, headDim: d, layout: 'half', offset: m });
    const xp = pe.applyRope(x, { heads: 1, seqLen: 1, headDim: d, layout: 'half', offset: m, xpos: { key: false } });
    const n0 = norm(x), n1 = norm(rx);
    const r = n1 / n0 - 1;
    return { value: n1, extra: { x: n0, xpos: norm(xp) }, right: Math.abs(r) < 1e-5 ? 'equal' : r > 0 ? 'grows' : 'shrinks', vars: { d, x: show(n0, 5), rx: show(n1, 5), xpos: show(norm(xp), 5) } };
  },
};

/** 5. The pairs whose wavelength exceeds the training length. */
const lowfreq: Question = {
  id: 'lowfreq', options: ['high', 'low', 'all'],
  compute(pe) {
    const d = 128, train = 4096;
    const { invFreq } = pe.ropeFrequencies({ headDim: d });
    const long = Array.from(invFreq, (f, i) => ({ i, wl: (2 * Math.PI) / f })).filter((p) => p.wl > train);
    const first = long[0]?.i ?? -1, last = long[long.length - 1]?.i ?? -1, half = invFreq.length;
    const contiguous = long.every((p, n) => p.i === first + n);
    const right = long.length === 0 || long.length === half ? 'all' : contiguous && last === half - 1 ? 'low' : contiguous && first === 0 ? 'high' : 'all';
    return { value: first, extra: { count: long.length }, right, vars: { first, last, count: long.length, pairs: half, train, wl: (long[0]?.wl ?? NaN).toFixed(0) } };
  },
};

/** 6. ALiBi slope of head 0 of 8. */
const slope: Question = {
  id: 'slope', tol: 1e-6,
  compute(pe) {
    const s = pe.alibiSlopes(8);
    return { value: s[0]!, vars: { slopes: Array.from(s, (x) => fmtNum(x, 4)).join(', '), s0: fmtNum(s[0]!, 4) } };
  },
};

/** 7. ALiBi's bias alone leaves attention on future keys; the mask removes it. */
const mask: Question = {
  id: 'mask', options: ['no', 'yes'],
  compute(pe) {
    const H = 8, K = 4, d = 4;
    // Query 0 (queryOffset 0) over keys 0..3, equal scores: [H, 1, d] and [H, K, d].
    const q = new Float32Array(H * d), k = new Float32Array(H * K * d), v = lcg(H * K * d, 4);
    const future = (causal: boolean): number => {
      const w = pe.attention({ q, k, v, heads: H, queryLength: 1, keyLength: K, headDim: d, queryOffset: 0, causal, alibi: true, returnWeights: true }).weights!;
      let s = 0;
      for (let j = 1; j < K; j++) s += w[j]!;  // head 0, keys after the query
      return s;
    };
    const open = future(false), masked = future(true);
    return { value: open, extra: { masked }, right: open > 1e-6 ? 'no' : 'yes', vars: { slope: fmtNum(pe.alibiSlopes(H)[0]!, 3), future: show(open, 3), masked: show(masked, 3) } };
  },
};

/** 8. The learned table has no row past max_len. */
const learned: Question = {
  id: 'learned', options: ['norow', 'small', 'softmax'],
  compute(pe) {
    const maxLength = D, dim = 8;
    const table = lcg(maxLength * dim, 9);  // [maxLength, dim]
    const inside = Int32Array.from({ length: maxLength }, (_, p) => p);
    let last = -1;
    try {
      pe.learnedPositions({ table, maxLength, dim, positions: inside });
      last = maxLength - 1;
    } catch { /* the table itself failed: last stays -1 */ }
    let error = '';
    try {
      pe.learnedPositions({ table, maxLength, dim, positions: Int32Array.of(last + 1) });
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    return { value: last, right: error && last === maxLength - 1 ? 'norow' : 'small', vars: { rows: maxLength, last, max: last + 1, error } };
  },
};

/** 9. Dynamic NTK: one new base, from the current length. */
const ntk: Question = {
  id: 'ntk', options: ['base', 'positions', 'temperature', 'nothing'],
  compute(pe) {
    const d = D, M = 2048, factor = 2;
    const def = pe.ropeFrequencies({ headDim: d }).invFreq;
    const dyn = (T: number): Float32Array => pe.ropeFrequencies({ headDim: d, scaling: { type: 'dynamic', factor, maxPositionEmbeddings: M }, seqLen: T }).invFreq;
    const ratioSpread = (f: Float32Array): number => Math.max(...Array.from(f, (x, i) => Math.abs(x / def[i]! - 1)));
    const same = ratioSpread(dyn(M));
    const long = dyn(2 * M);
    const half = d / 2;
    // The base that gives the last pair its frequency: f = b^(-2(half-1)/d).
    const base = long[half - 1]! ** (-d / (2 * (half - 1)));
    const fit = Math.max(...Array.from(long, (x, i) => Math.abs(x / base ** ((-2 * i) / d) - 1)));
    const ratios = Array.from(long, (x, i) => x / def[i]!);
    const constant = Math.max(...ratios) - Math.min(...ratios) < 1e-6;
    const right = ratioSpread(long) < 1e-6 ? 'nothing' : fit < 1e-4 ? 'base' : constant ? 'positions' : 'temperature';
    return { value: base, extra: { same, fit }, right, vars: { d, d2: d - 2, factor, M, T: 2 * M, same: show(same), base: base.toFixed(1), fit: show(fit) } };
  },
};

/** 10. theta_0 is 1 whatever the base. */
const first: Question = {
  id: 'first', tol: 1e-6,
  compute(pe) {
    const t0 = pe.ropeFrequencies({ headDim: 128, base: 500000 }).invFreq[0]!;
    const t10k = pe.ropeFrequencies({ headDim: 128, base: 10000 }).invFreq[0]!;
    return { value: t0, extra: { t10k }, vars: { t0: String(t0), t10k: String(t10k) } };
  },
};

/** 11. PE_p . PE_q depends on p - q only. */
const sin: Question = {
  id: 'sin', options: ['diff', 'sum', 'both'],
  compute(pe) {
    const d = D;
    const table = pe.sinusoidal({ length: 120, dim: d });  // [120, d]
    const pp = (p: number, q: number): number => dot(table, table, p * d, q * d, d);
    const a = pp(10, 3), b = pp(110, 103), c = pp(8, 5);
    const tol = 1e-3;
    const right = Math.abs(a - b) < tol && Math.abs(a - c) > tol ? 'diff' : Math.abs(a - c) < tol && Math.abs(a - b) > tol ? 'sum' : 'both';
    return { value: a, extra: { b, c }, right, vars: { d, a: show(a, 4), b: show(b, 4), c: show(c, 4) } };
  },
};

/** 12. T5 bucket of a key 1000 positions back (causal, 32 buckets, max distance 128). */
const t5: Question = {
  id: 't5', tol: 0,
  compute(pe) {
    // Query at position n (queryOffset), key 0: distance n.
    const bucket = (n: number): number =>
      pe.t5Buckets({ queryLength: 1, keyLength: n + 1, queryOffset: n, numBuckets: 32, maxDistance: 128, bidirectional: false })[0]!;
    const b = { b1000: bucket(1000), b200: bucket(200), b20: bucket(20), b3: bucket(3) };
    return { value: b.b1000, extra: b, vars: b };
  },
};

/** 13. Linear scaling (PI): position 6000 at x4 turns like position 1500. */
const pi: Question = {
  id: 'pi', tol: 0.5,
  compute(pe) {
    const d = D, P = 6000;
    const def = pe.ropeFrequencies({ headDim: d }).invFreq;
    const lin = pe.ropeFrequencies({ headDim: d, scaling: { type: 'linear', factor: 4 } }).invFreq;
    const p = (P * lin[0]!) / def[0]!;
    const diff = Math.max(...Array.from(lin, (f, i) => Math.abs(P * f - p * def[i]!)));
    return { value: p, extra: { diff }, vars: { p: String(p), diff: show(diff) } };
  },
};

/** 14. NoPE with a causal mask: the first token's dilution reveals the position. */
const nope: Question = {
  id: 'nope', options: ['yes', 'no'],
  compute(pe) {
    const T = 6;
    const q = new Float32Array(T), k = new Float32Array(T), v = new Float32Array(T);  // [1, T, 1]
    v[0] = 1;
    const out = (causal: boolean): Float32Array => pe.attention({ q, k, v, heads: 1, queryLength: T, keyLength: T, headDim: 1, causal }).out;
    const c = out(true), f = out(false);
    const distinct = new Set(Array.from(c, (x) => x.toFixed(6))).size;
    const list = (a: Float32Array): string => Array.from(a, (x) => fmtNum(x, 3)).join(', ');
    return { value: c[3]!, right: distinct > 1 ? 'yes' : 'no', vars: { causal: list(c), full: list(f) } };
  },
};

/** 15. Shaw: distances beyond k share the row of k. */
const shaw: Question = {
  id: 'shaw', options: ['same', 'different'],
  compute(pe) {
    const clip = 16;
    // The query is the last key position n; key 0 is n back.
    const row = (n: number): number => pe.shawIndices({ queryLength: 1, keyLength: n + 1, clip })[0]!;
    const r = { r200: row(200), r20: row(20), r16: row(16), r3: row(3) };
    return { value: r.r200, extra: r, right: r.r200 === r.r20 ? 'same' : 'different', vars: { ...r, rows: 2 * clip + 1 } };
  },
};

export const QUESTIONS: readonly Question[] = [kv, qkv, shift, normQ, lowfreq, slope, mask, learned, ntk, first, sin, t5, pi, nope, shaw];

// ---- Rendering

interface State {
  answered: boolean;
  correct: boolean;
}

function mountQuestion(pe: Posenc, q: Question, onAnswer: (s: State) => void): HTMLElement {
  const verdict = el('p', { class: 'verdict', 'aria-live': 'polite', 'data-verdict': '' });
  const checked = liveText('output');
  checked.el.id = `quiz-${q.id}-value`;
  const checkedRow = el('p', { class: 'checked' }, text('quiz.checked'), sentenceGap(), checked.el);
  const why = rich(`quiz.${q.id}.why` as Key, 'p', 'why');
  for (const e of [verdict, checkedRow, why]) e.hidden = true;

  const judge = (answer: number | string): void => {
    let c: Checked;
    try {
      c = q.compute(pe, answer);
    } catch (e) {
      verdict.hidden = false;
      verdict.textContent = errorText(e);
      return;
    }
    const correct = q.options ? answer === c.right : typeof answer === 'number' && Math.abs(answer - c.value) <= (q.tol ?? 0);
    verdict.dataset.verdict = correct ? 'correct' : 'incorrect';
    verdict.dataset.i18n = correct ? 'quiz.correct' : 'quiz.incorrect';
    verdict.textContent = t(correct ? 'quiz.correct' : 'quiz.incorrect');
    checked.set(`quiz.${q.id}.check` as Key, c.vars);
    checked.el.dataset.value = String(c.value);
    if (c.right !== undefined) checked.el.dataset.right = c.right;
    for (const [k, v] of Object.entries(c.extra ?? {})) checked.el.dataset[k] = String(v);
    for (const e of [verdict, checkedRow, why]) e.hidden = false;
    onAnswer({ answered: true, correct });
  };

  const legend = el('legend', {});
  legend.append(rich(`quiz.${q.id}.q` as Key, 'span'));
  const fieldset = el('fieldset', {}, legend);
  const form = el('form', { novalidate: '' }, fieldset);
  if (q.options) {
    const choices = el('div', { class: 'choices' });
    for (const o of q.options) {
      const input = el('input', { type: 'radio', name: `quiz-${q.id}`, value: o });
      input.addEventListener('change', () => judge(o));
      choices.append(el('label', {}, input, rich(`quiz.${q.id}.o.${o}` as Key, 'span')));
    }
    fieldset.append(choices);
  } else {
    const id = `quiz-${q.id}-input`;
    const input = el('input', { type: 'number', step: 'any', id, inputmode: 'decimal' });
    const label = el('label', { for: id });
    label.append(text('quiz.yours'));
    const submit = el('button', { type: 'submit' });
    submit.append(text('quiz.submit'));
    fieldset.append(el('div', { class: 'answer-row' }, label, input, submit));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      if (input.value.trim() === '') return;
      const v = Number(input.value);
      if (Number.isFinite(v)) judge(v);
    });
  }
  form.addEventListener('submit', (e) => e.preventDefault());
  return el('li', { class: 'quiz-q', id: `quiz-${q.id}` }, form, verdict, checkedRow, why);
}

/** The papers, posts and code (plain links: nothing is loaded from them); the last two are the interview notes' own recommendations. */
const REFERENCES: ReadonlyArray<readonly [string, string]> = [
  ['Su et al. 2021. RoFormer: Enhanced Transformer with Rotary Position Embedding. arXiv:2104.09864', 'https://arxiv.org/abs/2104.09864'],
  ['Vaswani et al. 2017. Attention Is All You Need. arXiv:1706.03762', 'https://arxiv.org/abs/1706.03762'],
  ['Shaw, Uszkoreit, Vaswani 2018. Self-Attention with Relative Position Representations. arXiv:1803.02155', 'https://arxiv.org/abs/1803.02155'],
  ['Press, Smith, Lewis 2021. Train Short, Test Long: Attention with Linear Biases Enables Input Length Extrapolation (ALiBi). arXiv:2108.12409', 'https://arxiv.org/abs/2108.12409'],
  ['Raffel et al. 2019. Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer (T5). arXiv:1910.10683', 'https://arxiv.org/abs/1910.10683'],
  ['Sun et al. 2022. A Length-Extrapolatable Transformer (xPos). arXiv:2212.10554', 'https://arxiv.org/abs/2212.10554'],
  ['Chen et al. 2023. Extending Context Window of Large Language Models via Positional Interpolation. arXiv:2306.15595', 'https://arxiv.org/abs/2306.15595'],
  ['bloc97 2023. NTK-Aware Scaled RoPE allows LLaMA models to have extended (8k+) context size without any fine-tuning and minimal perplexity degradation. Reddit, r/LocalLLaMA', 'https://www.reddit.com/r/LocalLLaMA/comments/14lz7j5/ntkaware_scaled_rope_allows_llama_models_to_have/'],
  ['emozilla 2023. Dynamically Scaled RoPE further increases performance of long context LLaMA with zero fine-tuning. Reddit, r/LocalLLaMA', 'https://www.reddit.com/r/LocalLLaMA/comments/14mrgpr/dynamically_scaled_rope_further_increases/'],
  ['Peng et al. 2023. YaRN: Efficient Context Window Extension of Large Language Models. arXiv:2309.00071', 'https://arxiv.org/abs/2309.00071'],
  ['Llama Team, AI @ Meta 2024. The Llama 3 Herd of Models. arXiv:2407.21783', 'https://arxiv.org/abs/2407.21783'],
  ['Meta 2024. llama-models: the Llama 3.1 reference code, whose apply_scaling is the Llama 3 RoPE scaling (models/llama3/reference_impl/model.py)', 'https://github.com/meta-llama/llama-models'],
  ['Ding et al. 2024. LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens. arXiv:2402.13753', 'https://arxiv.org/abs/2402.13753'],
  ['Kazemnejad et al. 2023. The Impact of Positional Encoding on Length Generalization in Transformers (NoPE). arXiv:2305.19466', 'https://arxiv.org/abs/2305.19466'],
  ['苏剑林 2021. Transformer升级之路：2、博采众长的旋转式位置编码', 'https://spaces.ac.cn/archives/8265'],
  ['苏剑林 2021. 让研究人员绞尽脑汁的Transformer位置编码', 'https://kexue.fm/archives/8130'],
  ['July (v_JULY_v). 一文通透位置编码：从标准位置编码、旋转位置编码RoPE到ALiBi、LLaMA 2 Long(含NTK-aware简介). CSDN', 'https://blog.csdn.net/v_JULY_v/article/details/134085503'],
  ['通俗易懂 - 大模型的关键技术之一：旋转位置编码 RoPE（bilibili 视频）', 'https://www.bilibili.com/video/BV12x42127Pb/'],
];

export function mount(ctx: Ctx, root: HTMLElement): void {
  const states = new Map<string, State>();
  const score = liveText('p', 'quiz-score');
  score.el.id = 'quiz-score';
  const update = (): void => {
    const all = [...states.values()];
    score.set('quiz.score', { n: all.length, total: QUESTIONS.length, c: all.filter((s) => s.correct).length });
    score.el.dataset.correct = String(all.filter((s) => s.correct).length);
  };
  const list = el('ol', { class: 'quiz-list' },
    ...QUESTIONS.map((q) => mountQuestion(ctx.pe, q, (s) => { states.set(q.id, s); update(); })));
  const refs = el('ol', { class: 'refs' },
    // Titles stay in their own language (marked, for screen readers and the language test).
    ...REFERENCES.map(([title, href]) => el('li', {}, el('a', { href, rel: 'noopener noreferrer', target: '_blank', lang: /[\u4e00-\u9fff]/.test(title) ? 'zh-CN' : 'en' }, title))));
  update();
  root.append(
    list, score.el,
    el('h3', {}, text('quiz.summary.title')), rich('quiz.summary', 'div'),
    el('h3', {}, text('quiz.refs.title')), refs,
  );
}
