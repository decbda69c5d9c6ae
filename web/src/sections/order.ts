// Section 1: permutation equivariance. Tokens the user reorders; attention
// without position or mask permutes its output rows exactly; the causal mask
// or an encoding lets order in. Then the word-order models answer.
import type { Posenc } from 'posenc';

import { Heatmap } from '../heatmap.js';
import { lang, onLangChange, t } from '../i18n.js';
import { CUSTOM, SHIPPED } from '../protocol.js';
import { getBool, getChoice, getParam, setParam } from '../state.js';
import { button, checkbox, coalesce, el, figure, fmtNum, select, text, whenNear } from '../ui.js';
import type { Ctx } from './context.js';

const D = 16;
const ENCODINGS = ['none', 'sinusoidal', 'rope', 'alibi'] as const;
type Enc = (typeof ENCODINGS)[number];
const SENTENCES = { en: 'the cat sat on the mat', zh: '我 喜欢 你 ， 你 喜欢 我' };
const WORDS = 'the a cat dog sat ran on under mat rug big small red blue and then'.split(' ');

/** A fixed pseudo-random embedding per word (FNV-1a hash -> LCG). */
function embed(word: string): Float32Array {
  let h = 2166136261;
  for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
  const v = new Float32Array(D);
  for (let i = 0; i < D; i++) {
    h = (Math.imul(h, 1103515245) + 12345) >>> 0;
    v[i] = (h / 2 ** 32) * 2 - 1;
  }
  return v;
}

export interface OrderResult {
  /** max |unpermuted output - original output| */
  diff: number;
  out: Float32Array;
  weights: Float32Array;
}

/** Attention over the tokens in `order` (indices into `tokens`), and the comparison with the original order. */
export function orderAttention(pe: Posenc, tokens: string[], order: number[], enc: Enc, causal: boolean): OrderResult {
  const T = tokens.length;
  const run = (idx: number[]): { out: Float32Array; weights: Float32Array } => {
    const x = new Float32Array(T * D);
    idx.forEach((src, r) => x.set(embed(tokens[src]!), r * D));
    if (enc === 'sinusoidal') {
      const p = pe.sinusoidal({ length: T, dim: D });
      for (let e = 0; e < x.length; e++) x[e]! += p[e]!;
    }
    const res = pe.attention({
      q: x, k: x, v: x, heads: 1, queryLength: T, keyLength: T, headDim: D, causal, returnWeights: true,
      ...(enc === 'rope' ? { rope: { layout: 'half' as const } } : {}),
      ...(enc === 'alibi' ? { alibi: { slopes: Float32Array.of(0.5) } } : {}),
    });
    return { out: res.out, weights: res.weights! };
  };
  const base = run(tokens.map((_, i) => i));
  const cur = run(order);
  let diff = 0;
  order.forEach((src, r) => {
    for (let e = 0; e < D; e++) diff = Math.max(diff, Math.abs(cur.out[r * D + e]! - base.out[src * D + e]!));
  });
  return { diff, out: cur.out, weights: cur.weights };
}

function shuffle(a: number[]): number[] {
  const b = a.slice();
  for (let i = b.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [b[i], b[j]] = [b[j]!, b[i]!];
  }
  return b;
}

