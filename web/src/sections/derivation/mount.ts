// Section "derivation": RoPE step by step, every number from the wasm core.
// 1 a rotation keeps the norm; 2 R_m^T R_n = R_{n-m} = R_{m-n}^T; 3 x*cos + rotate_half(x)*sin
// in both pair layouts; 4 why Q and K but not V; 5 additive sinusoidal vs RoPE
// inside the score. Shapes: x [heads, seqLen, headDim] as posenc takes them.
import type { Posenc, RopeLayout } from 'posenc';

import { onLangChange, t, type Key } from '../../i18n.js';
import { matVec, rich, seeded, setValue, valueOut } from '../../lessonkit.js';
import { dot, maxDiff, norm } from '../../vec.js';
import { LinePlot, PALETTE } from '../../plot.js';
import { renderRich } from '../../tex.js';
import { valueGap } from '../../textfill.js';
import { coalesce, el, figure, fmtNum, lab, numberControl, text, timed, type Slider } from '../../ui.js';
import type { Ctx } from '../context.js';

const BLUE = PALETTE[0] as string;
const ORANGE = PALETTE[1] as string;

function step(id: string, title: Key, intro: Key, ...content: Node[]): HTMLElement {
  return el('div', { class: 'lesson', id }, text(title, 'h3'), rich(intro, 'div', 'explain'), ...content);
}

/** Inline TeX that needs no translation. */
function math(tex: string): HTMLElement {
  const e = el('span');
  renderRich(e, tex);
  return e;
}

/** A TeX block whose content is set from numbers (no translation needed). */
function texBox(cls = 'tex-row'): { el: HTMLElement; set(tex: string): void } {
  const e = el('div', { class: cls });
  return {
    el: e,
    set: (tex) => {
      e.dataset.tex = tex;  // the source, for readers of the DOM (tests)
      renderRich(e, tex);
    },
  };
}

const f3 = (v: number): string => (Math.abs(v) < 5e-4 ? '0.000' : v.toFixed(3));
const pmatrix = (m: ArrayLike<number>): string =>
  `\\begin{pmatrix}${f3(m[0] as number)} & ${f3(m[1] as number)}\\\\ ${f3(m[2] as number)} & ${f3(m[3] as number)}\\end{pmatrix}`;

// ---- RoPE on one 2-D pair at angle m * theta

/**
 * A 2-dim head has the single frequency b^0 = 1; posenc's linear scaling
 * divides it by `factor`, so factor = 1/theta gives the angle m * theta.
 */
function rope2(pe: Posenc, x: Float32Array, heads: number, m: number, theta: number): Float32Array {
  return pe.applyRope(x, { heads, seqLen: 1, headDim: 2, layout: 'interleaved', offset: m, scaling: { type: 'linear', factor: 1 / theta } });
}

/** R(m theta) as [2, 2] row-major: its columns are applyRope of the basis vectors (two heads). */
function rotMatrix(pe: Posenc, m: number, theta: number): Float64Array {
  const cols = rope2(pe, Float32Array.of(1, 0, 0, 1), 2, m, theta);
  return Float64Array.of(cols[0] as number, cols[2] as number, cols[1] as number, cols[3] as number);
}

const matMul2 = (a: ArrayLike<number>, b: ArrayLike<number>): Float64Array => {
  const [a0, a1, a2, a3] = [a[0] as number, a[1] as number, a[2] as number, a[3] as number];
  const [b0, b1, b2, b3] = [b[0] as number, b[1] as number, b[2] as number, b[3] as number];
  return Float64Array.of(a0 * b0 + a1 * b2, a0 * b1 + a1 * b3, a2 * b0 + a3 * b2, a2 * b1 + a3 * b3);
};
const transpose2 = (a: ArrayLike<number>): Float64Array => Float64Array.of(a[0] as number, a[2] as number, a[1] as number, a[3] as number);

// ---- Step 1: the 2-D plane, with a draggable x

const SVG_NS = 'http://www.w3.org/2000/svg';
function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

interface Plane {
  el: SVGSVGElement;
  draw(x: ArrayLike<number>, rx: ArrayLike<number>, angle: number): void;
}

