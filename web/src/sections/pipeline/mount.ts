// Section "pipeline": one attention layer drawn as boxes (HTML/CSS grid,
// vertical at every width: three columns for Q, K, V), and a picker that
// lights the step(s) where the chosen encoding enters.
import type { EncodingName } from 'posenc';

import './style.css';
import { encodingName } from '../../encname.js';
import { onLangChange, t, type Key } from '../../i18n.js';
import { getChoice, setParam } from '../../state.js';
import { rich } from '../../textfill.js';
import { el, text } from '../../ui.js';
import type { Ctx } from '../context.js';

/** The steps of one layer: id (data-step), name key and grid placement [row, first column, last column + 1]. */
type StepId = 'embed' | 'abs' | 'projQ' | 'projK' | 'projV' | 'rotQ' | 'rotK' | 'vskip' | 'scores' | 'terms' | 'mask' | 'softmax' | 'values' | 'output';
const STEPS: ReadonlyArray<readonly [StepId, number, number, number]> = [
  ['embed', 1, 1, 4], ['abs', 2, 1, 4],
  ['projQ', 3, 1, 2], ['projK', 3, 2, 3], ['projV', 3, 3, 4],
  ['rotQ', 4, 1, 2], ['rotK', 4, 2, 3], ['vskip', 4, 3, 4],
  ['scores', 5, 1, 3], ['terms', 6, 1, 3], ['mask', 7, 1, 3], ['softmax', 8, 1, 3],
  ['values', 9, 1, 4], ['output', 10, 1, 4],
];

/** The encodings of the picker, in the order of the taxonomy table's "where it enters". */
export const PIPE_ENCODINGS: readonly EncodingName[] = ['nope', 'sinusoidal', 'learned', 'rope', 'xpos', 'alibi', 't5', 'shaw'];

/** Where each encoding enters: the steps it lights (Shaw: the score and, on the value side, the sum). */
export const ENTERS: Record<EncodingName, readonly StepId[]> = {
  nope: ['mask'],
  sinusoidal: ['abs'],
  learned: ['abs'],
  rope: ['rotQ', 'rotK'],
  xpos: ['rotQ', 'rotK'],
  alibi: ['terms'],
  t5: ['terms'],
  shaw: ['terms', 'values'],
};

/** An encoding's name in the current language (the two descriptive names are translated). */
const nameOf = (e: EncodingName): string => encodingName(e);

export function mount(_ctx: Ctx, root: HTMLElement): void {
  let current = getChoice<EncodingName>('p.enc', 'rope', PIPE_ENCODINGS);
  const boxes = new Map<StepId, { li: HTMLElement; enters: HTMLElement }>();
  const list = el('ol', { class: 'pipe', id: 'pipe-diagram', 'aria-labelledby': 'pipe-diagram-cap' });
  for (const [id, row, c0, c1] of STEPS) {
    const enters = el('span', { class: 'enters' });
    const li = el('li', { class: `step${id === 'vskip' ? ' ghost' : ''}`, 'data-step': id });
    li.style.gridRow = String(row);
    li.style.gridColumn = `${c0} / ${c1}`;
    li.append(text(`pipeline.step.${id}` as Key, 'b'), rich(`pipeline.step.${id}.f` as Key, 'span', 'formula'), enters);
    boxes.set(id, { li, enters });
    list.append(li);
  }
  // V runs down the third column to the weighted sum.
  const vline = el('li', { class: 'vline', 'aria-hidden': 'true' });
  vline.style.gridRow = '5 / 9';
  list.append(vline);

  const say = el('div', { class: 'pipe-say', 'aria-live': 'polite' });
  const sayTitle = el('h3', { id: 'pipe-say-title' });
  const sayText = el('p', { id: 'pipe-say-text' });
  say.append(sayTitle, sayText);

  const buttons = PIPE_ENCODINGS.map((enc) => {
    const b = el('button', { type: 'button', 'data-encoding': enc, 'aria-pressed': 'false' }, nameOf(enc));
    onLangChange(() => { b.textContent = nameOf(enc); }, b);
    b.addEventListener('click', () => choose(enc));
    return b;
  });
  const picker = el('div', { class: 'pipe-picker', role: 'group', id: 'pipe-picker' });
  picker.setAttribute('aria-labelledby', 'pipe-picker-label');
  picker.append(...buttons);
  // Arrow keys move between the buttons (and choose), as in a toolbar.
  picker.addEventListener('keydown', (e) => {
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (i < 0) return;
    const step = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = buttons[(i + step + buttons.length) % buttons.length]!;
    next.focus();
    choose(next.dataset.encoding as EncodingName);
  });

  function render(): void {
    for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.encoding === current));
    const lit = new Set(ENTERS[current]);
    for (const [id, { li, enters }] of boxes) {
      const on = lit.has(id);
      li.classList.toggle('lit', on);
      if (on) li.setAttribute('aria-current', 'true');
      else li.removeAttribute('aria-current');
      if (on) {
        const key = `pipeline.enters.${current}.${id}` as Key;
        enters.replaceChildren(rich(key, 'span'));
      } else enters.replaceChildren();
    }
    list.dataset.encoding = current;
    sayTitle.textContent = nameOf(current);
    sayText.dataset.i18n = `pipeline.say.${current}`;
    sayText.textContent = t(`pipeline.say.${current}` as Key);
  }

  function choose(enc: EncodingName): void {
    current = enc;
    setParam('p.enc', enc);
    render();
  }

  const pickerLabel = text('pipeline.picker', 'span');
  pickerLabel.id = 'pipe-picker-label';
  root.append(
    el('div', { class: 'controls' }, el('div', { class: 'control wide' }, pickerLabel, picker)),
    el('div', { class: 'pipe-wrap' }, el('figure', {}, Object.assign(text('pipeline.diagram', 'figcaption'), { id: 'pipe-diagram-cap' }), list), say),
  );
  render();
}
