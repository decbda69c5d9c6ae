// Section: the notes' list of common RoPE / position-id bugs (§20), each
// applied on purpose (the `bug` option of the model API, src/model) to a
// model posenc trained. The Worker measures the loss with and without the
// bug and decodes one prompt three ways: correct, with the bug through the
// KV cache, and with the bug without a cache (a full pass per token), the
// symptom the notes name. An odd head dim is not a model bug: its panel
// shows posenc's error and what a silent implementation computes instead.
import type { Posenc, PositionBug, RopeScaling, TinyModelConfig } from 'posenc';

import { EVAL_SET, evalCurve } from '../../evalset.js';
import { errorText, onLangChange, t, type Key } from '../../i18n.js';
import { LinePlot } from '../../plot.js';
import { getChoice } from '../../state.js';
import { synthText, synthWord } from '../../synthwords.js';
import { liveText, tf, type Vars } from '../../textfill.js';
import { coalesce, el, figure, fmtNum, select, text, whenNear } from '../../ui.js';
import type { Ctx } from '../context.js';
import { bin } from '../extrapolation/mount.js';

export const BUGS = [
  'rope-on-embeddings', 'only-q', 'qk-position-mismatch', 'rotate-v', 'rotate-half-mismatch', 'layout-mismatch',
  'restart-positions', 'left-padding-in-positions', 'short-cos-sin-cache', 'wrong-base', 'wrong-scaling',
  'partial-rotary-freq-over-head-dim', 'yarn-magnitude-twice',
] as const satisfies readonly PositionBug[];
type Bug = (typeof BUGS)[number];

/**
 * The models each bug applies to (first = default) and, for the one demo
 * past the training length M, its length (a multiple of M) and scaling;
 * the others run at M (each model's own, from describe).
 */
const DEMO: Record<Bug, { models: string[]; times?: number; scaling?: (M: number) => RopeScaling; compare?: number }> = {
  'rope-on-embeddings': { models: ['language-rope', 'language-xpos'] },
  'only-q': { models: ['language-rope', 'language-xpos'] },
  'qk-position-mismatch': { models: ['language-rope', 'language-xpos'] },
  'rotate-v': { models: ['language-rope', 'language-xpos'] },
  'rotate-half-mismatch': { models: ['language-rope', 'language-xpos'] },
  'layout-mismatch': { models: ['language-rope', 'language-xpos'] },
  'restart-positions': { models: ['language-rope', 'language-sinusoidal', 'language-xpos'] },
  'left-padding-in-positions': { models: ['language-sinusoidal', 'language-rope'] },
  'short-cos-sin-cache': { models: ['language-rope', 'language-xpos'] },
  'wrong-base': { models: ['language-rope', 'language-xpos'] },
  'wrong-scaling': { models: ['language-rope', 'language-xpos'] },
  'partial-rotary-freq-over-head-dim': { models: ['language-rope-partial'] },
  // ×16 although the demo runs at 4 M: YaRN's attention factor grows with the factor, and at ×4, the factor
  // 4 M calls for, applying it twice barely moves the loss of this model (review F8); the text says so,
  // comparing the attention factors at ×16 and at ×`compare`.
  'yarn-magnitude-twice': {
    models: ['language-rope'], times: 4, scaling: (M) => ({ type: 'yarn', factor: 16, originalMaxPositionEmbeddings: M }), compare: 4,
  },
};

/**
 * YaRN's attention factor (it multiplies cos and sin) at `factor` for a model trained on `M` tokens, run on
 * `len`, as posenc computes it.
 */
export function yarnAttentionFactor(pe: Posenc, c: TinyModelConfig, factor: number, len: number): number {
  const d = c.dModel / c.heads;
  return pe.ropeFrequencies({
    headDim: d, rotaryDim: c.rotaryDim || d, base: c.ropeBase, seqLen: len,
    scaling: { type: 'yarn', factor, originalMaxPositionEmbeddings: c.trainLen },
  }).attentionFactor;
}

