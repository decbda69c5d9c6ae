// Section "extrapolation": the eight families measured side by side, each
// cell the band of three training seeds of the same recipe (data/seed-bands.json,
// written by `npm run seed-bands`), and the conclusions the text draws from
// those bands: each computed here, and worded for what the seeds show (a
// sentence that ranks two families says so when their ranges overlap).
import { encodingLabel, encodingSpan } from '../../encname.js';
import { isKey, lang, onLangChange, t, type Key } from '../../i18n.js';
import { band, bandOf, combine, ENTROPY_RATE, EVAL_SET, EVAL_SIZE, fmtBand, overlaps, SEEDS, TRAIN_LEN, type Band } from '../../seedbands.js';
import { liveText, sentenceGap } from '../../textfill.js';
import { el, text, whenNear } from '../../ui.js';
import type { Ctx } from '../context.js';

/** The families in the order of the table (the overview's order). */
export const FAMILIES = ['sinusoidal', 'learned', 'shaw', 't5', 'rope', 'alibi', 'xpos', 'nope'] as const;
/** Lengths of the table's columns: the first is the training length (checked against the JSON). */
export const LOSS_LENGTHS = [64, 256, 512] as const;
export const ACC_LENGTHS = [64, 512] as const;

/** A row's encoding name without its parenthesis ("NoPE (no encoding)" -> "NoPE"). */
export function shortName(encoding: string): string {
  const k = `taxonomy.${encoding}.name`;
  return isKey(k) ? t(k).replace(/\s*[（(].*[)）]$/, '') : encoding;
}

/** Names listed as a sentence does ("a, b and c" / "a、b 和 c"). */
function listNames(names: string[]): string {
  const [and, sep] = lang() === 'zh' ? [' 和 ', '、'] : [' and ', ', '];
  return names.length > 1 ? `${names.slice(0, -1).join(sep)}${and}${names[names.length - 1]!}` : (names[0] ?? '');
}

/** Puts a band on an element: `data-mean`, `data-min`, `data-max` (what the tests read). */
function mark(e: HTMLElement, b: Band): void {
  e.dataset.mean = String(b.mean);
  e.dataset.min = String(b.min);
  e.dataset.max = String(b.max);
}

function cell(id: string, b: Band | undefined, digits: number, percent: boolean): HTMLTableCellElement {
  const c = el('td', { class: 'num', id }) as HTMLTableCellElement;
  if (!b) {
    c.dataset.state = 'refused';
    c.append('—');
    c.title = t('ext.fam.refused');
    onLangChange(() => { c.title = t('ext.fam.refused'); }, c);
    return c;
  }
  mark(c, b);
  c.dataset.state = 'done';
  const f = (v: number): string => (percent ? `${(100 * v).toFixed(digits)}%` : v.toFixed(digits));
  c.append(el('span', { class: 'mean' }, f(b.mean)), el('br'), el('span', { class: 'range' }, `${f(b.min)}–${f(b.max)}`));
  return c;
}

function table(): HTMLTableElement {
  const th = (key: Key, attrs: Record<string, string> = {}): HTMLElement => el('th', attrs, text(key));
  const lenHead = (L: number): HTMLElement => {
    const lt = liveText('span');
    lt.set(L === TRAIN_LEN ? 'ext.fam.col.train' : 'ext.fam.col.tokens', { n: L });
    const e = el('th', { scope: 'col', class: 'num', 'data-length': String(L) }, lt.el);
    if (L === TRAIN_LEN) e.dataset.train = '1';
    return e;
  };
  const head = el('thead', {},
    el('tr', {},
      th('ext.fam.col.family', { rowspan: '2', scope: 'col' }),
      th('ext.fam.col.loss', { colspan: String(LOSS_LENGTHS.length), scope: 'colgroup', class: 'group' }),
      th('ext.fam.col.acc', { colspan: String(ACC_LENGTHS.length), scope: 'colgroup', class: 'group' })),
    el('tr', {}, ...LOSS_LENGTHS.map(lenHead), ...ACC_LENGTHS.map(lenHead)));
  const body = el('tbody', {});
  for (const enc of FAMILIES) {
    const row = el('tr', { 'data-encoding': enc }, el('th', { scope: 'row' }, text(`taxonomy.${enc}.name` as Key)));
    for (const L of LOSS_LENGTHS) row.append(cell(`fam-loss-${enc}-${L}`, band('language', enc, L), 3, false));
    for (const L of ACC_LENGTHS) row.append(cell(`fam-acc-${enc}-${L}`, band('retrieval', enc, L), 0, true));
    body.append(row);
  }
  return el('table', { class: 'taxonomy families', id: 'fam-table', 'data-ready': '1' }, head, body) as HTMLTableElement;
}

