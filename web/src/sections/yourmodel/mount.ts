// Section "yourmodel": a published config.json (or the reader's own) read by
// pe.ropeFromConfig, shown layer by layer: which RoPE each decoder layer
// applies, each RoPE's wavelengths against the original context, where a
// scaling switches with the length, the attention factor, M-RoPE's split of
// the pairs, the query scaling, the defaults filled in, and the posenc /
// onnxruntime-web code that uses the result. Everything shown is computed
// from the core's answer; a config the core refuses shows its error.
// Text: ./text.ts. Configs: ./configs.ts.
import './style.css';

import { ropeGroups, type RopeFromConfig, type RopeGroup, type RopeLayerOptions } from 'posenc';

import { errorText, lang, onLangChange, t, type Key } from '../../i18n.js';
import { codeTabs } from '../../lessonkit.js';
import { tf } from '../../textfill.js';
import { LinePlot, PALETTE, type LineSeries } from '../../plot.js';
import { getChoice, setParam } from '../../state.js';
import { el, figure, select, text, whenNear } from '../../ui.js';
import type { Ctx } from '../context.js';
import { PUBLISHED_CONFIGS } from './configs.js';

const PASTE = 'paste';

/** The M-RoPE position rows of a prompt, in the generated code. */
const MROPE_POSITIONS = [
  'const { positions } = pe.mropePositionIds({',
  '  inputIds, imageGridThw, spatialMergeSize: config.vision_config.spatial_merge_size,',
  '  imageTokenId: config.image_token_id, videoTokenId: config.video_token_id, visionStartTokenId: config.vision_start_token_id,',
  '});',
];
const TWO_PI = 2 * Math.PI;

/** Integers with thousands separators, other numbers to 6 significant digits. */
export function fmt(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return String(+v.toPrecision(6));
}

/** "0-4, 6-10, 12". */
const spansText = (spans: ReadonlyArray<[number, number]>): string => spans.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');

/** The scaling of a layer in words. */
function scalingText(l: RopeLayerOptions): string {
  const s = l.scaling;
  switch (s.type) {
    case 'default': return t('yourmodel.sc.default');
    case 'linear': case 'ntk': return tf(`yourmodel.sc.${s.type}`, { f: fmt(s.factor) });
    case 'dynamic': return tf('yourmodel.sc.dynamic', { f: fmt(s.factor), L: fmt(s.maxPositionEmbeddings) });
    case 'yarn': case 'longrope': return tf(`yourmodel.sc.${s.type}`, { f: fmt(s.factor), L: fmt(s.originalMaxPositionEmbeddings) });
    case 'llama3': return tf('yourmodel.sc.llama3', { f: fmt(s.factor), L: fmt(s.originalMaxPositionEmbeddings), lo: fmt(s.lowFreqFactor), hi: fmt(s.highFreqFactor) });
    case 'proportional': return tf('yourmodel.sc.proportional', { p: fmt(s.partialRotaryFactor ?? 1) });
  }
}

/** "base 10,000, linear ×8". */
const ropeText = (l: RopeLayerOptions): string => `base ${fmt(l.base)}, ${scalingText(l)}`;

const isLengthDependent = (l: RopeLayerOptions): boolean => l.scaling.type === 'dynamic' || l.scaling.type === 'longrope';

type RopeOf = RopeGroup & { rope: RopeLayerOptions };
const withRope = (gs: RopeGroup[]): RopeOf[] => gs.filter((g): g is RopeOf => g.rope !== null);

