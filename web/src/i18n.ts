// The page's text in English and Chinese (ours, written for this page).
// Strings may hold small inline markup and TeX between $...$ (inline) or
// $$...$$ (display), rendered by tex.ts. Each section keeps its strings in
// sections/<id>/text.ts (merged here from the registry, sections/index.ts);
// the page's own and the shared ones are in text/*.ts. Each exports `en` and
// a `zh` with the same keys. Section numbers are not in the titles: main.ts
// numbers the sections in page order.
import { SECTIONS } from './sections/index.js';
import * as common from './text/common.js';
import * as controls from './text/controls.js';
import * as loading from './text/loading.js';
import * as page from './text/page.js';
import * as tryit from './text/tryit.js';

export type Lang = 'en' | 'zh';

/** Every section's English strings, as one type (a key missing from a section's zh fails there). */
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type SectionStrings = UnionToIntersection<(typeof SECTIONS)[number]['text']['en']>;

const shared = { ...page.en, ...common.en, ...controls.en, ...loading.en, ...tryit.en };
const en = { ...shared, ...(Object.assign({}, ...SECTIONS.map((s) => s.text.en)) as SectionStrings) };

export type Key = keyof typeof en;

const zh = {
  ...page.zh, ...common.zh, ...controls.zh, ...loading.zh, ...tryit.zh,
  ...(Object.assign({}, ...SECTIONS.map((s) => s.text.zh)) as Record<keyof SectionStrings, string>),
} satisfies Record<Key, string>;


const tables: Record<Lang, Record<Key, string>> = { en, zh };
let current: Lang = 'en';
/**
 * Language-change listeners, called in registration order. One given an
 * owner is held only as long as the owner is (the owner holds it, through
 * `owned`, and the list holds the owner weakly): a heatmap or a figure that
 * a section drops is collected with its listener, which may refer to it.
 */
interface Listener { strong?: () => void; owner?: WeakRef<object> }
const listeners = new Set<Listener>();
const owned = new WeakMap<object, Map<Listener, () => void>>();

/** Drops the entries whose owner has been collected (their functions went with it). */
let sweptSize = 64;
function sweep(): void {
  for (const entry of listeners) if (entry.owner && entry.owner.deref() === undefined) listeners.delete(entry);
  sweptSize = Math.max(64, listeners.size);
}

export function lang(): Lang {
  return current;
}

export function setLang(l: Lang): void {
  current = l;
  document.documentElement.lang = l === 'zh' ? 'zh-CN' : 'en';
  for (const entry of [...listeners]) {
    if (!listeners.has(entry)) continue; // unsubscribed by an earlier listener
    if (entry.strong) {
      entry.strong();
      continue;
    }
    const owner = entry.owner!.deref();
    const f = owner === undefined ? undefined : owned.get(owner)?.get(entry);
    if (f) f();
    else listeners.delete(entry);
  }
}

/**
 * Calls `f` after every language change (and not now) until the returned
 * function is called. With an `owner`, `f` lives as long as the owner and no
 * longer: it may refer to the owner without keeping it alive.
 */
export function onLangChange(f: () => void, owner?: object): () => void {
  const entry: Listener = {};
  if (owner === undefined) entry.strong = f;
  else {
    entry.owner = new WeakRef(owner);
    let fs = owned.get(owner);
    if (!fs) owned.set(owner, (fs = new Map()));
    fs.set(entry, f);
  }
  listeners.add(entry);
  if (listeners.size > 2 * sweptSize) sweep();
  return () => {
    listeners.delete(entry);
    if (owner !== undefined) owned.get(owner)?.delete(entry);
  };
}

/** Whether `k` names a string (for keys built from data, e.g. a section id). */
export function isKey(k: string): k is Key {
  return Object.prototype.hasOwnProperty.call(en, k);
}

export function t(key: Key): string {
  return tables[current][key];
}

/**
 * An error shown on the page: the core's or the Worker's own (English)
 * message, which names the parameter, after a sentence in the current
 * language (in English only the message).
 */
export function errorText(e: unknown): string {
  const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return `${t('error.gloss')}${msg}`;
}
