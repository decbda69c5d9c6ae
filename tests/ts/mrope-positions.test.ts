/**
 * pe.mropePositionIds: the three M-RoPE position rows of a prompt with
 * images and videos, against rows worked out by hand from transformers'
 * Qwen2-VL `get_rope_index` (docs/formulas.md#m-rope) and against a float64
 * port of its loop (hfRopeIndex), with left padding, Qwen2.5-VL's seconds
 * per grid and Qwen3-VL's per-frame blocks; malformed prompts are errors.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { MropePositionIdsOptions } from 'posenc';

import { flavours } from './flavours.js';
import { hfRopeIndex } from './hf-reference.js';

const TXT = 5;
const START = 151652;
const IMG = 151655;
const VID = 151656;
const ids = (...parts: number[][]): Int32Array => Int32Array.from(parts.flat());
const text = (n: number): number[] => Array<number>(n).fill(TXT);
const image = (n: number): number[] => [START, ...Array<number>(n).fill(IMG)];
const video = (n: number): number[] => [START, ...Array<number>(n).fill(VID)];
const common = { spatialMergeSize: 2, imageTokenId: IMG, videoTokenId: VID, visionStartTokenId: START };

/** Rows [3][seqLen] of batch row b. */
function rows(p: Int32Array, b: number, S: number): number[][] {
  return [0, 1, 2].map((a) => Array.from(p.subarray((b * 3 + a) * S, (b * 3 + a + 1) * S)));
}

for (const [flavour, ready] of flavours) {
  describe(`mropePositionIds (${flavour})`, () => {
    it('one image between text: the rows worked out by hand', async () => {
      const pe = await ready;
      // 2 text, <vision_start>, a (1, 4, 4) image = 2 x 2 tokens, 2 text.
      const inputIds = ids(text(2), image(4), text(2));
      const { positions, ropeDeltas } = pe.mropePositionIds({ ...common, inputIds, imageGridThw: Int32Array.from([1, 4, 4]) });
      assert.deepEqual(rows(positions, 0, 9), [
        [0, 1, 2, 3, 3, 3, 3, 5, 6],
        [0, 1, 2, 3, 3, 4, 4, 5, 6],
        [0, 1, 2, 3, 4, 3, 4, 5, 6],
      ]);
      assert.deepEqual([...ropeDeltas], [-2]);
    });

    it('two images and text after them: the rows worked out by hand', async () => {
      const pe = await ready;
      const inputIds = ids(text(2), image(4), text(1), image(8), text(2));
      const { positions, ropeDeltas } = pe.mropePositionIds({ ...common, inputIds, imageGridThw: Int32Array.from([1, 4, 4, 1, 4, 8]) });
      assert.deepEqual(rows(positions, 0, 19), [
        [0, 1, 2, 3, 3, 3, 3, 5, 6, 7, 7, 7, 7, 7, 7, 7, 7, 11, 12],
        [0, 1, 2, 3, 3, 4, 4, 5, 6, 7, 7, 7, 7, 8, 8, 8, 8, 11, 12],
        [0, 1, 2, 3, 4, 3, 4, 5, 6, 7, 8, 9, 10, 7, 8, 9, 10, 11, 12],
      ]);
      assert.deepEqual([...ropeDeltas], [-6]);
    });

    it('batches with left padding, videos with seconds per grid, per-frame videos: as the float64 port', async () => {
      const pe = await ready;
      const a = [...text(3), ...video(8), ...text(2), ...image(4), ...text(1)];
      const b = [...text(1), ...image(4), ...text(3)];
      const S = a.length;
      const padded = [...Array<number>(S - b.length).fill(0), ...b];
      const cases: MropePositionIdsOptions[] = [
        // Qwen2-VL: a (2, 4, 4) video, frames one position apart.
        { ...common, inputIds: Int32Array.from(a), videoGridThw: Int32Array.from([2, 4, 4]), imageGridThw: Int32Array.from([1, 4, 4]) },
        // Qwen2.5-VL: 2 tokens per second, 1.5 s per grid: frames 3 positions apart.
        { ...common, inputIds: Int32Array.from(a), videoGridThw: Int32Array.from([2, 4, 4]), imageGridThw: Int32Array.from([1, 4, 4]),
          tokensPerSecond: 2, secondPerGridTs: [1.5] },
        // Two rows, the second left-padded.
        { ...common, batch: 2, inputIds: Int32Array.from([...a, ...padded]),
          attentionMask: Uint8Array.from([...Array<number>(S).fill(1), ...padded.map((t) => (t === 0 ? 0 : 1))]),
          videoGridThw: Int32Array.from([2, 4, 4]), imageGridThw: Int32Array.from([1, 4, 4, 1, 4, 4]) },
        // Qwen3-VL: the video's two frames are blocks of their own.
        { ...common, inputIds: ids(text(2), video(4), text(1), video(4), text(2)), videoGridThw: Int32Array.from([2, 4, 4]), splitVideoFrames: true },
        // Text only, with padding.
        { ...common, batch: 2, inputIds: Int32Array.from([0, 0, 5, 5, 5, 5, 5, 5]), attentionMask: Uint8Array.from([0, 0, 1, 1, 1, 1, 1, 1]) },
      ];
      for (const [k, o] of cases.entries()) {
        const got = pe.mropePositionIds(o);
        const want = hfRopeIndex(o);
        assert.deepEqual([...got.positions], want.positions, `case ${k}: positions`);
        assert.deepEqual([...got.ropeDeltas], want.deltas, `case ${k}: deltas`);
      }
    });

    it('a prompt that does not match its grids is an error naming what is missing', async () => {
      const pe = await ready;
      const inputIds = ids(text(2), image(4), text(2));
      const cases: Array<[MropePositionIdsOptions, string, RegExp]> = [
        [{ ...common, inputIds }, 'RangeError', /row 0 has more images than imageGridThw gives \(0\)/],
        [{ ...common, inputIds, imageGridThw: Int32Array.from([1, 4, 8]) }, 'RangeError', /image 0 of grid \(1, 4, 8\) needs 8 image tokens in a row, found 4/],
        [{ ...common, inputIds, imageGridThw: Int32Array.from([1, 4, 4, 1, 4, 4]) }, 'RangeError', /imageGridThw gives 2 images, the prompt has 1/],
        [{ ...common, inputIds, imageGridThw: Int32Array.from([1, 4, 5]) }, 'RangeError', /h and w must be multiples of spatialMergeSize \(2\)/],
        [{ ...common, inputIds, imageGridThw: Int32Array.from([1, 4]) }, 'RangeError', /imageGridThw must hold \(t, h, w\) triples, got 2 values/],
        [{ ...common, inputIds, batch: 2 }, 'RangeError', /9 is not a multiple of batch = 2/],
        [{ ...common, inputIds, attentionMask: new Uint8Array(3) }, 'RangeError', /attentionMask must have batch \* seqLen = 9 elements, got 3/],
        [{ ...common, inputIds, imageGridThw: Int32Array.from([1, 4, 4]), tokensPerSecond: -1 }, 'RangeError', /tokensPerSecond must be a finite number >= 0/],
      ];
      for (const [o, name, message] of cases) assert.throws(() => pe.mropePositionIds(o), { name, message });
      assert.equal(pe.mropePositionIds({ ...common, inputIds, imageGridThw: Int32Array.from([1, 4, 4]) }).positions.length, 27);
    });
  });
}
