// The cos/sin cache of the notes, one line at a time: each line of a
// PyTorch-style implementation (our own code for the notes' steps) beside its
// shape and the numbers posenc computes for it (pe.ropeFrequencies for
// inv_freq, pe.ropeCache for the cache built once up to max_len, rows taken
// by position ids, pe.applyRope for the result). q, k: [1, 2, 4, 8] as in the
// articles; adjacent pairs (`interleaved`), as their rotate_half pairs them.
import type { Posenc } from 'posenc';

import { liveText, tf } from '../../textfill.js';
import { maxDiff } from '../../vec.js';
import { coalesce, el, numberControl } from '../../ui.js';
import { codeSteps, stepsLesson, type CodeLine, type CodeRun } from './code-steps.js';

const [H, T, D] = [2, 4, 8];
const BASE = 10000;


/** `x` turned by pairs (x0, x1) -> (-x1, x0) (the articles' rotate_half for adjacent pairs). `[..., D] -> [..., D]`. */
function swapPairs(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i += 2) {
    out[i] = -x[i + 1]!;
    out[i + 1] = x[i]!;
  }
  return out;
}

/** The lines for `maxLen` cached positions and the position ids `ids`; throws (the page shows it) when an id has no row. */
function lines(pe: Posenc, q: Float32Array, maxLen: number, ids: Int32Array): CodeRun & { qRot?: Float32Array } {
  const { invFreq } = pe.ropeFrequencies({ headDim: D, base: BASE });
  // The cache, built once for positions 0 .. maxLen - 1: [maxLen, D] each.
  const cache = pe.ropeCache({ headDim: D, base: BASE, layout: 'interleaved', seqLen: maxLen });
  const rowsOf = (table: Float32Array, width: number): Float32Array => {
    const out = new Float32Array(ids.length * width);
    ids.forEach((p, r) => out.set(table.subarray(p * width, (p + 1) * width), r * width));
    return out;
  };
  const idText = Array.from(ids).join(', ');
  // angle = pos[:, None] * inv_freq: the rows at the ids, in float32 as torch computes them.
  const freqs = new Float32Array(ids.length * (D / 2));
  ids.forEach((p, r) => invFreq.forEach((f, i) => { freqs[r * (D / 2) + i] = Math.fround(p * f); }));
  // Rows are shown at the ids; an id past the cache has none (the indexing line fails).
  const bad = Array.from(ids).find((p) => p >= maxLen);
  const at = <T>(v: T): T | undefined => (bad === undefined ? v : undefined);
  const out: CodeLine[] = [
    { code: `inv_freq = base ** (-torch.arange(0, ${D}, 2) / ${D})`, note: 'examples.cache.l.invfreq', shape: [D / 2], values: { data: invFreq, shape: [D / 2] } },
    { code: 'pos = torch.arange(max_len, dtype=torch.float32)', note: 'examples.cache.l.t', shape: [maxLen] },
    { code: 'angle = pos[:, None] * inv_freq', note: 'examples.cache.l.freqs', shape: [maxLen, D / 2], values: at({ data: freqs, shape: [ids.length, D / 2], label: `angle[[${idText}]]` }) },
    { code: 'angle = torch.stack((angle, angle), dim=-1).flatten(1)', note: 'examples.cache.l.emb', shape: [maxLen, D] },
  ];
  if (bad !== undefined) {
    out.push(
      { code: 'cos_table, sin_table = angle.cos(), angle.sin()', note: 'examples.cache.l.cached', shape: [maxLen, D] },
      { code: 'cos = cos_table[position_ids].view(1, 1, -1, d)', note: 'examples.cache.l.index', shape: [1, 1, ids.length, D] },
    );
    return { lines: out, error: tf('examples.cache.norow', { p: bad, max: maxLen, last: maxLen - 1 }) };
  }
  const cos = rowsOf(cache.cos, cache.width), sin = rowsOf(cache.sin, cache.width);
  out.push(
    { code: 'cos_table, sin_table = angle.cos(), angle.sin()', note: 'examples.cache.l.cached', shape: [maxLen, D], values: { data: cos, shape: [ids.length, D], label: `cos_table[[${idText}]]` } },
    { code: 'cos = cos_table[position_ids].view(1, 1, -1, d)', note: 'examples.cache.l.index', shape: [1, 1, ids.length, D] },
    { code: 'sin = sin_table[position_ids].view(1, 1, -1, d)', note: 'examples.cache.l.index', shape: [1, 1, ids.length, D], values: { data: sin, shape: [ids.length, D], label: 'sin[0, 0]' } },
  );
  // q * cos + q_swap * sin, each head, in float32 (torch's order: two products, one sum).
  const rh = swapPairs(q);
  const qRot = new Float32Array(q.length);
  for (let h = 0; h < H; h++) {
    for (let r = 0; r < T; r++) {
      for (let d = 0; d < D; d++) {
        const e = (h * T + r) * D + d;
        qRot[e] = Math.fround(Math.fround(q[e]! * cos[r * D + d]!) + Math.fround(rh[e]! * sin[r * D + d]!));
      }
    }
  }
  out.push(
    { code: 'q_swap = (q.unflatten(-1, (-1, 2)).flip(-1) * torch.tensor([-1.0, 1.0])).flatten(-2)', note: 'examples.cache.l.swap', shape: [1, H, T, D] },
    { code: 'q_rot = q * cos + q_swap * sin', note: 'examples.cache.l.rot', shape: [1, H, T, D], values: { data: qRot.subarray(0, T * D), shape: [T, D], label: 'q_rot[0, 0]' } },
  );
  return { lines: out, qRot };
}

