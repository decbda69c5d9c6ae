// URL state: the view is kept in the location hash (#k=v&k2=v2), so a view
// can be shared by link. Sections read their values at start-up and write
// them back as the user changes them.
const params = readHash(location.hash.slice(1));
let pending = 0;

/**
 * The hash as parameters. A bare name without "=" (`#sinusoidal`, a plain
 * anchor link) is read as `section=sinusoidal`, so both kinds of deep link
 * land on their section and the other parameters stay as they are.
 */
function readHash(hash: string): URLSearchParams {
  const p = new URLSearchParams(hash);
  for (const piece of hash.split('&')) {
    if (/^[a-z][a-z0-9-]*$/i.test(piece)) {
      p.delete(piece);
      if (!p.has('section')) p.set('section', piece);
    }
  }
  return p;
}

export function getParam(key: string): string | undefined {
  return params.get(key) ?? undefined;
}

export function getNumber(key: string, fallback: number, min: number, max: number): number {
  const v = Number(params.get(key));
  return params.has(key) && Number.isFinite(v) && v >= min && v <= max ? v : fallback;
}

export function getChoice<T extends string>(key: string, fallback: T, options: readonly T[]): T {
  const v = params.get(key);
  return v !== null && (options as readonly string[]).includes(v) ? (v as T) : fallback;
}

export function getBool(key: string, fallback: boolean): boolean {
  const v = params.get(key);
  return v === '1' ? true : v === '0' ? false : fallback;
}

/** Records a value; the hash is rewritten once per frame, without a history entry. */
export function setParam(key: string, value: string | number | boolean): void {
  params.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  schedule();
}

/** Removes a value (the same deferred rewrite as setParam). */
export function deleteParam(key: string): void {
  if (!params.has(key)) return;
  params.delete(key);
  schedule();
}

function schedule(): void {
  if (pending === 0) {
    pending = requestAnimationFrame(() => {
      pending = 0;
      history.replaceState(null, '', `#${params.toString()}`);
    });
  }
}
