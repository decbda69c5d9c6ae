// The module Worker: owns its own posenc instance (instantiated from the
// WebAssembly.Module the page compiled) and the tiny models, so evaluation
// and training never block the page. Each model file is fetched once.
import { compileWasm, init, type EvaluateOptions, type EvaluateResult, type Posenc, type PosencPool, type RopeScaling, type TinyModel, type TrainProgress } from 'posenc';
import { createPool } from 'posenc/pool';

import type { Api, LossCurve, Method, Reply, Request } from './protocol.js';
import { CUSTOM } from './protocol.js';
import { readTensor } from './safetensors.js';

let modelBase = '';
let resolvePe: (pe: Posenc) => void = () => undefined;
let rejectPe: (e: unknown) => void = () => undefined;
/** The worker's posenc instance, once `init` has run (every other call waits for it, or fails with it). */
const ready = new Promise<Posenc>((resolve, reject) => {
  resolvePe = resolve;
  rejectPe = reject;
});
ready.catch(() => undefined);
/** The shipped models' files, each fetched once: the model and its tensors are read from them. */
const files = new Map<string, Promise<Uint8Array>>();
const models = new Map<string, Promise<TinyModel>>();
let training: AbortController | undefined;

/** The page's flavour and compiled modules (the core from the page, the models compiled here once). */
let modules: { simd: boolean; core: WebAssembly.Module; models: WebAssembly.Module } | undefined;
/**
 * The Worker pool (started on the first training or evaluation): training and long evaluations use
 * every core, with the same results, bit for bit, as one thread. At most 4 Workers (a default step
 * has 4 micro-batches; an evaluation at most 5 lengths), started by the page and reached through
 * ports. Undefined where there are no Workers: then everything runs here, on one core.
 */
let poolStart: Promise<PosencPool | undefined> | undefined;
const pool = (): Promise<PosencPool | undefined> => {
  poolStart ??= (async () => {
    await ready;
    if (modules === undefined || typeof MessageChannel === 'undefined') return undefined;
    const cores = navigator.hardwareConcurrency > 0 ? navigator.hardwareConcurrency : 1;
    // The page starts the pool's Workers (Firefox can hang a Worker inside the constructor of a Worker it starts).
    const connect = (): MessagePort => {
      const { port1, port2 } = new MessageChannel();
      post({ poolPort: port2 }, [port2]);
      return port1;
    };
    return createPool({ workers: Math.min(4, cores), simd: modules.simd, module: modules.core, models: { module: modules.models }, connect })
      .catch(() => undefined);
  })();
  return poolStart;
};
/** How many cores a run uses: the pool's Workers, or 1. */
const coresOf = (p: PosencPool | undefined): number => p?.workers ?? 1;

/** `m.evaluate(o)`, its lengths shared by the pool's Workers when there is a pool (the same numbers). */
async function evaluate(m: TinyModel, o: EvaluateOptions): Promise<EvaluateResult[]> {
  const p = await pool();
  return p ? p.evaluate(m, o) : m.evaluate(o);
}

function file(name: string): Promise<Uint8Array> {
  let f = files.get(name);
  if (!f) {
    f = (async () => {
      const url = new URL(`${name}.safetensors`, modelBase);
      const res = await fetch(url);
      if (!res.ok) throw new Error(`could not fetch ${url.href}: HTTP ${res.status}`);
      return new Uint8Array(await res.arrayBuffer());
    })();
    files.set(name, f);
    f.catch(() => files.delete(name));
  }
  return f;
}

function model(name: string): Promise<TinyModel> {
  let m = models.get(name);
  if (!m) {
    if (name === CUSTOM) return Promise.reject(new Error('no model trained yet'));
    m = (async () => {
      const [pe, bytes] = await Promise.all([ready, file(name)]);
      return await pe.loadModel(bytes);
    })();
    models.set(name, m);
    m.catch(() => models.delete(name));
  }
  return m;
}

const post = (r: Reply, transfer: Transferable[] = []): void => (self as unknown as Worker).postMessage(r, transfer);

