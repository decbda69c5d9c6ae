// Two more of the articles' pieces of code, one line at a time (our own code
// for the same steps, see code-steps.ts): the tutorial's sinusoidal module
// (a table built once up to max_len, kept with register_buffer, sliced to
// seq_len, added, then dropout) and its attention with an ALiBi bias
// (slopes, distance, bias, scores, causal mask, softmax, weighted sum), each
// line's numbers from posenc: pe.sinusoidal, pe.alibiSlopes, pe.attention.
import type { AlibiVariant, Posenc } from 'posenc';

import { onLangChange, t } from '../../i18n.js';
import { seeded } from '../../lessonkit.js';
import { liveText, tf } from '../../textfill.js';
import { maxDiff } from '../../vec.js';
import { coalesce, el, numberControl, select } from '../../ui.js';
import { codeSteps, stepsLesson, type CodeHeader, type CodeLine, type CodeRun } from './code-steps.js';

// ---- the sinusoidal module: batch 2, d_model 8

const B = 2;
const DM = 8;

/** The module's lines for a table of `maxLen` rows and an input of `seqLen` tokens; x: `[B, seqLen, DM]` token embeddings. */
function sinusoidalLines(pe: Posenc, maxLen: number, seqLen: number, x: Float32Array): CodeRun {
  const divTerm = pe.ropeFrequencies({ headDim: DM, base: 10000 }).invFreq;
  const table = pe.sinusoidal({ length: maxLen, dim: DM, layout: 'interleaved' }); // [maxLen, DM]
  const shown = Math.min(seqLen, maxLen);
  const lines: Array<CodeLine | CodeHeader> = [
    { code: 'x = token_embeddings', note: 'examples.sinmod.l.x', shape: [B, seqLen, DM], values: { data: x.subarray(0, seqLen * DM), shape: [seqLen, DM], label: 'x[0]' } },
    { header: 'def __init__(self, d_model, max_len, p, base=10000.0):' },
    { code: 'pos = torch.arange(max_len, dtype=torch.float32)[:, None]', note: 'examples.sinmod.l.position', shape: [maxLen, 1], inMethod: true },
    { code: 'inv_freq = base ** (-torch.arange(0, d_model, 2) / d_model)', note: 'examples.sinmod.l.div', shape: [DM / 2], values: { data: divTerm, shape: [DM / 2] }, inMethod: true },
    { code: 'angle = pos * inv_freq', note: 'examples.sinmod.l.angle', shape: [maxLen, DM / 2], inMethod: true },
    { code: 'table = torch.stack((angle.sin(), angle.cos()), dim=-1).reshape(max_len, d_model)', note: 'examples.sinmod.l.table', shape: [maxLen, DM], values: { data: table.subarray(0, shown * DM), shape: [shown, DM], label: `table[:${shown}]` }, inMethod: true },
    { code: 'self.register_buffer("table", table[None])', note: 'examples.sinmod.l.buffer', shape: [1, maxLen, DM], inMethod: true },
    { code: 'self.p = p', note: 'examples.sinmod.l.p', inMethod: true },
    { header: 'def forward(self, x):' },
  ];
  const addCode = 'out = x + self.table[:, : x.size(1)]';
  if (seqLen > maxLen) {
    lines.push({ code: addCode, note: 'examples.sinmod.l.add', shape: [B, seqLen, DM], inMethod: true });
    return { lines, error: tf('examples.sinmod.short', { len: seqLen, max: maxLen }) };
  }
  // x + table[:, :seq_len], broadcast over the batch; shown: sequence 0.
  const sum = Float32Array.from({ length: seqLen * DM }, (_, e) => Math.fround(x[e]! + table[e]!));
  lines.push(
    { code: addCode, note: 'examples.sinmod.l.add', shape: [B, seqLen, DM], values: { data: sum, shape: [seqLen, DM], label: 'out[0]' }, inMethod: true },
    { code: 'return F.dropout(out, p=self.p, training=self.training)', note: 'examples.sinmod.l.dropout', shape: [B, seqLen, DM], inMethod: true },
  );
  return { lines };
}