/** The numbers a bug's text names, from the chosen model's config ('…' until it is described). */
function bugVars(pe: Posenc, bug: Bug, c: TinyModelConfig | undefined): Vars {
  if (c === undefined) return { M: '…', cache: '…', cacheLast: '…', base: '…', d: '…', r: '…', len: '…', factor: '…', target: '…', small: '…', af: '…', afSmall: '…' };
  const d = c.dModel / c.heads;
  // The short cache holds max(1, M / 2) rows (src/model/position_bug.h).
  const cache = Math.max(1, Math.floor(c.trainLen / 2));
  const vars = { M: c.trainLen, cache, cacheLast: cache - 1, base: c.ropeBase, d, r: c.rotaryDim || d };
  const demo = DEMO[bug], scaling = demo.scaling?.(c.trainLen);
  if (scaling?.type !== 'yarn' || demo.compare === undefined) return vars;
  const len = c.trainLen * (demo.times ?? 1);
  return {
    ...vars, len, factor: scaling.factor, target: c.trainLen * scaling.factor, small: demo.compare,
    af: fmtNum(yarnAttentionFactor(pe, c, scaling.factor, len)), afSmall: fmtNum(yarnAttentionFactor(pe, c, demo.compare, len)),
  };
}

type BugResult = {
  clean: { loss: number; positionLoss: Float64Array };
  buggy: { loss: number; positionLoss: Float64Array };
  prompt: string;
  cleanText: string[];
  buggyText: string[];
  uncachedText: string[];
};

function tokens(words: string[], other: string[], id: string): HTMLElement {
  return el('p', { class: 'tokens', id, 'data-sample': '' },
    ...words.map((w, i) => el('span', { class: w === other[i] ? 'tok' : 'tok diff', 'data-token': w }, synthWord(w))));
}

const firstDiff = (a: string[], b: string[]): number => a.findIndex((w, i) => w !== b[i]);

