/**
 * Reads keys of a Hugging Face config.json, recording the dotted path of each
 * key read and each default used. A multimodal config nests its text model in
 * `text_config`: keys are looked up there first, then at the top level, and a
 * key present in both with different values is an error (never one silently
 * preferred).
 */
export type Json = Record<string, unknown>;

/** Deep equality of two JSON values. */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class Reader {
  readonly keysRead: string[] = [];
  readonly defaulted: string[] = [];
  /** Objects a config class fills in (not from the config): their keys are not recorded as read. */
  private readonly filled = new WeakSet<object>();

  /**
   * @param top the whole config
   * @param text its `text_config`, when it has one
   */
  constructor(readonly top: Json, readonly text: Json | undefined) {}

  /** Whether the text model's config has `key` (null included: a key set to null is present). */
  has(key: string): boolean {
    return (this.text !== undefined && key in this.text) || key in this.top;
  }

  /** The text model's `key` (undefined and null are "absent"), recorded as read. */
  get(key: string): unknown {
    const inText = this.text?.[key];
    const inTop = this.top[key];
    const t = inText === null ? undefined : inText;
    const o = inTop === null ? undefined : inTop;
    if (t !== undefined && o !== undefined && !sameJson(t, o)) {
      throw new RangeError(
        `config.${key} (${JSON.stringify(o)}) and config.text_config.${key} (${JSON.stringify(t)}) differ: keep the text model's`);
    }
    if (t !== undefined) {
      this.keysRead.push(`text_config.${key}`);
      if (o !== undefined) this.keysRead.push(key);
      return t;
    }
    if (o !== undefined) this.keysRead.push(key);
    return o;
  }

  /** The path `key` is reported under in messages. */
  path(key: string): string {
    return this.text !== undefined && this.text[key] !== undefined && this.text[key] !== null ? `text_config.${key}` : key;
  }

  /** `obj[key]` of a nested object at `path` (undefined and null are "absent"), recorded as read. */
  inner(obj: Json, key: string, path: string): unknown {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (!this.filled.has(obj)) this.keysRead.push(`${path}.${key}`);
    return v;
  }

  /** Marks an object the config class supplies (its reads are not config keys). */
  supplied<T extends object>(obj: T): T {
    this.filled.add(obj);
    return obj;
  }

  number(key: string): number | undefined {
    return finite(this.get(key), this.path(key));
  }

  integer(key: string): number | undefined {
    return positiveInteger(this.number(key), this.path(key));
  }

  innerNumber(obj: Json, key: string, path: string): number | undefined {
    return finite(this.inner(obj, key, path), `${path}.${key}`);
  }

  innerInteger(obj: Json, key: string, path: string): number | undefined {
    return positiveInteger(this.innerNumber(obj, key, path), `${path}.${key}`);
  }

  /** The first of `keys` present. */
  first(keys: readonly string[], read: (key: string) => number | undefined): number | undefined {
    for (const k of keys) {
      const v = read(k);
      if (v !== undefined) return v;
    }
    return undefined;
  }

  /** Records a default the config class fills in, and returns it. */
  fill<T>(value: T, what: string): T {
    this.defaulted.push(what);
    return value;
  }
}

function finite(v: unknown, path: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new TypeError(`config.${path} must be a finite number, got ${JSON.stringify(v)}`);
  }
  return v;
}

function positiveInteger(v: number | undefined, path: string): number | undefined {
  if (v !== undefined && (!Number.isSafeInteger(v) || v < 1)) {
    throw new RangeError(`config.${path} must be an integer >= 1, got ${v}`);
  }
  return v;
}
