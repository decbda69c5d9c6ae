#!/usr/bin/env node
/**
 * `npx posenc inspect config.json`: what `ropeFromConfig` reads from a
 * Hugging Face config, for a porter to check against the model before
 * trusting it. Prints the per-layer plan (one row per distinct RoPE, and
 * the layers without one), each RoPE's wavelengths against the context it
 * was trained on, where a length-dependent scaling switches, the query
 * scaling and the defaults filled in. With `--cos-sin L --layer i --out
 * f.npy`, writes that layer's Hugging Face style cos / sin for positions
 * 0 .. L-1 as one float32 NumPy array of shape (2, L, rotaryDim): [0] cos,
 * [1] sin, for a cross-check in Python.
 *
 * Exit status: 0, 1 for a config posenc refuses (the message says why),
 * 2 for a bad command line or an unreadable file.
 */
import { readFileSync, writeFileSync } from 'node:fs';

import { init } from './node.js';
import { layerSpans, ropeGroups } from './rope-groups.js';
import type { Posenc, RopeFromConfig, RopeGroup, RopeLayerOptions, RopeLayout } from './types.js';

const USAGE = `usage: posenc inspect <config.json> [--layout half|interleaved] [--cos-sin L --layer i --out file.npy]

  Prints the RoPE of every decoder layer of a Hugging Face config.json as posenc reads it.
  --layout       the pair layout, for a model_type posenc's table does not know
  --cos-sin L    with --layer and --out: write layer i's cos / sin for positions 0 .. L-1 of one
                 L-token sequence (dynamic NTK / LongRoPE computed for length L, as one prefill),
                 as a float32 .npy of shape (2, L, rotaryDim) ([0] cos, [1] sin), Hugging Face's
                 full width for the layer's layout, attention factor included`;

class UsageError extends Error {}

interface Args {
  file: string;
  layout?: RopeLayout;
  cosSin?: { length: number; layer: number; out: string };
}

function parseArgs(argv: string[]): Args {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h') throw new UsageError('');
  if (command === undefined) throw new UsageError('a command is needed');
  if (command !== 'inspect') throw new UsageError(`unknown command '${command}'`);
  let file: string | undefined;
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a.startsWith('--')) {
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      if (!['--layout', '--cos-sin', '--layer', '--out'].includes(a)) throw new UsageError(`unknown option ${a}`);
      flags.set(a, v);
    } else if (file === undefined) {
      file = a;
    } else {
      throw new UsageError(`one config file, got '${file}' and '${a}'`);
    }
  }
  if (file === undefined) throw new UsageError('inspect needs a config.json');
  const args: Args = { file };
  const layout = flags.get('--layout');
  if (layout !== undefined) {
    if (layout !== 'half' && layout !== 'interleaved') throw new UsageError(`--layout must be half or interleaved, got '${layout}'`);
    args.layout = layout;
  }
  const cs = ['--cos-sin', '--layer', '--out'].map((k) => flags.get(k));
  if (cs.some((v) => v !== undefined)) {
    if (cs.some((v) => v === undefined)) throw new UsageError('--cos-sin, --layer and --out go together');
    const int = (name: string, v: string, min: number): number => {
      const n = Number(v);
      if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < min) throw new UsageError(`${name} must be an integer >= ${min}, got '${v}'`);
      return n;
    };
    args.cosSin = { length: int('--cos-sin', cs[0]!, 1), layer: int('--layer', cs[1]!, 0), out: cs[2]! };
  }
  return args;
}

/** "0-4, 6-10, 12": a group's spans. */
const ranges = (spans: ReadonlyArray<[number, number]>): string => spans.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');

function table(head: string[], rows: string[][]): string {
  const w = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (r: string[]): string => r.map((v, c) => v.padEnd(w[c]!)).join('  ').trimEnd();
  return [line(head), line(w.map((n) => '-'.repeat(n))), ...rows.map(line)].join('\n');
}

