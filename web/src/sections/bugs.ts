// Section 6: the bug zoo. Each toggle applies a real RoPE / position bug (the
// `bug` option of the model API, implemented in src/model/inference.cc) to
// a shipped model; the Worker measures the loss with and without it and
// decodes the same prompt through the KV cache both ways.
import type { PositionBug, RopeScaling } from 'posenc';

import { t, type Key } from '../i18n.js';
import { LinePlot } from '../plot.js';
import { getChoice } from '../state.js';
import { coalesce, el, figure, select, text } from '../ui.js';
import type { Ctx } from './context.js';
import { bin } from './extrapolation.js';

export const BUGS = [
  'restart-positions', 'rotate-v', 'only-q', 'layout-mismatch', 'left-padding-in-positions', 'wrong-base',
  'partial-rotary-freq-over-head-dim', 'yarn-magnitude-twice',
] as const satisfies readonly PositionBug[];
type Bug = (typeof BUGS)[number];

/** The models each bug applies to (first = default), the evaluation length and scaling. */
const DEMO: Record<Bug, { models: string[]; length: number; scaling?: RopeScaling }> = {
  'restart-positions': { models: ['language-rope', 'language-sinusoidal', 'language-xpos'], length: 64 },
  'rotate-v': { models: ['language-rope', 'language-xpos'], length: 64 },
  'only-q': { models: ['language-rope', 'language-xpos'], length: 64 },
  'layout-mismatch': { models: ['language-rope', 'language-xpos'], length: 64 },
  'left-padding-in-positions': { models: ['language-sinusoidal', 'language-rope'], length: 64 },
  'wrong-base': { models: ['language-rope', 'language-xpos'], length: 64 },
  'partial-rotary-freq-over-head-dim': { models: ['language-rope-partial'], length: 64 },
  'yarn-magnitude-twice': {
    models: ['language-rope'], length: 256, scaling: { type: 'yarn', factor: 16, originalMaxPositionEmbeddings: 64 },
  },
};

function tokens(words: string[], other: string[]): HTMLElement {
  return el('p', { class: 'tokens' }, ...words.map((w, i) => el('span', { class: w === other[i] ? 'tok' : 'tok diff' }, w)));
}

export function mountBugs(ctx: Ctx, root: HTMLElement): void {
  let bug = getChoice<Bug>('z.bug', 'rotate-v', BUGS);
  let model = getChoice('z.model', DEMO[bug].models[0]!, DEMO[bug].models);
  const about = el('p', { class: 'explain', id: 'bug-about' });
  const status = el('p', { class: 'status', 'aria-live': 'polite' });
  const clean = el('output', { id: 'bug-loss-clean', class: 'big zero' });
  const buggy = el('output', { id: 'bug-loss-buggy', class: 'big' });
  const texts = el('div', { id: 'bug-texts' });
  const plot = new LinePlot({ xLabel: () => t('ext.position'), yLabel: () => 'loss', series: [], height: 240, markers: () => [64] });
  const modelSel = el('select', { id: 'bug-model', 'aria-label': 'model' });
  const fillModels = (): void => {
    modelSel.replaceChildren(...DEMO[bug].models.map((m) => el('option', { value: m }, m)));
    if (!DEMO[bug].models.includes(model)) model = DEMO[bug].models[0]!;
    modelSel.value = model;
  };
  let generation = 0;
  const run = coalesce(() => {
    const gen = ++generation;
    const demo = DEMO[bug];
    about.textContent = t(`bugs.${bug}` as Key);
    status.textContent = t('ext.running');
    delete root.dataset.ready;
    ctx.worker
      .call('bug', { model, bug, length: demo.length, examples: 12, ...(demo.scaling ? { scaling: demo.scaling } : {}) })
      .then((r) => {
        if (gen !== generation) return;
        status.textContent = demo.scaling ? `${demo.length} tokens, yarn ×16` : '';
        clean.textContent = r.clean.loss.toFixed(3);
        clean.dataset.value = String(r.clean.loss);
        buggy.textContent = r.buggy.loss.toFixed(3);
        buggy.dataset.value = String(r.buggy.loss);
        buggy.classList.toggle('zero', Math.abs(r.buggy.loss - r.clean.loss) < 1e-3);
        const w = demo.length / 32;  // mean over bins of positions: 12 examples are noisy
        const a = bin(r.clean.positionLoss, w), b = bin(r.buggy.positionLoss, w);
        plot.setData([a.x, a.y, b.y], [{ label: 'correct' }, { label: bug }]);
        const first = r.buggyText.findIndex((w, i) => w !== r.cleanText[i]);
        texts.replaceChildren(
          el('p', { class: 'note' }, `prompt: ${r.prompt}`),
          el('div', { class: 'gen' }, text('bugs.correct', 'strong'), tokens(r.cleanText, r.cleanText)),
          el('div', { class: 'gen' }, el('strong', {}, bug), tokens(r.buggyText, r.cleanText)),
          el('p', { class: 'note', id: 'bug-diverge', 'data-value': String(first) },
            first < 0 ? t('bugs.same') : `${t('bugs.diverge')} ${first + 1}`),
        );
        root.dataset.ready = `${model}:${bug}`;
      })
      .catch((e: unknown) => {
        if (gen === generation) status.textContent = e instanceof Error ? e.message : String(e);
      });
  });
  modelSel.addEventListener('change', () => {
    model = modelSel.value;
    run();
  });
  fillModels();
  const bugSel = select<Bug>({
    label: 'bugs.bug', param: 'z.bug', value: bug, options: BUGS.map((b) => [b, b] as const),
    onChange: (v) => { bug = v; fillModels(); run(); },
  });
  bugSel.input.id = 'bug-select';
  root.append(
    el('div', { class: 'controls' }, bugSel.el, el('div', { class: 'control' }, text('bugs.model', 'label'), modelSel)),
    about,
    el('p', { class: 'result' }, text('bugs.loss'), ': ', text('bugs.correct'), ' ', clean, ' \u2003 ', text('bugs.with'), ' ', buggy),
    status,
    el('div', { class: 'figs' }, figure('bugs.curve', plot.el), figure('bugs.generated', texts)),
  );
  run();
}
