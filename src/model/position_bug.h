// The "bug zoo": common RoPE / position bugs (positional-encodings.md
// section 7) applied on purpose to a trained tiny model at inference, so the
// page can show their consequence on a real model. They are implemented in
// src/model (inference.cc) with the ops' own options: positions arrays, key
// masks, AttentionRope layout / frequencies / rotate_k; the ops never know.
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
#ifndef POSENC_MODEL_POSITION_BUG_H_
#define POSENC_MODEL_POSITION_BUG_H_

#include <cstddef>
#include <string>

#include "model/config.h"
#include "ops/rope_frequencies.h"
#include "ops/status.h"

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
};
constexpr int kNumPositionBugs = 9;

// Pad tokens kLeftPaddingInPositions prepends (unless left_pad is set).
constexpr size_t kBugLeftPad = 16;
// The base kWrongBase uses.
constexpr double kBugWrongBase = 500000.0;

// "none", "restart-positions", "rotate-v", "only-q", "layout-mismatch",
// "left-padding-in-positions", "wrong-base",
// "partial-rotary-freq-over-head-dim", "yarn-magnitude-twice".
Status ParsePositionBug(const std::string& name, PositionBug* out);
const char* PositionBugName(PositionBug bug);  // "invalid" if out of range

// Tokens per Decoder::Feed call when Infer emulates kRestartPositions.
size_t RestartChunk(const ModelConfig& c);

// Checks that `bug` is a valid enum value and applies to a model with config
// `c` run with `scaling` (see the table above).
Status CheckPositionBug(const ModelConfig& c, const RopeScaling& scaling,
                        PositionBug bug);

}  // namespace posenc

#endif  // POSENC_MODEL_POSITION_BUG_H_