/** The posenc code that applies the RoPE of `rc` (ropeFromConfig's result). */
function posencCode(rc: RopeFromConfig, gs: RopeGroup[]): string {
  const rs = withRope(gs);
  const none = gs.find((g) => g.rope === null);
  const lines = [`import { init } from 'posenc';`, '', 'const pe = await init();', `// ${t('yourmodel.c.load')}`, 'const rope = pe.ropeFromConfig(config);'];
  if (rs.length === 0) return lines.join('\n');
  const first = rs[0]!.rope;
  if (rc.uniform) {
    lines.push(`// ${tf('yourmodel.c.alike', { layers: spansText(rs[0]!.spans) })}`);
  } else {
    for (const g of rs) lines.push(`// ${tf('yourmodel.c.layer', { layers: spansText(g.spans), what: ropeText(g.rope) })}`);
  }
  if (none !== undefined) lines.push(`// ${tf('yourmodel.c.noneLayers', { layers: spansText(none.spans) })}`);
  lines.push('', `// ${tf(rc.uniform ? 'yourmodel.c.q' : 'yourmodel.c.qi', { d: [...new Set(rs.map((g) => g.rope.headDim))].join(' | ') })}`);
  let where = 'offset: 0';
  if (first.mrope !== undefined) {
    lines.push(`// ${t('yourmodel.c.mrope')}`);
    lines.push(...MROPE_POSITIONS);
    where = 'positions';
  }
  if (rs.some((g) => isLengthDependent(g.rope))) {
    lines.push(`// ${t('yourmodel.c.ctx')}`);
    where += ', contextLength: seqLen';
  }
  if (rc.uniform) {
    lines.push(`const qRot = pe.applyRope(q, { ...rope, heads, seqLen, ${where} });`);
    lines.push(`const kRot = pe.applyRope(k, { ...rope, heads: kvHeads, seqLen, ${where} });`);
  } else {
    lines.push('for (const [i, layer] of rope.layers.entries()) {');
    if (none !== undefined) lines.push('  if (layer === null) continue;');
    lines.push(`  qRot[i] = pe.applyRope(q[i], { ...layer${none !== undefined ? '' : '!'}, heads, seqLen, ${where} });`);
    lines.push(`  kRot[i] = pe.applyRope(k[i], { ...layer${none !== undefined ? '' : '!'}, heads: kvHeads, seqLen, ${where} });`);
    lines.push('}');
  }
  if (rc.queryScaling !== undefined) {
    lines.push('', `// ${tf('yourmodel.c.qs', { layers: spansText(layerSpans(rc.queryScaling.layers)) })}`);
    lines.push('const scale = pe.queryScale(Int32Array.from({ length: seqLen }, (_, p) => p), rope.queryScaling!);');
  }
  return lines.join('\n');
}

/** The onnxruntime-web code that feeds the same tables to a graph's RotaryEmbedding. */
function ortCode(rc: RopeFromConfig, gs: RopeGroup[]): string {
  const rs = withRope(gs);
  const none = gs.find((g) => g.rope === null);
  const lines = [`import * as ort from 'onnxruntime-web';`, `import { init } from 'posenc';`, '', 'const pe = await init();', 'const rope = pe.ropeFromConfig(config);'];
  if (rs.length === 0) return lines.join('\n');
  const known = rc.maxPositions !== undefined || rs.some((g) => g.originalContext !== undefined);
  lines.push(`const maxLen = ${Math.max(...rs.map((g) => targetLength(rc, g)))};${known ? '' : `  // ${t('yourmodel.c.maxLen')}`}`);
  for (const [k, g] of rs.entries()) {
    const l = g.rope;
    const s = l.scaling;
    const src = rc.uniform ? 'rope' : `rope.layers[${g.layers[0]}]!`;
    const n = rs.length > 1 ? String(k + 1) : '';
    const tensors = (c: string, rows: string): void => {
      lines.push(`const cos${n} = new ort.Tensor('float32', ${c}.cos, [${rows}, ${c}.width]);`);
      lines.push(`const sin${n} = new ort.Tensor('float32', ${c}.sin, [${rows}, ${c}.width]);`);
    };
    lines.push('');
    if (!rc.uniform) lines.push(`// ${tf('yourmodel.c.layer', { layers: spansText(g.spans), what: ropeText(l) })}`);
    if (l.mrope !== undefined) {
      lines.push(`// ${t('yourmodel.c.mropeOrt')}`);
      if (k === 0) lines.push(...MROPE_POSITIONS);
      lines.push(`const c${n} = pe.ropeCache({ ...${src}, positions, format: 'half' });`);
      tensors(`c${n}`, 'seqLen');
    } else if (s.type === 'longrope') {
      lines.push(`// ${tf('yourmodel.c.longrope', { L: fmt(s.originalMaxPositionEmbeddings) })}`);
      lines.push(`const short${n} = pe.ropeCache({ ...${src}, seqLen: maxLen, contextLength: ${s.originalMaxPositionEmbeddings}, format: 'half' });`);
      lines.push(`const long${n} = pe.ropeCache({ ...${src}, seqLen: maxLen, contextLength: maxLen, format: 'half' });`);
      lines.push(`const c${n} = seqLen > ${s.originalMaxPositionEmbeddings} ? long${n} : short${n};`);
      tensors(`c${n}`, 'maxLen');
    } else if (s.type === 'dynamic') {
      lines.push(`// ${tf('yourmodel.c.dynamic', { L: fmt(s.maxPositionEmbeddings) })}`);
      lines.push(`const c${n} = pe.ropeCache({ ...${src}, seqLen, contextLength: seqLen, format: 'half' });`);
      tensors(`c${n}`, 'seqLen');
    } else {
      lines.push(`// ${t('yourmodel.c.cache')}`);
      lines.push(`const c${n} = pe.ropeCache({ ...${src}, seqLen: maxLen, format: 'half' });`);
      tensors(`c${n}`, 'maxLen');
    }
    lines.push(`// ${tf('yourmodel.c.attrs', { i: l.layout === 'interleaved' ? 1 : 0, r: l.rotaryDim })}`);
  }
  if (none !== undefined) lines.push('', `// ${tf('yourmodel.c.noneOrt', { layers: spansText(none.spans) })}`);
  if (rc.queryScaling !== undefined) lines.push(`// ${tf('yourmodel.c.qsOrt', { layers: spansText(layerSpans(rc.queryScaling.layers)) })}`);
  return lines.join('\n');
}

/** Dims that turn: the rotary width, or under Gemma 4's proportional the share with a nonzero frequency. */
const rotated = (l: RopeLayerOptions): number =>
  (l.scaling.type === 'proportional' ? 2 * Math.floor(((l.scaling.partialRotaryFactor ?? 1) * l.headDim) / 2) : l.rotaryDim);

/** [first, last] runs of sorted indices. */
function layerSpans(layers: readonly number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const i of layers) {
    const last = out[out.length - 1];
    if (last !== undefined && last[1] === i - 1) last[1] = i;
    else out.push([i, i]);
  }
  return out;
}

