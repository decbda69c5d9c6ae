/**
 * Every name list of the API, at run time, in the order of the C++ enums
 * (the loader sends a layout or variant as its index here). The union types
 * in types.ts are derived from these arrays, and tests/ts/names.test.ts
 * checks each one against the table the C++ parser reads (the module's
 * `names()`), so a name added on one side only fails `npm test`.
 */

/**
 * Which elements of a head vector form a rotated pair (C++ `RopeLayout`).
 * - `half`: Hugging Face's `rotate_half` (GPT-NeoX; Hugging Face's Llama
 *   port, which permutes the q/k weights for it): pairs `(x[i], x[i + r/2])`.
 * - `interleaved`: GPT-J, Meta's reference Llama, ggml's "normal" mode:
 *   pairs `(x[2i], x[2i + 1])`.
 */
export const ROPE_LAYOUTS = ['half', 'interleaved'] as const;

/**
 * RoPE context-extension methods, named as Hugging Face's `rope_type`
 * (C++ `RopeScalingType`); see `RopeScaling` for each one's fields.
 */
export const ROPE_SCALINGS = ['default', 'linear', 'ntk', 'dynamic', 'yarn', 'longrope', 'llama3', 'proportional'] as const;

/**
 * Sinusoidal table layouts (C++ `SinusoidalLayout`).
 * - `interleaved`: Vaswani et al., `PE[p, 2i] = sin`, `PE[p, 2i+1] = cos`,
 *   `w_i = base^(-2i/dim)`.
 * - `concat`: tensor2tensor / fairseq, `[sin | cos]`,
 *   `w_i = exp(-i ln(base) / (dim/2 - 1))`.
 */
export const SINUSOIDAL_LAYOUTS = ['interleaved', 'concat'] as const;

/**
 * ALiBi slope rules (C++ `AlibiSlopes`).
 * - `paper`: Press et al. 2022, `2^(-8(h+1)/n)` for a power of two `n`;
 *   otherwise the slopes of the power of two below, then every other slope
 *   of the power of two above.
 * - `simple`: the teaching simplification `1 / 2^h`, `h = 0..n-1`.
 */
export const ALIBI_VARIANTS = ['paper', 'simple'] as const;

/**
 * The positional encodings posenc implements (C++ `Encoding`); `nope` is an
 * explicit choice (no position at all), not a missing option.
 */
export const ENCODINGS = ['nope', 'sinusoidal', 'learned', 'rope', 'alibi', 't5', 'shaw', 'xpos'] as const;

/** The synthetic tasks the tiny models are trained on (C++ `TaskKind`). */
export const TASKS = ['word-order', 'language', 'retrieval'] as const;

/**
 * Common RoPE / position bugs a tiny model can run with on purpose
 * (C++ `PositionBug`); each one is described at the type `PositionBug`.
 */
export const POSITION_BUGS = [
  'none',
  'restart-positions',
  'rotate-v',
  'only-q',
  'layout-mismatch',
  'left-padding-in-positions',
  'wrong-base',
  'partial-rotary-freq-over-head-dim',
  'yarn-magnitude-twice',
  'rope-on-embeddings',
  'qk-position-mismatch',
  'rotate-half-mismatch',
  'short-cos-sin-cache',
  'wrong-scaling',
] as const;
