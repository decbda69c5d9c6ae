// Section 1: permutation equivariance. Tokens the user reorders; attention
// without position or mask permutes its output rows exactly; the causal mask
// or an encoding lets order in. The outputs of the original order (A) and
// those of the shuffled sequence put back in the original order (B) are shown
// side by side with B - A. Then the word-order models answer.
import type { Posenc } from 'posenc';


import './style.css';

import { AxedHeatmap } from '../../axes.js';
import { encodingSpan } from '../../encname.js';
import { lang, onLangChange, t, type Key, type Lang } from '../../i18n.js';
import { CUSTOM, SHIPPED } from '../../protocol.js';
import { getBool, getChoice, getParam, setParam } from '../../state.js';
import { sentenceGap, tf } from '../../textfill.js';
import { bindParam, button, checkbox, coalesce, el, figure, fmtNum, lab, lazyPanel, select, showError, text } from '../../ui.js';
import { largestAbs } from '../../vec.js';
import type { Ctx } from '../context.js';

const D = 16;
const ENCODINGS = ['none', 'sinusoidal', 'rope', 'alibi'] as const;
type Enc = (typeof ENCODINGS)[number];
/**
 * Sample sentences per language; index 0 is the default, its words split by
 * spaces so that the page starts without the vocabulary. Every sample is
 * shown as written (`joinTokens`: Chinese without spaces), and `segment`
 * cuts the shown text back into the same words (a page test checks it).
 */
const SAMPLES: Record<Lang, readonly string[]> = {
  en: ['the cat sat on the mat', 'Alice likes Bob', 'the big dog ran under the red rug'],
  zh: ['我 喜欢 你 ， 你 喜欢 我', '小明常常帮助小红', '她很喜欢他，他也喜欢她'],
};
const WORDS = 'the a cat dog sat ran on under mat rug big small red blue and then'.split(' ');
/** Token labels are drawn next to the rows up to this many tokens (numbers beyond). */
const MAX_LABELS = 40;
/** Key names under the weights map up to this many tokens, if every name fits its column (axes.ts checks). */
const MAX_COL_LABELS = 16;
const TYPING_MS = 200;

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

