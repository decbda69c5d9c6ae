// What the shipped wasm weighs, and what in it weighs (issue 14, item 7).
//   npm run size             prints the tables
//   npm run size -- --docs also rewrites the size table in docs/size.md
// For each flavour (as built in build/wasm-<flavour>, which tools/build.mjs
// copies to dist/wasm) and each of its two modules (the core, and the models
// module loaded on first use): the .wasm and its Emscripten loader (.mjs), raw and
// gzipped (zlib level 9, what a static server's gzip gives within a few
// bytes), then the code section split by what each function belongs to.
// Function names come from the symbol map the link writes beside the module
// (--emit-symbol-map: build/wasm-<flavour>/posenc-<flavour>.mjs.symbols,
// "index:name"); the names never ship. A function is attributed to the
// layer of the source file that defines its name: src/ops (encodings,
// attention, KV cache), src/model (tiny transformer, training, weights),
// bindings/*.cc; the rest is libc++ and the C++ runtime, or libc and
// the compiler's runtime. Last, what `npm install` unpacks for each of the two
// npm packages (posenc, and the models' posenc-models), from `npm pack --dry-run`
// (so dist/ must be built: `npm run size` builds it first).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import { root } from '../../tools/common.mjs';
import { rewriteDocs } from './common.mjs';

const gz = (buf) => gzipSync(buf, { level: 9 }).length;
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;

// ---- Reading a wasm binary: section sizes and function body sizes.

function leb(buf, pos) {
  let result = 0;
  let shift = 0;
  for (;;) {
    const b = buf[pos++];
    result += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b & 0x80) === 0) return [result, pos];
  }
}

/** The sections ({id, name, start, end}) of a wasm binary. */
function sections(buf) {
  const out = [];
  let pos = 8;
  while (pos < buf.length) {
    const id = buf[pos];
    const [size, body] = leb(buf, pos + 1);
    let name = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start',
      'element', 'code', 'data', 'datacount'][id];
    if (id === 0) {
      const [len, p] = leb(buf, body);
      name = `custom:${buf.subarray(p, p + len).toString()}`;
    }
    out.push({ id, name, start: pos, end: body + size, body });
    pos = body + size;
  }
  return out;
}

/** The number of imported functions (they come first in the function index space). */
function importedFunctions(buf, sec) {
  let [count, pos] = leb(buf, sec.body);
  let funcs = 0;
  const skipName = (p) => {
    const [len, q] = leb(buf, p);
    return q + len;
  };
  for (let i = 0; i < count; i++) {
    pos = skipName(skipName(pos));
    const kind = buf[pos++];
    if (kind === 0) {
      funcs++;
      pos = leb(buf, pos)[1];
    } else if (kind === 1) {
      pos += 1;
      const flags = buf[pos++];
      pos = leb(buf, pos)[1];
      if (flags & 1) pos = leb(buf, pos)[1];
    } else if (kind === 2) {
      const flags = buf[pos++];
      pos = leb(buf, pos)[1];
      if (flags & 1) pos = leb(buf, pos)[1];
    } else if (kind === 3) {
      pos += 2;
    } else {
      throw new Error(`unknown import kind ${kind}`);
    }
  }
  return funcs;
}

/** The byte size of each defined function's body, by function index. */
function bodySizes(buf) {
  const secs = sections(buf);
  const imports = secs.find((s) => s.name === 'import');
  const base = imports ? importedFunctions(buf, imports) : 0;
  const code = secs.find((s) => s.name === 'code');
  let [count, pos] = leb(buf, code.body);
  const sizes = new Map();
  for (let i = 0; i < count; i++) {
    const [size, p] = leb(buf, pos);
    sizes.set(base + i, p - pos + size);
    pos = p + size;
  }
  return { secs, sizes };
}

// ---- Which layer a function belongs to.

/** Names a source file defines: types and top-level or member functions. */
function definedNames(files) {
  const names = new Set();
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/^\s*(?:class|struct|enum class|enum)\s+(\w+)/gm)) names.add(m[1]);
    for (const m of text.matchAll(/^[\w:<>,*& ]*?\b([A-Z]\w*)(?:::~?\w+)?\s*\(/gm)) names.add(m[1]);
    for (const m of text.matchAll(/^\s+(?:[\w:<>,*&]+\s+)+([A-Z]\w*)\s*\([^;]*$/gm)) names.add(m[1]);
  }
  return names;
}

