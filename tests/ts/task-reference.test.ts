/**
 * `taskReference`, both wasm flavours, against the task data itself (drawn
 * with `sampleTask`) and the vocabularies of the shipped models: chance
 * levels from the targets' frequencies, the language's entropies from
 * trigram, bigram and unigram counts of a long sample (Miller-Madow
 * corrected plug-in estimates), the best accuracies from the data.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import type { Posenc } from 'posenc';

import { flavours } from './flavours.js';

const root = join(fileURLToPath(import.meta.url), '../../../../..');
const shipped = (name: string): Uint8Array => readFileSync(join(root, 'web/models', `${name}.safetensors`));

/** Entropy (nats) of a histogram, plug-in plus the Miller-Madow term (nonzero bins - 1) / 2N. */
function entropy(counts: ArrayLike<number>): { h: number; n: number; bins: number } {
  let n = 0;
  let bins = 0;
  for (let i = 0; i < counts.length; i++) {
    n += counts[i]!;
    bins += counts[i]! > 0 ? 1 : 0;
  }
  let h = 0;
  for (let i = 0; i < counts.length; i++) if (counts[i]! > 0) h -= (counts[i]! / n) * Math.log(counts[i]! / n);
  return { h, n, bins };
}

/** H(next | context) from counts [contexts, V], bias-corrected. */
function conditionalEntropy(counts: Float64Array, V: number): number {
  let total = 0;
  let h = 0;
  let correction = 0;
  for (let c = 0; c < counts.length / V; c++) {
    const e = entropy(counts.subarray(c * V, (c + 1) * V));
    if (e.n === 0) continue;
    total += e.n;
    h += e.h * e.n;
    correction += (e.bins - 1) / 2;
  }
  return (h + correction) / total;
}

const maxShare = (counts: ArrayLike<number>): number => {
  let n = 0;
  let max = 0;
  for (let i = 0; i < counts.length; i++) {
    n += counts[i]!;
    max = Math.max(max, counts[i]!);
  }
  return max / n;
};

async function languageChecks(pe: Posenc): Promise<void> {
  const r = await pe.taskReference('language');
  assert.equal(r.task, 'language');
  assert.equal(r.orderFreeAccuracy, undefined);
  using lm = await pe.loadModel(shipped('language-rope'));
  const V = lm.config.vocab;
  // One long sequence of a stationary chain: 2^20 tokens.
  const { tokens, targets } = await pe.sampleTask({ task: 'language', length: 1 << 20, seed: 3 });
  const tri = new Float64Array(V * V * V);
  const bi = new Float64Array(V * V);
  const uni = new Float64Array(V);
  for (let t = 2; t < tokens.length; t++) {
    if (targets[t] === undefined || targets[t]! < 0) continue;
    const [a, b, c] = [tokens[t - 1]!, tokens[t]!, targets[t]!];
    tri[(a * V + b) * V + c]!++;
    bi[b * V + c]!++;
    uni[c]!++;
  }
  const rate = conditionalEntropy(tri, V);
  const bigram = conditionalEntropy(bi, V);
  const unigram = entropy(uni).h + (entropy(uni).bins - 1) / (2 * entropy(uni).n);
  // The best accuracy: the most frequent continuation of each context.
  let hits = 0;
  let n = 0;
  for (let ab = 0; ab < V * V; ab++) {
    const row = tri.subarray(ab * V, (ab + 1) * V);
    hits += Math.max(...row);
    for (const x of row) n += x;
  }
  console.log(`language reference: rate ${r.entropyRate} (sampled ${rate.toFixed(4)}), bigram ${r.bigramEntropy} (${bigram.toFixed(4)}), ` +
    `unigram ${r.unigramEntropy} (${unigram.toFixed(4)}), best accuracy ${r.bestAccuracy} (${(hits / n).toFixed(4)}), ` +
    `chance accuracy ${r.chanceAccuracy} (${maxShare(uni).toFixed(4)})`);
  assert.ok(Math.abs(rate - r.entropyRate!) < 0.01, `rate ${rate} vs ${r.entropyRate}`);
  assert.ok(Math.abs(bigram - r.bigramEntropy!) < 0.01, `bigram ${bigram} vs ${r.bigramEntropy}`);
  assert.ok(Math.abs(unigram - r.unigramEntropy!) < 0.01, `unigram ${unigram} vs ${r.unigramEntropy}`);
  assert.ok(Math.abs(hits / n - r.bestAccuracy) < 0.01, `best accuracy ${hits / n} vs ${r.bestAccuracy}`);
  assert.ok(Math.abs(maxShare(uni) - r.chanceAccuracy) < 0.003, `chance accuracy ${maxShare(uni)} vs ${r.chanceAccuracy}`);
  assert.equal(r.bestLoss, r.entropyRate);
  assert.equal(r.chanceLoss, r.unigramEntropy);
  assert.ok(r.entropyRate! < r.bigramEntropy! && r.bigramEntropy! < r.unigramEntropy! && r.unigramEntropy! < Math.log(32));
}

