// A piece of code shown one line per row: the line and what it does, the
// shape it produces, and the numbers posenc computes for it (where the line
// has numbers worth printing). Used by the line-by-line lessons of section 8.
import { onLangChange, type Key } from '../../i18n.js';
import { rich } from '../../lessonkit.js';
import { formatTensor } from '../../torchfmt.js';
import { el, text } from '../../ui.js';

/** One line: its code, what it means, its result's shape and the values shown. */
export interface CodeLine {
  code: string;
  note: Key;
  /** The shape of the line's result (none for a line that makes no tensor). */
  shape?: readonly number[] | undefined;
  /** The values shown (a slice where the whole tensor is long: `label` says which) and their shape. */
  values?: { data: Float32Array; shape: readonly number[]; label?: string } | undefined;
  /** A line inside a method (shown indented under its `def` row). */
  inMethod?: boolean;
}

/** A method's header (`def forward(self, x):`), shown as a grey separator row. */
export interface CodeHeader {
  header: string;
}

/** What a lesson's render gives the table: the lines, and the error the code stops with after them, if any. */
export interface CodeRun {
  lines: ReadonlyArray<CodeLine | CodeHeader>;
  error?: string | undefined;
}

/**
 * The table `#<id>`, redrawn by `show` (and on every language change, from
 * the last `run()`): each printed tensor keeps its values in `data-values`
 * (tests read them); the table's `data-error` is 1 when the code stops.
 */
export function codeSteps(id: string, run: () => CodeRun): { el: HTMLElement; show(): CodeRun } {
  const body = el('tbody');
  const table = el('table', { class: 'code-steps', id },
    el('thead', {}, el('tr', {}, text('examples.steps.line', 'th'), text('examples.steps.shape', 'th'), text('examples.steps.values', 'th'))), body);
  const show = (): CodeRun => {
    const r = run();
    // Each line of code on its own full-width row, above its note, shape and
    // values: a line is never cut to the width of a column (review N5).
    body.replaceChildren(...r.lines.flatMap((l, i) => {
      if ('header' in l) return [el('tr', { class: 'code-head' }, el('td', { colspan: '3' }, el('code', {}, l.header)))];
      const cell = el('td', { class: 'values' });
      if (l.values) {
        const label = l.values.label === undefined ? '' : `${l.values.label}\n`;
        const pre = el('pre', { class: 'tensor', 'data-step': String(i) }, `${label}${formatTensor(l.values.data, l.values.shape)}`);
        pre.dataset.values = JSON.stringify(Array.from(l.values.data, (v) => (Number.isFinite(v) ? v : null)));
        cell.append(pre);
      }
      const inMethod = l.inMethod ? ' in-method' : '';
      return [
        el('tr', { class: `code-line${inMethod}` }, el('td', { colspan: '3' }, el('code', {}, l.code))),
        el('tr', { class: `code-out${inMethod}` },
          el('td', {}, text(l.note, 'div', 'note')),
          el('td', { class: 'shape' }, ...(l.shape ? [el('code', {}, `[${l.shape.join(', ')}]`)] : [])),
          cell),
      ];
    }));
    if (r.error === undefined) {
      delete table.dataset.error;
    } else {
      body.append(el('tr', { class: 'error' }, el('td', { colspan: '3' }, r.error)));
      table.dataset.error = '1';
    }
    return r;
  };
  onLangChange(() => void show(), table);
  return { el: el('div', { class: 'table-scroll' }, table), show };
}

/**
 * A line-by-line lesson `#<id>`: its title, intro and closing note are the strings
 * `<key>.title`, `<key>.text` and `<key>.look`; `controls` go in one row, `body` between them.
 */
export function stepsLesson(id: string, key: string, controls: HTMLElement[], ...body: HTMLElement[]): HTMLElement {
  return el(
    'div', { class: 'lesson', id },
    text(`${key}.title` as Key, 'h3'),
    rich(`${key}.text` as Key, 'p', 'explain'),
    el('div', { class: 'controls' }, ...controls),
    ...body,
    rich(`${key}.look` as Key, 'p', 'note'),
  );
}
