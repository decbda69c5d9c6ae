// How the page names a positional encoding to its reader.
import { isKey, lang, onLangChange, t, type Key } from './i18n.js';
import { el } from './ui.js';

/** Method names stay Latin; the two descriptive ones are translated (pipeline.name.*). */
const NAMES: Readonly<Record<string, string | Key>> = {
  nope: 'NoPE', sinusoidal: 'pipeline.name.sinusoidal', learned: 'pipeline.name.learned', rope: 'RoPE', xpos: 'xPos', alibi: 'ALiBi', t5: 'T5', shaw: 'Shaw',
};

/** An encoding's name in the current language ("RoPE", "正弦位置编码"); an unknown id as it is. */
export function encodingName(e: string): string {
  const n = NAMES[e];
  return n === undefined ? e : isKey(n) ? t(n) : n;
}

/**
 * An encoding as a legend, a table row or a picker shows it: in English the
 * id as the API spells it (`rope`, `sinusoidal`), in Chinese its name (no raw
 * English ids in the reader's language).
 */
export function encodingLabel(e: string): string {
  return lang() === 'zh' ? encodingName(e) : e;
}

/** A span showing encodingLabel(e) that follows language changes (for table cells built once). */
export function encodingSpan(e: string): HTMLElement {
  const span = el('span', {}, encodingLabel(e));
  onLangChange(() => { span.textContent = encodingLabel(e); }, span);
  return span;
}

/** A RoPE scaling type as a legend shows it: the API's id in English (`yarn`), its name in Chinese (YaRN, 线性插值（PI）). */
export function scalingLabel(s: string): string {
  const k = `scaling.${s}`;
  return lang() === 'zh' && isKey(k) ? t(k) : s;
}
