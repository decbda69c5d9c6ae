/**
 * The binding contract: the structs that cross the TS <-> C++ boundary are
 * declared once in C++ as field lists (src/base/fields.h), which drive the
 * struct, the Embind registration and the module's contract(); the
 * TypeScript mirror (bindings/ts/raw.ts, derived from the public types) is
 * read here with the TypeScript compiler and must list the same fields with
 * the same JS types. A field added on one side only fails this test.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import ts from 'typescript';

import type * as Internal from '../../bindings/ts/internal.js';
import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const { rawModels, rawModule } = (await import(pathToFileURL(join(root, 'dist/internal.js')).href)) as typeof Internal;

/** The C++ struct each TS mirror type stands for. */
/** The C++ struct, its TS mirror, and the modules it crosses into (the RoPE configuration crosses into both). */
const MIRRORS: Array<[cpp: string, tsType: string, modules: ReadonlyArray<'core' | 'models'>]> = [
  ['RopeScaling', 'RopeScalingWire', ['core', 'models']],
  ['RopeFrequencyConfig', 'RopeConfigWire', ['core', 'models']],
  ['RopeApplyOptions', 'RopeApplyWire', ['core']],
  ['AttentionRope', 'AttentionRopeWire', ['core']],
  ['AttentionOptions', 'AttentionWire', ['core']],
  ['ModelConfig', 'ModelConfigWire', ['models']],
  ['TrainRequest', 'TrainRequestWire', ['models']],
];

/** The JS type of a property as the contract names it. */
function jsType(checker: ts.TypeChecker, t: ts.Type): string {
  if (t.flags & ts.TypeFlags.NumberLike) return 'number';
  if (t.flags & ts.TypeFlags.BooleanLike) return 'boolean';
  if (t.flags & ts.TypeFlags.StringLike) return 'string';
  if (t.isUnion() && t.types.every((u) => u.flags & ts.TypeFlags.BooleanLiteral)) return 'boolean';
  const text = checker.typeToString(t);
  if (/^(ArrayLike<number>|readonly number\[\]|number\[\])$/.test(text)) return 'number[]';
  return 'object';
}

/** name -> JS type of every property of the exported type `name` of bindings/ts/raw.ts. */
let program: ts.Program | undefined;
function tsFields(name: string): Map<string, string> {
  const file = join(root, 'bindings/ts/raw.ts');
  program ??= ts.createProgram([file], {
    strict: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  assert.ok(source, 'bindings/ts/raw.ts is readable');
  const symbol = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!).find((s) => s.name === name);
  assert.ok(symbol, `raw.ts exports ${name}`);
  const type = checker.getDeclaredTypeOfSymbol(symbol);
  const out = new Map<string, string>();
  for (const p of checker.getPropertiesOfType(type)) {
    out.set(p.name, jsType(checker, checker.getNonNullableType(checker.getTypeOfSymbol(p))));
  }
  return out;
}

/** name -> JS type of every field of the C++ struct `name`, from the module's contract() (integers are numbers in TS). */
function cppFields(m: { contract(name: string): string }, name: string): Map<string, string> {
  const text = m.contract(name);
  const jsType = (t: string): string => (['int32', 'int64', 'optional-number', 'optional-int32'].includes(t) ? 'number' : t);
  return new Map(text === '' ? [] : text.slice(0, -1).split('\n').map((l) => {
    const [field, type] = l.split(' ') as [string, string];
    return [field, jsType(type)];
  }));
}

const sorted = (m: Map<string, string>): Array<[string, string]> => [...m].sort(([a], [b]) => a.localeCompare(b));

for (const [flavour, ready] of flavours) {
  describe(`binding contract (${flavour})`, () => {
    for (const [cpp, mirror, modules] of MIRRORS) {
      for (const part of modules) {
        it(`${mirror} (raw.ts) has exactly the fields of the C++ ${cpp}, with their JS types (${part} module)`, async () => {
          const pe = await ready;
          const m = part === 'core' ? rawModule(pe) : await rawModels(pe);
          const want = cppFields(m, cpp);
          assert.ok(want.size > 0, `the ${part} module describes ${cpp}`);
          assert.deepEqual(sorted(tsFields(mirror)), sorted(want));
        });
      }
    }

    it('each module describes only the structs that cross into it', async () => {
      const pe = await ready;
      assert.equal(rawModule(pe).contract('TrainRequest'), '', 'the core has no training request');
      assert.equal((await rawModels(pe)).contract('AttentionOptions'), '', 'the models module has no attention options');
    });

    it('the defaults the module hands out carry every field of the contract', async () => {
      const m = rawModule(await ready);
      const keys = (name: string): string[] => [...cppFields(m, name).keys()].sort();
      const d = m.defaultRopeConfig();
      assert.deepEqual(Object.keys(d).sort(), keys('RopeFrequencyConfig'));
      assert.deepEqual(Object.keys(d.scaling).sort(), keys('RopeScaling'));
      assert.equal(d.scaling.type, 'default');
      assert.ok(Number.isNaN(d.scaling.attentionFactor), 'no attention factor given: NaN');
      const a = m.defaultAttention();
      assert.deepEqual(Object.keys(a).sort(), keys('AttentionOptions'));
      assert.deepEqual(Object.keys(a.rope).sort(), keys('AttentionRope'));
      assert.equal(a.rope.layout, 'half');
      assert.equal(a.queryOffset, -1);
    });

    it('a configuration crosses the boundary and back unchanged (every codec)', async () => {
      const pe = await ready;
      // longrope exercises the name, the lists and the optional number.
      const scaling = {
        type: 'longrope', factor: 4, originalMaxPositionEmbeddings: 64,
        shortFactor: [1, 1.5], longFactor: [2, 3], attentionFactor: 1.25,
      } as const;
      const got = pe.ropeFrequencies({ headDim: 4, base: 10000, scaling, seqLen: 128 });
      // Long factors past the original context: invFreq_i = base^(-2i/r) / long_i.
      assert.ok(Math.abs(got.invFreq[0]! - 1 / 2) < 1e-7);
      assert.ok(Math.abs(got.invFreq[1]! - 10000 ** -0.5 / 3) < 1e-7);
      assert.equal(got.attentionFactor, 1.25);
    });

    it('an unknown struct name gives an empty contract (the comparison above cannot pass vacuously)', async () => {
      assert.equal(rawModule(await ready).contract('Nothing'), '');
      assert.equal((await rawModels(await ready)).contract('Nothing'), '');
    });
  });
}
