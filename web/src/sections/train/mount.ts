// Section "train": train a tiny model in the Worker with a progress bar and
// a live loss curve; cancel works; the result joins sections "order" and
// "extrapolation" as "yours". Below it, a shipped RoPE / xPos model is
// extended to a longer context and trained a little more there (mountExtend).
import { ENCODINGS, TASKS, type EncodingName, type RopeScaling, type TaskName } from 'posenc';

import { onLangChange, t, type Key } from '../../i18n.js';
import { LinePlot } from '../../plot.js';
import { getChoice } from '../../state.js';
import { liveText, tf, tidyCjk } from '../../textfill.js';
import { button, el, figure, numberControl, select, text } from '../../ui.js';
import { EVAL_SET, evalCurve } from '../../evalset.js';
import type { LossCurve, Progress } from '../../protocol.js';
import type { Ctx } from '../context.js';
import { bin } from '../extrapolation/mount.js';
import { makeScaling } from '../rope/mount.js';


/** The outcome of a finished run of "train your own". */
type Result = { steps: number; seconds: number; accuracy: number; task: TaskName; encoding: EncodingName; seed: number; seqLen: number; cores: number };
/** A status line: the last progress report and how the run ended. */
type Shown = { progress?: Progress; result?: Result; end?: { key: Key } | { error: string } };

/**
 * The milliseconds between two redraws of a run's progress. The page's thread shares the cores
 * with the training Workers, and any redraw repaints the page around the section: in Chromium
 * without a GPU about 15 ms of the page's thread per redraw (paint, pre-paint and commit of the
 * whole 8900 px band the browser keeps painted, measured with a trace), whatever changes (a
 * `will-change` layer for the bar and the status line did not avoid it). At every report (about 9 a
 * second) that was 14% of a core and the recipe ran at 80 steps/s in the page against 88-92 in a
 * bare page; once a second it is under 2%.
 */
const REDRAW_MS = 1000;

/**
 * `draw` when asked, at most once per REDRAW_MS, in an animation frame; `now()` draws at once
 * (a run's end) and cancels a pending one.
 */
function redrawer(draw: () => void): { ask(): void; now(): void } {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let frame: number | undefined;
  const run = (): void => {
    timer = undefined;
    frame = undefined;
    last = performance.now();
    draw();
  };
  return {
    ask() {
      if (timer !== undefined || frame !== undefined) return;
      const wait = last + REDRAW_MS - performance.now();
      if (wait <= 0) frame = requestAnimationFrame(run);
      else timer = setTimeout(() => { timer = undefined; frame = requestAnimationFrame(run); }, wait);
    },
    now() {
      if (timer !== undefined) clearTimeout(timer);
      if (frame !== undefined) cancelAnimationFrame(frame);
      run();
    },
  };
}

/** Steps per second, one decimal ("–" before there is a time). */
const rate = (steps: number, seconds: number): string => (seconds > 0 ? (steps / seconds).toFixed(1) : '–');

/** "2 cores" / "one core": how many a run uses (the Worker pool's Workers). */
const coresText = (n: number): string => (n === 1 ? t('train.cores.one') : tf('train.cores.many', { n: String(n) }));

function statusText(s: Shown): string {
  const p = s.progress;
  const parts: string[] = [];
  if (s.result) {
    const r = s.result;
    const run = tf('train.run', { task: t(`train.short.${r.task}`), enc: t(`controls.enc.${r.encoding}`), seed: String(r.seed) });
    parts.push(tf(r.task === 'word-order' ? 'train.result' : 'train.result.len', { run, steps: String(r.steps), s: r.seconds.toFixed(1), rate: rate(r.steps, r.seconds), cores: coresText(r.cores), len: String(r.seqLen), acc: `${(100 * r.accuracy).toFixed(1)}%` }));
  } else if (p) {
    parts.push(tf('train.progress', { step: String(p.step), steps: String(p.steps), loss: p.loss.toFixed(3), rate: rate(p.step, p.seconds), cores: coresText(p.cores) }));
  }
  if (s.end) {
    parts.push('key' in s.end ? tf(s.end.key, { step: String(p?.step ?? 0) }) : `${t('error.gloss')}${s.end.error}`);
  }
  return parts.join(' · ');
}

/** Writes a status line: its text, styled as an error when the run failed (a cancel is not an error). */
function showStatus(status: HTMLElement, text: string, s: Shown): void {
  status.textContent = text;
  status.classList.toggle('error', s.end !== undefined && 'error' in s.end);
}

