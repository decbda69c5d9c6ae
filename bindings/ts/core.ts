/**
 * The API object over the core Emscripten instance, assembled from the
 * modules that each own one part of it: heap.ts (marshalling, handles),
 * rope.ts, attention.ts (with the KV cache), encodings.ts (the other
 * encodings) and model.ts (tiny models, training, tasks: over the models
 * module, instantiated the first time it is needed).
 */
import { attentionApi } from './attention.js';
import { encodingsApi } from './encodings.js';
import { guardModule, Heap } from './heap.js';
import { ropeFromConfigApi } from './hf-config.js';
import { registerRaw } from './internal.js';
import { mropePositionIdsApi } from './mrope-positions.js';
import { queryScaleApi } from './query-scale.js';
import { modelApi } from './model.js';
import type { RawModels, RawModule } from './raw.js';
import { ropeApi } from './rope.js';
import type { MemoryStats, Posenc } from './types.js';

export function createPosenc(m: RawModule, simd: boolean, instantiateModels: () => Promise<RawModels>): Posenc {
  guardModule(m);
  // A module passed to init() is the build `simd` names (the glue and `pe.simd` follow that flag).
  const built = m.target() !== 'SCALAR';
  if (built !== simd) {
    throw new TypeError(`module is posenc's ${built ? 'SIMD' : 'scalar'} build (target ${m.target()}) but simd is ${simd}: pass simd: ${built} with it`);
  }
  const heap = new Heap(m);
  const { attention, KvCache, attentionInto } = attentionApi(heap);
  const rope = ropeApi(heap);
  // The models module, once: a failed load is reported to its caller and tried again by the next one.
  let loaded: Heap<RawModels> | undefined;
  let loading: Promise<Heap<RawModels>> | undefined;
  const modelsHeap = (): Promise<Heap<RawModels>> => {
    if (loaded !== undefined) return Promise.resolve(loaded);
    loading ??= instantiateModels().then(
      (raw) => {
        if (typeof raw.TinyModel !== 'function') throw new Error('posenc: the models module given to init() is not a posenc models module (no TinyModel)');
        guardModule(raw);
        if (raw.target() !== m.target()) throw new Error(`posenc: the models module was built for ${raw.target()}, the core for ${m.target()}`);
        loaded = new Heap(raw);
        return loaded;
      },
      (e: unknown) => {
        loading = undefined;
        throw e;
      },
    );
    return loading;
  };
  const { trainReplica, ...modelCalls } = modelApi(heap, modelsHeap);
  const api: Posenc = {
    simd,
    target: m.target(),
    heapBytes: () => m.HEAPU8.length + (loaded?.m.HEAPU8.length ?? 0),
    memoryStats(): MemoryStats {
      const [inUse, kvCaches] = m.memoryStats().split(' ').map(Number);
      const [modelsInUse, tinyModels, trainers] = loaded === undefined ? [0, 0, 0] : loaded.m.memoryStats().split(' ').map(Number);
      return {
        heapBytes: api.heapBytes(), inUseBytes: inUse! + modelsInUse!, modelsLoaded: loaded !== undefined,
        kvCaches: kvCaches!, models: tinyModels!, trainers: trainers!,
      };
    },
    ...rope,
    ...ropeFromConfigApi(rope),
    ...queryScaleApi,
    ...mropePositionIdsApi,
    ...encodingsApi(heap),
    attention,
    KvCache,
    ...modelCalls,
  };
  registerRaw(api, m, async () => (await modelsHeap()).m, { trainReplica, attentionInto });
  return api;
}
