// NEON GEMM row without BF16 instructions: BF16 widened to FP32 (a shift),
// two FMAs per pair, exact products (aarch64 only).
#include "conv16b/conv16b_neon_gemm-inl.h"

namespace synops {
namespace conv16b_internal {
namespace {

struct Fp32Dot {
  struct W {
    float32x4_t lo[4], hi[4];  // even / odd elements of the pairs, 4 channels each
  };
  struct S {
    float32x4_t lo, hi;
  };
  static float32x4_t Widen(uint16x4_t h) { return vreinterpretq_f32_u32(vshll_n_u16(h, 16)); }
  static W LoadW(const uint16_t* p) {
    const uint16x8x2_t a = vld2q_u16(p);       // channels 0-7
    const uint16x8x2_t b = vld2q_u16(p + 16);  // channels 8-15
    W w;
    w.lo[0] = Widen(vget_low_u16(a.val[0]));
    w.lo[1] = Widen(vget_high_u16(a.val[0]));
    w.lo[2] = Widen(vget_low_u16(b.val[0]));
    w.lo[3] = Widen(vget_high_u16(b.val[0]));
    w.hi[0] = Widen(vget_low_u16(a.val[1]));
    w.hi[1] = Widen(vget_high_u16(a.val[1]));
    w.hi[2] = Widen(vget_low_u16(b.val[1]));
    w.hi[3] = Widen(vget_high_u16(b.val[1]));
    return w;
  }
  static S Broadcast(uint32_t pair) {
    return {vreinterpretq_f32_u32(vdupq_n_u32(pair << 16)),
            vreinterpretq_f32_u32(vdupq_n_u32(pair & 0xFFFF0000u))};
  }
  static float32x4_t Accumulate(float32x4_t acc, const S& s, const W& w, int q) {
    return vfmaq_f32(vfmaq_f32(acc, s.lo, w.lo[q]), s.hi, w.hi[q]);
  }
};

}  // namespace

void GemmRowNeon(const GemmRowArgs& args) { neon_gemm::GemmRow<Fp32Dot>(args); }

}  // namespace conv16b_internal
}  // namespace synops