/** What `data-done` says about a failed run: "cancelled" or "error". */
const endState = (s: Shown): string => (s.end !== undefined && 'error' in s.end ? 'error' : 'cancelled');

/**
 * Each task's default run. Retrieval pays off only once the model forms an
 * induction circuit (a first-layer head tags each token with the one before
 * it; a second-layer head looks for the queried key in those tags and copies
 * the value it lands on): the loss sits on a plateau, then drops within a few
 * hundred steps. At the package's default learning rate (3e-3) the RoPE
 * model stayed on the plateau for 6000 steps; with this recipe the RoPE and ALiBi models
 * (seed 1) pass 95% accuracy at 64 tokens (measured in Chromium by
 * npm run bench:train-page).
 */
export const RECIPES: Record<TaskName, { steps: number; seqLen: number; lr?: number; warmupFraction?: number }> = {
  'word-order': { steps: 200, seqLen: 8 },
  language: { steps: 200, seqLen: 64 },
  retrieval: { steps: 2000, seqLen: 64, lr: 1e-3, warmupFraction: 0.3 },
};

/** How a failed run is reported: a cancel is translated, an error is shown as it is (after a gloss in the current language). */
function ended(e: unknown, cancelKey: Key = 'train.cancelled'): { key: Key } | { error: string } {
  const msg = e instanceof Error ? e.message : String(e);
  return /cancel/i.test(msg) ? { key: cancelKey } : { error: msg };
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  let task = getChoice<TaskName>('t.task', 'word-order', TASKS);
  let encoding = getChoice<EncodingName>('t.enc', 'rope', ENCODINGS);
  // Round step counts (10, 20, 50, 100, 200, 500, 1000, ...) by drag and
  // arrow keys; any count in the number box. The default: the task's recipe.
  const stepsSlider = numberControl({ label: 'train.steps', param: 't.steps', min: 10, max: 5000, step: 10, log: true, numeric: true, initial: RECIPES[task].steps }, () => {});
  // Weights and data are seeded: a seed gives the same run, bit for bit.
  const seedSlider = numberControl({ label: 'train.seed', param: 't.seed', min: 1, max: 1000, step: 1, numeric: true, initial: 1 }, () => {});
  const progress = el('progress', { max: '1', value: '0', id: 'train-progress', 'aria-label': t('train.progress.label'), 'data-i18n-aria': 'train.progress.label' });
  const status = el('p', { class: 'status', id: 'train-status', 'aria-live': 'polite' });
  // Where a finished model shows up, with links to those sections.
  const where = el('p', { class: 'note', id: 'train-where', hidden: '' });
  // The section that shows a model of the last finished run's task: word order in "order", the
  // language and retrieval tasks in "extrapolation".
  let doneTask: TaskName = 'word-order';
  const renderWhere = (): void => {
    const id = doneTask === 'word-order' ? 'order' : 'extrapolation';
    const [before, after] = t(doneTask === 'word-order' ? 'train.done.order' : 'train.done.ext').split('{section}');
    where.replaceChildren(before ?? '', el('a', { href: `#${id}` }, t(`nav.${id}`)), after ?? '');
  };
  renderWhere();
  onLangChange(renderWhere);
  // What to expect from the chosen task.
  const hint = el('p', { class: 'note', id: 'train-hint' });
  const renderHint = (): void => { hint.textContent = t(`train.hint.${task}`); };
  renderHint();
  onLangChange(renderHint);
  const plot = new LinePlot({ xLabel: () => t('train.step'), yLabel: () => t('plot.loss'), series: [{ label: () => t('plot.loss') }], height: 240 });
  plot.el.id = 'train-loss';
  // Before the first run: what the empty chart will show.
  const empty = text('train.empty', 'p', 'empty-state');
  empty.id = 'train-empty';
  // Until then the chart takes no room: an empty box reads as a gap (review N9).
  plot.el.hidden = true;
  const xs: number[] = [];
  const ys: number[] = [];
  let running = false;
  /** The status line as data, so that a language switch re-renders it. */
  let shown: Shown = {};
  const renderStatus = (): void => showStatus(status, statusText(shown), shown);
  onLangChange(renderStatus);
  // The progress so far: bar, status line and loss curve.
  const redraw = redrawer(() => {
    const p = shown.progress;
    if (p === undefined) return;
    progress.value = p.step / p.steps;
    empty.hidden = true;
    plot.el.hidden = false;
    plot.setData([xs.slice(), ys.slice()]);
    renderStatus();
    status.dataset.first = String(ys[0]);
    status.dataset.last = String(p.loss);
  });

  const start = button('train.start', () => {
    if (running) return;
    running = true;
    start.disabled = true;
    cancel.disabled = false;
    xs.length = 0;
    ys.length = 0;
    shown = {};
    renderStatus();
    delete status.dataset.done;
    where.hidden = true;
    progress.value = 0;
    const run = task, enc = encoding, sd = seedSlider.value();
    const recipe = RECIPES[run];
    const { seqLen } = recipe;
    const n = stepsSlider.value();
    const opt = {
      ...(recipe.lr !== undefined ? { lr: recipe.lr } : {}),
      ...(recipe.warmupFraction !== undefined ? { warmup: Math.round(recipe.warmupFraction * n) } : {}),
    };
    ctx.worker
      .call('train', { task: run, encoding: enc, steps: n, seqLen, seed: sd, ...opt }, (p) => {
        xs.push(p.step);
        ys.push(p.loss);
        shown = { progress: p };
        redraw.ask();
      })
      .then((r) => {
        redraw.now();
        shown = { ...shown, result: { steps: n, seconds: r.seconds, accuracy: r.accuracy, task: run, encoding: enc, seed: sd, seqLen, cores: r.cores } };
        renderStatus();
        status.dataset.cores = String(r.cores);
        doneTask = run;
        renderWhere();
        where.hidden = false;
        status.dataset.seconds = String(r.seconds);
        status.dataset.accuracy = String(r.accuracy);
        status.dataset.done = '1';
        ctx.setCustom(r.config);
      })
      .catch((e: unknown) => {
        redraw.now();
        shown = { ...shown, end: ended(e, 'train.cancelled.run') };
        renderStatus();
        status.dataset.done = endState(shown);
      })
      .finally(() => {
        running = false;
        start.disabled = false;
        cancel.disabled = true;
      });
  }, 'primary');
  start.id = 'train-start';
  const cancel = button('train.cancel', () => void ctx.worker.call('cancel', {}));
  cancel.id = 'train-cancel';
  cancel.disabled = true;

  const taskSelect = select<TaskName>({ label: 'train.task', param: 't.task', value: task, options: TASKS.map((x) => [x, () => t(`task.${x}`)] as const), onChange: (v) => { task = v; renderHint(); } });
  // A task picked by the reader brings its default step count (a link's
  // t.steps, restored without a change event, is kept).
  taskSelect.input.addEventListener('change', () => {
    stepsSlider.set(RECIPES[task].steps);
  });
  root.append(
    el('div', { class: 'controls' },
      taskSelect.el,
      select<EncodingName>({ label: 'train.encoding', param: 't.enc', value: encoding, options: ENCODINGS.map((x) => [x, () => t(`controls.enc.${x}`)] as const), onChange: (v) => { encoding = v; } }).el,
      stepsSlider.el,
      seedSlider.el,
      el('div', { class: 'buttons' }, start, cancel)),
    hint,
    progress, status, where,
    figure('train.loss', empty, plot.el),
  );
  mountExtend(ctx, root);
}

