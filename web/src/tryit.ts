// "Try this" prompts: a row of buttons under a section's intro,
// each setting the section's controls to a state that shows its point, as
// if the reader had set them (ui.ts applyState: the controls show the
// values, the URL hash gets them, the section recomputes). A line under the
// row says what to look at; the pressed prompt is marked (aria-pressed)
// until the reader moves a control of the section.
import { onLangChange, t, type Key } from './i18n.js';
import { tf } from './textfill.js';
import { applyState, el, type ParamValue } from './ui.js';

interface Prompt {
  /** Text keys: `tryit.<id>` (label) and `tryit.<id>.look` (what changes). */
  id: string;
  /** The view, applied in this order (a scaling before its factor, say). */
  state: Readonly<Record<string, ParamValue>>;
}

/**
 * The prompts by section id. Every claim their text makes is checked in
 * Chromium by tests/ts/page-tryit.test.ts.
 */
export const PROMPTS: Readonly<Record<string, readonly Prompt[]>> = {
  order: [
    { id: 'order.none', state: { 'o.enc': 'none', 'o.causal': false, 'o.perm': 'shuffled' } },
    { id: 'order.causal', state: { 'o.enc': 'none', 'o.causal': true, 'o.perm': 'shuffled' } },
    { id: 'order.rope', state: { 'o.enc': 'rope', 'o.causal': false, 'o.perm': 'shuffled' } },
  ],
  sinusoidal: [
    { id: 'sin.small', state: { 's.base': 10, 's.dim': 64, 's.len': 256, 's.p': 128 } },
    { id: 'sin.default', state: { 's.base': 10000, 's.dim': 64, 's.len': 256, 's.p': 128 } },
  ],
  rope: [
    { id: 'rope.shift', state: { 'r.scaling': 'default', 'r.m': 12, 'r.n': 5, 'r.s': 1000 } },
    { id: 'rope.linear', state: { 'r.scaling': 'linear', 'r.factor': 4, 'r.m': 12, 'r.n': 5, 'r.s': 1000 } },
    { id: 'rope.dynamic', state: { 'r.scaling': 'dynamic', 'r.factor': 4, 'r.orig': 64, 'r.m': 12, 'r.n': 5, 'r.s': 100 } },
  ],
  bias: [
    { id: 'bias.shared', state: { 'b.heads': 16, 'b.variant': 'paper', 'b.perhead': false } },
    { id: 'bias.perhead', state: { 'b.heads': 16, 'b.variant': 'paper', 'b.perhead': true } },
    { id: 'bias.simple', state: { 'b.heads': 16, 'b.variant': 'simple', 'b.perhead': false } },
  ],
  extrapolation: [
    { id: 'ext.none', state: { 'wl.model': 'tiny', 'wl.len': 1024, 'e.len': 1024, 'e.scaling': 'none' } },
    { id: 'ext.yarn', state: { 'wl.model': 'tiny', 'wl.len': 1024, 'wl.method': 'yarn', 'wl.factor': 16, 'e.len': 1024, 'e.scaling': 'yarn', 'e.factor': 16 } },
  ],
  bugs: [
    { id: 'bugs.onlyq', state: { 'z.bug': 'only-q' } },
    { id: 'bugs.restart', state: { 'z.bug': 'restart-positions' } },
  ],
  yourmodel: [
    { id: 'ym.gemma', state: { 'y.model': 'gemma-3-27b' } },
    { id: 'ym.scout', state: { 'y.model': 'llama-4-scout' } },
    { id: 'ym.qwen3vl', state: { 'y.model': 'qwen3-vl-8b' } },
  ],
};

const need = <T extends Element>(root: ParentNode, sel: string): T => {
  const e = root.querySelector<T>(sel);
  if (!e) throw new Error(`tryit: ${sel} not found`);
  return e;
};

/** Mounts the prompts of section `id` (if it has any) between its intro and its body. */
export function mountTryIt(id: string, section: HTMLElement): void {
  const prompts = PROMPTS[id];
  if (!prompts) return;
  const look = el('p', { class: 'tryit-look note', 'aria-live': 'polite' });
  const buttons = prompts.map((p) => {
    const b = el('button', { type: 'button', class: 'tryit-prompt', 'aria-pressed': 'false', 'data-tryit': p.id });
    b.addEventListener('click', () => {
      const missing = applyState(p.state);
      if (missing.length > 0) console.error(`tryit ${p.id}: no control for ${missing.join(', ')}`);
      for (const o of buttons) o.setAttribute('aria-pressed', String(o === b));
      look.dataset.tryit = p.id;
      render();
    });
    return b;
  });
  const label = el('span', { class: 'tryit-label' });
  const row = el('div', { class: 'tryit', role: 'group', id: `tryit-${id}` }, label, ...buttons);
  const render = (): void => {
    label.textContent = t('tryit.label');
    row.setAttribute('aria-label', t('tryit.group'));
    prompts.forEach((p, i) => { buttons[i]!.textContent = tf(`tryit.${p.id}` as Key, p.state); });
    const shown = prompts.find((p) => p.id === look.dataset.tryit);
    look.textContent = shown ? tf(`tryit.${shown.id}.look` as Key, shown.state) : '';
    look.hidden = !shown;
  };
  // The reader's own change of a control ends the prompt's state (events the
  // prompts fire themselves are not trusted ones).
  const release = (e: Event): void => {
    if (!e.isTrusted || row.contains(e.target as Node)) return;
    for (const o of buttons) o.setAttribute('aria-pressed', 'false');
    delete look.dataset.tryit;
    render();
  };
  section.addEventListener('input', release);
  section.addEventListener('change', release);
  render();
  onLangChange(render);
  need<HTMLElement>(section, ':scope > .explain').after(row, look);
}
