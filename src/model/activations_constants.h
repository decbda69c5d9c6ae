// The constants of activations.h's exp and GELU, shared by the Highway
// kernels and the scalar references.
#ifndef POSENC_MODEL_ACTIVATIONS_CONSTANTS_H_
#define POSENC_MODEL_ACTIVATIONS_CONSTANTS_H_

namespace posenc {
namespace exp_constants {
constexpr float kMin = -87.0f;  // below: 0
constexpr float kMax = 88.0f;   // above: +inf
constexpr float kLog2e = 1.44269504f;
constexpr float kShifter = 12582912.0f;  // 1.5 2^23: adding it rounds to int
// ln 2 = kLn2Hi + kLn2Lo; kLn2Hi has 9 significant bits, so n kLn2Hi is
// exact for |n| <= 127.
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kC2 = 1.0f / 2.0f;
constexpr float kC3 = 1.0f / 6.0f;
constexpr float kC4 = 1.0f / 24.0f;
constexpr float kC5 = 1.0f / 120.0f;
constexpr float kC6 = 1.0f / 720.0f;
}  // namespace exp_constants

namespace gelu_constants {
constexpr float kA = 0.7978845608028654f;  // sqrt(2 / pi)
constexpr float kB = 0.044715f;
constexpr float kB3 = 3.0f * kB;
}  // namespace gelu_constants
}  // namespace posenc

#endif  // POSENC_MODEL_ACTIVATIONS_CONSTANTS_H_