const EXT_METHODS = ['none', 'linear', 'ntk', 'yarn'] as const;
type ExtMethod = (typeof EXT_METHODS)[number];

/** Means over positions [a, b) (NaN entries skipped). */
function meanLoss(v: Float64Array, a: number, b: number): number {
  let sum = 0, n = 0;
  for (let i = a; i < Math.min(b, v.length); i++) if (Number.isFinite(v[i]!)) { sum += v[i]!; n++; }
  return n ? sum / n : NaN;
}

/**
 * One finished extend run: binned curves [bins] and mean losses (b/a: before/after the extra steps; r/u: the same model
 * unscaled, before/after the same steps (NaN for "none", which is that run); n: the positions a sequence of the old
 * length M scores, 0 … M − 2, f: M − 1 on, whose next token lies past the old length).
 */
interface ExtResult {
  method: ExtMethod; length: number; steps: number; trainLen: number;
  x: number[]; before: Array<number | null>; after: Array<number | null>; plain?: Array<number | null>;
  bn: number; bf: number; an: number; af: number; rn: number; rf: number; un: number; uf: number;
}

/** "linear interpolation (PI), 128 tokens, 100 steps" in the current language. */
function runName(method: ExtMethod, length: number, steps: number): string {
  return tf('train.ext.run', { method: t(`scaling.${method}`), len: String(length), steps: String(steps) });
}

