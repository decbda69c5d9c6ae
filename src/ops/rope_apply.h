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

#include "ops/rope.h"
#include "ops/rope_frequencies.h"
#include "ops/status.h"

namespace posenc {

struct RopeApplyOptions {
  RopeFrequencyConfig freq;  // head_dim, rotary_dim, base, scaling
  RopeLayout layout = RopeLayout::kHalf;
  int64_t heads = 0;
  int64_t seq_len = 0;
  // Token positions: explicit [seq_len] ([3, seq_len] with M-RoPE: the
  // temporal, height and width rows), or offset + t on every row when null.
  const int32_t* positions = nullptr;
  int64_t offset = 0;
  // The context length the frequencies see (dynamic, longrope); -1 = derive
  // it from these positions. Attention sets it once for q and k, so both are
  // rotated with the same frequencies.
  int64_t context_length = -1;
  // Pure re-rotation (cache shift): the scaling's attention factor is not
  // applied again, so norms are preserved exactly.
  bool pure_rotation = false;
  // xPos decay on top of the rotation.
  bool xpos = false;
  double xpos_scale_base = 512.0;
  int64_t xpos_center = 0;
  bool xpos_key = false;  // keys take the inverse scale
};

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

// out: [H, T, d]; may equal x.
// The cos / sin tables of a rotation, for another runtime: validates o (as
// RopeApplyChecked does, for one head) and writes cos, sin: [seq_len, r/2],
// the attention factor applied, angles formed in double.
Status RopeTableChecked(const RopeApplyOptions& o, float* cos, float* sin);

Status RopeApplyChecked(const RopeApplyOptions& o, const float* x, size_t x_len,
                        float* out);

}  // namespace posenc

#endif  // POSENC_OPS_ROPE_APPLY_H_
