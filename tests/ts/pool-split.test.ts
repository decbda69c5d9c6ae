/**
 * How the pool cuts an attention call (pool-split.ts `partHeads`): every
 * query head in exactly one part, in order; a part's heads all belong to its
 * key-value groups, and a part that shares a group with another holds only
 * heads of that group; as many parts as Workers while there are heads to
 * give them (so multi-query calls split too); balanced as far as whole
 * groups allow.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

import type * as Split from '../../bindings/ts/pool-split.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const { partHeads } = (await import(pathToFileURL(join(root, 'dist/pool-split.js')).href)) as typeof Split;

describe('partHeads', () => {
  it('covers every head once, keeps groups whole or cuts inside one group, uses every Worker it can', () => {
    for (const heads of [2, 3, 4, 6, 8, 12, 16, 32]) {
      for (let kvHeads = 1; kvHeads <= heads; kvHeads++) {
        if (heads % kvHeads !== 0) continue;
        const group = heads / kvHeads;
        for (let parts = 2; parts <= 8; parts++) {
          const at = `heads ${heads}, kvHeads ${kvHeads}, parts ${parts}`;
          const ps = partHeads(heads, kvHeads, parts);
          assert.equal(ps.length, Math.min(parts, heads), `${at}: part count`);
          let next = 0;
          for (const p of ps) {
            assert.equal(p.h0, next, `${at}: heads in order, none skipped`);
            assert.ok(p.h >= 1 && p.g >= 1, at);
            next += p.h;
            // The part's heads map to its groups, as in the whole call (head x uses group floor(x / group)).
            assert.equal(Math.floor(p.h0 / group), p.g0, `${at}: first head's group`);
            assert.equal(Math.floor((p.h0 + p.h - 1) / group), p.g0 + p.g - 1, `${at}: last head's group`);
            // Whole groups, or part of a single group.
            if (p.g > 1 || p.h === group) assert.equal(p.h, p.g * group, `${at}: whole groups`);
            else assert.equal(p.g, 1, at);
          }
          assert.equal(next, heads, `${at}: every head`);
          // Balanced as far as whole groups allow: groups per part, or parts per group and the
          // heads of one group's parts, differ by at most one.
          const spread = (xs: number[]): number => Math.max(...xs) - Math.min(...xs);
          if (kvHeads >= parts) assert.ok(spread(ps.map((p) => p.g)) <= 1, `${at}: groups per part`);
          else {
            const byGroup = Array.from({ length: kvHeads }, (_, g) => ps.filter((p) => p.g0 === g).map((p) => p.h));
            assert.ok(spread(byGroup.map((hs) => hs.length)) <= 1, `${at}: parts per group`);
            for (const hs of byGroup) assert.ok(spread(hs) <= 1, `${at}: heads per part in a group`);
          }
        }
      }
    }
  });
});