/** The verdict of a run, every number from the run itself (3 decimals, as in the table). */
export function verdictText(r: ExtResult): string {
  const f = (v: number): string => v.toFixed(3);
  let s = tf('train.ext.verdict', { run: runName(r.method, r.length, r.steps), bn: f(r.bn), an: f(r.an), bf: f(r.bf), af: f(r.af), last: r.trainLen - 1, far: r.trainLen });
  if (r.method !== 'none') {
    const d = r.bn - r.rn;
    const key: Key = Math.abs(d) < 0.0005 ? 'train.ext.base.same' : d > 0 ? 'train.ext.base.up' : 'train.ext.base.down';
    s += ' ' + tf(key, { rn: f(r.rn), rf: f(r.rf), d: Math.abs(d).toFixed(3) });
    // What the scaling adds over the same training without it: signed differences, scaled minus unscaled.
    const side = (v: number): string => {
      const e = Number(f(v));
      return e === 0 ? t('train.ext.level') : tf(e < 0 ? 'train.ext.lower' : 'train.ext.higher', { d: Math.abs(e).toFixed(3) });
    };
    s += ' ' + tf('train.ext.cmp', { steps: r.steps, un: f(r.un), uf: f(r.uf), far: side(r.af - r.uf), near: side(r.an - r.un) });
  }
  return tidyCjk(s); // no space after 。 in Chinese
}

/**
 * Continued training after a context extension: a shipped RoPE / xPos model
 * (trained at 64 tokens) gets a scaling and a longer length, then trains a
 * little more there; the loss by position before and after shows what the
 * extra training buys.
 */