export function mount(ctx: Ctx, root: HTMLElement): void {
  let bug = getChoice<Bug>('z.bug', 'rope-on-embeddings', BUGS);
  let model = getChoice('z.model', DEMO[bug].models[0]!, DEMO[bug].models);
  const about = el('p', { class: 'explain', id: 'bug-about' });
  const symptom = el('p', { class: 'note', id: 'bug-symptom' });
  const status = el('p', { class: 'status', 'aria-live': 'polite' });
  const clean = el('output', { id: 'bug-loss-clean', class: 'big zero' });
  const buggy = el('output', { id: 'bug-loss-buggy', class: 'big' });
  const texts = el('div', { id: 'bug-texts' });
  // Which sequences the two losses are measured on.
  const setNote = liveText('p', 'note');
  setNote.el.id = 'bug-set';
  const plot = new LinePlot({ xLabel: () => t('extrapolation.position'), yLabel: () => t('plot.loss'), series: [], height: 240, markers: () => (config ? [config.trainLen] : []), markerText: () => [t('extrapolation.marker.train')] });
  const modelSel = el('select', { id: 'bug-model' });
  const modelName = (m: string): string => t(`controls.model.${m}` as Key);
  const fillModels = (): void => {
    modelSel.replaceChildren(...DEMO[bug].models.map((m) => el('option', { value: m }, modelName(m))));
    if (!DEMO[bug].models.includes(model)) model = DEMO[bug].models[0]!;
    modelSel.value = model;
  };
  let last: { bug: Bug; r: BugResult; length: number } | undefined;
  /** The chosen model's config (Worker describe), once a run has asked for it. */
  let config: TinyModelConfig | undefined;
  /** What the status line says: a message key (filled with vars), or an error (its text glossed in the current language). */
  let state: { key: Key; vars?: Vars } | { error: unknown } | undefined;

  /** Everything that shows text: re-run on a language change without new work. */
  const render = (): void => {
    const vars = bugVars(ctx.pe, bug, config);
    about.textContent = tf(`bugs.${bug}` as Key, vars);
    // The attention factors the YaRN text compares (tests read them).
    if ('af' in vars && vars.af !== '…') about.dataset.attention = `${vars.af},${vars.afSmall}`;
    else delete about.dataset.attention;
    for (const o of modelSel.options) o.text = modelName(o.value);
    status.textContent = !state ? '' : 'key' in state ? tf(state.key, state.vars) : errorText(state.error);
    if (!last) return;
    const { r } = last;
    const w = last.length / 32; // mean over bins of positions: a single position is noisy
    const a = bin(r.clean.positionLoss, w), b = bin(r.buggy.positionLoss, w);
    // The label captures this bug (not `last`, which a later run replaces):
    // the plot compares labels to decide whether its legend must change.
    const shown = last.bug;
    plot.setData([a.x, a.y, b.y], [{ label: () => t('bugs.correct') }, { label: () => t(`bugs.name.${shown}` as Key) }]);
    const cachedAt = firstDiff(r.buggyText, r.cleanText);
    const uncachedAt = firstDiff(r.uncachedText, r.cleanText);
    const cacheGap = firstDiff(r.uncachedText, r.buggyText);
    const at = (i: number): string => (i < 0 ? t('bugs.same') : tf('bugs.diverge', { n: String(i + 1) }));
    const noEffect = Math.abs(r.buggy.loss - r.clean.loss) < 1e-3 && cachedAt < 0 && uncachedAt < 0;
    symptom.textContent = noEffect ? t('bugs.cache.none')
      : cacheGap < 0 ? t('bugs.cache.same') : tf('bugs.cache.differ', { n: String(cacheGap + 1) });
    symptom.dataset.value = String(cacheGap);
    texts.replaceChildren(
      text('bugs.synthetic', 'p', 'note'),
      el('p', { class: 'note' }, `${t('bugs.prompt')}${t('colon')}`, el('span', { 'data-sample': '', id: 'bug-prompt' }, synthText(r.prompt))),
      el('div', { class: 'gen' }, text('bugs.correct', 'strong'), tokens(r.cleanText, r.cleanText, 'bug-text-clean')),
      el('div', { class: 'gen' }, text('bugs.cached', 'strong'), tokens(r.buggyText, r.cleanText, 'bug-text-cached'),
        el('p', { class: 'note', id: 'bug-diverge', 'data-value': String(cachedAt) }, at(cachedAt))),
      el('div', { class: 'gen' }, text('bugs.uncached', 'strong'), tokens(r.uncachedText, r.cleanText, 'bug-text-uncached'),
        el('p', { class: 'note', id: 'bug-diverge-uncached', 'data-value': String(uncachedAt) }, at(uncachedAt))),
    );
  };

  let generation = 0;
  const run = coalesce(() => {
    const gen = ++generation;
    const demo = DEMO[bug];
    const b = bug, m = model;
    state = { key: 'extrapolation.running' };
    render();
    delete root.dataset.ready;
    let length = NaN, scaling: RopeScaling | undefined;
    ctx.worker.call('describe', { model: m })
      .then((info) => {
        if (gen !== generation) return undefined;
        config = info.config;
        const M = info.config.trainLen;
        length = M * (demo.times ?? 1);
        scaling = demo.scaling?.(M);
        render();
        // Correct: the page's evaluation set at this length (the number every section shows); the bug on the same sequences.
        return Promise.all([
          evalCurve(ctx, m, length, scaling),
          ctx.worker.call('bug', { model: m, bug: b, length, examples: EVAL_SET.examples, seed: EVAL_SET.seed, ...(scaling ? { scaling } : {}) }),
        ]).then(([c, r]) => ({ ...r, clean: c }));
      })
      .then((r) => {
        if (gen !== generation || r === undefined) return;
        last = { bug: b, r, length };
        setNote.set(length === EVAL_SET.length && !scaling ? 'bugs.set.main' : 'bugs.set.other', { n: EVAL_SET.examples, len: length, seed: EVAL_SET.seed });
        setNote.el.dataset.examples = String(EVAL_SET.examples);
        clean.textContent = r.clean.loss.toFixed(3);
        clean.dataset.value = String(r.clean.loss);
        buggy.textContent = r.buggy.loss.toFixed(3);
        buggy.dataset.value = String(r.buggy.loss);
        buggy.classList.toggle('zero', Math.abs(r.buggy.loss - r.clean.loss) < 1e-3);
        state = scaling?.type === 'yarn' ? { key: 'bugs.yarnSetting', vars: { len: length, factor: scaling.factor, M: config?.trainLen ?? '…' } } : undefined;
        render();
        root.dataset.ready = `${m}:${b}`;
      })
      .catch((e: unknown) => {
        if (gen !== generation) return;
        state = { error: e };
        render();
      });
  });
  modelSel.addEventListener('change', () => {
    model = modelSel.value;
    run();
  });
  fillModels();
  const bugSel = select<Bug>({
    label: 'bugs.bug', param: 'z.bug', value: bug, options: BUGS.map((b) => [b, () => t(`bugs.name.${b}` as Key)] as const),
    onChange: (v) => { bug = v; fillModels(); run(); },
  });
  bugSel.input.id = 'bug-select';
  const modelLabel = el('label', { for: 'bug-model' }, text('bugs.model'));
  onLangChange(render);
  root.append(
    el('div', { class: 'controls' }, bugSel.el, el('div', { class: 'control' }, modelLabel, modelSel)),
    about,
    el('p', { class: 'result' }, text('bugs.loss'), text('colon'), text('bugs.correct'), ' ', clean, ' \u2003 ', text('bugs.with'), ' ', buggy),
    setNote.el,
    symptom,
    status,
    el('div', { class: 'figs' }, figure('bugs.curve', plot.el), figure('bugs.generated', texts)),
  );
  mountOddHeadDim(ctx, root);
  render();
  // The models load when the reader gets near.
  whenNear(root, run);
}