type Handlers = { [M in Method]: (args: Api[M]['args'], id: number) => Promise<Api[M]['result']> };

const handlers: Handlers = {
  async init({ modelBase: base, module, simd }) {
    modelBase = base;
    const pe = await compileWasm({ simd, part: 'models' }).then((models) => {
      modules = { simd, core: module, models };
      return init({ module, simd, models: { module: models } });
    }).catch((e: unknown) => {
      rejectPe(e);
      throw e;
    });
    resolvePe(pe);
    return { simd: pe.simd, target: pe.target };
  },
  async describe({ model: name }) {
    const m = await model(name);
    return { config: m.config, classes: [...m.classes], vocab: [...m.vocab] };
  },
  async tensor({ model: name, name: tensor }) {
    if (name === CUSTOM) throw new Error('tensor: only shipped models');
    return readTensor(await file(name), tensor);
  },
  async references({ tasks }) {
    const pe = await ready;
    return Promise.all(tasks.map((task) => pe.taskReference(task)));
  },
  async sample({ task, length, seed }) {
    return (await (await ready).sampleTask({ task, length, seed })).tokens;
  },
  async answer({ model: name, sentences }) {
    const m = await model(name);
    return sentences.map((s) => {
      const logits = m.forward(m.tokenize(s)).logits;
      let best = 0;
      let max = -Infinity;
      for (let c = 0; c < logits.length; c++) max = Math.max(max, logits[c]!);
      let sum = 0;
      for (let c = 0; c < logits.length; c++) sum += Math.exp(logits[c]! - max);
      for (let c = 1; c < logits.length; c++) if (logits[c]! > logits[best]!) best = c;
      return { answer: m.classes[best] ?? String(best), p: Math.exp(logits[best]! - max) / sum };
    });
  },
  async evaluate({ model: name, lengths, examples, seed, scaling }) {
    const m = await model(name);
    return (await evaluate(m, { lengths, examples, ...(seed === undefined ? {} : { seed }), ...(scaling ? { scaling } : {}) })).map((r) => ({
      length: r.length, loss: r.loss, accuracy: r.accuracy, positionLoss: r.positionLoss,
    }));
  },
  async bug({ model: name, bug, length, examples, seed, scaling }) {
    const m = await model(name);
    const sc = scaling ? { scaling } : {};
    const [buggy] = await evaluate(m, { lengths: [length], examples, seed, ...sc, bug });
    const prompt = (await (await ready).sampleTask({ task: 'language', length: 24, seed: 3 })).tokens;
    const gen = (b: typeof bug, cache = true): string[] =>
      m.detokenize(m.generate(prompt, { maxNewTokens: 40, ...sc, bug: b, cache })).split(' ');
    const strip = (r: typeof buggy): LossCurve => ({ length: r!.length, loss: r!.loss, accuracy: r!.accuracy, positionLoss: r!.positionLoss });
    return {
      buggy: strip(buggy), prompt: m.detokenize(prompt),
      cleanText: gen('none'), buggyText: gen(bug), uncachedText: gen(bug, false),
    };
  },
  async bugLoss({ model: name, bug, length, examples, seed, window }) {
    const m = await model(name);
    // A failing bug run is reported, not thrown.
    return evaluate(m, { lengths: [length], examples, seed, bug, ...(window === undefined ? {} : { window }) }).then(
      ([r]) => ({ buggy: r!.loss }), (e: unknown) => ({ buggy: NaN, error: e instanceof Error ? e.message : String(e) }));
  },
  async maps({ model: name, tokens }) {
    const m = await model(name);
    const r = m.forward(tokens, { attentionMaps: true });
    return { maps: r.attentionMaps!, layers: m.config.layers, heads: m.config.heads };
  },
  async train({ task, encoding, steps, seqLen, lr, warmup, seed }, id) {
    training?.abort();
    const ctrl = new AbortController();
    training = ctrl;
    try {
      const t0 = performance.now();
      const since = (): number => (performance.now() - t0) / 1000;
      const p = await pool();
      const cores = coresOf(p);
      const config = { task, encoding, steps, seqLen, seed: seed ?? 1, ...(lr !== undefined ? { lr } : {}), ...(warmup !== undefined ? { warmup } : {}) };
      const options = {
        signal: ctrl.signal, chunk: 10,
        onProgress: (r: TrainProgress) => post({ id, progress: { step: r.step, steps: r.steps, loss: r.loss, seconds: since(), cores } }),
      };
      // The pool's weights are pe.train's, bit for bit.
      const m = p ? await p.train(config, options) : await (await ready).train(config, options);
      const seconds = since();
      const old = models.get(CUSTOM);
      models.set(CUSTOM, Promise.resolve(m));
      old?.then((o) => o.delete()).catch(() => undefined);
      // Examples the training never saw (evaluation has its own seed).
      const [r] = m.evaluate({ lengths: [seqLen], examples: 32 });
      return { config: m.config, seconds, accuracy: r!.accuracy, cores };
    } finally {
      if (training === ctrl) training = undefined;
    }
  },
  async extend({ model: name, scaling, seqLen, steps, examples, seed }, id) {
    training?.abort();
    const ctrl = new AbortController();
    training = ctrl;
    const m = await model(name);
    const curve = (r: ReturnType<TinyModel['evaluate']>[number]): LossCurve => ({
      length: r.length, loss: r.loss, accuracy: r.accuracy, positionLoss: r.positionLoss,
    });
    const sc = scaling ? { scaling } : {};
    const p = await pool();
    const cores = coresOf(p);
    const at = (model: TinyModel, o: { scaling?: RopeScaling }): Promise<LossCurve> =>
      evaluate(model, { lengths: [seqLen], examples, seed, ...o }).then(([r]) => curve(r!));
    // With a scaling, the same model is also trained without one: the baseline the scaling is compared with.
    const stages = scaling ? 2 : 1;
    // Both "before" curves at once (on two cores when there is a pool).
    const [before, plainBefore] = await Promise.all([at(m, sc), scaling ? at(m, {}) : undefined]);
    let seconds = 0;
    /** Trains a copy of m with `o`'s scaling (none: the plain positions) for `steps` at seqLen; its loss curve after. */
    const trainAt = async (o: { scaling?: RopeScaling }, stage: number): Promise<LossCurve> => {
      const t0 = performance.now();
      const config = { steps, seqLen, ...o };
      const options = {
        signal: ctrl.signal, chunk: 10,
        onProgress: (r: TrainProgress) => post({ id, progress: {
          step: r.step, steps: r.steps, loss: r.loss, seconds: seconds + (performance.now() - t0) / 1000, cores, ...(stages > 1 ? { stage, stages } : {}),
        } }),
      };
      const ext = p ? await p.continueTraining(m, config, options) : await (await ready).continueTraining(m, config, options);
      seconds += (performance.now() - t0) / 1000;
      try {
        // The extended model carries its scaling: evaluate applies it.
        return await at(ext, {});
      } finally {
        ext.delete();
      }
    };
    try {
      const after = await trainAt(sc, 1);
      // The same steps and data (continueTraining's default data seed) without a scaling.
      const plain = plainBefore ? { before: plainBefore, after: await trainAt({}, 2) } : undefined;
      return { before, after, ...(plain ? { plain } : {}), seconds, cores };
    } finally {
      if (training === ctrl) training = undefined;
    }
  },
  async cancel() {
    training?.abort(new Error('cancelled'));
    return null;
  },
};

self.addEventListener('message', (e: MessageEvent<Request>) => {
  const { id, method, args } = e.data;
  const handler = handlers[method] as (a: unknown, id: number) => Promise<unknown>;
  handler(args, id).then(
    (result) => {
      const transfer: Transferable[] = [];
      if (method === 'maps') transfer.push((result as Api['maps']['result']).maps.buffer);
      if (method === 'tensor') transfer.push((result as Api['tensor']['result']).data.buffer);
      post({ id, ok: true, result }, transfer);
    },
    (err: unknown) => post({ id, ok: false, error: err instanceof Error ? err.message : String(err) }),
  );
});
