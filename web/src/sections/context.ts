// What every section gets: the page's own posenc instance (small, instant
// computations), the Worker (models, evaluation, training) and the model
// trained in section "train", if any.
import type { Posenc, TinyModelConfig } from 'posenc';

import type { WorkerClient } from '../client.js';

export class Ctx {
  custom: TinyModelConfig | undefined;
  private readonly listeners: Array<() => void> = [];

  constructor(readonly pe: Posenc, readonly worker: WorkerClient) {}

  onCustomModel(f: () => void): void {
    this.listeners.push(f);
  }

  setCustom(c: TinyModelConfig): void {
    this.custom = c;
    for (const f of this.listeners) f();
  }
}

/** A section's mount function (sections/<id>/mount.ts): builds its controls and figures into `body`. */
export type Mount = (ctx: Ctx, body: HTMLElement) => void;