/** The language models at the training length against the floor, ranked by their mean. */
export function floorFacts(): {
  ranked: Array<{ e: string; b: Band }>;
  /** The families whose range overlaps the best one's. */
  tied: string[];
  alibi: Band; rope: Band; sin: Band; ratio: Band;
} {
  const ranked = FAMILIES.map((e) => ({ e: e as string, b: band('language', e, TRAIN_LEN) }))
    .filter((x): x is { e: string; b: Band } => x.b !== undefined)
    .sort((a, b) => a.b.mean - b.b.mean);
  const excess = (e: string): Band => {
    const b = band('language', e, TRAIN_LEN)!;
    return bandOf(b.values.map((v) => v - ENTROPY_RATE));
  };
  const alibi = excess('alibi'), rope = excess('rope'), sin = excess('sinusoidal');
  return {
    ranked,
    tied: ranked.slice(1).filter((x) => overlaps(x.b, ranked[0]!.b)).map((x) => x.e),
    alibi, rope, sin, ratio: combine(alibi, rope, (a, r) => a / r),
  };
}

/** Per family, loss at the longest loss column ÷ loss at the training length, one ratio per seed. */
export function lossRatios(): Array<{ e: string; b: Band }> {
  const longest = LOSS_LENGTHS[LOSS_LENGTHS.length - 1]!;
  return FAMILIES.flatMap((e) => {
    const a = band('language', e, longest), b = band('language', e, TRAIN_LEN);
    return a && b ? [{ e: e as string, b: combine(a, b, (x, y) => x / y) }] : [];
  }).sort((x, y) => x.b.mean - y.b.mean);
}

