// The "bug zoo": common RoPE / position bugs (docs/formulas.md#common-bugs)
// applied on purpose to a trained tiny model at inference, so the
// page can show their consequence on a real model. They are implemented in
// src/model (inference.cc) with the ops' own options: positions arrays, key
// masks, AttentionRope layout / frequencies / rotate_k (and, for the one that
// is not a rotation, RotateHalfMismatch below); the ops never know.
//
// Which models each bug applies to (anything else is a Status error naming
// the bug and the model's encoding):
//   kRestartPositions        causal models with positions (RoPE, xPos,
//                            sinusoidal, learned). Every Decoder::Feed call
//                            places its n tokens at positions 0 .. n-1
//                            instead of length() .. length()+n-1 (keys go
//                            into the cache rotated at the restarted
//                            positions; absolute encodings add rows 0 .. n-1).
//                            Infer / Evaluate emulate a chunked cached run:
//                            the sequence goes through a Decoder in chunks of
//                            RestartChunk() = max(1, train_len / 4) tokens
//                            (16 for the shipped models); attention maps are
//                            then unavailable (an error).
//   kLeftPaddingInPositions  models with positions (RoPE, xPos, sinusoidal,
//                            learned). The input is left-padded with
//                            kBugLeftPad <pad> tokens (or
//                            InferenceOptions::left_pad when set), excluded
//                            from attention by the key mask, but positions
//                            count the pads: the first real token sits at
//                            position P instead of 0. For RoPE and xPos this
//                            is a uniform shift, invisible to their relative
//                            scores: only float rounding changes. Sinusoidal
//                            and learned models see shifted absolute
//                            positions (learned: past its table, an error).
//   kRotateV                 RoPE / xPos: V is rotated as well, at the key
//                            positions (with the keys' xPos scale).
//   kOnlyQ                   RoPE / xPos: Q is rotated, K is not.
//   kLayoutMismatch          RoPE / xPos: the rotation pairs elements in the
//                            other layout (interleaved; the models are
//                            trained with half).
//   kWrongBase               RoPE / xPos: base kBugWrongBase (Llama 3's
//                            rope_theta) instead of the model's own.
//   kPartialRotaryFreqOverHeadDim
//                            RoPE / xPos with partial rotary (r < d): the
//                            frequencies are base^(-2i/d) instead of
//                            base^(-2i/r) (pie PR 603), done by running the
//                            model with base^(r/d) in place of base. With a
//                            context-extension scaling, the scaling sees
//                            that base.
//   kYarnMagnitudeTwice      RoPE / xPos with a `yarn` scaling: the attention
//                            factor is applied twice, so q.k logits are
//                            scaled by mscale^4 instead of mscale^2. Any
//                            other scaling is an error. (YaRN at factor <= 1
//                            has mscale 1: the bug then changes nothing.)
//   kRopeOnEmbeddings        RoPE / xPos: the rotation is applied to the
//                            token embeddings (the residual stream entering
//                            layer 0) instead of to Q and K; attention then
//                            rotates nothing. Each token's embedding row
//                            [C] is cut into head-sized blocks [H, Dh] and
//                            every block gets the model's own rotation at the
//                            token's position (half layout, its base,
//                            rotary dim and scaling; xPos: the query-side
//                            scale): the same cos/sin the queries would have
//                            used, applied to the wrong tensor.
//   kQkPositionMismatch      RoPE / xPos: queries are rotated at their
//                            position + 1, keys at their position (an
//                            off-by-one, as when the position ids are taken
//                            after appending the new token). Every q.k then
//                            sees the distance n - m - 1 instead of n - m.
//   kRotateHalfMismatch      RoPE / xPos: rotate_half pairs the halves
//                            (x_i with x_{i+r/2}) but cos/sin were built with
//                            repeat_interleave (element j uses the angle of
//                            pair floor(j/2)): RotateHalfMismatch below. Not
//                            a rotation: norms change. Applied to Q and K.
//   kShortCosSinCache        RoPE / xPos: the cos/sin cache holds only
//                            ShortCacheRows() = max(1, train_len / 2) rows
//                            (32 for the shipped models); a position p reads
//                            row min(p, rows - 1), as a gather that clamps
//                            out-of-range indices does (JAX's default).
//                            Queries and keys past the cache all sit at the
//                            last row. (With dynamic / longrope scalings
//                            the rows are those of a cache built for
//                            `rows` positions.)
//   kWrongScaling            RoPE / xPos: a scaling taken from another
//                            model: the model runs with linear position
//                            interpolation x kBugWrongScalingFactor (4)
//                            although it was trained without scaling.
//                            Passing a scaling as well is an error naming
//                            both.
#ifndef POSENC_MODEL_POSITION_BUG_H_
#define POSENC_MODEL_POSITION_BUG_H_

