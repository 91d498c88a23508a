// NEON BF16 GEMM row: BFDOT on pair-interleaved weights (compiled with
// -march=armv8.6-a+bf16; aarch64 only).
#include "conv16b/conv16b_neon_gemm-inl.h"

namespace synops {
namespace conv16b_internal {
namespace {

struct Bf16Dot {
  struct W {
    bfloat16x8_t v[4];  // 4 channels x pair each
  };
  using S = bfloat16x8_t;
  static W LoadW(const uint16_t* p) {
    W w;
    for (int q = 0; q < 4; ++q) w.v[q] = vreinterpretq_bf16_u16(vld1q_u16(p + 8 * q));
    return w;
  }
  static S Broadcast(uint32_t pair) { return vreinterpretq_bf16_u32(vdupq_n_u32(pair)); }
  static float32x4_t Accumulate(float32x4_t acc, const S& s, const W& w, int q) {
    return vbfdotq_f32(acc, w.v[q], s);
  }
};

}  // namespace

void GemmRowNeonBf16(const GemmRowArgs& args) { neon_gemm::GemmRow<Bf16Dot>(args); }

}  // namespace conv16b_internal
}  // namespace synops
