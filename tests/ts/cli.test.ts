/**
 * `posenc inspect` (dist/cli.js), run as a porter runs it: the plan table,
 * the wavelengths against the original context (counted here from the
 * float64 formula), the switch and query-scaling lines, the .npy of a
 * layer's cos / sin (parsed here, values against the float64 reference of
 * transformers), and the exit status and message of each bad input.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { LAYER_FIXTURES } from './hf-layer-configs.js';
import { hfLayers } from './hf-reference.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'posenc-cli-'));
after(() => rmSync(work, { recursive: true, force: true }));

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function configFile(name: string): { path: string; config: Record<string, unknown> } {
  const f = LAYER_FIXTURES.find((x) => x.name.startsWith(name));
  assert.ok(f, name);
  const path = join(work, `${name.replace(/\W+/g, '_')}.json`);
  writeFileSync(path, JSON.stringify(f.config));
  return { path, config: f.config };
}

/** A row of the plan table: its cells split on runs of two or more spaces. */
function row(out: string, first: string): string[] {
  const line = out.split('\n').find((l) => l.startsWith(`${first} `));
  assert.ok(line, `a row '${first}' in\n${out}`);
  return line.split(/ {2,}/);
}

describe('posenc inspect', () => {
  it('Gemma 3 1B: two RoPEs, their layers, and the wavelengths against the original context', () => {
    const { path } = configFile('Gemma 3 1B');
    const r = cli('inspect', path);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /model_type gemma3_text: 26 decoder layers, layers differ/);
    assert.deepEqual(row(r.stdout, 'R1'), ['R1', '0-4, 6-10, 12-16, 18-22, 24-25', '22', '256 of 256', '10000', 'half', 'none', '1']);
    assert.deepEqual(row(r.stdout, 'R2'), ['R2', '5, 11, 17, 23', '4', '256 of 256', '1.000e+6', 'half', 'none', '1']);
    // Pairs whose wavelength 2 pi base^(2i/r) exceeds 32768 positions, counted from the formula.
    for (const [k, base] of [[1, 1e4], [2, 1e6]] as const) {
      let slow = 0;
      for (let i = 0; i < 128; i++) if (2 * Math.PI * base ** ((2 * i) / 256) > 32768) slow++;
      assert.match(r.stdout, new RegExp(`R${k}: 128 pairs;[^\\n]*\\n    against the original context 32768: ${slow} of 128 rotating pairs never complete a turn`));
    }
  });

  it('Llama 4 Scout: the layers without RoPE, the query scaling and the defaults', () => {
    const r = cli('inspect', configFile('Llama 4 Scout').path);
    assert.equal(r.status, 0, r.stderr);
    const none = row(r.stdout, 'none');
    assert.equal(none[1], Array.from({ length: 12 }, (_, i) => 4 * i + 3).join(', '));
    assert.equal(none[2], '12');
    assert.match(r.stdout, /query scaling \(llama4\): q \*= 1 \+ 0.1 \* ln\(1 \+ floor\(\(p \+ 1\) \/ 8192\)\) on layers 3, 7, 11/);
    assert.match(r.stdout, /attn_temperature_tuning = true \(llama4_text's default\)/);
    assert.match(row(r.stdout, 'R1')[6]!, /^llama3 x16 of 8192/);
  });

  it('Phi-4-mini: LongRoPE switches past its original context; Qwen VL: the M-RoPE split; Gemma 4: pairs that do not rotate', () => {
    let r = cli('inspect', configFile('Phi-4-mini').path);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(row(r.stdout, 'R1').slice(3, 5), ['96 of 128', '10000']);
    assert.match(r.stdout, /switches: short factors up to a context of 4096, long factors from 4097/);
    r = cli('inspect', configFile('Qwen2.5-VL').path);
    assert.match(r.stdout, /M-RoPE: pairs in chunks: 0-15 temporal, 16-39 height, 40-63 width/);
    r = cli('inspect', configFile('Qwen3-VL 8B').path);
    assert.match(r.stdout, /M-RoPE: pairs in turn \(temporal, height, width, \.\.\.\): 24 temporal, 20 height \(1, 4, \.\.\. < 60\), 20 width/);
    r = cli('inspect', configFile('Gemma 4').path);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /R2: 256 pairs, 192 of them not rotating \(frequency 0\)/);
  });

  it('--cos-sin writes a layer\'s cos and sin as a .npy equal to transformers\' tables', () => {
    const { path, config } = configFile('Gemma 3 1B');
    const out = join(work, 'cs.npy');
    const L = 300;
    const r = cli('inspect', path, '--cos-sin', String(L), '--layer', '5', '--out', out);
    assert.equal(r.status, 0, r.stderr);
    const bytes = readFileSync(out);
    assert.deepEqual([...bytes.subarray(0, 8)], [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 'the .npy magic and version 1.0');
    const hlen = bytes.readUInt16LE(8);
    assert.equal((10 + hlen) % 64, 0, 'the data starts on a 64-byte boundary');
    const header = bytes.subarray(10, 10 + hlen).toString('latin1');
    assert.match(header, /^\{'descr': '<f4', 'fortran_order': False, 'shape': \(2, 300, 256\), \} *\n$/);
    const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + 10 + hlen, bytes.byteOffset + bytes.length));
    assert.equal(data.length, 2 * L * 256);
    const ref = hfLayers(config, L)[5]!;
    for (let p = 0; p < L; p += 7) {
      for (let j = 0; j < 128; j++) {
        const angle = p * Math.fround(ref.invFreq[j]!);
        for (const s of [j, j + 128]) {
          assert.ok(Math.abs(data[p * 256 + s]! - Math.cos(angle)) < 4e-6, `cos p=${p} slot ${s}`);
          assert.ok(Math.abs(data[L * 256 + p * 256 + s]! - Math.sin(angle)) < 4e-6, `sin p=${p} slot ${s}`);
        }
      }
    }
  });

  it('bad input: a message and the exit status, never a stack trace', () => {
    const missing = cli('inspect', join(work, 'nope.json'));
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /posenc: cannot read .*nope.json: ENOENT/);
    const notJson = join(work, 'not.json');
    writeFileSync(notJson, '{"model_type": "llama",');
    const broken = cli('inspect', notJson);
    assert.equal(broken.status, 2);
    assert.match(broken.stderr, /posenc: .*not.json is not valid JSON: /);
    const bad = join(work, 'bad.json');
    writeFileSync(bad, JSON.stringify({ model_type: 'llama', num_hidden_layers: 2, head_dim: 64, rope_scaling: { rope_type: 'linear', factor: 2, scale: 3 } }));
    const refused = cli('inspect', bad);
    assert.equal(refused.status, 1);
    assert.equal(refused.stderr.trim(), "posenc: RangeError: config.rope_scaling.scale is not a key posenc understands for rope type 'linear'");
    const { path } = configFile('Llama 4 Scout');
    const nope = cli('inspect', path, '--cos-sin', '8', '--layer', '3', '--out', join(work, 'x.npy'));
    assert.equal(nope.status, 1);
    assert.match(nope.stderr, /layer 3 has no RoPE \(full_attention\)/);
    const past = cli('inspect', path, '--cos-sin', '8', '--layer', '48', '--out', join(work, 'x.npy'));
    assert.match(past.stderr, /--layer must be below the 48 layers, got 48/);
    for (const [args, message] of [
      [[], /a command is needed/],
      [['show', path], /unknown command 'show'/],
      [['inspect'], /inspect needs a config.json/],
      [['inspect', path, '--cos-sin', '8'], /--cos-sin, --layer and --out go together/],
      [['inspect', path, '--cos-sin', '-1', '--layer', '0', '--out', 'x'], /--cos-sin must be an integer >= 1, got '-1'/],
      [['inspect', path, '--layout', 'spiral'], /--layout must be half or interleaved, got 'spiral'/],
    ] as const) {
      const r = cli(...args);
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, message);
      assert.match(r.stderr, /usage: posenc inspect/);
    }
    assert.equal(cli('--help').status, 0);
  });
});