/** The plane of one pair, ±2.6 on both axes, 50 px per unit; x can be dragged or moved by the arrow keys. */
function plane(onMove: (x: [number, number]) => void): Plane {
  const S = 50, C = 140, LIM = 2.4;
  const px = (v: number): number => C + v * S, py = (v: number): number => C - v * S;
  const root = svg('svg', { viewBox: '0 0 280 280', class: 'plane', role: 'group', 'aria-label': 'x, R x' });
  const axes = svg('g', { class: 'plane-axes' });
  axes.append(svg('line', { x1: 10, y1: C, x2: 270, y2: C }), svg('line', { x1: C, y1: 10, x2: C, y2: 270 }));
  for (const v of [-2, -1, 1, 2]) {
    axes.append(svg('line', { x1: px(v), y1: C - 3, x2: px(v), y2: C + 3 }), svg('line', { x1: C - 3, y1: py(v), x2: C + 3, y2: py(v) }));
    const tx = svg('text', { x: px(v), y: C + 15, 'text-anchor': 'middle' });
    tx.textContent = String(v);
    const ty = svg('text', { x: C - 6, y: py(v) + 4, 'text-anchor': 'end' });
    ty.textContent = String(v);
    axes.append(tx, ty);
  }
  const lx = svg('text', { x: 272, y: C - 6, 'text-anchor': 'end' });
  const ly = svg('text', { x: C + 6, y: 16 });
  const name = (): void => {
    lx.textContent = t('derivation.s1.axis0');
    ly.textContent = t('derivation.s1.axis1');
  };
  name();
  onLangChange(name);
  axes.append(lx, ly);
  const circle = svg('circle', { cx: C, cy: C, class: 'plane-circle' });
  const arc = svg('path', { class: 'plane-arc' });
  const vx = svg('line', { x1: C, y1: C, stroke: BLUE, 'stroke-width': 2.5 });
  const vr = svg('line', { x1: C, y1: C, stroke: ORANGE, 'stroke-width': 2.5 });
  const tipR = svg('circle', { r: 4, fill: ORANGE });
  const labelX = svg('text', { fill: BLUE, class: 'plane-label' });
  labelX.textContent = 'x';
  const labelR = svg('text', { fill: ORANGE, class: 'plane-label' });
  labelR.textContent = 'R x';
  const handle = svg('circle', { r: 8, fill: BLUE, class: 'plane-handle', tabindex: 0, role: 'slider', 'aria-label': 'x' });
  root.append(axes, circle, arc, vx, vr, tipR, labelX, labelR, handle);

  let cur: [number, number] = [1, 0];
  const clamp = (v: number): number => Math.max(-LIM, Math.min(LIM, Math.round(v * 100) / 100));
  const fromEvent = (e: PointerEvent): [number, number] => {
    const r = root.getBoundingClientRect();
    const sx = ((e.clientX - r.left) / r.width) * 280, sy = ((e.clientY - r.top) / r.height) * 280;
    return [clamp((sx - C) / S), clamp((C - sy) / S)];
  };
  let dragging = false;
  root.addEventListener('pointerdown', (e) => {
    dragging = true;
    root.setPointerCapture(e.pointerId);
    onMove(fromEvent(e));
    e.preventDefault();
  });
  root.addEventListener('pointermove', (e) => {
    if (dragging) onMove(fromEvent(e));
  });
  root.addEventListener('pointerup', () => (dragging = false));
  handle.addEventListener('keydown', (e) => {
    const d: Record<string, [number, number]> = { ArrowLeft: [-0.1, 0], ArrowRight: [0.1, 0], ArrowUp: [0, 0.1], ArrowDown: [0, -0.1] };
    const m = d[e.key];
    if (!m) return;
    e.preventDefault();
    // cur moves at once: several keys may arrive before the next frame draws.
    cur = [clamp(cur[0] + m[0]), clamp(cur[1] + m[1])];
    onMove(cur);
  });
  return {
    el: root,
    draw(x, rx, angle) {
      cur = [x[0] as number, x[1] as number];
      const r = Math.hypot(cur[0], cur[1]);
      circle.setAttribute('r', String(r * S));
      for (const [line, v] of [[vx, x], [vr, rx]] as const) {
        line.setAttribute('x2', String(px(v[0] as number)));
        line.setAttribute('y2', String(py(v[1] as number)));
      }
      handle.setAttribute('cx', String(px(cur[0])));
      handle.setAttribute('cy', String(py(cur[1])));
      handle.setAttribute('aria-valuetext', `x = (${cur[0].toFixed(2)}, ${cur[1].toFixed(2)})`);
      tipR.setAttribute('cx', String(px(rx[0] as number)));
      tipR.setAttribute('cy', String(py(rx[1] as number)));
      const place = (label: SVGTextElement, v: ArrayLike<number>): void => {
        const a = Math.atan2(v[1] as number, v[0] as number);
        const len = Math.hypot(v[0] as number, v[1] as number) * S + 14;
        label.setAttribute('x', String(C + Math.cos(a) * len - 6));
        label.setAttribute('y', String(C - Math.sin(a) * len + 5));
      };
      place(labelX, x);
      place(labelR, rx);
      // The arc of the angle m*theta (mod 2 pi), from x's direction, radius 0.45.
      const a0 = Math.atan2(cur[1], cur[0]);
      const turn = ((angle % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI);
      const ra = 0.45 * S;
      const p0 = [C + Math.cos(a0) * ra, C - Math.sin(a0) * ra], p1 = [C + Math.cos(a0 + turn) * ra, C - Math.sin(a0 + turn) * ra];
      arc.setAttribute('d', turn < 1e-6 || r < 1e-6 ? '' : `M ${p0[0]} ${p0[1]} A ${ra} ${ra} 0 ${turn > Math.PI ? 1 : 0} 0 ${p1[0]} ${p1[1]}`);
    },
  };
}

interface Shared {
  /** The angle step θ (step 1's control; steps 1 and 2 read it). */
  theta: Slider;
  onTheta: Array<() => void>;
}

function rotationStep(pe: Posenc, shared: Shared): HTMLElement {
  const mCtl = numberControl({ label: 'derivation.s1.m', param: 'd.m', min: 0, max: 24, step: 1, initial: 2 }, () => update());
  const st = { x: [1.5, 0.5] as [number, number] };
  const normX = valueOut('der-norm-x', 'big zero'), normRx = valueOut('der-norm-rx', 'big zero');
  const vecs = el('div', { class: 'lesson-readout', id: 'der-rot-vecs' });
  const matrix = texBox();
  const pl = plane((x) => {
    st.x = x;
    update();
  });
  const render = (): void => {
    const x = Float32Array.from(st.x);
    const m = mCtl.value(), theta = shared.theta.value();
    const rx = rope2(pe, x, 1, m, theta);
    const r = rotMatrix(pe, m, theta);
    pl.draw(x, rx, m * theta);
    setValue(normX, norm(x), 5);
    setValue(normRx, norm(rx), 5);
    vecs.textContent = `x = (${x[0]!.toFixed(3)}, ${x[1]!.toFixed(3)})   R x = (${rx[0]!.toFixed(3)}, ${rx[1]!.toFixed(3)})   mθ = ${(m * theta).toFixed(3)} rad`;
    vecs.dataset.x = JSON.stringify(Array.from(x));
    vecs.dataset.rx = JSON.stringify(Array.from(rx));
    matrix.set(`$$R(m\\theta) = R(${(m * theta).toFixed(2)}) = ${pmatrix(r)}$$`);
  };
  const update = coalesce(timed('der-rot', render));
  shared.onTheta.push(update);
  const controls = el(
    'div', { class: 'controls' },
    mCtl.el,
    shared.theta.el,
  );
  render();
  const side = el(
    'div', { class: 'lesson-side' }, matrix.el, vecs,
    el('div', { class: 'norm-pair' }, el('span', {}, '‖x‖ = '), normX, el('span', {}, '‖R x‖ = '), normRx),
  );
  return step('der-rot', 'derivation.s1.title', 'derivation.s1.text',
    lab({ sticky: 'figures', controls: [controls, side], figures: [figure('derivation.s1.fig', pl.el, text('derivation.s1.look', 'p', 'note'))] }));
}

// ---- Step 2: R_m^T R_n = R_{n-m}

/** Screens too narrow for section 5's one-line matrix product. */
const narrow = window.matchMedia('(max-width: 640px)');

function relativeStep(pe: Posenc, shared: Shared): HTMLElement {
  const st = {
    // The key before the query by default (n <= m, as the causal mask allows): the page's distance m - n = 3.
    m: numberControl({ label: 'derivation.s2.m', param: 'd.m2', min: 0, max: 24, step: 1, initial: 5 }, () => update()),
    n: numberControl({ label: 'derivation.s2.n', param: 'd.n2', min: 0, max: 24, step: 1, initial: 2 }, () => update()),
  };
  const q = Float32Array.of(1.0, 0.4), k = Float32Array.of(-0.5, 0.9);
  const product = texBox(), relative = texBox();
  product.el.id = 'der-product';
  relative.el.id = 'der-relative';
  const matDiff = valueOut('der-mat-diff', 'big zero');
  const sMN = valueOut('der-score-mn'), sRel = valueOut('der-score-rel'), sMat = valueOut('der-score-mat');
  const render = (): void => {
    const m = st.m.value(), n = st.n.value();
    const th = shared.theta.value();
    const rm = rotMatrix(pe, m, th), rn = rotMatrix(pe, n, th), rnm = rotMatrix(pe, n - m, th);
    const p = matMul2(transpose2(rm), rn);
    // On a narrow screen the product stacks: the left side, "= the two factors", "= the result" (review D1).
    const lhs = `R_{${m}}^\\top R_{${n}}`, factors = `${pmatrix(transpose2(rm))}${pmatrix(rn)}`;
    product.set(narrow.matches
      ? `$$\\begin{aligned}&${lhs}\\\\ &= ${factors}\\\\ &= ${pmatrix(p)}\\end{aligned}$$`
      : `$$${lhs} = ${factors} = ${pmatrix(p)}$$`);
    // R_{n-m} = R_{m-n}^T: the key turned back by the distance m - n.
    relative.set(`$$R_{n-m} = R_{${n - m}} = R_{${m - n}}^\\top = ${pmatrix(rnm)}$$`);
    setValue(matDiff, maxDiff(p, rnm), 3);
    matDiff.dataset.product = JSON.stringify(Array.from(p));
    matDiff.dataset.relative = JSON.stringify(Array.from(rnm));
    matDiff.dataset.m = String(m);
    matDiff.dataset.n = String(n);
    setValue(sMN, dot(rope2(pe, q, 1, m, th), rope2(pe, k, 1, n, th)), 5);
    setValue(sRel, dot(q, rope2(pe, k, 1, n - m, th)), 5);
    const pk = [(p[0] as number) * k[0]! + (p[1] as number) * k[1]!, (p[2] as number) * k[0]! + (p[3] as number) * k[1]!];
    setValue(sMat, dot(q, pk), 5);
  };
  const update = coalesce(render);
  narrow.addEventListener('change', update);
  shared.onTheta.push(update);
  const controls = el(
    'div', { class: 'controls' },
    st.m.el,
    st.n.el,
  );
  render();
  const scores = el(
    'div', { class: 'lesson-scores' },
    el('div', { class: 'lesson-readout' }, math('$q = (1.0,\\ 0.4),\\quad k = (-0.5,\\ 0.9)$')),
    el('div', { class: 'lesson-readout' }, rich('derivation.s2.mn', 'span'), valueGap(), sMN),
    el('div', { class: 'lesson-readout' }, rich('derivation.s2.rel', 'span'), valueGap(), sRel),
    el('div', { class: 'lesson-readout' }, rich('derivation.s2.mat', 'span'), valueGap(), sMat),
    el('div', { class: 'lesson-readout' }, math('$\\max\\,|R_m^\\top R_n - R_{n-m}| = $'), ' ', matDiff),
  );
  return step('der-rel', 'derivation.s2.title', 'derivation.s2.text', controls,
    el('div', { class: 'tex-scroll' }, product.el, relative.el), scores, text('derivation.s2.look', 'p', 'note'));
}

// ---- Step 3: x*cos + rotate_half(x)*sin in both layouts

const D3 = 8;

/** Index of the pair dimension j belongs to, and its partner dimension. */
const pairOf = (layout: RopeLayout, j: number): number => (layout === 'interleaved' ? j >> 1 : j % (D3 / 2));

/** rotate_half of the given layout: interleaved (-x1, x0, -x3, x2, ...), half (-x[d/2:], x[:d/2]). */
export function rotateHalf(layout: RopeLayout, x: ArrayLike<number>): Float64Array {
  const d = x.length, h = d / 2;
  const out = new Float64Array(d);
  for (let i = 0; i < h; i++) {
    if (layout === 'interleaved') {
      out[2 * i] = -(x[2 * i + 1] as number);
      out[2 * i + 1] = x[2 * i] as number;
    } else {
      out[i] = -(x[i + h] as number);
      out[i + h] = x[i] as number;
    }
  }
  return out;
}

/** cos and sin rows [d] at position m: repeat_interleave (interleaved) or cat (half) of the [d/2] angles. */
export function cosSin(layout: RopeLayout, invFreq: ArrayLike<number>, m: number): { cos: Float64Array; sin: Float64Array } {
  const d = invFreq.length * 2;
  const angle = (j: number): number => m * (invFreq[layout === 'interleaved' ? j >> 1 : j % (d / 2)] as number);
  return { cos: Float64Array.from({ length: d }, (_, j) => Math.cos(angle(j))), sin: Float64Array.from({ length: d }, (_, j) => Math.sin(angle(j))) };
}

const combine = (x: ArrayLike<number>, cos: ArrayLike<number>, rh: ArrayLike<number>, sin: ArrayLike<number>): Float64Array =>
  Float64Array.from({ length: x.length }, (_, j) => (x[j] as number) * (cos[j] as number) + (rh[j] as number) * (sin[j] as number));

function layoutTable(layout: RopeLayout): { el: HTMLElement; fill(rows: Array<[string, ArrayLike<number>]>): void } {
  const table = el('table', { class: 'pairs-table', id: `der-table-${layout}` });
  const head = el('tr', {}, el('th', {}, text('derivation.s3.dim')), ...Array.from({ length: D3 }, (_, j) => el('th', { class: `pair-${pairOf(layout, j)}` }, String(j))));
  const pairs = el('tr', {}, el('th', {}, text('derivation.s3.pair')), ...Array.from({ length: D3 }, (_, j) => el('td', { class: `pair-${pairOf(layout, j)}` }, String(pairOf(layout, j)))));
  const body = el('tbody');
  table.append(el('thead', {}, head, pairs), body);
  return {
    el: el('div', { class: 'table-scroll' }, table),
    fill(rows) {
      body.replaceChildren(...rows.map(([label, v]) => {
        const tr = el('tr', {}, el('th', {}, label), ...Array.from(v, (x, j) => el('td', { class: `pair-${pairOf(layout, j)}` }, x.toFixed(3))));
        tr.dataset.row = label;
        tr.dataset.values = JSON.stringify(Array.from(v));
        return tr;
      }));
    },
  };
}

function layoutStep(pe: Posenc): HTMLElement {
  const mCtl = numberControl({ label: 'derivation.s3.m', param: 'd.m3', min: 0, max: 64, step: 1, initial: 3 }, () => update());
  const x = seeded(D3, 61);
  const layouts: RopeLayout[] = ['interleaved', 'half'];
  const tables = layouts.map(layoutTable);
  const diffs = layouts.map((l) => valueOut(`der-lay-diff-${l}`, 'big zero'));
  const norms = layouts.map((l) => valueOut(`der-lay-norm-${l}`));
  const xNorm = valueOut('der-x8-norm'), misNorm = valueOut('der-mis-norm', 'big'), permDiff = valueOut('der-perm-diff', 'big zero');
  const render = (): void => {
    const m = mCtl.value();
    const { invFreq } = pe.ropeFrequencies({ headDim: D3 });
    layouts.forEach((layout, li) => {
      const { cos, sin } = cosSin(layout, invFreq, m);
      const rh = rotateHalf(layout, x);
      const formula = combine(x, cos, rh, sin);
      const core = pe.applyRope(x, { heads: 1, seqLen: 1, headDim: D3, layout, offset: m });
      tables[li]!.fill([
        ['x', x], ['cos', cos], ['sin', sin], ['rotate_half(x)', rh],
        ['x·cos + rotate_half(x)·sin', formula], ['applyRope(x)', core],
      ]);
      setValue(diffs[li]!, maxDiff(formula, core), 3);
      setValue(norms[li]!, norm(core), 5);
    });
    // The articles' adjacent rotate_half with cos/sin built by cat (the half layout's).
    const half = cosSin('half', invFreq, m);
    const mis = combine(x, half.cos, rotateHalf('interleaved', x), half.sin);
    setValue(xNorm, norm(x), 5);
    setValue(misNorm, norm(mis), 5);
    // Hugging Face's conversion: dims (2i, 2i+1) -> (i, i + d/2), rotate in half, map back.
    const h = D3 / 2;
    const perm = new Float32Array(D3);
    for (let i = 0; i < h; i++) {
      perm[i] = x[2 * i]!;
      perm[i + h] = x[2 * i + 1]!;
    }
    const z = pe.applyRope(perm, { heads: 1, seqLen: 1, headDim: D3, layout: 'half', offset: m });
    const back = new Float32Array(D3);
    for (let i = 0; i < h; i++) {
      back[2 * i] = z[i]!;
      back[2 * i + 1] = z[i + h]!;
    }
    setValue(permDiff, maxDiff(back, pe.applyRope(x, { heads: 1, seqLen: 1, headDim: D3, layout: 'interleaved', offset: m })), 3);
  };
  const update = coalesce(render);
  const controls = el('div', { class: 'controls' }, mCtl.el);
  render();
  const card = (li: number): HTMLElement => el(
    'figure', { class: 'layout-card' }, text(li === 0 ? 'derivation.s3.interleaved' : 'derivation.s3.half', 'figcaption'), tables[li]!.el,
    el('div', { class: 'lesson-readout' }, text('derivation.s3.diff'), diffs[li]!),
    el('div', { class: 'lesson-readout' }, el('span', {}, '‖applyRope(x)‖ = '), norms[li]!),
  );
  return step('der-layout', 'derivation.s3.title', 'derivation.s3.text', lab({
    sticky: 'controls',
    controls: [controls],
    figures: [
      // Shown only where the tables wrap each row in two lines (style.css, phones).
      text('derivation.s3.stack', 'p', 'note pairs-stack'),
      el('div', { class: 'layout-cards' }, card(0), card(1)),
      text('derivation.s3.look', 'p', 'note'),
      el('div', { class: 'lesson-readout' }, text('derivation.s3.mis'), valueGap(), el('span', {}, '‖x‖ = '), xNorm, el('span', {}, ', ‖out‖ = '), misNorm),
      el('div', { class: 'lesson-readout' }, text('derivation.s3.perm'), valueGap(), permDiff),
    ],
  }));
}

// ---- Step 4: why Q and K, not V

function valueStep(pe: Posenc): HTMLElement {
  const T = 6, D = 8, SMAX = 256;
  const sCtl = numberControl({ label: 'derivation.s4.s', param: 'd.s4', min: 0, max: SMAX, step: 1, initial: 50 }, () => update());
  // q, k, v: [1, T, D]
  const q = seeded(T * D, 71, 1.5), k = seeded(T * D, 72, 1.5), v = seeded(T * D, 73);
  const positions = (off: number): Int32Array => Int32Array.from({ length: T }, (_, i) => off + i);
  const attend = (off: number, rotateV: boolean): { out: Float32Array; weights: Float32Array } => {
    const vv = rotateV ? pe.applyRope(v, { heads: 1, seqLen: T, headDim: D, layout: 'interleaved', offset: off }) : v;
    const r = pe.attention({
      q, k, v: vv, heads: 1, queryLength: T, keyLength: T, headDim: D, returnWeights: true,
      rope: { layout: 'interleaved', queryPositions: positions(off), keyPositions: positions(off) },
    });
    return { out: r.out, weights: r.weights ?? new Float32Array(0) };
  };
  const plain = pe.attention({ q, k, v, heads: 1, queryLength: T, keyLength: T, headDim: D, returnWeights: true });
  const base = [attend(0, false), attend(0, true)] as const;
  const cells = {
    w: [valueOut('der-v-w-qk'), valueOut('der-v-w-qkv')],
    o: [valueOut('der-v-qk', 'big zero'), valueOut('der-v-qkv', 'big')],
  };
  const plot = new LinePlot({
    xLabel: () => t('derivation.s4.x'), yLabel: () => 'max |out(s) − out(0)|',
    series: [{ label: () => t('derivation.s4.qk'), color: BLUE }, { label: () => t('derivation.s4.qkv'), color: ORANGE }],
    height: 220, markers: () => [sCtl.value()],
  });
  const xs: number[] = [], ys: [number[], number[]] = [[], []];
  for (let off = 0; off <= SMAX; off++) {
    xs.push(off);
    ys[0].push(maxDiff(attend(off, false).out, base[0].out));
    ys[1].push(maxDiff(attend(off, true).out, base[1].out));
  }
  const render = (): void => {
    [false, true].forEach((rotateV, i) => {
      const r = attend(sCtl.value(), rotateV);
      setValue(cells.w[i]!, maxDiff(r.weights, plain.weights ?? []), 4);
      setValue(cells.o[i]!, maxDiff(r.out, base[i]!.out), 3);
    });
    plot.setData([xs, ...ys]);
  };
  const update = coalesce(render);
  const controls = el('div', { class: 'controls' }, sCtl.el);
  render();
  const table = el(
    'table', { class: 'answers lesson-table' },
    el('thead', {}, el('tr', {}, el('th'), el('th', {}, text('derivation.s4.qk')), el('th', {}, text('derivation.s4.qkv')))),
    el('tbody', {},
      el('tr', {}, el('th', {}, text('derivation.s4.wrow')), el('td', {}, cells.w[0]!), el('td', {}, cells.w[1]!)),
      el('tr', {}, el('th', {}, text('derivation.s4.orow')), el('td', {}, cells.o[0]!), el('td', {}, cells.o[1]!))),
  );
  return step('der-v', 'derivation.s4.title', 'derivation.s4.text',
    lab({ sticky: 'figures', controls: [controls, el('div', { class: 'table-scroll' }, table)], figures: [figure('derivation.s4.fig', plot.el, text('derivation.s4.look', 'p', 'note'))] }));
}

// ---- Step 5: additive sinusoidal vs RoPE inside the score

function additiveStep(pe: Posenc): HTMLElement {
  const D = 8, SMAX = 256;
  const st = {
    m: numberControl({ label: 'derivation.s2.m', param: 'd.m5', min: 0, max: 64, step: 1, initial: 5 }, () => update()),
    n: numberControl({ label: 'derivation.s2.n', param: 'd.n5', min: 0, max: 64, step: 1, initial: 2 }, () => update()),
    s: numberControl({ label: 'derivation.s4.s', param: 'd.s5', min: 0, max: SMAX, step: 1, initial: 30 }, () => update()),
  };
  // W_q, W_k: [D, D] fixed random projections; x_m, x_n: [D] the contents of two tokens.
  const scale = Math.sqrt(3 / D);
  const wq = seeded(D * D, 81, scale), wk = seeded(D * D, 82, scale);
  const xm = seeded(D, 83), xn = seeded(D, 84);
  const qx = matVec(wq, xm, D, D), kx = matVec(wk, xn, D, D);
  const table = pe.sinusoidal({ length: 64 + SMAX + 1, dim: D, layout: 'interleaved' }); // [321, D]
  const row = (p: number): Float32Array => table.subarray(p * D, (p + 1) * D);
  const rot = (x: Float32Array, p: number): Float32Array => pe.applyRope(x, { heads: 1, seqLen: 1, headDim: D, layout: 'interleaved', offset: p });
  const add = (a: Float32Array, b: Float32Array): Float32Array => a.map((v, i) => v + (b[i] as number));
  /** The four terms of the additive score and their sum computed directly. */
  const additive = (a: number, b: number): { terms: number[]; total: number } => {
    const qp = matVec(wq, row(a), D, D), kp = matVec(wk, row(b), D, D);
    return {
      terms: [dot(qx, kx), dot(qx, kp), dot(qp, kx), dot(qp, kp)],
      total: dot(matVec(wq, add(xm, row(a)), D, D), matVec(wk, add(xn, row(b)), D, D)),
    };
  };
  const ropeScore = (a: number, b: number): number => dot(rot(qx, a), rot(kx, b));
  const labels = ['$W_qx_m\\cdot W_kx_n$', '$W_qx_m\\cdot W_kp_n$', '$W_qp_m\\cdot W_kx_n$', '$W_qp_m\\cdot W_kp_n$'];
  const termCells = labels.map(() => [el('td'), el('td')] as const);
  const addOut = [valueOut('der-add-0'), valueOut('der-add-s', 'big')];
  const ropeOut = [valueOut('der-rope-0'), valueOut('der-rope-s', 'big zero')];
  const relOut = valueOut('der-rope-rel');
  const plot = new LinePlot({
    xLabel: () => t('derivation.s4.x'), yLabel: () => t('derivation.s5.y'),
    series: [{ label: () => t('derivation.s5.add'), color: BLUE }, { label: () => t('derivation.s5.rope'), color: ORANGE }],
    height: 220, markers: () => [st.s.value()],
  });
  const render = (): void => {
    const m = st.m.value(), n = st.n.value(), s = st.s.value();
    [[m, n], [m + s, n + s]].forEach(([a, b], c) => {
      const r = additive(a!, b!);
      r.terms.forEach((v, i) => {
        termCells[i]![c]!.textContent = fmtNum(v, 4);
        termCells[i]![c]!.dataset.value = String(v);
      });
      setValue(addOut[c]!, r.total, 4);
      setValue(ropeOut[c]!, ropeScore(a!, b!), 4);
    });
    setValue(relOut, dot(qx, rot(kx, n - m)), 4);
    const xs: number[] = [], add0: number[] = [], rope0: number[] = [];
    for (let k = 0; k <= SMAX; k++) {
      xs.push(k);
      add0.push(additive(m + k, n + k).total);
      rope0.push(ropeScore(m + k, n + k));
    }
    plot.setData([xs, add0, rope0]);
  };
  const update = coalesce(render);
  const controls = el(
    'div', { class: 'controls' },
    st.m.el,
    st.n.el,
    st.s.el,
  );
  render();
  const texCell = (tex: string): HTMLElement => el('th', {}, math(tex));
  const tbl = el(
    'table', { class: 'answers lesson-table', id: 'der-add-table' },
    el('thead', {}, el('tr', {}, el('th', {}, text('derivation.s5.term')), el('th', {}, '(m, n)'), el('th', {}, '(m+s, n+s)'))),
    el('tbody', {},
      ...labels.map((l, i) => el('tr', {}, texCell(l), termCells[i]![0], termCells[i]![1])),
      el('tr', { class: 'sum' }, el('th', {}, text('derivation.s5.sum')), el('td', {}, addOut[0]!), el('td', {}, addOut[1]!)),
      el('tr', { class: 'sum' }, rich('derivation.s5.ropeRow', 'th'), el('td', {}, ropeOut[0]!), el('td', {}, ropeOut[1]!)),
      el('tr', {}, rich('derivation.s5.rel', 'th'), el('td', {}, relOut), el('td'))),
  );
  return step('der-add', 'derivation.s5.title', 'derivation.s5.text',
    lab({ sticky: 'figures', controls: [controls, el('div', { class: 'table-scroll' }, tbl)], figures: [figure('derivation.s5.fig', plot.el, text('derivation.s5.look', 'p', 'note'))] }));
}

export function mount(ctx: Ctx, root: HTMLElement): void {
  const onTheta: Array<() => void> = [];
  const theta = numberControl({
    label: 'derivation.s1.theta', param: 'd.theta', min: 0.05, max: 1, step: 0.05, initial: 0.4, format: (v) => v.toFixed(2),
  }, () => { for (const f of onTheta) f(); });
  const shared: Shared = { theta, onTheta };
  root.append(
    rotationStep(ctx.pe, shared),
    relativeStep(ctx.pe, shared),
    layoutStep(ctx.pe),
    valueStep(ctx.pe),
    additiveStep(ctx.pe),
  );
}
