// The positional encodings posenc knows, as one validated enum. NoPE is an
// explicit choice ("no positional signal"), not a missing option.
#ifndef POSENC_OPS_ENCODING_H_
#define POSENC_OPS_ENCODING_H_

#include <string>

#include "base/status.h"

namespace posenc {

enum class Encoding : int {
  kNope = 0,  // no position: bidirectional attention is permutation-equivariant
  kSinusoidal = 1,  // absolute, added to embeddings
  kLearned = 2,     // absolute table, added to embeddings
  kRope = 3,        // rotation of q and k
  kAlibi = 4,       // linear logit bias
  kT5 = 5,          // bucketed learned logit bias
  kShaw = 6,        // clipped relative key/value embeddings
  kXpos = 7,        // RoPE with per-pair exponential decay
};
constexpr int kNumEncodings = 8;

// "nope", "sinusoidal", "learned", "rope", "alibi", "t5", "shaw", "xpos".
Status ParseEncoding(const std::string& name, Encoding* out);
const char* EncodingName(Encoding e);
// Where the encoding acts: "none", "embedding", "qk" (rotation), "logits".
const char* EncodingSite(Encoding e);

}  // namespace posenc

#endif  // POSENC_OPS_ENCODING_H_
