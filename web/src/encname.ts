// How the page names a positional encoding to its reader.
import { isKey, onLangChange, t, type Key } from './i18n.js';
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
 * An encoding as a legend, a table row or a picker shows it: its name in the
 * page's language ("RoPE", "Sinusoidal" / "正弦位置编码"), never the API's
 * lower-case id (review B4).
 */
export function encodingLabel(e: string): string {
  return encodingName(e);
}

/** A span showing encodingLabel(e) that follows language changes (for table cells built once). */
export function encodingSpan(e: string): HTMLElement {
  const span = el('span', {}, encodingLabel(e));
  onLangChange(() => { span.textContent = encodingLabel(e); }, span);
  return span;
}

/** A RoPE scaling type as a legend shows it: its name (YaRN, NTK-aware, 线性插值（PI）); an unknown type as it is. */
export function scalingLabel(s: string): string {
  const k = `scaling.${s}`;
  return isKey(k) ? t(k) : s;
}
