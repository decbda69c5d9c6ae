// Section 7: train a tiny model in the Worker with a progress bar and a live
// loss curve; cancel works; the result joins sections 1 and 5 as "yours".
import type { EncodingName, TaskName } from 'posenc';

import { t } from '../i18n.js';
import { LinePlot } from '../plot.js';
import { getChoice, getNumber } from '../state.js';
import { button, el, figure, select, slider } from '../ui.js';
import type { Ctx } from './context.js';

const ENCODINGS: readonly EncodingName[] = ['nope', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'shaw', 'xpos'];
const TASKS: readonly TaskName[] = ['word-order', 'language', 'retrieval'];

export function mountTrain(ctx: Ctx, root: HTMLElement): void {
  let task = getChoice<TaskName>('t.task', 'word-order', TASKS);
  let encoding = getChoice<EncodingName>('t.enc', 'rope', ENCODINGS);
  let steps = getNumber('t.steps', 200, 10, 5000);
  const progress = el('progress', { max: '1', value: '0', id: 'train-progress', 'aria-label': t('train.loss'), 'data-i18n-aria': 'train.loss' });
  const status = el('p', { class: 'status', id: 'train-status', 'aria-live': 'polite' });
  const plot = new LinePlot({ xLabel: () => t('train.step'), yLabel: () => t('plot.loss'), series: [{ label: () => t('plot.loss') }], height: 240 });
  plot.el.id = 'train-loss';
  const xs: number[] = [];
  const ys: number[] = [];
  let running = false;

  const start = button('train.start', () => {
    if (running) return;
    running = true;
    start.disabled = true;
    cancel.disabled = false;
    xs.length = 0;
    ys.length = 0;
    status.textContent = '';
    progress.value = 0;
    const seqLen = task === 'word-order' ? 8 : 64;
    ctx.worker
      .call('train', { task, encoding, steps, seqLen }, (p) => {
        progress.value = p.step / p.steps;
        xs.push(p.step);
        ys.push(p.loss);
        plot.setData([xs.slice(), ys.slice()]);
        status.textContent = `${t('train.step')} ${p.step} / ${p.steps}: loss ${p.loss.toFixed(3)}`;
        status.dataset.first = String(ys[0]);
        status.dataset.last = String(p.loss);
      })
      .then((r) => {
        status.textContent = `${status.textContent} · ${t('train.done')}`;
        status.dataset.done = '1';
        ctx.setCustom(r.config);
      })
      .catch((e: unknown) => {
        const msg = e instanceof Error ? e.message : String(e);
        status.textContent = /cancel/i.test(msg) ? t('train.cancelled') : msg;
        status.dataset.done = 'cancelled';
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

  root.append(
    el('div', { class: 'controls' },
      select<TaskName>({ label: 'train.task', param: 't.task', value: task, options: TASKS.map((x) => [x, () => t(`task.${x}`)] as const), onChange: (v) => { task = v; } }).el,
      select<EncodingName>({ label: 'train.encoding', param: 't.enc', value: encoding, options: ENCODINGS.map((x) => [x, x] as const), onChange: (v) => { encoding = v; } }).el,
      slider({ label: 'train.steps', param: 't.steps', min: 10, max: 5000, step: 10, value: steps, log: true, onInput: (v) => { steps = v; } }).el,
      start, cancel),
    progress, status,
    figure('train.loss', plot.el),
  );
}
