// Section "taxonomy": absolute vs relative encodings in one table, whose
// extrapolation columns are measured live by the Worker on the shipped
// models (only once the reader comes near), the learned model's position
// table, and Shaw et al.'s clipped relative index map.
import type { EncodingName, Posenc, TinyModelConfig } from 'posenc';

import './style.css';
import { AxedHeatmap } from '../../axes.js';
import { encodingLabel, encodingSpan } from '../../encname.js';
import { isKey, lang, onLangChange, t, type Key } from '../../i18n.js';
import { SHIPPED } from '../../protocol.js';
import { liveText, rich } from '../../textfill.js';
import { coalesce, el, fmtNum, lazyPanel, numberControl, showError, text, timed, whenNear } from '../../ui.js';
import type { Ctx } from '../context.js';

/** The families in the order of the table. */
const FAMILIES: readonly EncodingName[] = ['sinusoidal', 'learned', 'shaw', 't5', 'rope', 'alibi', 'xpos', 'nope'];
/** Evaluation lengths: the first is the shipped models' training length (checked against their config). */
const LOSS_LENGTHS = [64, 256, 512] as const;
const ACC_LENGTHS = [64, 512] as const;
/** Sequences per evaluation (the Worker's `evaluate` seeds its data: the numbers are reproducible). */
const LM_EXAMPLES = 8;
const RT_EXAMPLES = 32;

type Cell = HTMLTableCellElement;

interface Job {
  model: string;
  length: number;
  cell: Cell;
  metric: 'loss' | 'accuracy';
  /** The same model's cell at the training length (for the tint). */
  base?: Cell;
}

/** Learned position parameters of a shipped model, as "formula = count" (from its config). */
function positionParams(c: TinyModelConfig): { formula: string; count: number } {
  const headDim = c.dModel / c.heads;
  switch (c.encoding) {
    case 'learned':
      return { formula: `${c.maxLen} × ${c.dModel}`, count: c.maxLen * c.dModel };
    case 'shaw':
      // Per layer: aK and aV, each [2k + 1, headDim].
      return { formula: `${c.layers} × 2 × (2·${c.shawClip} + 1) × ${headDim}`, count: c.layers * 2 * (2 * c.shawClip + 1) * headDim };
    case 't5':
      // One [buckets, heads] table shared by every layer.
      return { formula: `${c.t5Buckets} × ${c.heads}`, count: c.t5Buckets * c.heads };
    default:
      return { formula: '', count: 0 };
  }
}

function setNumber(cell: Cell, v: number, digits: number, percent = false): void {
  cell.dataset.value = String(v);
  cell.dataset.state = 'done';
  cell.textContent = percent ? `${(100 * v).toFixed(digits)}%` : v.toFixed(digits);
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  const status = liveText('p', 'status');
  status.el.id = 'tax-status';
  status.el.setAttribute('aria-live', 'polite');
  status.set('taxonomy.status.waiting');
  const refusal = liveText('p', 'note');
  const refusalError = el('code', { id: 'tax-refusal', class: 'error-text' });
  const ratios = el('p', { class: 'note', id: 'tax-ratios' });
  // The look text: the retrieval models that did not learn to copy (named from the measured cells), then the rest.
  const lookFloor = liveText('span');
  lookFloor.el.id = 'tax-floor';
  const lookCopy = liveText('span');
  const look = liveText('span');
  const lookBox = el('p', { class: 'look', id: 'tax-look' }, lookFloor.el, ' ', lookCopy.el, ' ', look.el);

  const { table, jobs, paramCells, trainHeads } = buildTable();
  const learned = learnedFigure(ctx);
  const scroller = el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-labelledby': 'taxonomy-h' }, table);

  root.append(
    // Phones only (CSS): the measured columns start past the screen's edge.
    el('p', { class: 'note narrow-only', id: 'tax-scroll-hint' }, text('taxonomy.scrollhint')),
    scroller,
    status.el,
    ratios,
    lookBox,
    el('div', { class: 'refusal' }, refusal.el, refusalError),
    el('h3', {}, text('taxonomy.pos.title')),
    learned.el,
    el('h3', {}, text('taxonomy.shaw.title')),
    shawFigure(ctx.pe),
  );
  refusal.el.hidden = true;

  // One trigger for the whole section (it is tall: a scroll can jump past a part of it).
  learned.start(root);
  whenNear(root, () => {
    void runAll(ctx, jobs, paramCells, trainHeads, status, (model, length, error) => {
      refusal.el.hidden = false;
      refusal.set('taxonomy.cannot.note', { model, len: length });
      refusalError.textContent = error;
    }).then((done) => {
      if (!done) return;
      table.dataset.ready = '1';
      showRatios(ratios, jobs);
      showCopying(lookCopy, lookBox, jobs);
      ctx.worker.call('references', { tasks: ['language'] }).then(([language]) => {
        showFloor(lookFloor, jobs, language!.entropyRate!);
      }, (e: unknown) => showError(lookFloor.el, e));
      look.set('taxonomy.table.look', { clip: paramCells.get('shaw')?.dataset.clip ?? 'k' });
    });
  }, '300px');
}