/** The lesson: max_len and the first position id as controls, the lines as a table, and the check against pe.applyRope. */
export function cacheStepsExample(pe: Posenc): HTMLElement {
  // q: [1, 2, 4, 8] flattened, fixed values.
  const q = Float32Array.from({ length: H * T * D }, (_, i) => Math.sin(0.9 * i + 0.2));
  const st = { maxLen: 16, first: 0 };
  const idsOut = el('pre', { class: 'code', id: 'ex-cache-ids' });
  const check = liveText('p', 'lesson-readout');
  check.el.id = 'ex-cache-check';
  const ids = (): Int32Array => Int32Array.from({ length: T }, (_, i) => st.first + i);
  let last: ReturnType<typeof lines> | undefined;
  const steps = codeSteps('ex-cache-steps', () => (last = lines(pe, q, st.maxLen, ids())));
  const render = (): void => {
    idsOut.textContent = `base, d, max_len = ${BASE}.0, ${D}, ${st.maxLen}\nposition_ids = torch.tensor([${Array.from(ids()).join(', ')}])`;
    steps.show();
    const table = steps.el.querySelector<HTMLElement>('table')!;
    table.dataset.q = JSON.stringify(Array.from(q));
    table.dataset.ids = JSON.stringify(Array.from(ids()));
    if (last?.qRot === undefined) {
      check.set(undefined);
      return;
    }
    const direct = pe.applyRope(q, { heads: H, seqLen: T, headDim: D, layout: 'interleaved', base: BASE, positions: ids() });
    const diff = maxDiff(direct, last.qRot);
    check.set('examples.cache.check', { diff: diff.toExponential(1) });
    check.el.dataset.value = String(diff);
  };
  const update = coalesce(render);
  const maxLen = numberControl({ label: 'examples.cache.max', param: 'x.cmax', initial: 16, min: 4, max: 64, step: 1 }, (v) => { st.maxLen = v; update(); });
  const first = numberControl({ label: 'examples.cache.first', param: 'x.cfirst', initial: 0, min: 0, max: 64, step: 1 }, (v) => { st.first = v; update(); });
  st.maxLen = maxLen.value();
  st.first = first.value();
  render();
  return stepsLesson('ex-cache', 'examples.cache', [maxLen.el, first.el], idsOut, steps.el, check.el);
}