export function mountFamilies(ctx: Ctx, root: HTMLElement): void {
  if (LOSS_LENGTHS[0] !== TRAIN_LEN || ACC_LENGTHS[0] !== TRAIN_LEN) throw new Error(`seed-bands.json: training length ${TRAIN_LEN}, the table starts at ${LOSS_LENGTHS[0]}`);
  const about = liveText('p', 'note');
  about.el.id = 'fam-about';
  about.set('ext.fam.about', { seeds: SEEDS.length, lm: EVAL_SIZE.languageTokens, rt: EVAL_SIZE.retrievalSequences });

  // The floor: the spread at the training length, ALiBi's excess against RoPE's, sinusoidal's.
  const f = floorFacts();
  const floor = liveText('span');
  floor.el.id = 'fam-floor';
  mark(floor.el, f.ratio);
  floor.el.dataset.floor = String(ENTROPY_RATE);
  const showFloor = (): void => {
    const best = f.ranked[0]!, worst = f.ranked[f.ranked.length - 1]!;
    floor.set('ext.fam.floor', {
      len: TRAIN_LEN, lo: fmtBand(best.b, 3), best: shortName(best.e), hi: fmtBand(worst.b, 3), worst: shortName(worst.e),
      floor: ENTROPY_RATE.toFixed(3), ratio: fmtBand(f.ratio, 1), sin: fmtBand(f.sin, 3),
    });
  };
  // Whether the best family's lead holds in every seed.
  const tie = liveText('span');
  tie.el.id = 'fam-tie';
  tie.el.dataset.tied = f.tied.join(',');
  const showTie = (): void => tie.set(f.tied.length > 0 ? 'ext.fam.tied' : 'ext.fam.untied', { best: shortName(f.ranked[0]!.e), names: listNames(f.tied.map(shortName)) });

  // Retrieval models that did not learn to copy: in every seed, or in some.
  const weakAll: string[] = [], weakSome: string[] = [];
  for (const e of FAMILIES) {
    const b = band('retrieval', e, TRAIN_LEN);
    if (!b) continue;
    if (b.max < 0.5) weakAll.push(e);
    else if (b.min < 0.5) weakSome.push(e);
  }
  const copy = liveText('span');
  copy.el.id = 'fam-copy';
  copy.el.dataset.weak = weakAll.join(',');
  copy.el.dataset.some = weakSome.join(',');
  const showCopy = (): void => copy.set(weakAll.length > 0 ? 'ext.fam.weak' : 'ext.fam.copy', { names: listNames(weakAll.map(shortName)) });
  const some = liveText('span');
  some.el.id = 'fam-some';
  const showSome = (): void => some.set(weakSome.length > 0 ? 'ext.fam.weakSome' : undefined, { names: listNames(weakSome.map(shortName)) });

  // The ratio of the longest column to the training length, per family.
  const rows = lossRatios();
  const ratios = el('p', { class: 'note', id: 'fam-ratios' });
  const ratiosHead = liveText('span');
  ratiosHead.set('ext.fam.ratios', { long: LOSS_LENGTHS[LOSS_LENGTHS.length - 1]!, train: TRAIN_LEN });
  const stable = liveText('span');
  stable.el.id = 'fam-stable';
  const stableAll = rows.filter((x) => x.b.max < 1.05).map((x) => x.e);
  stable.el.dataset.names = stableAll.join(',');
  const showStable = (): void => stable.set('ext.fam.stable', { names: stableAll.map(encodingLabel).join(lang() === 'zh' ? '、' : ', ') || '—' });
  ratios.append(ratiosHead.el, sentenceGap(),
    ...rows.map((x, i) => {
      const value = document.createTextNode('');
      const showValue = (): void => { value.textContent = ` ${fmtBand(x.b, 2, false, '×')}`; };
      showValue();
      onLangChange(showValue, value);
      const s = el('span', { 'data-model': x.e }, i ? ' · ' : '', encodingSpan(x.e), value);
      mark(s, x.b);
      return s;
    }),
    el('br'), stable.el);

  // Why, with the Shaw model's own clip distance (from the shipped model's config).
  const why = liveText('span');
  const showWhy = (clip: number | string): void => why.set('ext.fam.why', { clip });
  showWhy('k');
  // Only when the reader comes near: the Worker and the models load then, not with the page.
  whenNear(root, () => {
    void ctx.worker.call('describe', { model: 'language-shaw' }).then(({ config }) => {
      why.el.dataset.clip = String(config.shawClip);
      showWhy(config.shawClip);
    }, () => {});
  }, '300px');

  // The shipped models are seed 1 here, and the sections that run them use this table's sequences at the training length.
  const shippedText = liveText('p', 'note');
  shippedText.set('ext.fam.shipped', { len: EVAL_SET.length, n: EVAL_SET.examples, others: SEEDS.length - 1 });
  const shipped = shippedText.el;
  shipped.id = 'fam-shipped';

  const show = (): void => { showFloor(); showTie(); showCopy(); showSome(); showStable(); };
  show();
  onLangChange(show);
  root.append(
    el('h3', { id: 'families-h' }, text('ext.fam.title')),
    about.el,
    el('div', { class: 'table-scroll', tabindex: '0', role: 'region', 'aria-labelledby': 'families-h' }, table()),
    shipped,
    ratios,
    el('p', { class: 'look', id: 'fam-look' }, floor.el, sentenceGap(), tie.el, sentenceGap(), copy.el, sentenceGap(), some.el, sentenceGap(), why.el),
  );
}