function buildTable(): { table: HTMLTableElement; jobs: Job[]; paramCells: Map<EncodingName, Cell>; trainHeads: HTMLElement[] } {
  const th = (key: Key, attrs: Record<string, string> = {}): HTMLElement => {
    const e = el('th', attrs);
    e.append(text(key));
    return e;
  };
  const trainHeads: HTMLElement[] = [];
  const lenHead = (L: number): HTMLElement => {
    const e = el('th', { scope: 'col', class: 'num' });
    const lt = liveText('span');
    lt.set('taxonomy.col.tokens', { n: L });
    e.append(lt.el);
    trainHeads.push(e);
    e.dataset.length = String(L);
    return e;
  };
  const head = el('thead', {},
    el('tr', {},
      th('taxonomy.col.family', { rowspan: '2', scope: 'col' }), th('taxonomy.col.where', { rowspan: '2', scope: 'col' }),
      th('taxonomy.col.kind', { rowspan: '2', scope: 'col' }), th('taxonomy.col.params', { rowspan: '2', scope: 'col' }),
      th('taxonomy.col.loss', { colspan: String(LOSS_LENGTHS.length), scope: 'colgroup', class: 'group' }),
      th('taxonomy.col.acc', { colspan: String(ACC_LENGTHS.length), scope: 'colgroup', class: 'group' })),
    el('tr', {}, ...LOSS_LENGTHS.map(lenHead), ...ACC_LENGTHS.map(lenHead)),
  );
  const jobs: Job[] = [];
  const paramCells = new Map<EncodingName, Cell>();
  const body = el('tbody', {});
  for (const enc of FAMILIES) {
    const row = el('tr', { 'data-encoding': enc });
    const name = el('th', { scope: 'row' });
    name.append(text(`taxonomy.${enc}.name` as Key));
    const params = el('td', { class: 'params' });
    params.append(rich(`taxonomy.${enc}.params` as Key, 'span'), el('br'), el('code', { class: 'count' }, '…'));
    paramCells.set(enc, params);
    row.append(name, el('td', {}, text(`taxonomy.${enc}.where` as Key)), el('td', {}, text(`taxonomy.${enc}.kind` as Key)), params);
    const cells = (task: 'language' | 'retrieval', lengths: readonly number[], metric: Job['metric']): void => {
      let base: Cell | undefined;
      for (const L of lengths) {
        const cell = el('td', { class: 'num', id: `tax-${metric === 'loss' ? 'loss' : 'acc'}-${enc}-${L}`, 'data-state': 'pending' }, '…');
        row.append(cell);
        if (SHIPPED[task].includes(enc)) jobs.push({ model: `${task}-${enc}`, length: L, cell, metric, ...(base ? { base } : {}) });
        base ??= cell;
      }
    };
    cells('language', LOSS_LENGTHS, 'loss');
    cells('retrieval', ACC_LENGTHS, 'accuracy');
    body.append(row);
  }
  const table = el('table', { class: 'taxonomy', id: 'tax-table' }, head, body);
  return { table, jobs, paramCells, trainHeads };
}