/** The colour of RoPE group k (the strip, the table and the wavelength lines agree). */
const colour = (k: number): string => PALETTE[k % PALETTE.length]!;
/** The dashed (scaled) wavelength line of group k: a colour of its own, so the legend tells them apart. */
const SCALED_COLOURS = ['#9467bd', '#8c564b', '#e377c2', '#17becf'];

/** What the context a RoPE is compared with is: the scaling's original length, or max_position_embeddings. */
const contextName = (l: RopeLayerOptions): string =>
  t('originalMaxPositionEmbeddings' in l.scaling || l.scaling.type === 'dynamic' ? 'yourmodel.ctx.original' : 'yourmodel.ctx.max');

/**
 * The length the model is meant to reach: max_position_embeddings when it is past the scaling's own
 * original context; factor x that context when the config keeps max_position_embeddings at it (Qwen2.5's
 * YaRN block); else max_position_embeddings, else 4x the context, else 4096.
 */
function targetLength(rc: RopeFromConfig, g: RopeGroup & { rope: RopeLayerOptions }): number {
  const L = g.originalContext;
  const s = g.rope.scaling;
  const own = 'originalMaxPositionEmbeddings' in s && 'factor' in s && s.factor !== undefined && s.factor > 1;
  if (own && L !== undefined && (rc.maxPositions === undefined || rc.maxPositions <= L)) return Math.round(s.factor! * L);
  return rc.maxPositions ?? (L !== undefined ? 4 * L : 4096);
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  const ids = PUBLISHED_CONFIGS.map((c) => c.id);
  let choice = getChoice<string>('y.model', ids[0]!, [...ids, PASTE]);
  const box = el('textarea', { id: 'ym-config', rows: '12', spellcheck: 'false', autocomplete: 'off', 'aria-label': t('yourmodel.paste') });
  onLangChange(() => box.setAttribute('aria-label', t('yourmodel.paste')));
  const readButton = el('button', { type: 'button', id: 'ym-read' }, text('yourmodel.read'));
  const error = el('div', { id: 'ym-error', class: 'ym-error', role: 'alert' });
  const results = el('div', { id: 'ym-results' });
  const source = el('p', { id: 'ym-source', class: 'note' });
  const summary = el('p', { id: 'ym-summary', class: 'result' });
  const strip = el('div', { id: 'ym-strip', class: 'ym-strip', role: 'img' });
  const plan = el('table', { id: 'ym-plan', class: 'answers ym-plan' });
  const wave = new LinePlot({
    xLabel: () => t('yourmodel.wl.x'), yLabel: () => t('yourmodel.wl.y'), series: [{ label: 'R1' }], height: 240, logY: true, points: true, integerX: true,
    hMarkers: () => contexts,
    hMarkerText: () => contextLabels,
  });
  wave.el.id = 'ym-wl';
  const wlLines = el('div', { id: 'ym-wl-lines' });
  const switches = el('div', { id: 'ym-switch' });
  const factors = el('div', { id: 'ym-factor' });
  const mrope = el('div', { id: 'ym-mrope' });
  const qs = el('p', { id: 'ym-qs', class: 'result' });
  const defaulted = el('div', { id: 'ym-defaulted' });
  let contexts: number[] = [];
  let contextLabels: string[] = [];
  const wlLook = el('p', { class: 'note look', id: 'ym-wl-look' });
  let current: { rc: RopeFromConfig; gs: RopeGroup[]; sourceOf: () => Array<Node | string> } | undefined;
  const code = codeTabs('ym-code', [
    { key: 'posenc', label: 'yourmodel.tab.posenc', code: () => (current ? posencCode(current.rc, current.gs) : '') },
    { key: 'ort', label: 'yourmodel.tab.ort', code: () => (current ? ortCode(current.rc, current.gs) : ''), note: 'yourmodel.ort.note' },
  ]);

  /** Shows `rc` (what ropeFromConfig returned for the config in the box). */
  const render = (): void => {
    if (!current) return;
    const { rc, gs } = current;
    const rs = withRope(gs);
    const n = rc.layers.length;
    source.replaceChildren(...current.sourceOf());
    summary.textContent = [
      tf('yourmodel.summary', { type: rc.modelType ?? '—', n }),
      rs.length === 0 ? t('yourmodel.noneAtAll') : rc.uniform ? t('yourmodel.alike') : t('yourmodel.differ'),
      rc.maxPositions === undefined ? '' : tf('yourmodel.maxpos', { n: fmt(rc.maxPositions) }),
    ].filter((s) => s !== '').join(lang() === 'zh' ? '' : ' ');
    summary.dataset.uniform = String(rc.uniform);
    summary.dataset.layers = String(n);

    // The strip: one cell per layer, its group's colour (grey: no RoPE).
    const groupOf = new Array<number>(n).fill(-1);
    rs.forEach((g, k) => g.layers.forEach((i) => { groupOf[i] = k; }));
    strip.setAttribute('aria-label', t('yourmodel.strip'));
    strip.replaceChildren(...groupOf.map((k, i) => {
      const what = k < 0 ? tf('yourmodel.noRope', { kinds: rc.layerTypes[i] ?? '' }) : `R${k + 1}: ${ropeText(rs[k]!.rope)}`;
      const cell = el('span', { class: k < 0 ? 'ym-cell none' : 'ym-cell', title: tf('yourmodel.strip.layer', { i, what }) });
      if (k >= 0) cell.style.background = colour(k);
      return cell;
    }));
    // One character per layer: the group's letter (A, B, ...) or '.' (tests compare it with the model's plan).
    strip.dataset.plan = groupOf.map((k) => (k < 0 ? '.' : String.fromCharCode(65 + k))).join('');

    // The plan table.
    const head = el('tr', {}, ...(['yourmodel.col.rope', 'yourmodel.col.layers', 'yourmodel.col.count', 'yourmodel.col.dims', 'yourmodel.col.base', 'yourmodel.col.layout', 'yourmodel.col.scaling', 'yourmodel.col.factor'] as const)
      .map((k) => el('th', { scope: 'col' }, t(k))));
    const rows = rs.map((g, k) => el('tr', { 'data-group': `R${k + 1}` },
      el('th', { scope: 'row' }, el('span', { class: 'ym-swatch', style: `background:${colour(k)}` }), `R${k + 1}`),
      el('td', {}, spansText(g.spans)), el('td', {}, String(g.layers.length)),
      el('td', {}, tf('yourmodel.dims', { r: rotated(g.rope), d: g.rope.headDim })), el('td', {}, fmt(g.rope.base)), el('td', {}, g.rope.layout),
      el('td', {}, scalingText(g.rope)), el('td', {}, fmt(g.rope.attentionFactor))));
    const none = gs.find((g) => g.rope === null);
    if (none !== undefined) {
      const kinds = [...new Set(none.layers.map((i) => rc.layerTypes[i]))].join(', ');
      rows.push(el('tr', { 'data-group': 'none' }, el('th', { scope: 'row' }, el('span', { class: 'ym-swatch none' }), t('yourmodel.none')),
        el('td', {}, spansText(none.spans)), el('td', {}, String(none.layers.length)), el('td', { colspan: '5' }, tf('yourmodel.noRope', { kinds }))));
    }
    plan.replaceChildren(el('thead', {}, head), el('tbody', {}, ...rows));

    // Wavelengths λ_i = 2π / θ_i of the formula before any extension (the scaling left out; Gemma 4's
    // proportional is the model's own formula and stays), against the context the RoPE was trained on;
    // with the scaling, dashed (a length-dependent one past its switch).
    const wl = (inv: Float32Array): Array<number | null> => Array.from(inv, (f) => (f > 0 ? TWO_PI / f : null));
    const plain = (l: RopeLayerOptions): boolean => l.scaling.type === 'default' || l.scaling.type === 'proportional';
    const lists = rs.map((g) => wl(ctx.pe.ropeFrequencies({ ...g.rope, scaling: plain(g.rope) ? g.rope.scaling : { type: 'default' }, seqLen: 0 }).invFreq));
    const pairs = Math.max(0, ...lists.map((l) => l.length));
    const xs = Array.from({ length: pairs }, (_, i) => i);
    // Each dashed line named: the scaling's original context, or max_position_embeddings when the config names no other.
    const named = new Map<number, string>();
    for (const g of rs) if (g.originalContext !== undefined && !named.has(g.originalContext)) named.set(g.originalContext, `${contextName(g.rope)} ${fmt(g.originalContext)}`);
    contexts = [...named.keys()];
    contextLabels = [...named.values()];
    const series: LineSeries[] = rs.map((g, k) => ({ label: `R${k + 1} (base ${fmt(g.rope.base)})`, color: colour(k) }));
    const scaled = rs.flatMap((g, k) => {
      if (plain(g.rope)) return [];
      const at = targetLength(rc, g);
      series.push({ label: tf(isLengthDependent(g.rope) ? 'yourmodel.wl.scaledAt' : 'yourmodel.wl.scaled', { rope: `R${k + 1}`, s: scalingText(g.rope), n: fmt(at) }),
        color: SCALED_COLOURS[k % SCALED_COLOURS.length]!, dash: [5, 4] });
      return [wl(ctx.pe.ropeFrequencies({ ...g.rope, seqLen: at }).invFreq)];
    });
    if (rs.length > 0) wave.setData([xs, ...[...lists, ...scaled].map((l) => xs.map((i) => l[i] ?? null))], series);
    wave.el.dataset.value = JSON.stringify(lists);
    wave.el.dataset.scaled = JSON.stringify(scaled);
    wave.el.dataset.contexts = contexts.join(',');
    wlLines.replaceChildren(...rs.map((g, k) => {
      const turning = lists[k]!.filter((v): v is number => v !== null);
      const zero = lists[k]!.length - turning.length;
      const L = g.originalContext;
      const slow = L === undefined ? 0 : turning.filter((w) => w > L).length;
      const vars = {
        rope: `R${k + 1}`, pairs: turning.length, lo: fmt(+turning[0]!.toPrecision(4)), hi: fmt(+turning[turning.length - 1]!.toPrecision(4)), slow,
        L: L === undefined ? '' : fmt(L), what: contextName(g.rope),
      };
      const key: Key = L === undefined ? 'yourmodel.wl.lineNoContext' : slow === 0 ? 'yourmodel.wl.lineAll' : 'yourmodel.wl.line';
      const sliding = g.layers.every((i) => rc.layerTypes[i] === 'sliding_attention');
      return el('p', { class: 'result', id: `ym-wl-R${k + 1}`, 'data-slow': String(slow), 'data-pairs': String(turning.length), 'data-zero': String(zero) },
        tf(key, vars) + (zero > 0 ? tf('yourmodel.wl.zero', { z: zero }) : '') + (sliding ? t('yourmodel.wl.sliding') : ''));
    }));
    wlLook.dataset.i18n = contexts.length > 0 ? 'yourmodel.wl.look' : 'yourmodel.wl.lookNone';
    wlLook.textContent = t(wlLook.dataset.i18n as Key);

    // What switches with the length, and the attention factor.
    const sw = rs.flatMap((g, k) => {
      const s = g.rope.scaling;
      if (s.type === 'dynamic') return [el('p', { class: 'result', 'data-switch': String(s.maxPositionEmbeddings) }, tf('yourmodel.switch.dynamic', { rope: `R${k + 1}`, L: fmt(s.maxPositionEmbeddings) }))];
      if (s.type === 'longrope') {
        return [el('p', { class: 'result', 'data-switch': String(s.originalMaxPositionEmbeddings) },
          tf('yourmodel.switch.longrope', { rope: `R${k + 1}`, L: fmt(s.originalMaxPositionEmbeddings), L1: fmt(s.originalMaxPositionEmbeddings + 1), a: fmt(g.rope.attentionFactor) }))];
      }
      return [];
    });
    switches.replaceChildren(...(sw.length > 0 ? sw : rs.length > 0 ? [el('p', { class: 'result' }, t('yourmodel.switch.none'))] : []));
    const fs = rs.flatMap((g, k) => (g.rope.attentionFactor === 1 ? [] : [el('p', { class: 'result', 'data-factor': String(g.rope.attentionFactor) },
      tf('yourmodel.factor', { rope: `R${k + 1}`, a: fmt(g.rope.attentionFactor), a2: fmt(g.rope.attentionFactor ** 2) }))]));
    if (fs.length === 0 && rs.length > 0) fs.push(el('p', { class: 'result' }, t('yourmodel.factor.one')));
    if (rc.keysRead.some((k) => k.endsWith('qk_rope_head_dim')) && rs.length > 0) {
      fs.push(el('p', { class: 'result', id: 'ym-mla' }, tf('yourmodel.mla', { r: rs[0]!.rope.rotaryDim })));
    }
    if (rc.softmaxScale !== undefined) {
      fs.push(el('p', { class: 'result', id: 'ym-softmax', 'data-value': String(rc.softmaxScale) }, tf('yourmodel.softmax', { type: rc.modelType ?? '', s: fmt(rc.softmaxScale) })));
    }
    factors.replaceChildren(...fs);

    // M-RoPE: the split in words and a bar of the pairs, coloured by row.
    mrope.replaceChildren(...rs.flatMap((g, k) => {
      const m = g.rope.mrope;
      if (m === undefined) return [];
      const [a, b, c] = m.section as [number, number, number];
      const turns = m.interleaved ?? false;
      const split = tf(turns ? 'yourmodel.mrope.turns' : 'yourmodel.mrope.chunks', { t: a, h: b, w: c });
      // Pair i's row: in chunks, by the running sums; in turn, i mod 3 while that row has pairs left (then temporal), as transformers assigns them.
      const rows = Array.from({ length: a + b + c }, (_, i) => {
        if (!turns) return i < a ? 0 : i < a + b ? 1 : 2;
        const r = i % 3;
        return r === 1 && i < 3 * b ? 1 : r === 2 && i < 3 * c ? 2 : 0;
      });
      const bar = el('div', { class: 'ym-pairs', id: `ym-mrope-R${k + 1}`, 'data-rows': rows.join('') },
        ...rows.map((r, i) => el('span', { class: `ym-pair row${r}`, title: `${tf('yourmodel.pair', { i })}: ${t((['yourmodel.mrope.t', 'yourmodel.mrope.h', 'yourmodel.mrope.w'] as const)[r]!)}` })));
      const legend = el('p', { class: 'note ym-legend' }, ...(['yourmodel.mrope.t', 'yourmodel.mrope.h', 'yourmodel.mrope.w'] as const).map((key, r) =>
        el('span', {}, el('span', { class: `ym-pair row${r}` }), ` ${t(key)}  `)));
      return [el('p', { class: 'result' }, tf('yourmodel.mrope', { rope: `R${k + 1}`, split })), figure('yourmodel.mrope.fig', bar, legend), text('yourmodel.mrope.text', 'p', 'note')];
    }));

    const q = rc.queryScaling;
    qs.hidden = q === undefined;
    qs.textContent = q === undefined ? '' : tf('yourmodel.qs', { n: q.layers.length, beta: fmt(q.beta), shift: q.shift, len: fmt(q.length) });
    defaulted.replaceChildren(...(rc.defaulted.length === 0 ? [] : [el('p', { class: 'note' }, t('yourmodel.defaulted')), el('ul', { class: 'note' }, ...rc.defaulted.map((d) => el('li', {}, el('code', {}, d))))]));
    code.refresh();
    root.dataset.model = current.rc.modelType ?? '';
  };
  onLangChange(render);

  /** Reads the box: JSON, then the core. Errors are shown in place of the results; the previous state is dropped. */
  const read = (sourceOf: () => Array<Node | string>): void => {
    const fail = (message: string): void => {
      current = undefined;
      error.textContent = message;
      error.hidden = false;
      results.hidden = true;
      root.dataset.state = 'error';
    };
    const raw = box.value.trim();
    if (raw === '') return fail(t('yourmodel.error.empty'));
    let config: unknown;
    try {
      config = JSON.parse(raw);
    } catch (e) {
      return fail(t('yourmodel.error.json') + (e instanceof Error ? e.message : String(e)));
    }
    if (typeof config !== 'object' || config === null || Array.isArray(config)) {
      const kind = Array.isArray(config) ? 'array' : config === null ? 'null' : typeof config;
      return fail(tf('yourmodel.error.object', { kind: t(`yourmodel.kind.${kind}` as Key) }));
    }
    try {
      const rc = ctx.pe.ropeFromConfig(config);
      current = { rc, gs: ropeGroups(rc), sourceOf };
    } catch (e) {
      // An unknown model type: what the reader can do about it, in their language, before the core's message.
      const layout = e instanceof Error && e.message.includes("not in posenc's layout table");
      return fail(`${layout ? `${t('yourmodel.error.layout')}\n` : ''}${errorText(e)}`);
    }
    error.hidden = true;
    error.textContent = '';
    results.hidden = false;
    render();
    root.dataset.state = 'ok';
  };

  const pick = (id: string): void => {
    choice = id;
    const c = PUBLISHED_CONFIGS.find((x) => x.id === id);
    if (c === undefined) {
      box.focus();
      box.select();
      return;
    }
    box.value = JSON.stringify(c.config, null, 2);
    // The repository is a name (translate="no"); the rest follows the language.
    read(() => [t('yourmodel.source'), el('span', { translate: 'no' }, c.repo),
      `${lang() === 'zh' ? '，' : ', '}${t('yourmodel.source.keys')}${c.how === undefined ? '' : lang() === 'zh' ? `（${c.how.zh}）` : ` (${c.how.en})`}`]);
  };
  const picker = select<string>({
    label: 'yourmodel.pick', param: 'y.model', value: choice,
    options: [...PUBLISHED_CONFIGS.map((c) => [c.id, c.name] as const), [PASTE, () => t('yourmodel.pick.paste')] as const],
    onChange: pick,
  });
  picker.input.id = 'ym-pick';
  // Model names are names, in either language.
  for (const o of Array.from(picker.input.options)) if (o.value !== PASTE) o.setAttribute('translate', 'no');
  const pasted = (): string[] => [`${t('yourmodel.source')}${t('yourmodel.source.pasted')}`];
  readButton.addEventListener('click', () => {
    // Reading the box's own text: it is the reader's config from now on.
    if (choice !== PASTE) {
      const c = PUBLISHED_CONFIGS.find((x) => x.id === choice);
      if (c === undefined || box.value !== JSON.stringify(c.config, null, 2)) {
        choice = PASTE;
        picker.input.value = PASTE;
        setParam('y.model', PASTE);
      }
    }
    if (choice === PASTE) read(pasted);
    else pick(choice);
  });
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) readButton.click();
  });
  error.hidden = true;

  results.append(
    source, summary,
    figure('yourmodel.strip', strip),
    el('div', { class: 'table-scroll' }, plan),
    el('div', { class: 'figs' }, el('div', {}, figure('yourmodel.wl', wave.el), wlLines, wlLook)),
    el('h3', {}, text('yourmodel.switch')), switches, factors, mrope, qs, defaulted,
    el('h3', {}, text('yourmodel.code')), code.el,
  );
  root.append(
    el('div', { class: 'controls ym-controls' }, picker.el),
    el('div', { class: 'ym-input' }, el('label', { for: 'ym-config' }, text('yourmodel.paste')), box, el('div', {}, readButton)),
    error, results,
  );
  // The config is read when the reader comes near (the core is already loaded: this is instant).
  whenNear(root, () => pick(choice === PASTE ? ids[0]! : choice));
}
