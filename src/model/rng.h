// The model layer's seeded RNG: SplitMix64, no libm, so the same seed gives
// the same stream natively and in wasm (weights, task data, shuffles).
#ifndef POSENC_MODEL_RNG_H_
#define POSENC_MODEL_RNG_H_

#include <cstdint>

namespace posenc {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n >= 1 (Lemire's multiply-shift; the tiny bias of
  // 64-bit products is irrelevant at our n).
  uint32_t Below(uint32_t n) {
    return static_cast<uint32_t>(((Next() >> 32) * uint64_t{n}) >> 32);
  }
  // Uniform in [0, 1) with 24 random bits: exact in float and double.
  double Uniform() { return static_cast<double>(Next() >> 40) * 0x1.0p-24; }
  // Uniform in [-a, a).
  float Symmetric(double a) {
    return static_cast<float>((2.0 * Uniform() - 1.0) * a);
  }
  // An independent stream for a sub-task (data vs init vs shuffles).
  SplitMix64 Fork() { return SplitMix64(Next()); }

 private:
  uint64_t s_;
};

}  // namespace posenc

#endif  // POSENC_MODEL_RNG_H_