/** Runs every evaluation in turn; a length a model refuses shows "—" and its error. */
async function runAll(
  ctx: Ctx, jobs: Job[], paramCells: Map<EncodingName, Cell>, trainHeads: HTMLElement[],
  status: ReturnType<typeof liveText>, onRefusal: (model: string, length: number, error: string) => void,
): Promise<boolean> {
  try {
    const configs = new Map<string, TinyModelConfig>();
    for (const [i, job] of jobs.entries()) {
      status.set('taxonomy.status.running', { model: job.model, len: job.length, i: i + 1, n: jobs.length });
      if (!configs.has(job.model)) {
        const { config } = await ctx.worker.call('describe', { model: job.model });
        configs.set(job.model, config);
        showParams(paramCells.get(config.encoding), config);
        for (const h of trainHeads) markTraining(h, config.trainLen);
      }
      const examples = job.metric === 'loss' ? LM_EXAMPLES : RT_EXAMPLES;
      try {
        const [r] = await ctx.worker.call('evaluate', { model: job.model, lengths: [job.length], examples });
        const v = job.metric === 'loss' ? r!.loss : r!.accuracy;
        setNumber(job.cell, v, job.metric === 'loss' ? 3 : 0, job.metric === 'accuracy');
        tint(job);
      } catch (e) {
        const msg = e instanceof Error ? e.message : String(e);
        job.cell.textContent = '—';
        job.cell.dataset.state = 'refused';
        job.cell.dataset.error = msg;
        job.cell.title = t('taxonomy.cannot.title') + msg;
        onLangChange(() => { job.cell.title = t('taxonomy.cannot.title') + msg; }, job.cell);
        job.cell.setAttribute('aria-label', t('taxonomy.cannot'));
        job.cell.dataset.i18nAria = 'taxonomy.cannot';
        job.cell.setAttribute('translate', 'no'); // the title ends with the core's own (English) error
        onRefusal(job.model, job.length, msg);
      }
    }
    status.set('taxonomy.status.done', { n: jobs.length, lm: LM_EXAMPLES, rt: RT_EXAMPLES });
    return true;
  } catch (e) {
    status.set('taxonomy.status.error', { error: e instanceof Error ? e.message : String(e) });
    return false;
  }
}

function showParams(cell: Cell | undefined, c: TinyModelConfig): void {
  const code = cell?.querySelector<HTMLElement>('code.count');
  if (!code) return;
  const { formula, count } = positionParams(c);
  code.textContent = formula ? `${formula} = ${count}` : String(count);
  code.dataset.value = String(count);
  if (c.encoding === 'shaw' && cell) cell.dataset.clip = String(c.shawClip);
}

function markTraining(h: HTMLElement, trainLen: number): void {
  if (Number(h.dataset.length) !== trainLen || h.dataset.train) return;
  h.dataset.train = '1';
  const lt = liveText('span');
  lt.set('taxonomy.col.train', { n: trainLen });
  h.replaceChildren(lt.el);
}

/** Loss cells warm up with their ratio to the same model's loss at the training length. */
function tint(job: Job): void {
  if (job.metric !== 'loss' || !job.base) return;
  const base = Number(job.base.dataset.value), v = Number(job.cell.dataset.value);
  if (!(base > 0) || !Number.isFinite(v)) return;
  const pct = Math.round(Math.min(60, Math.max(0, (v / base - 1) * 60)));
  job.cell.style.background = `color-mix(in srgb, var(--warn) ${pct}%, transparent)`;
}

/** A row's encoding name without its parenthesis ("NoPE (no encoding)" -> "NoPE"). */
function shortName(encoding: string): string {
  const k = `taxonomy.${encoding}.name`;
  return isKey(k) ? t(k).replace(/\s*[（(].*[)）]$/, '') : encoding;
}

/**
 * How far the language models stay above the generator's floor (its entropy
 * rate) at the training length, from the table's own cells: the spread, the
 * closest and the farthest, ALiBi's excess over the floor against RoPE's, and
 * the sinusoidal model's.
 */
function showFloor(out: ReturnType<typeof liveText>, jobs: Job[], floor: number): void {
  const at = jobs
    .filter((j) => j.metric === 'loss' && j.length === LOSS_LENGTHS[0] && j.cell.dataset.state === 'done')
    .map((j) => ({ e: j.model.replace('language-', ''), v: Number(j.cell.dataset.value) }))
    .sort((a, b) => a.v - b.v);
  const of = (e: string): number | undefined => at.find((x) => x.e === e)?.v;
  const alibi = of('alibi'), rope = of('rope'), sin = of('sinusoidal');
  if (at.length < 2 || alibi === undefined || rope === undefined || sin === undefined || !(rope > floor)) return;
  const ratio = (alibi - floor) / (rope - floor);
  out.el.dataset.ratio = String(ratio);
  out.el.dataset.floor = String(floor);
  const show = (): void => out.set('taxonomy.table.look.floor', {
    len: LOSS_LENGTHS[0], lo: at[0]!.v.toFixed(3), best: shortName(at[0]!.e), hi: at[at.length - 1]!.v.toFixed(3),
    worst: shortName(at[at.length - 1]!.e), floor: floor.toFixed(3), ratio: ratio.toFixed(1), sin: (sin - floor).toFixed(3),
  });
  show();
  onLangChange(show, out.el);
}

/**
 * Names the retrieval models that got fewer than half of the answers right at
 * the training length (measured in the table, not typed in), or says that
 * every one did better.
 */
