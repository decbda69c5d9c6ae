/** A shipped model's name: `<task>-<encoding>`, or `language-rope-partial`. */
export type ModelName =
  | `word-order-${'nope' | 'sinusoidal' | 'learned' | 'rope' | 'alibi' | 't5' | 'shaw'}`
  | `language-${'nope' | 'sinusoidal' | 'learned' | 'rope' | 'rope-partial' | 'alibi' | 't5' | 'shaw' | 'xpos'}`
  | `retrieval-${'nope' | 'sinusoidal' | 'learned' | 'rope' | 'alibi' | 't5' | 'shaw' | 'xpos'}`;

/** Every shipped model, in task order. */
export declare const MODELS: readonly ModelName[];

/**
 * The URL of a shipped model's safetensors file, next to this module: a `file:` URL in Node, an
 * http(s) URL in a browser. Throws a RangeError for a name that is not shipped.
 */
export declare function modelUrl(name: ModelName): URL;
