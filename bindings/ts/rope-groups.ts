/**
 * The distinct RoPEs of a `ropeFromConfig` result, each with the layers that
 * use it: what `npx posenc inspect` prints and the page's "Your model" draws.
 * Pure TypeScript (no wasm), so both entries export it.
 */
import type { RopeFromConfig, RopeGroup, RopeLayerOptions } from './types.js';

/** Runs of consecutive indices: [first, last] pairs, for sorted `layers`. */
export function layerSpans(layers: readonly number[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let i = 0; i < layers.length;) {
    let j = i;
    while (j + 1 < layers.length && layers[j + 1] === layers[j]! + 1) j++;
    out.push([layers[i]!, layers[j]!]);
    i = j + 1;
  }
  return out;
}

/**
 * The context a layer's RoPE was trained on before any extension: the scaling's
 * `originalMaxPositionEmbeddings` (dynamic NTK: its `maxPositionEmbeddings`), else the model's
 * `max_position_embeddings` (`maxPositions`), else undefined.
 */
export function ropeOriginalContext(layer: RopeLayerOptions, maxPositions: number | undefined): number | undefined {
  const s = layer.scaling;
  if ('originalMaxPositionEmbeddings' in s) return s.originalMaxPositionEmbeddings;
  if (s.type === 'dynamic') return s.maxPositionEmbeddings;
  return maxPositions;
}

/**
 * The distinct RoPEs of `rc.layers`, in the order of their first layer, then the layers without RoPE
 * (`rope: null`) if any. Two layers share a group when every option is equal.
 */
export function ropeGroups(rc: RopeFromConfig): RopeGroup[] {
  const keys: string[] = [];
  const out: RopeGroup[] = [];
  const none: number[] = [];
  for (const [i, l] of rc.layers.entries()) {
    if (l === null) {
      none.push(i);
      continue;
    }
    const key = JSON.stringify(l);
    const k = keys.indexOf(key);
    if (k < 0) {
      keys.push(key);
      out.push({ rope: l, layers: [i], spans: [], originalContext: ropeOriginalContext(l, rc.maxPositions) });
    } else {
      out[k]!.layers.push(i);
    }
  }
  if (none.length > 0) out.push({ rope: null, layers: none, spans: [], originalContext: undefined });
  for (const g of out) g.spans = layerSpans(g.layers);
  return out;
}