/** The sinusoidal module, line by line: max_len and seq_len as controls. */
export function sinusoidalModuleExample(pe: Posenc): HTMLElement {
  const st = { maxLen: 16, seqLen: 4 };
  const setup = el('pre', { class: 'code', id: 'ex-sinmod-setup' });
  const steps = codeSteps('ex-sinmod-steps', () => {
    // x: [B, seqLen, DM] token embeddings, fixed seeded values in [-0.5, 0.5).
    const x = seeded(B * st.seqLen * DM, 3, 0.5);
    steps.el.querySelector<HTMLElement>('table')!.dataset.x = JSON.stringify(Array.from(x.subarray(0, st.seqLen * DM)));
    return sinusoidalLines(pe, st.maxLen, st.seqLen, x);
  });
  const render = (): void => {
    setup.textContent = `import torch\nimport torch.nn.functional as F\n\nd_model, max_len, seq_len = ${DM}, ${st.maxLen}, ${st.seqLen}`;
    steps.show();
  };
  const update = coalesce(render);
  const maxLen = numberControl({ label: 'examples.sinmod.max', param: 'x.smax', initial: 16, min: 1, max: 64, step: 1 }, (v) => { st.maxLen = v; update(); });
  const seqLen = numberControl({ label: 'examples.sinmod.len', param: 'x.slen', initial: 4, min: 1, max: 64, step: 1 }, (v) => { st.seqLen = v; update(); });
  st.maxLen = maxLen.value();
  st.seqLen = seqLen.value();
  render();
  return stepsLesson('ex-sinmod', 'examples.sinmod', [maxLen.el, seqLen.el], setup, steps.el);
}

// ---- attention with an ALiBi bias: Q, K, V [1, 4, 5, 8]

const AH = 4;
const AT = 5;
const AD = 8;

const SLOPE_CODE: Readonly<Record<AlibiVariant, string>> = {
  simple: 'slopes = 0.5 ** torch.arange(n_heads)',
  paper: 'slopes = 2.0 ** (-8.0 * torch.arange(1, n_heads + 1) / n_heads)',
};

/** The lines for `variant`'s slopes, head `head` shown; also the result of pe.attention for the check. */
function alibiLines(pe: Posenc, variant: AlibiVariant, head: number, q: Float32Array, k: Float32Array, v: Float32Array): CodeRun & { weights: Float32Array; mine: Float32Array } {
  const slopes = pe.alibiSlopes(AH, { variant });
  const s = slopes[head]!;
  const scale = 1 / Math.sqrt(AD);
  const distance = Float32Array.from({ length: AT * AT }, (_, e) => Math.max(0, Math.floor(e / AT) - (e % AT)));
  const bias = distance.map((d) => Math.fround(-s * d));
  const rowsOf = (x: Float32Array): Float32Array => x.subarray(head * AT * AD, (head + 1) * AT * AD);
  const qh = rowsOf(q), kh = rowsOf(k);
  const scores = Float32Array.from({ length: AT * AT }, (_, e) => {
    const i = Math.floor(e / AT), j = e % AT;
    let dot = 0;
    for (let d = 0; d < AD; d++) dot += qh[i * AD + d]! * kh[j * AD + d]!;
    return Math.fround(dot * scale);
  });
  const biased = scores.map((x, e) => Math.fround(x + bias[e]!));
  const masked = biased.map((x, e) => (e % AT > Math.floor(e / AT) ? -Infinity : x));
  // softmax of each row, in float64, rounded once: what the page compares posenc's weights with.
  const mine = new Float32Array(AT * AT);
  for (let i = 0; i < AT; i++) {
    const row = Array.from(masked.subarray(i * AT, (i + 1) * AT));
    const m = Math.max(...row);
    const ex = row.map((x) => Math.exp(x - m));
    const z = ex.reduce((a, b) => a + b, 0);
    ex.forEach((x, j) => { mine[i * AT + j] = x / z; });
  }
  const r = pe.attention({ q, k, v, heads: AH, queryLength: AT, keyLength: AT, headDim: AD, causal: true, alibi: { slopes }, returnWeights: true });
  const weights = r.weights!.subarray(head * AT * AT, (head + 1) * AT * AT);
  const lines: CodeLine[] = [
    { code: SLOPE_CODE[variant], note: variant === 'simple' ? 'examples.alibisteps.l.simple' : 'examples.alibisteps.l.paper', shape: [AH], values: { data: slopes, shape: [AH] } },
    { code: 'dist = torch.tril(pos[:, None] - pos)', note: 'examples.alibisteps.l.distance', shape: [AT, AT], values: { data: distance, shape: [AT, AT] } },
    { code: 'bias = -torch.einsum("h,mn->hmn", slopes, dist)', note: 'examples.alibisteps.l.bias', shape: [AH, AT, AT], values: { data: bias, shape: [AT, AT], label: `bias[${head}]` } },
    { code: 'scores = q @ k.mT * head_dim ** -0.5', note: 'examples.alibisteps.l.scores', shape: [1, AH, AT, AT], values: { data: scores, shape: [AT, AT], label: `scores[0, ${head}]` } },
    { code: 'logits = scores + bias', note: 'examples.alibisteps.l.add', shape: [1, AH, AT, AT], values: { data: biased, shape: [AT, AT], label: `logits[0, ${head}]` } },
    { code: 'logits = torch.where(pos[None, :] <= pos[:, None], logits, float("-inf"))', note: 'examples.alibisteps.l.mask', shape: [1, AH, AT, AT] },
    { code: 'weights = logits.softmax(dim=-1)', note: 'examples.alibisteps.l.softmax', shape: [1, AH, AT, AT], values: { data: weights, shape: [AT, AT], label: `weights[0, ${head}]` } },
    { code: 'out = weights @ v', note: 'examples.alibisteps.l.out', shape: [1, AH, AT, AD], values: { data: r.out.subarray(head * AT * AD, (head + 1) * AT * AD), shape: [AT, AD], label: `out[0, ${head}]` } },
  ];
  return { lines, weights, mine };
}