const num = (v: number): string => (Math.abs(v) >= 1e5 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(3) : String(+v.toPrecision(6)));

/** One-line description of a scaling: its type and numbers. */
function scalingText(layer: RopeLayerOptions): string {
  const s = layer.scaling;
  switch (s.type) {
    case 'default': return 'none';
    case 'linear': case 'ntk': return `${s.type} x${num(s.factor)}`;
    case 'dynamic': return `dynamic x${num(s.factor)} past ${s.maxPositionEmbeddings}`;
    case 'yarn': return `yarn x${num(s.factor)} of ${s.originalMaxPositionEmbeddings}`;
    case 'longrope': return `longrope x${num(s.factor)} of ${s.originalMaxPositionEmbeddings}`;
    case 'llama3': return `llama3 x${num(s.factor)} of ${s.originalMaxPositionEmbeddings} (low ${num(s.lowFreqFactor)}, high ${num(s.highFreqFactor)})`;
    case 'proportional': return `proportional ${num(s.partialRotaryFactor ?? 1)} of the pairs${s.factor === undefined ? '' : ` /${num(s.factor)}`}`;
  }
}

/** Which pairs turn by the temporal, height and width rows. */
function mropeText(section: readonly number[], interleaved: boolean): string {
  const [t, h, w] = section as [number, number, number];
  if (!interleaved) {
    const span = (a: number, n: number): string => (n === 0 ? 'none' : n === 1 ? `${a}` : `${a}-${a + n - 1}`);
    return `pairs in chunks: ${span(0, t)} temporal, ${span(t, h)} height, ${span(t + h, w)} width`;
  }
  return `pairs in turn (temporal, height, width, ...): ${t} temporal, ${h} height (1, 4, ... < ${3 * h}), ${w} width (2, 5, ... < ${3 * w})`;
}

function report(pe: Posenc, rc: RopeFromConfig): string {
  const lines: string[] = [];
  const n = rc.layers.length;
  lines.push(`model_type ${rc.modelType ?? '(none)'}: ${n} decoder layers, ${rc.uniform ? 'every RoPE layer alike' : 'layers differ (use layers[i])'}` +
    (rc.maxPositions === undefined ? '' : `, max_position_embeddings ${rc.maxPositions}`));
  lines.push('');
  const all = ropeGroups(rc);
  const gs = all.filter((g): g is RopeGroup & { rope: RopeLayerOptions } => g.rope !== null);
  const rows = gs.map(({ rope: l, layers, spans }, k) => [
    `R${k + 1}`, ranges(spans), String(layers.length), `${l.rotaryDim} of ${l.headDim}`, num(l.base), l.layout, scalingText(l), num(l.attentionFactor),
  ]);
  const none = all.find((g) => g.rope === null);
  if (none !== undefined) {
    const kinds = [...new Set(none.layers.map((i) => rc.layerTypes[i]))].join(', ');
    rows.push(['none', ranges(none.spans), String(none.layers.length), '-', '-', '-', `no RoPE (${kinds})`, '-']);
  }
  lines.push(table(['rope', 'layers', 'count', 'rotated dims', 'base', 'layout', 'scaling', 'attention factor'], rows));
  for (const [k, { rope: l, originalContext: L }] of gs.entries()) {
    const { invFreq } = pe.ropeFrequencies({ ...l, seqLen: L ?? 0 });
    const turning = Array.from(invFreq).filter((f) => f > 0);
    const wl = turning.map((f) => (2 * Math.PI) / f);
    lines.push('');
    lines.push(`R${k + 1}: ${invFreq.length} pairs` + (turning.length < invFreq.length ? `, ${invFreq.length - turning.length} of them not rotating (frequency 0)` : '') +
      `; wavelengths ${num(wl[0]!)} .. ${num(wl[wl.length - 1]!)} positions`);
    if (L !== undefined) {
      const slow = wl.filter((w) => w > L).length;
      lines.push(`    against the original context ${L}: ${slow} of ${wl.length} rotating pairs never complete a turn within it`);
    }
    if (l.mrope !== undefined) lines.push(`    M-RoPE: ${mropeText(l.mrope.section, l.mrope.interleaved ?? false)}`);
    const s = l.scaling;
    if (s.type === 'dynamic') lines.push(`    switches: frequencies change for every context longer than ${s.maxPositionEmbeddings} (recomputed from the longest position + 1)`);
    if (s.type === 'longrope') lines.push(`    switches: short factors up to a context of ${s.originalMaxPositionEmbeddings}, long factors from ${s.originalMaxPositionEmbeddings + 1}`);
  }
  if (rc.queryScaling !== undefined) {
    const q = rc.queryScaling;
    lines.push('');
    lines.push(`query scaling (${q.source}): q *= 1 + ${num(q.beta)} * ln(1 + floor((p + ${q.shift}) / ${q.length})) on layers ${ranges(layerSpans(q.layers))}` +
      ' (pe.queryScale gives the multipliers)');
  }
  if (rc.softmaxScale !== undefined) {
    lines.push('');
    lines.push(`softmax scale: ${rc.modelType} multiplies 1/sqrt(q.k width) by ${num(rc.softmaxScale)} (YaRN's mscale_all_dim, outside cos and sin)`);
  }
  if (rc.defaulted.length > 0) {
    lines.push('');
    lines.push('not in the config, filled as transformers does:');
    for (const d of rc.defaulted) lines.push(`    ${d}`);
  }
  return lines.join('\n');
}

