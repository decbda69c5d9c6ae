// URL state: the view is kept in the location hash (#k=v&k2=v2), so a view
// can be shared by link. Sections read their values at start-up and write
// them back as the user changes them.
const params = new URLSearchParams(location.hash.slice(1));
let pending = 0;

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
  if (pending === 0) {
    pending = requestAnimationFrame(() => {
      pending = 0;
      history.replaceState(null, '', `#${params.toString()}`);
    });
  }
}
