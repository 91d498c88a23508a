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

namespace {

// 4 BF16 channels widened to FP32; `n` < 4 reads only n (the rest zero).
inline float32x4_t LoadBf16(const uint16_t* p, size_t n) {
  if (n >= 4) return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16));
  uint16_t t[4] = {0, 0, 0, 0};
  std::memcpy(t, p, n * sizeof(uint16_t));
  return vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(t), 16));
}

// PX pixels of 4 channels from c.
template <int PX>
void DepthwiseBlock(const DepthwiseRowArgs& a, size_t x, size_t c, size_t n) {
  float32x4_t acc[PX];
  for (int i = 0; i < PX; ++i) acc[i] = vdupq_n_f32(0.0f);
  const float* w = a.weight + c;
  for (size_t ky = 0; ky < a.kernel_y; ++ky) {
    const uint16_t* s = a.src + x * a.pixel_stride + ky * a.ky_stride + c;
    for (size_t kx = 0; kx < a.kernel_x; ++kx, s += a.kx_stride, w += a.cpad) {
      const float32x4_t wv = vld1q_f32(w);
      for (int i = 0; i < PX; ++i) acc[i] = vfmaq_f32(acc[i], LoadBf16(s + i * a.pixel_stride, n), wv);
    }
  }
  for (int i = 0; i < PX; ++i) vst1q_f32(a.out + (x + i) * a.cpad + c, acc[i]);
}

}  // namespace

void DepthwiseRowNeon(const DepthwiseRowArgs& a) {
  for (size_t c = 0; c < a.channels; c += 4) {
    const size_t n = a.channels - c < 4 ? a.channels - c : 4;
    size_t x = 0;
    for (; x + 4 <= a.width; x += 4) DepthwiseBlock<4>(a, x, c, n);
    for (; x < a.width; ++x) DepthwiseBlock<1>(a, x, c, n);
  }
}

}  // namespace conv16b_internal
}  // namespace synops