/** A float32 NumPy .npy (format 1.0) of the given shape, little-endian, C order. */
function npy(data: Float32Array, shape: number[]): Uint8Array {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const out = new Uint8Array(10 + header.length + data.byteLength);
  out.set([0x93, ...Array.from('NUMPY', (c) => c.charCodeAt(0)), 1, 0], 0);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(Array.from(header, (c) => c.charCodeAt(0)), 10);
  const body = new DataView(out.buffer, 10 + header.length);
  for (let i = 0; i < data.length; i++) body.setFloat32(4 * i, data[i]!, true);
  return out;
}

async function main(argv: string[]): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    if (e.message !== '') console.error(`posenc: ${e.message}`);
    console.error(USAGE);
    return e.message === '' ? 0 : 2;
  }
  let text: string;
  try {
    text = readFileSync(args.file, 'utf8');
  } catch (e) {
    console.error(`posenc: cannot read ${args.file}: ${(e as Error).message}`);
    return 2;
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (e) {
    console.error(`posenc: ${args.file} is not valid JSON: ${(e as Error).message}`);
    return 2;
  }
  const pe = await init();
  try {
    const rc = pe.ropeFromConfig(config as object, args.layout === undefined ? {} : { layout: args.layout });
    console.log(report(pe, rc));
    if (args.cosSin !== undefined) {
      const { length, layer, out } = args.cosSin;
      if (layer >= rc.layers.length) throw new RangeError(`--layer must be below the ${rc.layers.length} layers, got ${layer}`);
      const l = rc.layers[layer];
      if (l === null || l === undefined) throw new RangeError(`layer ${layer} has no RoPE (${rc.layerTypes[layer]})`);
      // Hugging Face computes the frequencies of a length-dependent scaling for the longest position + 1: L.
      const { cos, sin, width } = pe.ropeCache({ ...l, seqLen: length, contextLength: length });
      const both = new Float32Array(2 * cos.length);
      both.set(cos, 0);
      both.set(sin, cos.length);
      writeFileSync(out, npy(both, [2, length, width]));
      console.log(`\nwrote ${out}: layer ${layer}'s cos and sin, float32 (2, ${length}, ${width}), positions 0 .. ${length - 1} of one ` +
        `${length}-token sequence (a length-dependent scaling computed for that length), full width (${l.layout} layout), attention factor included`);
    }
    return 0;
  } catch (e) {
    console.error(`posenc: ${(e as Error).name}: ${(e as Error).message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