function showCopying(out: ReturnType<typeof liveText>, box: HTMLElement, jobs: Job[]): void {
  const weak = jobs
    .filter((j) => j.metric === 'accuracy' && j.length === ACC_LENGTHS[0] && j.cell.dataset.state === 'done' && Number(j.cell.dataset.value) < 0.5)
    .map((j) => j.model.replace('retrieval-', ''));
  box.dataset.weak = weak.join(',');
  const show = (): void => {
    // The row names without their parenthesis ("NoPE (no encoding)" -> "NoPE"), listed as a sentence does.
    const list = weak.map(shortName);
    const [and, sep] = lang() === 'zh' ? [' 和 ', '、'] : [' and ', ', '];
    const names = list.length > 1 ? `${list.slice(0, -1).join(sep)}${and}${list[list.length - 1]!}` : (list[0] ?? '');
    out.set(weak.length > 0 ? 'taxonomy.table.look.weak' : 'taxonomy.table.look.copy', { names });
  };
  show();
  onLangChange(show);
}

/** "loss at the longest length ÷ loss at the training length", per model, sorted; and the ones within 5%. */
function showRatios(out: HTMLElement, jobs: Job[]): void {
  const longest = LOSS_LENGTHS[LOSS_LENGTHS.length - 1]!;
  const rows = jobs
    .filter((j) => j.metric === 'loss' && j.length === longest && j.base && j.cell.dataset.state === 'done')
    .map((j) => ({ name: j.model.replace('language-', ''), r: Number(j.cell.dataset.value) / Number(j.base!.dataset.value) }))
    .sort((a, b) => a.r - b.r);
  const head = liveText('span');
  head.set('taxonomy.ratios', { long: longest, train: LOSS_LENGTHS[0] });
  const stable = liveText('span');
  const showStable = (): void => stable.set('taxonomy.stable', { names: rows.filter((x) => x.r < 1.05).map((x) => encodingLabel(x.name)).join(lang() === 'zh' ? '、' : ', ') || '—' });
  showStable();
  onLangChange(showStable, stable.el);
  out.replaceChildren(
    head.el, ' ',
    // The ids in English, the encodings' names in Chinese.
    ...rows.map((x, i) => el('span', { 'data-model': x.name, 'data-value': String(x.r) }, i ? ' · ' : '', encodingSpan(x.name), ` ${x.r.toFixed(2)}×`)),
    el('br'), stable.el,
  );
}

// ---- The learned model's position table

function learnedFigure(ctx: Ctx): { el: HTMLElement; start(trigger: HTMLElement): void } {
  const heat = new AxedHeatmap({ kind: 'diverging', label: () => t('taxonomy.pos.title'), rowName: 'p', colName: 'c', y: 'taxonomy.ax.position', x: 'taxonomy.ax.dim', value: 'taxonomy.ax.value' });
  heat.canvas.id = 'tax-pos-heat';
  const sim = new AxedHeatmap({ kind: 'diverging', label: () => t('taxonomy.ax.cos'), rowName: 'p', colName: 'q', range: [-1, 1], y: 'taxonomy.ax.position', x: 'taxonomy.ax.positionQ', value: 'taxonomy.ax.cos' });
  sim.canvas.id = 'tax-pos-sim';
  const look = liveText('p', 'look');
  look.el.id = 'tax-pos-look';
  const beyond = liveText('span');
  const beyondError = el('code', { id: 'tax-pos-error', class: 'error-text' });
  const status = el('p', { class: 'status' });
  status.append(text('taxonomy.status.waiting'));
  const box = el('div', { id: 'tax-pos' },
    el('div', { class: 'figs' },
      el('figure', {}, text('taxonomy.pos.heat', 'figcaption'), heat.el),
      el('figure', {}, text('taxonomy.pos.sim', 'figcaption'), sim.el)),
    status, look.el, el('p', { class: 'note' }, beyond.el, ' ', beyondError));
  /** Loads when `trigger` (the section: one trigger for all of it) comes within 300 px. */
  const start = (trigger: HTMLElement): void => {
    lazyPanel(trigger, () => ctx.worker.call('tensor', { model: 'language-learned', name: 'pos.weight' }), ({ shape, data }) => {
      const [maxLength, dim] = [shape[0]!, shape[1]!];
      // [maxLength, dim]: every row, looked up by the core as the model does.
      const rows = ctx.pe.learnedPositions({ table: data, maxLength, dim, positions: Int32Array.from({ length: maxLength }, (_, p) => p) });
      heat.draw(rows, maxLength, dim);
      const cos = cosineMatrix(rows, maxLength, dim);
      sim.draw(cos, maxLength, maxLength);
      const meanAt = (d: number): string => fmtNum(meanDiagonal(cos, maxLength, d), 2);
      look.set('taxonomy.pos.look', { d1: meanAt(1), d8: meanAt(8), d16: meanAt(16), d32: meanAt(32), r01: fmtNum(cos[1]!, 2) });
      for (const d of [1, 8, 16, 32]) look.el.dataset[`d${d}`] = String(meanDiagonal(cos, maxLength, d));
      beyond.set('taxonomy.pos.beyond', { max: maxLength });
      try {
        ctx.pe.learnedPositions({ table: data, maxLength, dim, positions: Int32Array.of(maxLength) });
        // Not expected (the core refuses rows past the table); said in the page's language if it happens.
        beyondError.textContent = t('error.none');
        onLangChange(() => { beyondError.textContent = t('error.none'); });
      } catch (e) {
        beyondError.textContent = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      }
      status.remove();
      box.dataset.ready = '1';
    }, { margin: '300px', errorBox: status });
  };
  return { el: box, start };
}

