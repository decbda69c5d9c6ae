// Evaluates every shipped model (web/models) natively through the
// kernel inference path (src/cli/eval_models.cc) and prints the tables of
// docs/models.md.
//   npm run eval-models                print the tables
//   npm run eval-models -- --docs    also rewrite them in docs/models.md
import { readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

import { rewriteDocs } from '../tests/bench/common.mjs';
import { capture, root } from './common.mjs';

const dir = join(root, 'web/models');
const names = readdirSync(dir).filter((f) => f.endsWith('.safetensors')).map((f) => f.replace(/\.safetensors$/, '')).sort();
const t0 = Date.now();
const rows = capture(join(root, 'build/native/posenc_eval_models'), [dir, ...names])
  .trim().split('\n').map((l) => JSON.parse(l));
const secs = (Date.now() - t0) / 1000;
const ref = rows.find((r) => r.reference === 'language');
const ENC = ['nope', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'shaw', 'xpos'];
const LENGTHS = [64, 128, 256, 512, 1024];
// Rows by model name (`${task}-${encoding}`, plus language-rope-partial).
const find = (task, enc, L, scaling = 'none') =>
  rows.find((r) => r.model === `${task}-${enc}` && r.length === L && r.scaling === scaling);
const cell = (r, f) => (r === undefined ? '' : r.error !== undefined ? 'error: past the table' : f(r));
const pct = (x) => `${(100 * x).toFixed(1)}%`;

const out = [];
out.push('Task 1, word order ("who likes whom", bidirectional encoders, 2000 fresh sentences, half English, half Chinese). Without position information the encoder sees the same multiset of tokens for `我 喜欢 你` and `你 喜欢 我`, so 50% is the best it can do.');
out.push('');
out.push(`| encoding | ${ENC.filter((e) => find('word-order', e, 0)).join(' | ')} |`);
out.push(`|---|${ENC.filter((e) => find('word-order', e, 0)).map(() => '---:').join('|')}|`);
out.push(`| accuracy (who acts) | ${ENC.filter((e) => find('word-order', e, 0)).map((e) => pct(find('word-order', e, 0).accuracy)).join(' | ')} |`);
out.push('');
out.push(`Task 2, train short, test long: mean loss (nats per token) over whole sequences, trained at length 64. References from the generator: entropy rate ${ref.entropy_rate.toFixed(3)} (the best possible), previous-token-only ${ref.bigram.toFixed(3)}, unigram ${ref.unigram.toFixed(3)}.`);
out.push('');
out.push(`| encoding | ${LENGTHS.map((L) => `T=${L}`).join(' | ')} |`);
out.push(`|---|${LENGTHS.map(() => '---:').join('|')}|`);
for (const e of [...ENC.slice(0, 4), 'rope-partial', ...ENC.slice(4)]) {
  if (!find('language', e, 64)) continue;
  const label = e === 'rope-partial' ? 'rope, partial (r = d/2)' : e;
  out.push(`| ${label} | ${LENGTHS.map((L) => cell(find('language', e, L), (r) => r.loss.toFixed(3))).join(' | ')} |`);
}
out.push('');
out.push('The RoPE model of task 2 with each context-extension method applied at inference only (factor = T / 64; `dynamic` with factor 1 and the trained length 64; the `longrope` factors are a hand-set rule, not a searched set: pairs whose wavelength exceeds 64 are interpolated).');
out.push('');
const SC = ['none', 'linear', 'ntk', 'dynamic', 'yarn', 'longrope', 'llama3'];
out.push(`| RoPE scaling | ${LENGTHS.map((L) => `T=${L}`).join(' | ')} |`);
out.push(`|---|${LENGTHS.map(() => '---:').join('|')}|`);
for (const s of SC) {
  out.push(`| ${s} | ${LENGTHS.map((L) => cell(find('language', 'rope', L, L === 64 ? 'none' : s), (r) => r.loss.toFixed(3))).join(' | ')} |`);
}
out.push('');
out.push('Task 3, long-range retrieval: accuracy on the 8 queried values of 12 pairs (chance 1/16 = 6.2%; answering by elimination, without retrieving, 13%), 64 sequences per length, trained at 64.');
out.push('');
out.push(`| encoding | ${LENGTHS.map((L) => `T=${L}`).join(' | ')} |`);
out.push(`|---|${LENGTHS.map(() => '---:').join('|')}|`);
for (const e of ENC) {
  if (!find('retrieval', e, 64)) continue;
  out.push(`| ${e} | ${LENGTHS.map((L) => cell(find('retrieval', e, L), (r) => pct(r.accuracy))).join(' | ')} |`);
}
out.push('');
out.push(`Measured by \`npm run eval-models\` (${names.length} models, ${secs.toFixed(0)} s, ${cpus()[0].model.replace(/\s+/g, ' ').trim()}).`);
const text = out.join('\n');
console.log(text);
if (process.argv.includes('--docs')) rewriteDocs('eval-models', text);
