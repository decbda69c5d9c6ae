/**
 * The keys an options object may hold, and the check that refuses any other: a misspelt option
 * (`casual` for `causal`) would otherwise be ignored and the call would run with the default.
 * Each module lists the keys of the objects it validates beside that validation (`keysOf`), and
 * calls `knownKeys` where it first sees the object.
 */

/**
 * A list of every key of `T`, checked when it compiles: `keysOf<AttentionOptions>()(['q', 'k', ...])`
 * fails to compile when the list names a key `T` does not have, or leaves out one it has (the error
 * names the missing key as `missing`). Curried so that `T` is given and the list's own type inferred.
 */
export const keysOf =
  <T>() =>
  <const K extends readonly (keyof T & string)[]>(
    keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, K[number]> }),
  ): K =>
    keys;

/** Edits (insert, delete, substitute) between two strings. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}

/**
 * Other libraries' names for options posenc spells otherwise (Hugging Face configs, PyTorch), too far
 * from ours for the edit distance: a key here is suggested as its posenc name when the object has it.
 */
const ALIASES: Readonly<Record<string, string>> = {
  ropeTheta: 'base', rope_theta: 'base', theta: 'base', rotaryBase: 'base', rotary_emb_base: 'base',
  rope_type: 'type', ropeType: 'type',
  learningRate: 'lr', learning_rate: 'lr',
  batchSize: 'batch', batch_size: 'batch',
  temp: 'temperature',
  len: 'length',
  num_heads: 'heads', numHeads: 'heads', num_attention_heads: 'heads',
  num_key_value_heads: 'kvHeads', numKvHeads: 'kvHeads',
  head_dim: 'headDim',
  is_causal: 'causal', isCausal: 'causal',
};

/** The known key `key` was probably meant to be: another library's name for it, equal ignoring case, else the nearest within 2 edits. */
function nearest(key: string, known: readonly string[]): string | undefined {
  const alias = Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
  if (alias !== undefined && known.includes(alias)) return alias;
  const lower = key.toLowerCase();
  const same = known.find((k) => k.toLowerCase() === lower);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(lower, k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/**
 * Throws a `TypeError` for the first own enumerable key of `o` that is not in `known` (nor in
 * `alsoAccepted`, keys taken and ignored: the fields of a `ropeFromConfig` result that its
 * documented spread into RoPE options brings along). The message names the object (`name`, the
 * parameter path: `attention options`, `rope.scaling`), the key, and the known key it is probably a
 * typo of, else every known key.
 *
 * A key whose value is `undefined` is not refused: it cannot change a call (an option left out is
 * `undefined` too), and options built as `{ factor: given ? f : undefined }` or spread from objects
 * with optional fields hold such keys in correct code.
 */
export function knownKeys(name: string, o: object, known: readonly string[], alsoAccepted: readonly string[] = []): void {
  for (const key of Object.keys(o)) {
    if ((o as Record<string, unknown>)[key] === undefined || known.includes(key) || alsoAccepted.includes(key)) continue;
    const near = nearest(key, known);
    const hint = near !== undefined ? `did you mean '${near}'?` : `the known keys are ${known.map((k) => `'${k}'`).join(', ')}`;
    throw new TypeError(`${name}: unknown key '${key}'; ${hint}`);
  }
}

/** `knownKeys` on `v` when it is an object (anything else is left to the check of its type). */
export function knownKeysIfObject(name: string, v: unknown, known: readonly string[], alsoAccepted: readonly string[] = []): void {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) knownKeys(name, v, known, alsoAccepted);
}
