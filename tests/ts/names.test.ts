/**
 * The name lists the package exports at run time (names.ts) against the
 * tables the C++ parsers read (the module's names()): same names, same
 * order, in both flavours; and each list's names are accepted by the API
 * while a name outside the list is rejected with a message listing them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  ALIBI_VARIANTS, ENCODINGS, POSITION_BUGS, ROPE_LAYOUTS, ROPE_SCALINGS, SINUSOIDAL_LAYOUTS, TASKS, type Posenc,
} from 'posenc';

import type * as Internal from '../../bindings/ts/internal.js';
import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
// dist/internal.js: the raw module behind a Posenc (not in the package's exports).
const { rawModels, rawModule } = (await import(pathToFileURL(join(root, 'dist/internal.js')).href)) as typeof Internal;

const LISTS: Record<string, readonly string[]> = {
  ropeLayout: ROPE_LAYOUTS,
  ropeScaling: ROPE_SCALINGS,
  sinusoidalLayout: SINUSOIDAL_LAYOUTS,
  alibiVariant: ALIBI_VARIANTS,
  encoding: ENCODINGS,
  task: TASKS,
  positionBug: POSITION_BUGS,
};

/** The lists the models module parses (the encodings: both modules). */
const MODELS_LISTS = new Set(['encoding', 'task', 'positionBug']);
const CORE_LISTS = new Set(['ropeLayout', 'ropeScaling', 'sinusoidalLayout', 'alibiVariant', 'encoding']);

/** The C++ table of `list` in one module, one name per line. */
async function cppNames(pe: Posenc, list: string, part: 'core' | 'models'): Promise<string[]> {
  const text = (part === 'core' ? rawModule(pe) : await rawModels(pe)).names(list);
  return text === '' ? [] : text.slice(0, -1).split('\n');
}

for (const [flavour, ready] of flavours) {
  describe(`name lists (${flavour})`, () => {
    for (const [list, names] of Object.entries(LISTS)) {
      it(`${list}: the exported list is the C++ table, in enum order`, async () => {
        const pe = await ready;
        for (const part of ['core', 'models'] as const) {
          const has = (part === 'core' ? CORE_LISTS : MODELS_LISTS).has(list);
          assert.deepEqual(await cppNames(pe, list, part), has ? [...names] : [], `${part} module`);
        }
        assert.equal(new Set(names).size, names.length, 'no duplicates');
      });
    }

    it('an unknown list name gives an empty table (the test above cannot pass vacuously)', async () => {
      assert.deepEqual(await cppNames(await ready, 'colours', 'core'), []);
      assert.deepEqual(await cppNames(await ready, 'colours', 'models'), []);
    });

    it('the C++ parsers list the same names in their errors', async () => {
      const pe = await ready;
      const rope = { heads: 1, seqLen: 1, headDim: 2, layout: 'half' } as const;
      // scaling.type is checked in TS first: its message must list ROPE_SCALINGS too.
      assert.throws(() => pe.applyRope(new Float32Array(2), { ...rope, scaling: { type: 'su' } as never }), {
        message: `scaling.type must be one of ${ROPE_SCALINGS.map((s) => `'${s}'`).join(', ')}, got 'su'`,
      });
      await assert.rejects(pe.train({ task: 'language', encoding: 'cope' as never, steps: 1 }), {
        message: new RegExp(`encoding must be one of ${ENCODINGS.map((s) => `'${s}'`).join(', ')}`),
      });
    });

    it('every scaling, layout, variant and encoding name is accepted where it is an option', async () => {
      const pe = await ready;
      for (const layout of ROPE_LAYOUTS) pe.applyRope(new Float32Array(4), { heads: 1, seqLen: 1, headDim: 4, layout });
      for (const layout of SINUSOIDAL_LAYOUTS) pe.sinusoidal({ length: 2, dim: 4, layout });
      for (const variant of ALIBI_VARIANTS) pe.alibiSlopes(4, { variant });
      for (const task of TASKS) assert.equal((await pe.taskReference(task)).task, task);
    });
  });
}
