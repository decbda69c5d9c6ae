/**
 * The API object over one Emscripten instance, assembled from the modules
 * that each own one part of it: heap.ts (marshalling, handles), rope.ts,
 * attention.ts (with the KV cache), encodings.ts (the other encodings) and
 * model.ts (tiny models, training, tasks).
 */
import { attentionApi } from './attention.js';
import { encodingsApi } from './encodings.js';
import { guardModule, Heap } from './heap.js';
import { ropeFromConfigApi } from './hf-config.js';
import { registerRaw } from './internal.js';
import { modelApi } from './model.js';
import type { RawModule } from './raw.js';
import { ropeApi } from './rope.js';
import type { MemoryStats, Posenc } from './types.js';

export function createPosenc(m: RawModule, simd: boolean): Posenc {
  guardModule(m);
  const heap = new Heap(m);
  const { attention, KvCache } = attentionApi(heap);
  const models = modelApi(heap);
  const rope = ropeApi(heap);
  const api: Posenc = {
    simd,
    target: m.target(),
    heapBytes: () => m.HEAPU8.length,
    memoryStats(): MemoryStats {
      const [inUse, kvCaches, tinyModels, trainers] = m.memoryStats().split(' ').map(Number);
      return { heapBytes: m.HEAPU8.length, inUseBytes: inUse!, kvCaches: kvCaches!, models: tinyModels!, trainers: trainers! };
    },
    ...rope,
    ...ropeFromConfigApi(rope),
    ...encodingsApi(heap),
    attention,
    KvCache,
    ...models,
  };
  registerRaw(api, m);
  return api;
}