export function mountOrder(ctx: Ctx, root: HTMLElement): void {
  const pe = ctx.pe;
  let tokens = (getParam('o.text') ?? SENTENCES[lang()]).split(/\s+/).filter(Boolean).slice(0, 256);
  let order = tokens.map((_, i) => i);
  const permParam = getParam('o.perm');
  if (permParam) {
    const p = permParam.split('.').map(Number);
    if (p.length === tokens.length && [...p].sort((a, b) => a - b).every((v, i) => v === i)) order = p;
  }
  let enc: Enc = getChoice('o.enc', 'none', ENCODINGS);
  let causal = getBool('o.causal', false);

  const input = el('input', { type: 'text', class: 'wide', 'aria-label': t('order.tokens'), 'data-i18n-aria': 'order.tokens' });
  input.value = tokens.join(' ');
  const chips = el('div', { class: 'chips', role: 'list', 'data-sample': '' });
  const live = el('div', { class: 'sr-only', 'aria-live': 'polite' });
  const diffOut = el('output', { id: 'order-diff', class: 'big' });
  const outMap = new Heatmap({ kind: 'diverging', label: () => t('order.out'), rowName: 'token', colName: () => t('sin.dimension') });
  const wMap = new Heatmap({ kind: 'sequential', label: () => t('order.weights'), rowName: 'query', colName: 'key', range: [0, 1] });
  const rowLabels = el('ol', { class: 'row-labels' });

  const update = coalesce(() => {
    const t0 = performance.now();
    const r = orderAttention(pe, tokens, order, enc, causal);
    diffOut.textContent = fmtNum(r.diff, 6);
    diffOut.dataset.value = String(r.diff);
    diffOut.classList.toggle('zero', r.diff < 1e-6);
    const T = tokens.length;
    outMap.draw(r.out, T, D);
    wMap.draw(r.weights, T, T);
    rowLabels.replaceChildren(...(T <= 32 ? order.map((i) => el('li', {}, tokens[i]!)) : []));
    root.dataset.ms = (performance.now() - t0).toFixed(2);
  });

  const renderChips = (): void => {
    chips.replaceChildren(
      ...order.map((src, pos) => {
        const chip = el('button', { type: 'button', class: 'chip', draggable: 'true', role: 'listitem', 'data-pos': String(pos) }, tokens[src]!);
        chip.addEventListener('dragstart', (e) => e.dataTransfer?.setData('text/plain', String(pos)));
        chip.addEventListener('dragover', (e) => e.preventDefault());
        chip.addEventListener('drop', (e) => {
          e.preventDefault();
          const from = Number(e.dataTransfer?.getData('text/plain'));
          if (Number.isInteger(from)) move(from, pos);
        });
        chip.addEventListener('keydown', (e) => {
          const to = e.key === 'ArrowLeft' ? pos - 1 : e.key === 'ArrowRight' ? pos + 1 : -1;
          if (to >= 0 && to < order.length) {
            e.preventDefault();
            move(pos, to);
            (chips.children[to] as HTMLElement | undefined)?.focus();
          }
        });
        return chip;
      }),
    );
  };
  const changed = (): void => {
    setParam('o.perm', order.join('.'));
    renderChips();
    update();
  };
  const move = (from: number, to: number): void => {
    const [x] = order.splice(from, 1);
    order.splice(to, 0, x!);
    live.textContent = `${tokens[x!]} → ${to + 1}`;
    changed();
  };
  const setTokens = (words: string[]): void => {
    tokens = words.slice(0, 256);
    if (tokens.length === 0) tokens = ['the'];
    order = tokens.map((_, i) => i);
    input.value = tokens.join(' ');
    setParam('o.text', tokens.join(' '));
    changed();
  };
  input.addEventListener('change', () => setTokens(input.value.split(/\s+/).filter(Boolean)));
  // The sample sentence follows the language (a sentence of the reader's own stays).
  onLangChange(() => {
    const other = lang() === 'en' ? SENTENCES.zh : SENTENCES.en;
    if (tokens.join(' ') === other) setTokens(SENTENCES[lang()].split(' '));
  });

  const encSel = select<Enc>({
    label: 'order.encoding', param: 'o.enc', value: enc,
    options: [['none', () => t('order.enc.none')], ['sinusoidal', 'sinusoidal'], ['rope', 'RoPE'], ['alibi', 'ALiBi']],
    onChange: (v) => { enc = v; update(); },
  });
  const causalBox = checkbox({ label: 'order.causal', param: 'o.causal', value: causal, onChange: (v) => { causal = v; update(); } });
  const long = button('order.long', () => setTokens(Array.from({ length: 256 }, (_, i) => WORDS[(i * 7 + (i >> 3)) % WORDS.length]!)));
  long.id = 'order-long';

  root.append(
    el('div', { class: 'controls' },
      el('div', { class: 'control wide' }, text('order.tokens', 'label'), input),
    ),
    chips, live,
    el('div', { class: 'controls' },
      button('order.shuffle', () => { order = shuffle(order); changed(); }, 'shuffle'),
      button('order.reset', () => { order = tokens.map((_, i) => i); changed(); }),
      long, encSel.el, causalBox.el),
    el('p', { class: 'result' }, text('order.diff'), ' = ', diffOut),
    el('div', { class: 'figs' },
      figure('order.out', el('div', { class: 'labelled' }, rowLabels, outMap.el)),
      figure('order.weights', wMap.el)),
  );
  renderChips();
  update();
  mountModels(ctx, root);
}