/**
 * The last bug of the list is not one a model can carry: an odd head dim
 * cannot be split into pairs. posenc refuses it with an error; a silent
 * implementation rotates the first d − 1 dims with frequencies computed over
 * d and leaves the last dim without any position.
 */
function mountOddHeadDim(ctx: Ctx, root: HTMLElement): void {
  const d = 7;
  const x = Float32Array.from({ length: d }, (_, i) => Math.cos(1.3 * i + 0.4));
  const pos = 5;
  const error = el('pre', { id: 'odd-error', class: 'error-box' });
  const silentBox = el('div', { id: 'odd-silent' });
  const render = (): void => {
    try {
      ctx.pe.applyRope(x, { heads: 1, seqLen: 1, headDim: d, layout: 'interleaved', offset: pos });
      error.textContent = t('error.none');
      error.dataset.value = '';
    } catch (e) {
      error.textContent = `${(e as Error).name}: ${(e as Error).message}`;
      error.dataset.value = (e as Error).name;
    }
    // Silent: pairs (0,1), (2,3), (4,5) rotated with θ_i = b^(-2i/d) (d, not
    // d − 1, in the exponent): the same as rotary dim d − 1 with base b^((d−1)/d).
    const silent = ctx.pe.applyRope(x, {
      heads: 1, seqLen: 1, headDim: d, rotaryDim: d - 1, layout: 'interleaved', base: 10000 ** ((d - 1) / d), offset: pos,
    });
    const row = (v: Float32Array): string => `[${Array.from(v, (u) => fmtNum(u, 4)).join(', ')}]`;
    silentBox.replaceChildren(
      el('p', { class: 'note' }, t('bugs.odd.input')),
      el('pre', { translate: 'no' }, row(x)),
      el('p', { class: 'note' }, t('bugs.odd.silent')),
      el('pre', {
        translate: 'no', id: 'odd-silent-row', 'data-last': String(silent[d - 1]), 'data-input-last': String(x[d - 1]),
        'data-values': Array.from(silent).join(','), 'data-input': Array.from(x).join(','), 'data-pos': String(pos),
      }, row(silent)),
    );
  };
  onLangChange(render);
  root.append(
    el('h3', {}, text('bugs.odd.title')),
    el('p', { class: 'explain', 'data-i18n-rich': 'bugs.odd.text' }),
    el('div', { class: 'figs' }, figure('bugs.odd.posenc', text('bugs.odd.refused', 'p', 'note'), error), figure('bugs.odd.silentTitle', silentBox)),
  );
  render();
}