function mountExtend(ctx: Ctx, root: HTMLElement): void {
  const MODELS = ['language-rope', 'language-xpos'] as const;
  let model = getChoice<(typeof MODELS)[number]>('x.model', 'language-rope', MODELS);
  let method = getChoice<ExtMethod>('x.method', 'linear', EXT_METHODS);
  let length = Number(getChoice('x.len', '128', ['128', '256'] as const));
  const stepsControl = numberControl({ label: 'train.steps', param: 'x.steps', min: 0, max: 400, step: 10, numeric: true, initial: 100 }, () => {});
  // The shipped models' training length and rotary dim: the Worker's describe answers them when a run starts (both share them).
  let trainLen = NaN, rotaryDim = NaN;
  const progress = el('progress', { max: '1', value: '0', id: 'extend-progress', 'aria-label': t('train.ext.title'), 'data-i18n-aria': 'train.ext.title' });
  const status = el('p', { class: 'status', id: 'extend-status', 'aria-live': 'polite' });
  const plot = new LinePlot({
    xLabel: () => t('extrapolation.position'), yLabel: () => t('plot.loss'), series: [], height: 260, markers: () => (Number.isFinite(trainLen) ? [trainLen] : []), markerText: () => [t('extrapolation.marker.train')],
  });
  plot.el.id = 'extend-loss';
  const empty = text('train.ext.empty', 'p', 'empty-state');
  empty.id = 'extend-empty';
  // Until then the chart takes no room: an empty box reads as a gap (review N9).
  plot.el.hidden = true;
  const out = (id: string): HTMLOutputElement => el('output', { id, class: 'big' });
  const cells = {
    bn: out('extend-before-near'), bf: out('extend-before-far'), an: out('extend-after-near'), af: out('extend-after-far'),
    rn: out('extend-base-near'), rf: out('extend-base-far'), un: out('extend-plain-near'), uf: out('extend-plain-far'),
  };
  // The column heads: inside / past the old length, and under that the
  // tokens predicted there, once a run has given the old length (describe).
  const nearTokens = liveText('small'), farTokens = liveText('small');
  const head = (key: Key, tokens: HTMLElement): HTMLElement => el('th', { scope: 'col' }, text(key), tokens);
  const heads = (M: number): void => {
    nearTokens.set('train.ext.nearTokens', { last: M - 1 });
    farTokens.set('train.ext.farTokens', { far: M });
  };
  // The unscaled rows: only with a scaling (for "none" the rows above are that run).
  const plainRows = [
    el('tr', { id: 'extend-base-row', hidden: '' }, el('th', {}, text('train.ext.base')), el('td', {}, cells.rn), el('td', {}, cells.rf)),
    el('tr', { id: 'extend-plain-row', hidden: '' }, el('th', {}, text('train.ext.plain')), el('td', {}, cells.un), el('td', {}, cells.uf)),
  ];
  const table = el('table', { class: 'answers', id: 'extend-table' },
    el('thead', {}, el('tr', {}, el('th', {}), head('train.ext.near', nearTokens.el), head('train.ext.far', farTokens.el))),
    el('tbody', {},
      el('tr', {}, el('th', {}, text('train.ext.before')), el('td', {}, cells.bn), el('td', {}, cells.bf)),
      el('tr', {}, el('th', {}, text('train.ext.after')), el('td', {}, cells.an), el('td', {}, cells.af)),
      ...plainRows));
  const show = (o: HTMLOutputElement, v: number): void => {
    o.textContent = v.toFixed(3);
    o.dataset.value = String(v);
  };
  const scaling = (run: ExtMethod, L: number): RopeScaling | undefined =>
    run === 'none' ? undefined : makeScaling(run, L / trainLen, trainLen, rotaryDim);
  // Which run the table, chart and verdict show (the figures are greyed and
  // say so while another run goes).
  const resultFor = el('p', { class: 'note', id: 'extend-for', 'aria-live': 'polite' });
  const verdict = el('p', { class: 'note look', id: 'extend-verdict' });
  const figs = el('div', { class: 'figs', id: 'extend-figs' });
  let result: ExtResult | undefined;
  let pending: { method: ExtMethod; length: number; steps: number } | undefined;
  const renderResult = (): void => {
    const tag = (r: { method: ExtMethod; length: number; steps: number }): string => runName(r.method, r.length, r.steps);
    if (pending) {
      resultFor.textContent = tf('train.ext.running', { run: tag(pending) })
        + (result ? ` ${tf('train.ext.stale', { run: tag(result) })}` : '');
    } else resultFor.textContent = result ? tf('train.ext.for', { run: tag(result) }) : '';
    figs.classList.toggle('stale', pending !== undefined && result !== undefined);
    figs.setAttribute('aria-busy', String(pending !== undefined));
    resultFor.dataset.method = result?.method ?? '';
    resultFor.dataset.pending = pending?.method ?? '';
    verdict.textContent = result ? verdictText(result) : '';
    verdict.dataset.method = result?.method ?? '';
    if (result) {
      empty.hidden = true;
      plot.el.hidden = false;
      // Each label names its run's method (captured: the plot compares labels to decide on a rebuild).
      const m = result.method;
      plot.setData([result.x, result.before, result.after, ...(result.plain ? [result.plain] : [])], [
        { label: () => `${t(`scaling.${m}`)}: ${t('train.ext.before')}` },
        { label: () => `${t(`scaling.${m}`)}: ${t('train.ext.after')}` },
        ...(result.plain ? [{ label: () => t('train.ext.plain') }] : [])]);
    }
  };
  onLangChange(renderResult);
  const showResult = (r: ExtResult): void => {
    for (const k of ['bn', 'bf', 'an', 'af', 'rn', 'rf', 'un', 'uf'] as const) {
      if (Number.isFinite(r[k])) show(cells[k], r[k]);
    }
    for (const row of plainRows) row.hidden = r.method === 'none';
    heads(r.trainLen);
  };
  let running = false;
  // The status line as data (re-rendered on a language switch).
  let shown: Shown = {};
  let finished: { steps: number; seconds: number; cores: number; runs: number } | undefined;
  const renderStatus = (): void => {
    const p = shown.progress;
    // Two runs (with and without the scaling): the status names the one going.
    const stage = p?.stages && p.stages > 1 && !shown.end
      ? `${tf('train.ext.stage', { stage: p.stage ?? 1, stages: p.stages, what: p.stage === 2 ? t('train.ext.plainRun') : t(`scaling.${pending?.method ?? 'none'}`) })} · ` : '';
    showStatus(status, finished
      ? tf(finished.runs > 1 ? 'train.ext.done2' : 'train.ext.done', { steps: String(finished.steps), s: finished.seconds.toFixed(1), rate: finished.steps > 0 ? (finished.runs * finished.steps / finished.seconds).toFixed(1) : '–', cores: coresText(finished.cores) })
      : stage + statusText(shown), finished ? {} : shown);
  };
  onLangChange(renderStatus);
  // The progress so far (at most every REDRAW_MS).
  const redraw = redrawer(() => {
    const p = shown.progress;
    if (p === undefined || shown.end !== undefined) return;
    progress.value = ((p.stage ?? 1) - 1 + p.step / p.steps) / (p.stages ?? 1);
    renderStatus();
  });
  const start = button('train.ext.start', () => {
    if (running) return;
    running = true;
    start.disabled = true;
    cancel.disabled = false;
    shown = {};
    finished = undefined;
    renderStatus();
    delete status.dataset.done;
    progress.value = 0;
    const n = stepsControl.value(), L = length, run = method, name = model;
    // The previous run's numbers leave the table; its chart stays, greyed and labelled.
    for (const o of Object.values(cells)) {
      o.textContent = '…';
      delete o.dataset.value;
    }
    pending = { method: run, length: L, steps: n };
    renderResult();
    ctx.worker
      .call('describe', { model: name })
      .then((info) => {
        trainLen = info.config.trainLen;
        rotaryDim = info.config.rotaryDim || info.config.dModel / info.config.heads;
        const s = scaling(run, L);
        // The page's evaluation set at the new length: its sequences begin with the set's own sequences of the old length.
        return Promise.all([
          evalCurve(ctx, name),
          ctx.worker.call('extend', { model: name, seqLen: L, steps: n, examples: EVAL_SET.examples, seed: EVAL_SET.seed, ...(s ? { scaling: s } : {}) }, (p) => {
            shown = { progress: p };
            redraw.ask();
          }),
        ]);
      })
      .then(([own, r]) => {
        redraw.now();
        const w = L / 32;
        const a = bin(r.before.positionLoss, w), b = bin(r.after.positionLoss, w);
        // Near: the positions a sequence of the old length M scores (0 … M − 2); far: M − 1 on (next token past M).
        const near = (c: LossCurve): number => meanLoss(c.positionLoss, 0, trainLen - 1);
        const far = (c: LossCurve): number => meanLoss(c.positionLoss, trainLen - 1, L);
        // The unscaled model before training, near: the positions of its own sequences of the old length, causal
        // (a position sees only the tokens before it): the model's loss on the evaluation set, the number every
        // section shows (kept in data-computed: the same, up to the order of the sums).
        const base = r.plain?.before ?? r.before;
        cells.rn.dataset.computed = String(near(base));
        result = {
          method: run, length: L, steps: n, trainLen, x: a.x, before: a.y, after: b.y,
          ...(r.plain ? { plain: bin(r.plain.after.positionLoss, w).y } : {}),
          bn: run === 'none' ? own.loss : near(r.before), bf: far(r.before),
          an: near(r.after), af: far(r.after),
          rn: own.loss, rf: far(base),
          un: r.plain ? near(r.plain.after) : NaN, uf: r.plain ? far(r.plain.after) : NaN,
        };
        showResult(result);
        pending = undefined;
        renderResult();
        finished = { steps: n, seconds: r.seconds, cores: r.cores, runs: r.plain ? 2 : 1 };
        renderStatus();
        status.dataset.cores = String(r.cores);
        status.dataset.done = '1';
      })
      .catch((e: unknown) => {
        shown = { ...shown, end: ended(e, 'train.cancelled.run') };
        renderStatus();
        status.dataset.done = endState(shown);
        // Nothing new to show: the table goes back to the last finished run.
        pending = undefined;
        if (result) showResult(result);
        else for (const o of Object.values(cells)) o.textContent = '';
        renderResult();
      })
      .finally(() => {
        running = false;
        start.disabled = false;
        cancel.disabled = true;
      });
  }, 'primary');
  start.id = 'extend-start';
  const cancel = button('train.cancel', () => void ctx.worker.call('cancel', {}));
  cancel.disabled = true;
  root.append(
    el('h3', {}, text('train.ext.title')),
    el('p', { class: 'explain', 'data-i18n-rich': 'train.ext.text' }),
    el('div', { class: 'controls' },
      select({ label: 'train.ext.model', param: 'x.model', value: model, options: MODELS.map((m) => [m, () => t(`controls.model.${m}`)] as const), onChange: (v) => { model = v; } }).el,
      select<ExtMethod>({ label: 'train.ext.method', param: 'x.method', value: method, options: EXT_METHODS.map((m) => [m, () => t(`scaling.${m}` as Key)] as const), onChange: (v) => { method = v; } }).el,
      select({ label: 'train.ext.length', param: 'x.len', value: String(length) as '128' | '256', options: [['128', '128'], ['256', '256']] as const, onChange: (v) => { length = Number(v); } }).el,
      stepsControl.el,
      el('div', { class: 'buttons' }, start, cancel)),
    progress, status, resultFor,
    figs,
  );
  figs.append(figure('train.ext.curve', empty, plot.el, el('p', { class: 'note' }, text('train.ext.look'))), figure('train.ext.table', table, verdict));
}
