// Armv8.6 BF16 conversion with BFCVTN (compiled with +bf16; aarch64 only).
// BFCVT rounds to nearest even under Linux's default FPCR (no flush to zero,
// no default NaN), which is SPEC.md §2's rounding, NaN quieting included.
#include <arm_neon.h>

#include <cstring>

#include "bf16/bf16_kernels.h"

namespace synops {
namespace bf16_internal {

namespace {

inline void Convert8(const float* src, uint16_t* dst) {
  const bfloat16x8_t lo = vcvtq_low_bf16_f32(vld1q_f32(src));
  const bfloat16x8_t both = vcvtq_high_bf16_f32(lo, vld1q_f32(src + 4));
  vst1q_u16(dst, vreinterpretq_u16_bf16(both));
}

}  // namespace

void Fp32ToBf16NeonBf16(const float* src, size_t size, uint16_t* dst) {
  size_t i = 0;
  for (; i + 8 <= size; i += 8) Convert8(src + i, dst + i);
  if (i < size) {  // tail through a zero-padded block (no scalar code in this TU)
    float in[8] = {0};
    uint16_t out[8];
    std::memcpy(in, src + i, (size - i) * sizeof(float));
    Convert8(in, out);
    std::memcpy(dst + i, out, (size - i) * sizeof(uint16_t));
  }
}

}  // namespace bf16_internal
}  // namespace synops
