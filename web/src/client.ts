// The page's side of the Worker protocol: one promise per call. The Worker
// starts on the first call (a section near the reader that needs a model),
// so opening the page fetches neither the Worker nor anything it loads; its
// `init` (the page's compiled module, posted) always goes first.
import { startPoolWorker } from 'posenc/pool';

import type { Api, Method, Progress, Reply } from './protocol.js';

export type { Progress } from './protocol.js';

type Waiting = { resolve: (v: unknown) => void; reject: (e: Error) => void; progress?: (p: Progress) => void };

export class WorkerClient {
  private worker: Worker | undefined;
  private next = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly startListeners: Array<(r: Api['init']['result']) => void> = [];
  private startResult: Api['init']['result'] | undefined;

  constructor(private readonly initArgs: Api['init']['args']) {}

  /** Whether the Worker has been started (by a first call). */
  get started(): boolean {
    return this.worker !== undefined;
  }

  /** Calls `f` with the Worker's flavour once it has started (at once if it has). */
  onStart(f: (r: Api['init']['result']) => void): void {
    if (this.startResult) f(this.startResult);
    else this.startListeners.push(f);
  }

  call<M extends Method>(method: M, args: Api[M]['args'], progress?: (p: Progress) => void): Promise<Api[M]['result']> {
    this.start();
    return this.send(method, args, progress);
  }

  private start(): void {
    if (this.worker) return;
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.worker = worker;
    worker.addEventListener('message', (e: MessageEvent<Reply>) => this.receive(e.data));
    worker.addEventListener('error', (e) => {
      for (const w of this.waiting.values()) w.reject(new Error(`worker failed: ${e.message}`));
      this.waiting.clear();
    });
    this.send('init', this.initArgs).then((r) => {
      this.startResult = r;
      for (const f of this.startListeners.splice(0)) f(r);
    }, () => undefined);
  }

  private send<M extends Method>(method: M, args: Api[M]['args'], progress?: (p: Progress) => void): Promise<Api[M]['result']> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, ...(progress ? { progress } : {}) });
      this.worker!.postMessage({ id, method, args });
    });
  }

  private receive(r: Reply): void {
    if ('poolPort' in r) {
      startPoolWorker(r.poolPort);
      return;
    }
    const w = this.waiting.get(r.id);
    if (!w) return;
    if ('progress' in r) {
      w.progress?.(r.progress);
      return;
    }
    this.waiting.delete(r.id);
    if (r.ok) w.resolve(r.result);
    else w.reject(new Error(r.error));
  }
}
