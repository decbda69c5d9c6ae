/**
 * `mropePositionIds`: the three position rows (temporal, height, width) of
 * M-RoPE for a prompt with images and videos, as the Qwen2-VL family's
 * `get_rope_index` in transformers builds them. Text tokens get the same
 * position on all three rows; a vision block of grid (t, h, w) patches
 * becomes t x (h / m) x (w / m) tokens (m = spatial merge size), laid out
 * row-major, whose rows count the frame, the patch row and the patch column
 * from the block's first position; every span starts one past the largest
 * position so far.
 */
import type { MropePositionIds, MropePositionIdsOptions, Posenc } from './types.js';
import { i32, int, optInt, requireObject } from './validate.js';
import { keysOf, knownKeys } from './known-keys.js';

/** `[n, 3]` grids, each a positive (t, h, w) with h and w multiples of the merge size. */
function grids(name: string, v: unknown, merge: number): Array<[number, number, number]> {
  if (v === undefined) return [];
  const g = i32(name, v);
  if (g.length % 3 !== 0) throw new RangeError(`${name} must hold (t, h, w) triples, got ${g.length} values`);
  const out: Array<[number, number, number]> = [];
  for (let i = 0; i < g.length; i += 3) {
    const [t, h, w] = [g[i]!, g[i + 1]!, g[i + 2]!];
    if (t < 1 || h < 1 || w < 1) throw new RangeError(`${name}[${i / 3}] must be positive, got (${t}, ${h}, ${w})`);
    if (h % merge !== 0 || w % merge !== 0) {
      throw new RangeError(`${name}[${i / 3}] = (${t}, ${h}, ${w}): h and w must be multiples of spatialMergeSize (${merge})`);
    }
    out.push([t, h, w]);
  }
  return out;
}

function tokenId(name: string, v: unknown): number {
  return int(name, v, 0, 2147483647);
}

const MROPE_POSITION_IDS_KEYS = keysOf<MropePositionIdsOptions>()([
  'inputIds', 'batch', 'attentionMask', 'imageGridThw', 'videoGridThw', 'spatialMergeSize', 'imageTokenId', 'videoTokenId',
  'visionStartTokenId', 'tokensPerSecond', 'secondPerGridTs', 'splitVideoFrames',
]);