#include <cstddef>
#include <string>

#include "base/status.h"
#include "model/config.h"
#include "ops/rope_apply.h"
#include "ops/rope_frequencies.h"

namespace posenc {

enum class PositionBug : int {
  kNone = 0,
  kRestartPositions = 1,
  kRotateV = 2,
  kOnlyQ = 3,
  kLayoutMismatch = 4,
  kLeftPaddingInPositions = 5,
  kWrongBase = 6,
  kPartialRotaryFreqOverHeadDim = 7,
  kYarnMagnitudeTwice = 8,
  kRopeOnEmbeddings = 9,
  kQkPositionMismatch = 10,
  kRotateHalfMismatch = 11,
  kShortCosSinCache = 12,
  kWrongScaling = 13,
};
constexpr int kNumPositionBugs = 14;

// Pad tokens kLeftPaddingInPositions prepends (unless left_pad is set).
constexpr size_t kBugLeftPad = 16;
// The base kWrongBase uses.
constexpr double kBugWrongBase = 500000.0;
// The linear scaling factor kWrongScaling runs the model with.
constexpr double kBugWrongScalingFactor = 4.0;

// "none", "restart-positions", "rotate-v", "only-q", "layout-mismatch",
// "left-padding-in-positions", "wrong-base",
// "partial-rotary-freq-over-head-dim", "yarn-magnitude-twice",
// "rope-on-embeddings", "qk-position-mismatch", "rotate-half-mismatch",
// "short-cos-sin-cache", "wrong-scaling".
Status ParsePositionBug(const std::string& name, PositionBug* out);
const char* PositionBugName(PositionBug bug);  // "invalid" if out of range

// Tokens per Decoder::Feed call when Infer emulates kRestartPositions.
size_t RestartChunk(const ModelConfig& c);

// Rows of the cos/sin cache under kShortCosSinCache: max(1, train_len / 2).
size_t ShortCacheRows(const ModelConfig& c);

// kRotateHalfMismatch's computation. x, out: [heads, seq_len, d] (out must
// not alias x). With the cos/sin table of `o` (RopeTable: c_i, s_i of pair i
// at each token's position, attention factor and xPos folded in; o.layout is
// ignored), h = r/2 and j in [0, h):
//   out[j]     = x[j]     c_{floor(j/2)}       - x[j + h] s_{floor(j/2)}
//   out[j + h] = x[j + h] c_{floor((j+h)/2)}   + x[j]     s_{floor((j+h)/2)}
// i.e. x * cos + rotate_half(x) * sin with cos, sin [r] repeat_interleaved
// from [r/2]. Dims r .. d-1 pass through.
Status RotateHalfMismatch(const RopeApplyOptions& o, const float* x,
                          size_t x_len, float* out);

// Checks that `bug` is a valid enum value and applies to a model with config
// `c` run with `scaling` (see the table above).
Status CheckPositionBug(const ModelConfig& c, const RopeScaling& scaling,
                        PositionBug bug);

}  // namespace posenc

#endif  // POSENC_MODEL_POSITION_BUG_H_