async function wordOrderChecks(pe: Posenc): Promise<void> {
  const r = await pe.taskReference('word-order');
  assert.equal(r.entropyRate, undefined);
  using enc = await pe.loadModel(shipped('word-order-rope'));
  const K = enc.classes.length;
  assert.equal(r.chanceAccuracy, 1 / K);
  assert.ok(Math.abs(r.chanceLoss - Math.log(K)) < 1e-12);
  assert.deepEqual([r.bestAccuracy, r.bestLoss], [1, 0]);
  // The subject is the token at position 1; order-free, a sentence is its
  // sorted tokens. The multiset classifier is fitted on even samples and
  // scored on odd ones.
  const subjects = new Map<string, number>();
  const fit = new Map<string, Map<number, number>>();
  const heldOut: Array<[string, number]> = [];
  const n = 20000;
  for (let i = 0; i < n; i++) {
    const { tokens } = await pe.sampleTask({ task: 'word-order', length: 1, seed: 1000 + i });
    const word = enc.vocab[tokens[1]!]!;
    assert.ok(enc.classes.includes(word), word);
    subjects.set(word, (subjects.get(word) ?? 0) + 1);
    const bag = Array.from(tokens).sort((a, b) => a - b).join(',');
    if (i % 2) {
      heldOut.push([bag, tokens[1]!]);
    } else {
      const c = fit.get(bag) ?? new Map<number, number>();
      c.set(tokens[1]!, (c.get(tokens[1]!) ?? 0) + 1);
      fit.set(bag, c);
    }
  }
  assert.equal(subjects.size, K);
  assert.ok(Math.abs(maxShare([...subjects.values()]) - r.chanceAccuracy) < 0.01);
  let correct = 0;
  for (const [bag, subject] of heldOut) {
    const c = [...(fit.get(bag) ?? new Map<number, number>()).entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    correct += c.length > 0 && c[0]![0] === subject ? 1 : 0;
  }
  assert.ok(Math.abs(correct / heldOut.length - r.orderFreeAccuracy!) < 0.03, `order-free ${correct / heldOut.length}`);
  assert.ok(Math.abs(r.orderFreeLoss! - Math.log(2)) < 1e-12);
}

async function retrievalChecks(pe: Posenc): Promise<void> {
  const r = await pe.taskReference('retrieval');
  assert.equal(r.entropyRate, undefined);
  assert.equal(r.orderFreeLoss, undefined);
  using rm = await pe.loadModel(shipped('retrieval-rope'));
  const values = rm.vocab.filter((w) => /^v\d+$/.test(w)).length;
  assert.equal(values, 16);
  assert.equal(r.chanceAccuracy, 1 / values);
  assert.ok(Math.abs(r.chanceLoss - Math.log(values)) < 1e-12);
  assert.deepEqual([r.bestAccuracy, r.bestLoss], [1, 0]);
  // Targets: value tokens, uniform, each the one value paired with its key
  // before the '?' (so the best accuracy is 1).
  const counts = new Map<number, number>();
  const query = rm.vocab.indexOf('?');
  for (let i = 0; i < 1000; i++) {
    const { tokens, targets } = await pe.sampleTask({ task: 'retrieval', length: 64, seed: i });
    const q = tokens.indexOf(query);
    for (let t = 0; t < tokens.length; t++) {
      const target = targets[t]!;
      if (target < 0) continue;
      assert.match(rm.vocab[target]!, /^v\d+$/);
      counts.set(target, (counts.get(target) ?? 0) + 1);
      const pairs = [];
      for (let p = 1; p < q; p++) if (tokens[p] === tokens[t]) pairs.push(tokens[p + 1]);
      assert.deepEqual(pairs, [target]);
    }
  }
  assert.equal(counts.size, 16);
  assert.ok(Math.abs(maxShare([...counts.values()]) - r.chanceAccuracy) < 0.01);
}

for (const [flavour, ready] of flavours) {
  describe(`taskReference (${flavour})`, () => {
    it('language: the entropies and accuracies of a long sample', async () => languageChecks(await ready));
    it('word-order: chance 1/classes, order-free 1/2', async () => wordOrderChecks(await ready));
    it('retrieval: chance 1/values, a unique answer', async () => retrievalChecks(await ready));
    it('both flavours agree', async () => {
      const pe = await ready;
      const other = await flavours[0]![1];
      for (const task of ['word-order', 'language', 'retrieval'] as const) {
        const a = await pe.taskReference(task);
        const b = await other.taskReference(task);
        for (const k of Object.keys(b) as Array<keyof typeof b>) {
          if (typeof b[k] === 'number') assert.ok(Math.abs((a[k] as number) - (b[k] as number)) < 1e-12, `${task} ${k}`);
        }
        assert.deepEqual(Object.keys(a), Object.keys(b));
      }
    });
  });
}