export function mropePositionIds(options: MropePositionIdsOptions): MropePositionIds {
  const o = requireObject('options', options);
  knownKeys('mropePositionIds options', o, MROPE_POSITION_IDS_KEYS);
  const B = optInt('batch', o.batch, 1, 1, 1 << 20);
  const ids = i32('inputIds', o.inputIds);
  if (ids.length % B !== 0) throw new RangeError(`inputIds must have batch * seqLen elements: ${ids.length} is not a multiple of batch = ${B}`);
  const S = ids.length / B;
  let mask: Uint8Array | undefined;
  if (o.attentionMask !== undefined) {
    if (!(o.attentionMask instanceof Uint8Array)) throw new TypeError('attentionMask must be a Uint8Array (1 = token, 0 = padding)');
    if (o.attentionMask.length !== ids.length) {
      throw new RangeError(`attentionMask must have batch * seqLen = ${ids.length} elements, got ${o.attentionMask.length}`);
    }
    mask = o.attentionMask;
  }
  const merge = int('spatialMergeSize', o.spatialMergeSize, 1, 1 << 16);
  const imageToken = tokenId('imageTokenId', o.imageTokenId);
  const videoToken = tokenId('videoTokenId', o.videoTokenId);
  const startToken = tokenId('visionStartTokenId', o.visionStartTokenId);
  const images = grids('imageGridThw', o.imageGridThw, merge);
  let videos = grids('videoGridThw', o.videoGridThw, merge);
  let seconds: number[] | undefined;
  if (o.secondPerGridTs !== undefined) {
    const s = o.secondPerGridTs as ArrayLike<unknown>;
    if (typeof s !== 'object' || s === null || typeof s.length !== 'number') throw new TypeError('secondPerGridTs must be an array of numbers');
    if (s.length !== videos.length) throw new RangeError(`secondPerGridTs must have one value per video (${videos.length}), got ${s.length}`);
    seconds = Array.from(s, (x, i) => {
      if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) throw new RangeError(`secondPerGridTs[${i}] must be a finite number >= 0, got ${String(x)}`);
      return x;
    });
  }
  let tps: number | undefined;
  if (o.tokensPerSecond !== undefined) {
    const v = o.tokensPerSecond;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`tokensPerSecond must be a finite number >= 0, got ${String(v)}`);
    tps = v;
  }
  if (o.splitVideoFrames === true) {
    // Qwen3-VL: each frame group is a video of its own (with its own vision start token in the prompt).
    if (seconds !== undefined) throw new TypeError('secondPerGridTs does not go with splitVideoFrames (Qwen3-VL marks time with text)');
    videos = videos.flatMap(([t, h, w]) => Array.from({ length: t }, (): [number, number, number] => [1, h, w]));
  } else if (o.splitVideoFrames !== undefined && o.splitVideoFrames !== false) {
    throw new TypeError(`splitVideoFrames must be a boolean, got ${String(o.splitVideoFrames)}`);
  }

  const positions = new Int32Array(B * 3 * S).fill(1);  // padding keeps 1, as transformers leaves it
  const deltas = new Int32Array(B);
  let image = 0;
  let video = 0;
  for (let b = 0; b < B; b++) {
    const slots: number[] = [];
    for (let s = 0; s < S; s++) if (mask === undefined || mask[b * S + s] !== 0) slots.push(s);
    const row = (axis: number, k: number): number => (b * 3 + axis) * S + slots[k]!;
    let next = 0;
    for (let k = 0; k < slots.length; ) {
      const tok = ids[b * S + slots[k]!]!;
      const follows = k + 1 < slots.length ? ids[b * S + slots[k + 1]!]! : -1;
      if (tok === startToken && (follows === imageToken || follows === videoToken)) {
        for (let a = 0; a < 3; a++) positions[row(a, k)] = next;
        next++;
        k++;
        const isImage = follows === imageToken;
        const list = isImage ? images : videos;
        const n = isImage ? image++ : video++;
        const grid = list[n];
        const kind = isImage ? 'image' : 'video';
        if (grid === undefined) throw new RangeError(`row ${b} has more ${kind}s than ${kind}GridThw gives (${list.length})`);
        const [t, h, w] = grid;
        const H = h / merge;
        const W = w / merge;
        const count = t * H * W;
        for (let c = 0; c < count; c++) {
          if (k + c >= slots.length || ids[b * S + slots[k + c]!] !== follows) {
            throw new RangeError(`row ${b}: ${kind} ${n} of grid (${t}, ${h}, ${w}) needs ${count} ${kind} tokens in a row, found ${c}`);
          }
        }
        // Qwen2.5-VL: a video's frames are `secondPerGrid * tokensPerSecond` positions apart (truncated).
        const step = !isImage && tps !== undefined ? (seconds?.[n] ?? 1) * tps : 1;
        const start = next;
        let last = start;
        for (let c = 0; c < count; c++) {
          const ti = Math.floor(c / (H * W));
          const hi = Math.floor(c / W) % H;
          const wi = c % W;
          const tPos = start + Math.trunc(ti * step);
          positions[row(0, k + c)] = tPos;
          positions[row(1, k + c)] = start + hi;
          positions[row(2, k + c)] = start + wi;
          last = Math.max(last, tPos, start + hi, start + wi);
        }
        next = last + 1;
        k += count;
      } else {
        for (let a = 0; a < 3; a++) positions[row(a, k)] = next;
        next++;
        k++;
      }
    }
    deltas[b] = next - S;
  }
  if (image !== images.length) throw new RangeError(`imageGridThw gives ${images.length} images, the prompt has ${image}`);
  if (video !== videos.length) throw new RangeError(`videoGridThw gives ${videos.length} ${o.splitVideoFrames === true ? 'frame groups' : 'videos'}, the prompt has ${video}`);
  return { positions, ropeDeltas: deltas };
}

export const mropePositionIdsApi: Pick<Posenc, 'mropePositionIds'> = { mropePositionIds };
