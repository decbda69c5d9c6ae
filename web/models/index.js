// posenc-models: the tiny transformers of posenc (docs/models.md), one
// safetensors file per task and encoding, next to this module.

/** Every shipped model: `<task>-<encoding>`, plus `language-rope-partial`. */
export const MODELS = Object.freeze([
  'word-order-nope', 'word-order-sinusoidal', 'word-order-learned', 'word-order-rope', 'word-order-alibi',
  'word-order-t5', 'word-order-shaw',
  'language-nope', 'language-sinusoidal', 'language-learned', 'language-rope', 'language-rope-partial',
  'language-alibi', 'language-t5', 'language-shaw', 'language-xpos',
  'retrieval-nope', 'retrieval-sinusoidal', 'retrieval-learned', 'retrieval-rope', 'retrieval-alibi',
  'retrieval-t5', 'retrieval-shaw', 'retrieval-xpos',
]);

/**
 * The URL of a shipped model's file, resolved next to this module: a `file:`
 * URL in Node (read it with `fs.readFile`), an http(s) URL in a browser (fetch
 * it). Bundlers that rewrite `new URL(..., import.meta.url)` (Vite) emit every
 * model for this call; import one file's URL instead to ship only that one.
 */
export function modelUrl(name) {
  if (!MODELS.includes(name)) throw new RangeError(`posenc-models has no model '${name}'; one of ${MODELS.join(', ')}`);
  return new URL(`./${name}.safetensors`, import.meta.url);
}
