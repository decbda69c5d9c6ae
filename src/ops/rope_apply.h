// The checked RoPE entry point: validates every argument, derives the
// frequencies (any scaling), builds the cos/sin table for the tokens'
// positions and rotates. This is what the bindings call.
// Shapes: x, out: [H, T, d]; positions: [T], or [3, T] with M-RoPE
// (freq.mrope_section set).
#ifndef POSENC_OPS_ROPE_APPLY_H_
#define POSENC_OPS_ROPE_APPLY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/fields.h"
#include "base/status.h"
#include "ops/rope.h"
#include "ops/rope_frequencies.h"
#include "ops/xpos.h"

namespace posenc {

// One rotation, as a field list (base/fields.h): applyRope, rerotateRope
// and ropeCache send it whole.
//   freq:           head_dim, rotary_dim, base, scaling, M-RoPE rows;
//   positions:      explicit [seq_len] ([3, seq_len] with M-RoPE: the
//                   temporal, height and width rows), or offset + t on every
//                   row when null;
//   context_length: what the frequencies see (dynamic, longrope); -1 =
//                   derived from these positions. Attention sets it once for
//                   q and k, so both are rotated with the same frequencies;
//   pure_rotation:  re-rotation (cache shift): the scaling's attention
//                   factor is not applied again, so norms are preserved;
//   xpos...:        xPos decay on top of the rotation (keys: the inverse).
#define POSENC_ROPE_APPLY_FIELDS(X)                                \
  X(RopeFrequencyConfig, freq, freq, Plain, {})                    \
  X(RopeLayout, layout, layout, EnumName, RopeLayout::kHalf)       \
  X(int64_t, heads, heads, Plain, 0)                               \
  X(int64_t, seq_len, seqLen, Plain, 0)                            \
  X(const int32_t*, positions, positions, Address, nullptr)        \
  X(int64_t, offset, offset, Plain, 0)                             \
  X(int64_t, context_length, contextLength, Plain, -1)             \
  X(bool, pure_rotation, pureRotation, Plain, false)               \
  X(bool, xpos, xpos, Plain, false)                                \
  X(double, xpos_scale_base, xposScaleBase, Plain, kXposScaleBase) \
  X(int64_t, xpos_center, xposCenter, Plain, 0)                    \
  X(bool, xpos_key, xposKey, Plain, false)

struct RopeApplyOptions {
  POSENC_ROPE_APPLY_FIELDS(POSENC_DECLARE_FIELD)
};

// Every value of o but the input's length (x_len: heads * seq_len * d).
Status ValidateRopeShape(const RopeApplyOptions& o);
Status ValidateRopeApply(const RopeApplyOptions& o, size_t x_len);
// "<name> is not a valid enum value: N" unless layout is a RopeLayout.
Status ValidateRopeLayout(RopeLayout layout, const char* name = "rope.layout");
// A context length for dynamic / longrope: >= 0, or -1 (derived from the
// positions of the call).
Status ValidateContextLength(int64_t context_length,
                             const char* name = "rope.contextLength");

// The context length the frequencies see: context_length if set, else max
// position + 1 (>= 0). Only `dynamic` and `longrope` depend on it.
int64_t RopeContextLength(const RopeApplyOptions& o);

// cos, sin: [T, r/2], attention factor (and xPos) folded in. With M-RoPE,
// column i is the table of the position row MropeAxis(i): each row's table
// is computed as plain RoPE's, so three equal rows give its bits.
Status RopeTable(const RopeApplyOptions& o, std::vector<float>* cos,
                 std::vector<float>* sin);

// The cos / sin tables of a rotation, for another runtime: validates o (as
// RopeApplyChecked does, for one head) and writes cos, sin: [seq_len, r/2],
// the attention factor applied, angles formed in double. capacity: the
// floats each of cos and sin holds (checked before anything is written).
Status RopeTableChecked(const RopeApplyOptions& o, float* cos, float* sin,
                        size_t capacity = SIZE_MAX);

// out: [H, T, d]; may equal x.
Status RopeApplyChecked(const RopeApplyOptions& o, const float* x, size_t x_len,
                        float* out);

}  // namespace posenc

#endif  // POSENC_OPS_ROPE_APPLY_H_