const CJK = /[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/**
 * Splits text into tokens. Whitespace separates; a piece containing CJK
 * characters is cut by greedy longest match against `vocab` (what is not in
 * it becomes one token per CJK character, or one token per run of other
 * characters). Pieces without CJK stay whole.
 */
export function segment(raw: string, vocab: readonly string[]): string[] {
  const words = vocab.filter((w) => w.length > 0 && !/^<.*>$/.test(w));
  const longest = words.reduce((m, w) => Math.max(m, [...w].length), 1);
  const known = new Set(words);
  const out: string[] = [];
  for (const piece of raw.split(/\s+/).filter(Boolean)) {
    if (!CJK.test(piece)) {
      out.push(piece);
      continue;
    }
    const chars = [...piece];
    let i = 0;
    while (i < chars.length) {
      let n = Math.min(longest, chars.length - i);
      while (n > 1 && !known.has(chars.slice(i, i + n).join(''))) n--;
      if (n === 1 && !known.has(chars[i]!) && !CJK.test(chars[i]!)) {
        while (i + n < chars.length && !CJK.test(chars[i + n]!)) n++;  // a run of Latin, digits, ...
      }
      out.push(chars.slice(i, i + n).join(''));
      i += n;
    }
  }
  return out;
}

/** Tokens as one line of text: a space between two tokens, none between two CJK ones (Chinese is written without spaces). */
export function joinTokens(tokens: readonly string[]): string {
  let out = '';
  tokens.forEach((w, i) => {
    const gap = i > 0 && !(CJK.test(tokens[i - 1]!.slice(-1)) && CJK.test(w[0] ?? ''));
    out += (gap ? ' ' : '') + w;
  });
  return out;
}

export interface OrderResult {
  /** max |B - A| */
  diff: number;
  /** [T, D] outputs of the original order. */
  a: Float32Array;
  /** [T, D] outputs of the current order, row r moved back to row order[r]. */
  b: Float32Array;
  /** [T, D] B - A. */
  delta: Float32Array;
  /** [T, T] attention weights of the current order. */
  weights: Float32Array;
  /** [T, D] token embeddings in the original order (before any encoding). */
  x: Float32Array;
}

/** Attention over the tokens in `order` (indices into `tokens`), and the comparison with the original order. */
export function orderAttention(pe: Posenc, tokens: string[], order: number[], enc: Enc, causal: boolean): OrderResult {
  const T = tokens.length;
  const run = (idx: number[], returnWeights: boolean): { out: Float32Array; weights: Float32Array | undefined } => {
    const x = new Float32Array(T * D);  // [T, D]
    idx.forEach((src, r) => x.set(embed(tokens[src]!), r * D));
    if (enc === 'sinusoidal') {
      const p = pe.sinusoidal({ length: T, dim: D });
      for (let e = 0; e < x.length; e++) x[e]! += p[e]!;
    }
    const res = pe.attention({
      q: x, k: x, v: x, heads: 1, queryLength: T, keyLength: T, headDim: D, causal, returnWeights,
      ...(enc === 'rope' ? { rope: { layout: 'half' as const } } : {}),
      ...(enc === 'alibi' ? { alibi: { slopes: Float32Array.of(0.5) } } : {}),
    });
    return { out: res.out, weights: res.weights };
  };
  const identity = tokens.map((_, i) => i);
  // The original order's outputs change only with the tokens, the encoding
  // and the mask: kept between updates (a shuffle or a drag reuses them).
  const key = `${enc}|${causal}|${tokens.join('\u0000')}`;
  if (baseCache?.key !== key) baseCache = { key, out: run(identity, false).out };
  const base = baseCache;
  const cur = run(order, true);
  const b = new Float32Array(T * D);
  const delta = new Float32Array(T * D);
  let diff = 0;
  order.forEach((src, r) => {
    for (let e = 0; e < D; e++) {
      const v = cur.out[r * D + e]!;
      b[src * D + e] = v;
      delta[src * D + e] = v - base.out[src * D + e]!;
      diff = Math.max(diff, Math.abs(delta[src * D + e]!));
    }
  });
  const x = new Float32Array(T * D);
  identity.forEach((i) => x.set(embed(tokens[i]!), i * D));
  return { diff, a: base.out, b, delta, weights: cur.weights!, x };
}
/** The last original-order outputs: [T, D], for the inputs named by `key`. */
let baseCache: { key: string; out: Float32Array } | undefined;

function shuffle(a: number[]): number[] {
  const b = a.slice();
  for (let i = b.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [b[i], b[j]] = [b[j]!, b[i]!];
  }
  return b;
}

/** The same, 1 for all-zero data (a colour range must not be empty). */
const maxAbs = (...arrays: Float32Array[]): number => largestAbs(...arrays) || 1;

/** The words of the word-order models (fetched once, the first time Chinese needs cutting). */
function vocabLoader(ctx: Ctx): () => Promise<readonly string[]> {
  let vocab: Promise<readonly string[]> | undefined;
  return () => {
    vocab ??= ctx.worker.call('describe', { model: 'word-order-nope' })
      .then((d) => d.vocab)
      .catch(() => { vocab = undefined; return []; });
    return vocab;
  };
}

/** The token chips, reordered by pointer (mouse, touch, pen) drags and by ← → on a focused chip. */
function chipList(onMove: (from: number, to: number) => void): { el: HTMLElement; render(labels: string[]): void } {
  const list = el('div', { class: 'chips', role: 'list', 'data-sample': '' });
  let drag: { id: number; from: number; over: number } | undefined;
  const chipAt = (x: number, y: number): HTMLElement | null => {
    const hit = document.elementFromPoint(x, y)?.closest<HTMLElement>('.chip');
    return hit && list.contains(hit) ? hit : null;
  };
  const mark = (over: number): void => {
    for (const c of Array.from(list.children) as HTMLElement[]) c.classList.toggle('drop-target', drag !== undefined && Number(c.dataset.pos) === over && over !== drag.from);
  };
  const end = (): void => {
    for (const c of Array.from(list.children) as HTMLElement[]) c.classList.remove('dragging', 'drop-target');
    drag = undefined;
  };
  list.addEventListener('pointerdown', (e) => {
    const chip = (e.target as Element).closest<HTMLElement>('.chip');
    if (!chip || (e.pointerType === 'mouse' && e.button !== 0)) return;
    const pos = Number(chip.dataset.pos);
    drag = { id: e.pointerId, from: pos, over: pos };
    chip.setPointerCapture(e.pointerId);
    chip.classList.add('dragging');
  });
  list.addEventListener('pointermove', (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const chip = chipAt(e.clientX, e.clientY);
    if (chip) drag.over = Number(chip.dataset.pos);
    mark(drag.over);
  });
  list.addEventListener('pointerup', (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const chip = chipAt(e.clientX, e.clientY);
    const { from } = drag;
    const to = chip ? Number(chip.dataset.pos) : drag.over;
    end();
    if (to !== from) onMove(from, to);
  });
  list.addEventListener('pointercancel', end);
  list.addEventListener('keydown', (e) => {
    const chip = (e.target as Element).closest<HTMLElement>('.chip');
    if (!chip) return;
    const pos = Number(chip.dataset.pos);
    const to = e.key === 'ArrowLeft' ? pos - 1 : e.key === 'ArrowRight' ? pos + 1 : -1;
    if (to >= 0 && to < list.children.length) {
      e.preventDefault();
      onMove(pos, to);
      (list.children[to] as HTMLElement | undefined)?.focus();
    }
  });
  return {
    el: list,
    render(labels: string[]): void {
      list.replaceChildren(...labels.map((s, pos) => el('button', { type: 'button', class: 'chip', role: 'listitem', 'data-pos': String(pos) }, s)));
    },
  };
}

/** A heatmap of [T, D] outputs with the tokens (original order) on its rows. */
function outputMap(label: Key, value: Key): AxedHeatmap {
  return new AxedHeatmap({
    kind: 'diverging', label: () => t(label), rowName: () => t('order.ax.tokenOrig'), colName: () => t('order.ax.dim'),
    y: 'order.ax.tokenOrig', x: 'order.ax.dim', value, minAspect: 0.6,
  });
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  const pe = ctx.pe;
  const vocab = vocabLoader(ctx);
  const paramText = getParam('o.text');
  let tokens = (paramText ?? SAMPLES[lang()][0]!).split(/\s+/).filter(Boolean).slice(0, 256);
  /** Which sample is shown (it follows the language); undefined once the reader writes their own. */
  let sample: number | undefined = paramText === undefined ? 0 : undefined;
  let order = tokens.map((_, i) => i);
  const permParam = getParam('o.perm');
  if (permParam) {
    const p = permParam.split('.').map(Number);
    if (p.length === tokens.length && [...p].sort((a, b) => a - b).every((v, i) => v === i)) order = p;
  }
  let enc: Enc = getChoice('o.enc', 'none', ENCODINGS);
  let causal = getBool('o.causal', false);

  const input = el('input', { type: 'text', class: 'wide', id: 'order-input', 'aria-label': t('order.input'), 'data-i18n-aria': 'order.input', 'data-sample': '' });
  // Words the trained word-order models (below) have never seen: named, so a
  // reader knows the maps here still use them (each word has its own vector).
  const unknownNote = el('p', { class: 'note hint', id: 'order-unknown', hidden: '' });
  let unknownWords: string[] = [];
  const showUnknown = (): void => {
    unknownNote.hidden = unknownWords.length === 0;
    unknownNote.dataset.words = unknownWords.join(' ');
    unknownNote.textContent = unknownWords.length ? tf('order.unknown', { words: unknownWords.join(t('order.unknown.sep')) }) : '';
  };
  onLangChange(showUnknown);
  /** Looks the reader's own words up in the models' vocabulary (fetched only for text the reader typed). */
  const checkUnknown = async (words: string[], own: boolean): Promise<void> => {
    const known = own ? new Set((await vocab()).map((w) => w.toLowerCase())) : undefined;
    unknownWords = known && known.size > 0 ? [...new Set(words.filter((w) => !known.has(w.toLowerCase()) && !/^[\p{P}\p{S}]+$/u.test(w)))] : [];
    showUnknown();
  };
  /** The box shows the tokens in their current order (after a shuffle or a drag too). */
  const showOrder = (): void => { input.value = joinTokens(order.map((i) => tokens[i]!)); };
  showOrder();
  const live = el('div', { class: 'sr-only', 'aria-live': 'polite' });
  const diffOut = el('output', { id: 'order-diff', class: 'big' });
  const verdict = el('p', { class: 'note verdict', id: 'order-verdict' });
  const aMap = outputMap('order.fig.orig', 'order.ax.out');
  const bMap = outputMap('order.fig.back', 'order.ax.out');
  const dMap = outputMap('order.fig.diff', 'order.ax.diff');
  const wMap = new AxedHeatmap({
    kind: 'sequential', label: () => t('order.weights'), rowName: 'query', colName: 'key', range: [0, 1],
    y: 'order.ax.query', x: 'order.ax.key', value: 'order.ax.weight',
  });
  aMap.canvas.id = 'order-a';
  bMap.canvas.id = 'order-b';
  dMap.canvas.id = 'order-delta';
  wMap.canvas.id = 'order-weights';
  // A, B, B - A and the weights in one row where the screen is wide enough.
  const outs = el('div', { class: 'figs figs-4', id: 'order-outs' },
    figure('order.fig.orig', aMap.el), figure('order.fig.back', bMap.el), figure('order.fig.diff', dMap.el),
    figure('order.weights', wMap.el));

  /**
   * After Shuffle or Reset, at least one map is on screen: on a phone the
   * maps come below the buttons, and the least scroll that shows the first
   * one brings it up (the buttons stay in view unless the screen is short).
   */
  const revealMaps = (): void => {
    const nav = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--nav-h')) || 0;
    const seen = (e: Element): boolean => {
      const r = e.getBoundingClientRect();
      return r.top < innerHeight - 0.5 * r.height && r.bottom > nav + 0.5 * r.height;
    };
    const maps = Array.from(outs.querySelectorAll('figure'));
    if (maps.length > 0 && !maps.some(seen)) maps[0]!.scrollIntoView({ block: 'nearest' });
  };

  const update = coalesce(() => {
    const t0 = performance.now();
    const r = orderAttention(pe, tokens, order, enc, causal);
    const T = tokens.length;
    diffOut.textContent = fmtNum(r.diff, 6);
    diffOut.dataset.value = String(r.diff);
    diffOut.classList.toggle('zero', r.diff < 1e-5);
    const shuffled = order.some((src, i) => src !== i);
    const key: Key = !shuffled ? 'order.verdict.order' : r.diff < 1e-5 ? 'order.verdict.same' : 'order.verdict.differ';
    verdict.dataset.i18n = key;
    verdict.textContent = t(key);
    // A and B share one colour scale. B - A has its own, never finer than a
    // tenth of theirs: rounding noise (1e-7) stays blank, a real change shows.
    const amax = maxAbs(r.a, r.b);
    const dmax = Math.max(largestAbs(r.delta), amax / 10);
    aMap.draw(r.a, T, D, [-amax, amax]);
    bMap.draw(r.b, T, D, [-amax, amax]);
    dMap.draw(r.delta, T, D, [-dmax, dmax]);
    // Past the labelled sizes each weight is about 1/T: a shared 0-1 scale
    // would be one flat colour, so each row is scaled to its own largest weight.
    wMap.setScale(T > MAX_LABELS ? 'row' : 'linear', false);
    wMap.draw(r.weights, T, T);
    const labels = T <= MAX_LABELS;
    for (const m of [aMap, bMap, dMap]) m.setRowLabels(labels ? tokens : undefined);
    wMap.setRowLabels(labels ? order.map((i) => tokens[i]!) : undefined);
    // The keys are the same tokens: named under their columns while they fit.
    wMap.setColLabels(T <= MAX_COL_LABELS ? order.map((i) => tokens[i]!) : undefined);
    // For the page tests: the inputs and both outputs ([T, D], original order), small sequences only.
    if (T <= 32) {
      outs.dataset.x = JSON.stringify(Array.from(r.x));
      outs.dataset.a = JSON.stringify(Array.from(r.a));
      outs.dataset.b = JSON.stringify(Array.from(r.b));
    } else for (const k of ['x', 'a', 'b']) delete outs.dataset[k];
    outs.dataset.order = order.join('.');
    outs.dataset.tokens = JSON.stringify(tokens);
    root.dataset.ms = (performance.now() - t0).toFixed(2);
  });

  const chips = chipList((from, to) => {
    const [x] = order.splice(from, 1);
    order.splice(to, 0, x!);
    live.textContent = `${tokens[x!]} → ${to + 1}`;
    showOrder();
    changed();
  });
  const changed = (): void => {
    setParam('o.perm', order.join('.'));
    chips.render(order.map((i) => tokens[i]!));
    update();
  };
  // A "try this" prompt (ui.ts applyState): 'shuffled' (a random order other
  // than the original), or an order written as the URL keeps it (2.0.1...).
  bindParam('o.perm', (v) => {
    if (v === 'shuffled') {
      const identity = (): boolean => order.every((src, i) => src === i);
      order = shuffle(order);
      for (let i = 0; i < 20 && identity() && order.length > 1; i++) order = shuffle(order);
    } else {
      const p = v.split('.').map(Number);
      if (p.length !== tokens.length || ![...p].sort((a, b) => a - b).every((x, i) => x === i)) {
        throw new RangeError(`o.perm must be 'shuffled' or a permutation of 0..${tokens.length - 1}, got ${v}`);
      }
      order = p;
    }
    showOrder();
    changed();
  });
  const setTokens = (words: string[], shownText?: string): void => {
    if (words.length === 0) return;  // an empty box keeps the last tokens
    tokens = words.slice(0, 256);
    order = tokens.map((_, i) => i);
    if (shownText !== undefined) input.value = shownText;
    setParam('o.text', tokens.join(' '));
    changed();
  };
  /** Cuts `raw` (fetching the vocabulary only if it holds CJK text) and shows it, unless newer text came meanwhile. */
  let pending = 0;
  const applyText = async (raw: string, shown?: string): Promise<void> => {
    const ticket = ++pending;
    const words = segment(raw, CJK.test(raw) ? await vocab() : []);
    if (ticket !== pending) return;
    setTokens(words, shown);
    await checkUnknown(words, sample === undefined);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  input.addEventListener('input', () => {
    sample = undefined;
    clearTimeout(timer);
    timer = setTimeout(() => void applyText(input.value), TYPING_MS);
  });
  input.addEventListener('change', () => {
    clearTimeout(timer);
    void applyText(input.value);
  });
  const showSample = (i: number): void => {
    sample = i;
    const s = SAMPLES[lang()][i]!;
    void applyText(s, joinTokens(s.split(/\s+/)));
  };
  const samples = el('div', { class: 'samples' });
  const renderSamples = (): void => {
    samples.replaceChildren(text('order.samples', 'span', 'samples-label'),
      ...SAMPLES[lang()].map((s, i) => {
        const b = el('button', { type: 'button', class: 'sample', 'data-sample': '' }, joinTokens(s.split(/\s+/)));
        b.addEventListener('click', () => showSample(i));
        return b;
      }));
  };
  // The sample sentence follows the language (a sentence of the reader's own stays).
  onLangChange(() => {
    renderSamples();
    if (sample !== undefined) showSample(sample);
  });
  renderSamples();

  const encSel = select<Enc>({
    label: 'order.encoding', param: 'o.enc', value: enc,
    options: [['none', () => t('order.enc.none')], ['sinusoidal', () => t('controls.enc.sinusoidal')], ['rope', 'RoPE'], ['alibi', 'ALiBi']],
    onChange: (v) => { enc = v; update(); },
  });
  const causalBox = checkbox({ label: 'order.causal', param: 'o.causal', value: causal, onChange: (v) => { causal = v; update(); } });
  const long = button('order.long', () => {
    sample = undefined;
    const words = Array.from({ length: 256 }, (_, i) => WORDS[(i * 7 + (i >> 3)) % WORDS.length]!);
    setTokens(words, words.join(' '));
  });
  long.id = 'order-long';

  root.append(
    el('div', { class: 'controls' },
      el('label', { class: 'control wide', for: 'order-input' }, text('order.input'), input, text('order.tokens.hint', 'small', 'hint'))),
    unknownNote,
    samples,
    text('order.tokens', 'p', 'chips-label'),
    chips.el, live,
    lab({
      sticky: 'controls',
      controls: [
        el('div', { class: 'controls' },
          button('order.shuffle', () => { order = shuffle(order); showOrder(); changed(); revealMaps(); }, 'shuffle'),
          button('order.reset', () => { order = tokens.map((_, i) => i); showOrder(); changed(); revealMaps(); }),
          long, encSel.el, causalBox.el),
        el('p', { class: 'result' }, text('order.diff'), ' = ', diffOut),
        verdict,
        text('order.long.hint', 'p', 'note hint'),
      ],
      figures: [
        outs,
        el('p', { class: 'note look' }, text('order.outs.look'), sentenceGap(), text('order.weights.look')),
      ],
    }),
  );
  chips.render(order.map((i) => tokens[i]!));
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
  // The default pair is in the page's language (the first English pair in English); o.pair picks any.
  const defaultPair = (): number => (lang() === 'zh' ? 0 : 1);
  const chosen = Number(getParam('o.pair') ?? NaN);
  let pair = chosen >= 0 && chosen < PAIRS.length ? chosen : defaultPair();
  let picked = pair === chosen;
  const sel = el('select', { id: 'order-pair', 'aria-label': t('order.sentence'), 'data-i18n-aria': 'order.sentence', 'data-sample': '' });
  // Shown as written (Chinese without spaces, review F7); the models get the words split by spaces.
  const shown = (s: string): string => joinTokens(s.split(' '));
  PAIRS.forEach(([a, b], i) => sel.append(el('option', { value: String(i) }, `${shown(a)}  /  ${shown(b)}`)));
  sel.value = String(pair);
  const table = el('table', { class: 'answers', id: 'order-answers' });
  const accuracy = new Map<string, number>();

  const render = async (): Promise<void> => {
    const [a, b] = PAIRS[pair]!;
    const names = [...SHIPPED['word-order'].map((e) => `word-order-${e}`)];
    if (ctx.custom?.task === 'word-order') names.push(CUSTOM);
    const head = el('tr', {}, el('th', {}, text('order.model')), el('th', { 'data-sample': '' }, shown(a)), el('th', { 'data-sample': '' }, shown(b)), el('th', {}, text('order.accuracy')));
    const rows = await Promise.all(names.map(async (name) => {
      const ans = await ctx.worker.call('answer', { model: name, sentences: [a, b] });
      if (!accuracy.has(name)) {
        const ev = await ctx.worker.call('evaluate', { model: name, lengths: [8], examples: 400 });
        accuracy.set(name, ev[0]!.accuracy);
      }
      // The answer's probability in brackets: full-width, with no space, in Chinese.
      const pct = (p: number): string => (lang() === 'zh' ? `（${(p * 100).toFixed(0)}%）` : ` (${(p * 100).toFixed(0)}%)`);
      const cell = (x: { answer: string; p: number }): HTMLElement => el('td', {}, el('span', { 'data-sample': '' }, x.answer), el('small', {}, pct(x.p)));
      const tr = el('tr', { 'data-model': name, 'data-same': String(ans[0]!.answer === ans[1]!.answer) },
        el('th', {}, name === CUSTOM ? t('train.title').replace(/^\d+\.\s*/, '') : encodingSpan(name.replace('word-order-', ''))),
        cell(ans[0]!), cell(ans[1]!), el('td', {}, `${(accuracy.get(name)! * 100).toFixed(1)}%`));
      return tr;
    }));
    table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));
    table.classList.remove('error');
    table.dataset.ready = '1';
  };
  /** Another pair, language or model: the table again (a failure shown in it, in the reader's language). */
  const rerender = (): void => { render().catch((e: unknown) => showError(table, e)); };
  sel.addEventListener('change', () => {
    pair = Number(sel.value);
    picked = true;
    setParam('o.pair', pair);
    rerender();
  });
  ctx.onCustomModel(rerender);
  onLangChange(() => {
    if (!picked) sel.value = String(pair = defaultPair());
    rerender();
  });
  root.append(
    el('h3', {}, text('order.models')),
    el('p', { class: 'explain', 'data-i18n-rich': 'order.models.text' }),
    el('div', { class: 'controls' }, el('div', { class: 'control wide' }, text('order.sentence', 'label'), sel)),
    table,
    el('p', { class: 'note', 'data-i18n-rich': 'order.models.alibi' }),
  );
  // The answers need seven models: fetched once the table is close, not with the first screen.
  lazyPanel(table, render, () => {}, { margin: '200px' });
}
