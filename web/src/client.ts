// The page's side of the Worker protocol: one promise per call.
import type { Api, Method, Reply } from './protocol.js';

export type Progress = { step: number; steps: number; loss: number };

export class WorkerClient {
  private readonly worker: Worker;
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; progress?: (p: Progress) => void }>();

  constructor() {
    this.worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.worker.addEventListener('message', (e: MessageEvent<Reply>) => {
      const r = e.data;
      const w = this.waiting.get(r.id);
      if (!w) return;
      if ('progress' in r) {
        w.progress?.(r.progress);
        return;
      }
      this.waiting.delete(r.id);
      if (r.ok) w.resolve(r.result);
      else w.reject(new Error(r.error));
    });
    this.worker.addEventListener('error', (e) => {
      for (const w of this.waiting.values()) w.reject(new Error(`worker failed: ${e.message}`));
      this.waiting.clear();
    });
  }

  call<M extends Method>(method: M, args: Api[M]['args'], progress?: (p: Progress) => void): Promise<Api[M]['result']> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject, ...(progress ? { progress } : {}) });
      this.worker.postMessage({ id, method, args });
    });
  }
}
