/** Dotted paths into a config.json object, for the ropeFromConfig tests' `keysRead` checks. */

/** The value at a dotted path of a config (`text_config.rope_scaling.factor`). */
export function at(config: object, path: string): unknown {
  let v: unknown = config;
  for (const k of path.split('.')) v = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** The dotted paths of a config's non-null values (objects opened, arrays whole). */
export function leaves(config: object, prefix = ''): string[] {
  return Object.entries(config).flatMap(([k, v]): string[] => {
    if (v === null) return [];
    if (typeof v === 'object' && !Array.isArray(v)) return leaves(v as object, `${prefix}${k}.`);
    return [`${prefix}${k}`];
  });
}