/** The word-order models: the subject of a sentence and of its mirror. */
function mountModels(ctx: Ctx, root: HTMLElement): void {
  const PAIRS: Array<[string, string]> = [
    ['我 喜欢 你', '你 喜欢 我'],
    ['Alice likes Bob', 'Bob likes Alice'],
    ['小明 常常 帮助 小红', '小红 常常 帮助 小明'],
    ['Carol really sees Dave', 'Dave really sees Carol'],
  ];
  let pair = Number(getParam('o.pair') ?? 0);
  if (!(pair >= 0 && pair < PAIRS.length)) pair = 0;
  const sel = el('select', { id: 'order-pair', 'aria-label': t('order.sentence'), 'data-i18n-aria': 'order.sentence', 'data-sample': '' });
  PAIRS.forEach(([a, b], i) => sel.append(el('option', { value: String(i) }, `${a}  /  ${b}`)));
  sel.value = String(pair);
  const table = el('table', { class: 'answers', id: 'order-answers' });
  const accuracy = new Map<string, number>();

  const render = async (): Promise<void> => {
    const [a, b] = PAIRS[pair]!;
    const names = [...SHIPPED['word-order'].map((e) => `word-order-${e}`)];
    if (ctx.custom?.task === 'word-order') names.push(CUSTOM);
    const head = el('tr', {}, el('th', {}, text('order.model')), el('th', { 'data-sample': '' }, a), el('th', { 'data-sample': '' }, b), el('th', {}, text('order.accuracy')));
    const rows = await Promise.all(names.map(async (name) => {
      const ans = await ctx.worker.call('answer', { model: name, sentences: [a, b] });
      if (!accuracy.has(name)) {
        const ev = await ctx.worker.call('evaluate', { model: name, lengths: [8], examples: 400 });
        accuracy.set(name, ev[0]!.accuracy);
      }
      const cell = (x: { answer: string; p: number }): HTMLElement => el('td', {}, el('span', { 'data-sample': '' }, x.answer), ' ', el('small', {}, `(${(x.p * 100).toFixed(0)}%)`));
      const tr = el('tr', { 'data-model': name, 'data-same': String(ans[0]!.answer === ans[1]!.answer) },
        el('th', {}, name === CUSTOM ? t('train.title').replace(/^\d+\.\s*/, '') : name.replace('word-order-', '')),
        cell(ans[0]!), cell(ans[1]!), el('td', {}, `${(accuracy.get(name)! * 100).toFixed(1)}%`));
      return tr;
    }));
    table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));
    table.dataset.ready = '1';
  };
  sel.addEventListener('change', () => {
    pair = Number(sel.value);
    setParam('o.pair', pair);
    void render();
  });
  ctx.onCustomModel(() => void render());
  onLangChange(() => void render());
  root.append(
    el('h3', {}, text('order.models')),
    el('p', { class: 'explain', 'data-i18n-rich': 'order.models.text' }),
    el('div', { class: 'controls' }, el('div', { class: 'control wide' }, text('order.sentence', 'label'), sel)),
    table,
  );
  whenNear(table, () => void render());
}