/** [n, n] cosine similarity of the rows of `x: [n, dim]`. */
export function cosineMatrix(x: Float32Array, n: number, dim: number): Float64Array {
  const norms = new Float64Array(n);
  for (let p = 0; p < n; p++) {
    let s = 0;
    for (let c = 0; c < dim; c++) s += x[p * dim + c]! ** 2;
    norms[p] = Math.sqrt(s) || 1;
  }
  const out = new Float64Array(n * n);
  for (let p = 0; p < n; p++) {
    for (let q = 0; q <= p; q++) {
      let s = 0;
      for (let c = 0; c < dim; c++) s += x[p * dim + c]! * x[q * dim + c]!;
      out[p * n + q] = out[q * n + p] = s / (norms[p]! * norms[q]!);
    }
  }
  return out;
}

/** Mean of the d-th diagonal of an [n, n] matrix. */
function meanDiagonal(m: Float64Array, n: number, d: number): number {
  let s = 0;
  for (let p = 0; p + d < n; p++) s += m[p * n + p + d]!;
  return s / Math.max(1, n - d);
}

// ---- Shaw et al.: the clipped relative index

function shawFigure(pe: Posenc): HTMLElement {
  const clipSlider = numberControl({ label: 'taxonomy.shaw.clip', param: 't.clip', min: 1, max: 32, step: 1, initial: 4 }, () => update());
  const lengthSlider = numberControl({ label: 'taxonomy.shaw.len', param: 't.len', min: 4, max: 64, step: 1, initial: 24 }, () => update());
  const map = new AxedHeatmap({ kind: 'diverging', label: () => t('taxonomy.shaw.title'), rowName: 'm', colName: 'n', y: 'taxonomy.ax.query', x: 'taxonomy.ax.key', value: 'taxonomy.ax.rel' });
  map.canvas.id = 'tax-shaw-map';
  const look = liveText('p', 'look');
  look.el.id = 'tax-shaw-look';
  const update = coalesce(timed('tax-shaw', () => {
    const clip = clipSlider.value(), length = lengthSlider.value();
    // [length, length] row indices clip(j - i, -k, k) + k; shown as offsets.
    const idx = pe.shawIndices({ queryLength: length, keyLength: length, clip });
    const rel = Int32Array.from(idx, (r) => r - clip);
    map.draw(rel, length, length, [-clip, clip]);
    map.canvas.dataset.values = rel.join(',');
    map.canvas.dataset.clip = String(clip);
    map.canvas.dataset.length = String(length);
    const distinct = new Set(idx).size;
    look.set('taxonomy.shaw.look', { distinct, distances: 2 * length - 1, len: length });
    look.el.dataset.distinct = String(distinct);
  }));
  clipSlider.input.id = 'tax-shaw-clip';
  lengthSlider.input.id = 'tax-shaw-len';
  for (const s of [clipSlider, lengthSlider]) s.el.querySelector('label')?.setAttribute('for', s.input.id);
  for (const s of [clipSlider, lengthSlider]) s.el.querySelector('output')?.setAttribute('for', s.input.id);
  const box = el('div', { id: 'tax-shaw' },
    el('div', { class: 'controls' }, clipSlider.el, lengthSlider.el),
    el('figure', { class: 'narrow' }, text('taxonomy.shaw.map', 'figcaption'), map.el),
    look.el);
  update();
  return box;
}