/** Attention with an ALiBi bias, line by line: the slopes' variant and the head shown as controls. */
export function alibiAttentionExample(pe: Posenc): HTMLElement {
  // Q, K, V: [1, 4, 5, 8] flattened, fixed seeded values.
  const q = seeded(AH * AT * AD, 21), k = seeded(AH * AT * AD, 22), v = seeded(AH * AT * AD, 23);
  const st: { variant: AlibiVariant; head: number } = { variant: 'simple', head: 0 };
  const check = liveText('p', 'lesson-readout');
  check.el.id = 'ex-alibisteps-check';
  let last: ReturnType<typeof alibiLines> | undefined;
  const setup = el('pre', { class: 'code', id: 'ex-alibisteps-setup' });
  const showSetup = (): void => {
    setup.textContent = `import torch\n\nn_heads, seq_len, head_dim = ${AH}, ${AT}, ${AD}\npos = torch.arange(seq_len, dtype=torch.float32)\nq, k, v = queries, keys, values   # ${tf('examples.alibisteps.c.each', { shape: `[1, ${AH}, ${AT}, ${AD}]` })}`;
  };
  showSetup();
  onLangChange(showSetup, setup);
  const steps = codeSteps('ex-alibisteps-steps', () => (last = alibiLines(pe, st.variant, st.head, q, k, v)));
  const render = (): void => {
    steps.show();
    const table = steps.el.querySelector<HTMLElement>('table')!;
    table.dataset.head = String(st.head);
    table.dataset.qkv = JSON.stringify([q, k, v].map((x) => Array.from(x.subarray(st.head * AT * AD, (st.head + 1) * AT * AD))));
    const diff = maxDiff(last!.weights, last!.mine);
    check.set('examples.alibisteps.check', { diff: diff.toExponential(1) });
    check.el.dataset.value = String(diff);
  };
  const update = coalesce(render);
  const variant = select<AlibiVariant>({
    label: 'examples.alibisteps.variant', param: 'x.asv', value: 'simple',
    options: [['simple', () => t('examples.alibisteps.simple')], ['paper', () => t('examples.alibisteps.paper')]],
    onChange: (x) => { st.variant = x; update(); },
  });
  const head = numberControl({ label: 'examples.alibisteps.head', param: 'x.ash', initial: 0, min: 0, max: AH - 1, step: 1 }, (x) => { st.head = x; update(); });
  st.variant = variant.value();
  st.head = head.value();
  render();
  return stepsLesson('ex-alibisteps', 'examples.alibisteps', [variant.el, head.el], setup, steps.el, check.el);
}
