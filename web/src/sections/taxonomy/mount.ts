// Section "taxonomy": absolute vs relative encodings in one table of concepts
// (what each family adds, where, and its learned position parameters, read
// from the shipped models' configs once the reader comes near); the measured
// comparison comes in section "extrapolation" (families.ts), once training
// length and extrapolation have been taught. Then the learned model's
// position table, and Shaw et al.'s clipped relative index map.
import type { EncodingName, Posenc, TinyModelConfig } from 'posenc';

import './style.css';
import { AxedHeatmap } from '../../axes.js';
import { onLangChange, t, type Key } from '../../i18n.js';
import { liveText, rich, tf, valueGap } from '../../textfill.js';
import { coalesce, el, fmtNum, lazyPanel, numberControl, text, timed, whenNear } from '../../ui.js';
import type { Ctx } from '../context.js';

/** The families in the order of the table. */
const FAMILIES: readonly EncodingName[] = ['sinusoidal', 'learned', 'shaw', 't5', 'rope', 'alibi', 'xpos', 'nope'];

type Cell = HTMLTableCellElement;

/** Learned position parameters of a shipped model: the product in words, and the count (from its config). */
function positionParams(c: TinyModelConfig): { formula: string; count: number } {
  const headDim = c.dModel / c.heads;
  switch (c.encoding) {
    case 'learned':
      return { formula: tf('taxonomy.count.learned', { rows: c.maxLen, d: c.dModel }), count: c.maxLen * c.dModel };
    case 'shaw':
      // Per layer: aK and aV, each [2k + 1, headDim].
      return { formula: tf('taxonomy.count.shaw', { layers: c.layers, n: 2 * c.shawClip + 1, d: headDim }), count: c.layers * 2 * (2 * c.shawClip + 1) * headDim };
    case 't5':
      // One [buckets, heads] table shared by every layer.
      return { formula: tf('taxonomy.count.t5', { buckets: c.t5Buckets, heads: c.heads }), count: c.t5Buckets * c.heads };
    default:
      return { formula: '', count: 0 };
  }
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  const status = liveText('p', 'status');
  status.el.id = 'tax-status';
  status.el.setAttribute('aria-live', 'polite');
  const { table, paramCells } = buildTable();
  const learned = learnedFigure(ctx);
  const scroller = el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-labelledby': 'taxonomy-h' }, table);

  root.append(
    scroller,
    status.el,
    el('h3', {}, text('taxonomy.pos.title')),
    learned.el,
    el('h3', {}, text('taxonomy.shaw.title')),
    shawFigure(ctx.pe),
  );

  // One trigger for the whole section (it is tall: a scroll can jump past a part of it).
  learned.start(root);
  // The parameter counts come from the shipped models' configs (the Worker's describe).
  whenNear(root, () => {
    void (async () => {
      for (const enc of FAMILIES) {
        const { config } = await ctx.worker.call('describe', { model: `language-${enc}` });
        showParams(paramCells.get(enc), config);
      }
      table.dataset.ready = '1';
    })().catch((e: unknown) => status.set('taxonomy.status.error', { error: e instanceof Error ? e.message : String(e) }));
  }, '300px');
}

/** The concept table: what each family adds, where, absolute or relative, and its learned position parameters. */
function buildTable(): { table: HTMLTableElement; paramCells: Map<EncodingName, Cell> } {
  const th = (key: Key): HTMLElement => {
    const e = el('th', { scope: 'col' });
    e.append(text(key));
    return e;
  };
  // Each body cell also names its column, shown where the rows stack (style.css).
  const label = (key: Key): HTMLElement => text(key, 'span', 'col-name');
  const head = el('thead', {},
    el('tr', {}, th('taxonomy.col.family'), th('taxonomy.col.where'), th('taxonomy.col.kind'), th('taxonomy.col.params')));
  const paramCells = new Map<EncodingName, Cell>();
  const body = el('tbody', {});
  for (const enc of FAMILIES) {
    const row = el('tr', { 'data-encoding': enc });
    const name = el('th', { scope: 'row' });
    name.append(text(`taxonomy.${enc}.name` as Key));
    const params = el('td', { class: 'params' });
    params.append(label('taxonomy.col.params'), rich(`taxonomy.${enc}.params` as Key, 'span'), el('br'), el('code', { class: 'count' }, '…'));
    paramCells.set(enc, params);
    row.append(name, el('td', {}, label('taxonomy.col.where'), text(`taxonomy.${enc}.where` as Key)),
      el('td', {}, label('taxonomy.col.kind'), text(`taxonomy.${enc}.kind` as Key)), params);
    body.append(row);
  }
  const table = el('table', { class: 'taxonomy concepts', id: 'tax-table' }, head, body);
  return { table, paramCells };
}

function showParams(cell: Cell | undefined, c: TinyModelConfig): void {
  const code = cell?.querySelector<HTMLElement>('code.count');
  if (!code) return;
  const show = (): void => {
    const { formula, count } = positionParams(c);
    code.textContent = formula ? `${formula} = ${count}` : String(count);
    code.dataset.value = String(count);
  };
  show();
  onLangChange(show, code);
  if (c.encoding === 'shaw' && cell) cell.dataset.clip = String(c.shawClip);
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
    status, look.el, el('p', { class: 'note' }, beyond.el, valueGap(), beyondError));
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