const sourceFiles = (dir) => readdirSync(join(root, dir)).filter((f) => /\.(h|cc)$/.test(f)).map((f) => join(root, dir, f));
const OPS = definedNames([...sourceFiles('src/ops'), ...sourceFiles('src/base')]);
const MODEL = definedNames(sourceFiles('src/model'));
const BINDINGS = definedNames(sourceFiles('bindings'));

const CATEGORIES = [
  'ops: attention kernels (AttendRows instances)',
  'ops: the rest (encodings, attention, KV cache)',
  'model (tiny transformer, training, weights)',
  'bindings (bindings/*.cc and Embind)',
  'libc++ and C++ runtime',
  'libc, malloc, compiler runtime',
];

function decode(symbol) {
  return symbol.replace(/\\([0-9a-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
}

/** The category of a function name (demangled, as the symbol map gives it). */
function categorize(name) {
  if (/\bAttendRows</.test(name)) return CATEGORIES[0];
  if (/emscripten::|^_?_embind|^_emval|^__emval|embind/.test(name)) return CATEGORIES[3];
  // The first posenc name in it (also inside a std:: template instance).
  const m = /posenc::(?:(?:N_\w+|\(anonymous namespace\))::)*~?(\w+)/.exec(name);
  if (m) {
    if (MODEL.has(m[1]) && !OPS.has(m[1])) return CATEGORIES[2];
    if (OPS.has(m[1])) return CATEGORIES[1];
    if (BINDINGS.has(m[1])) return CATEGORIES[3];
    return CATEGORIES[1];
  }
  const anon = /^(?:[\w:<>*& ]+ )?\(anonymous namespace\)::(\w+)/.exec(name);
  if (anon && BINDINGS.has(anon[1])) return CATEGORIES[3];
  if (/std::|__cxxabiv1|^__cxa|^__cxx|^operator (new|delete)|typeinfo|^__dynamic_cast|^__gxx/.test(name)) return CATEGORIES[4];
  return CATEGORIES[5];
}

// ---- The tables.

const flavours = ['simd', 'scalar'];
const FLAVOUR = { simd: 'SIMD', scalar: 'scalar' };
// The two modules of a flavour: the core every app loads, the models module loaded on first use.
const PARTS = [['core', (fl) => `posenc-${fl}`], ['models', (fl) => `posenc-models-${fl}`]];
const rows = [];
const breakdown = new Map(CATEGORIES.map((c) => [c, {}]));
const other = {};
const unknown = [];
for (const fl of flavours) {
  for (const [part, name] of PARTS) {
    const key = `${part}-${fl}`;
    // The modules as built (tools/build.mjs copies them to dist/wasm unchanged), beside their symbol maps.
    const base = join(root, `build/wasm-${fl}/${name(fl)}`);
    const wasm = readFileSync(`${base}.wasm`);
    const loader = readFileSync(`${base}.mjs`);
    rows.push({ fl, part, key, wasm: wasm.length, wasmGz: gz(wasm), loader: loader.length, loaderGz: gz(loader) });
    const symbols = new Map(readFileSync(`${base}.mjs.symbols`, 'utf8')
      .split('\n').filter(Boolean).map((l) => {
        const i = l.indexOf(':');
        return [Number(l.slice(0, i)), decode(l.slice(i + 1))];
      }));
    const { secs, sizes } = bodySizes(wasm);
    for (const c of CATEGORIES) breakdown.get(c)[key] = 0;
    for (const [index, size] of sizes) {
      const fn = symbols.get(index) ?? `(function ${index})`;
      const c = categorize(fn);
      breakdown.get(c)[key] += size;
      if (c === CATEGORIES[5] && size > 2000 && fl === 'simd') unknown.push(`${size} ${part} ${fn.slice(0, 100)}`);
    }
    const code = secs.find((s) => s.name === 'code');
    const data = secs.find((s) => s.name === 'data');
    other[key] = {
      code: code.end - code.start,
      data: data ? data.end - data.start : 0,
      rest: wasm.length - (code.end - code.start) - (data ? data.end - data.start : 0),
    };
  }
}

const lines = [];
lines.push('| flavour | module | .wasm | .wasm gzipped | loader .mjs | loader gzipped | module + loader gzipped |');
lines.push('|---|---|---:|---:|---:|---:|---:|');
for (const fl of flavours) {
  const mine = rows.filter((r) => r.fl === fl);
  for (const r of mine) {
    lines.push(`| ${FLAVOUR[fl]} | ${r.part} | ${kb(r.wasm)} | ${kb(r.wasmGz)} | ${kb(r.loader)} | ${kb(r.loaderGz)} | **${kb(r.wasmGz + r.loaderGz)}** |`);
  }
  const sum = (f) => mine.reduce((a, r) => a + f(r), 0);
  lines.push(`| ${FLAVOUR[fl]} | both | ${kb(sum((r) => r.wasm))} | ${kb(sum((r) => r.wasmGz))} | ${kb(sum((r) => r.loader))} | ${kb(sum((r) => r.loaderGz))} | ${kb(sum((r) => r.wasmGz + r.loaderGz))} |`);
}
lines.push('');
const keys = flavours.flatMap((fl) => PARTS.map(([part]) => `${part}-${fl}`));
lines.push(`| where the .wasm bytes go (uncompressed) | ${keys.map((k) => `${FLAVOUR[k.split('-')[1]]} ${k.split('-')[0]}`).join(' | ')} |`);
lines.push(`|---|${keys.map(() => '---:').join('|')}|`);
for (const c of CATEGORIES) {
  lines.push(`| ${c} | ${keys.map((k) => kb(breakdown.get(c)[k])).join(' | ')} |`);
}
lines.push(`| data section (strings, tables) | ${keys.map((k) => kb(other[k].data)).join(' | ')} |`);
lines.push(`| other sections (types, imports, exports, tables, code headers) | ${keys.map((k) => kb(other[k].rest + other[k].code - sumCode(k))).join(' | ')} |`);

// The npm packages, as `npm pack` would publish them: unpacked and tarball bytes, by kind of file.
const KINDS = [
  ['.wasm binaries', (f) => f.endsWith('.wasm')],
  ['Emscripten loaders (.mjs)', (f) => f.endsWith('.mjs')],
  ['JavaScript (.js)', (f) => f.endsWith('.js')],
  ['types (.d.ts, .d.mts)', (f) => /\.d\.m?ts$/.test(f)],
  ['models (.safetensors)', (f) => f.endsWith('.safetensors')],
  ['package.json, README and LICENSE', () => true],
];
const packs = [[], ['--workspace', 'web/models']].map((args) => JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))[0]);
const byKind = (p, i) => p.files.filter((f) => KINDS.findIndex(([, test]) => test(f.path)) === i).reduce((a, f) => a + f.size, 0);
lines.push('');
lines.push(`| npm package (\`npm pack --dry-run\`) | ${packs.map((p) => `\`${p.name}\``).join(' | ')} |`);
lines.push(`|---|${packs.map(() => '---:').join('|')}|`);
KINDS.forEach(([kind], i) => {
  if (packs.some((p) => byKind(p, i) > 0)) lines.push(`| ${kind} | ${packs.map((p) => (byKind(p, i) > 0 ? kb(byKind(p, i)) : '')).join(' | ')} |`);
});
lines.push(`| **unpacked** (files) | ${packs.map((p) => `**${kb(p.unpackedSize)}** (${p.entryCount})`).join(' | ')} |`);
lines.push(`| tarball (gzipped) | ${packs.map((p) => kb(p.size)).join(' | ')} |`);

function sumCode(key) {
  let s = 0;
  for (const c of CATEGORIES) s += breakdown.get(c)[key];
  return s;
}

const table = lines.join('\n');
console.log(table);
if (process.argv.includes('--verbose')) console.log(`\nlargest unattributed (SIMD):\n${unknown.sort((a, b) => parseInt(b) - parseInt(a)).slice(0, 20).join('\n')}`);
if (process.argv.includes('--docs')) rewriteDocs('size', table);
