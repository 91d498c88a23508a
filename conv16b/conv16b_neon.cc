// NEON GEMM row without BF16 instructions: BF16 widened to FP32 (a shift),
// two FMAs per pair, exact products (aarch64 only).
#include <algorithm>
#include <type_traits>

#include "bf16/bf16.h"
#include "conv16b/conv16b_internal.h"
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

namespace {

// std::max(0, v) and std::min(0, v) exactly (NaN -> 0), as Activate does.
inline float32x4_t Max0(float32x4_t v) {
  const float32x4_t zero = vdupq_n_f32(0.0f);
  return vbslq_f32(vcltq_f32(zero, v), v, zero);
}
inline float32x4_t Min0(float32x4_t v) {
  const float32x4_t zero = vdupq_n_f32(0.0f);
  return vbslq_f32(vcltq_f32(v, zero), v, zero);
}
inline float32x4_t MaxOf(float32x4_t a, float32x4_t b) { return vbslq_f32(vcltq_f32(a, b), b, a); }
inline float32x4_t MinOf(float32x4_t a, float32x4_t b) { return vbslq_f32(vcltq_f32(b, a), b, a); }

// Activate<A> on 4 channels from c, the same operations in the same order.
template <Activation A>
inline float32x4_t ActivateQ(float32x4_t v, const float* p, size_t c) {
  if constexpr (A == Activation::kIdentity) {
    return v;
  } else if constexpr (A == Activation::kRelu) {
    return Max0(v);
  } else if constexpr (A == Activation::kLeakyRelu) {
    return vaddq_f32(Max0(v), vmulq_f32(vdupq_n_f32(p[0]), Min0(v)));
  } else if constexpr (A == Activation::kRestrictRange) {
    return MinOf(MaxOf(vdupq_n_f32(p[0]), v), vdupq_n_f32(p[1]));
  } else if constexpr (A == Activation::kPrelu) {
    return vaddq_f32(Max0(v), vmulq_f32(vld1q_f32(p + c), Min0(v)));
  } else if constexpr (A == Activation::kHswish) {
    const float32x4_t shift = vdupq_n_f32(p[0]);
    const float32x4_t t = Max0(vaddq_f32(MinOf(v, shift), shift));
    return vmulq_f32(vmulq_f32(t, vdupq_n_f32(p[1])), v);
  } else {
    static_assert(A == Activation::kHardSigmoid, "activation");
    const float32x4_t t = vaddq_f32(vmulq_f32(v, vdupq_n_f32(p[0])), vdupq_n_f32(p[1]));
    return Max0(MinOf(t, vdupq_n_f32(1.0f)));
  }
}

// Fp32ToBf16 of SPEC.md §2 on 4 lanes (RNE; NaN -> quiet NaN).
inline uint16x4_t ToBf16Q(float32x4_t v) {
  const uint32x4_t u = vreinterpretq_u32_f32(v);
  const uint32x4_t lsb = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1));
  const uint32x4_t rounded = vshrq_n_u32(vaddq_u32(vaddq_u32(u, vdupq_n_u32(0x7FFF)), lsb), 16);
  const uint32x4_t quiet = vorrq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(0x40));
  const uint32x4_t nan = vmvnq_u32(vceqq_f32(v, v));
  return vmovn_u32(vbslq_u32(nan, quiet, rounded));
}

// r[i][j] -> r[j][i] for 4 x 4 32-bit lanes.
inline void Transpose4(uint32x4_t r[4]) {
  const uint32x4x2_t a = vtrnq_u32(r[0], r[1]);
  const uint32x4x2_t b = vtrnq_u32(r[2], r[3]);
  r[0] = vcombine_u32(vget_low_u32(a.val[0]), vget_low_u32(b.val[0]));
  r[1] = vcombine_u32(vget_low_u32(a.val[1]), vget_low_u32(b.val[1]));
  r[2] = vcombine_u32(vget_high_u32(a.val[0]), vget_high_u32(b.val[0]));
  r[3] = vcombine_u32(vget_high_u32(a.val[1]), vget_high_u32(b.val[1]));
}

// Pixels [x0, x0 + nx) of output row (n, oy) to NCHW: bias and activation
// with lanes = channels, then 4 x 4 transposes so each channel's 4 pixels
// are one store; channel and pixel tails through StoreOutput.
template <Activation A, bool kBf16>
void StoreNchwQ(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  const size_t plane = p.dstH * p.dstW;
  const size_t cvec = nc / 4 * 4, xvec = p.dstW / 4 * 4;
  for (size_t j = 0; j < cvec; j += 4) {
    const float32x4_t bias = vld1q_f32(e.bias + c0 + j);
    for (size_t x = 0; x < xvec; x += 4) {
      uint32x4_t r[4];
      for (int i = 0; i < 4; ++i) {
        r[i] = vreinterpretq_u32_f32(
            ActivateQ<A>(vaddq_f32(vld1q_f32(sums + (x + i) * ld + j), bias), e.params, c0 + j));
      }
      Transpose4(r);
      const size_t at = ((n * p.dstC + c0 + j) * p.dstH + oy) * p.dstW + x;
      for (int i = 0; i < 4; ++i) {
        if (kBf16) {
          vst1_u16(reinterpret_cast<uint16_t*>(dst) + at + i * plane,
                   ToBf16Q(vreinterpretq_f32_u32(r[i])));
        } else {
          vst1q_f32(reinterpret_cast<float*>(dst) + at + i * plane, vreinterpretq_f32_u32(r[i]));
        }
      }
    }
  }
  if (xvec < p.dstW) {
    StoreOutput(g, e, sums + xvec * ld, ld, n, oy, xvec, p.dstW - xvec, c0, cvec, dst);
  }
  if (cvec < nc) StoreOutput(g, e, sums + cvec, ld, n, oy, 0, p.dstW, c0 + cvec, nc - cvec, dst);
}

template <Activation A, bool kBf16>
void StoreNhwcQ(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  const size_t vec = nc / 4 * 4;
  for (size_t x = 0; x < p.dstW; ++x) {
    const size_t base = ((n * p.dstH + oy) * p.dstW + x) * p.dstC + c0;
    const float* s = sums + x * ld;
    for (size_t j = 0; j < vec; j += 4) {
      const float32x4_t v = ActivateQ<A>(vaddq_f32(vld1q_f32(s + j), vld1q_f32(e.bias + c0 + j)),
                                         e.params, c0 + j);
      if (kBf16) {
        vst1_u16(reinterpret_cast<uint16_t*>(dst) + base + j, ToBf16Q(v));
      } else {
        vst1q_f32(reinterpret_cast<float*>(dst) + base + j, v);
      }
    }
    if (vec < nc) StoreOutput(g, e, s + vec, ld, n, oy, x, 1, c0 + vec, nc - vec, dst);
  }
}

}  // namespace

void PlanarToNhwcNeon(const void* src, bool f32, size_t plane, size_t channels, size_t width,
                      uint16_t* out, size_t out_stride) {
  const size_t cvec = channels / 4 * 4, xvec = width / 4 * 4;
  const float* s32 = static_cast<const float*>(src);
  const uint16_t* s16 = static_cast<const uint16_t*>(src);
  for (size_t c = 0; c < cvec; c += 4) {
    for (size_t x = 0; x < xvec; x += 4) {
      uint32x4_t r[4];
      for (int i = 0; i < 4; ++i) {
        const size_t at = (c + i) * plane + x;
        r[i] = vmovl_u16(f32 ? ToBf16Q(vld1q_f32(s32 + at)) : vld1_u16(s16 + at));
      }
      Transpose4(r);
      for (int i = 0; i < 4; ++i) vst1_u16(out + (x + i) * out_stride + c, vmovn_u32(r[i]));
    }
  }
  // Tails: the last channels of every pixel, the last pixels of the rest.
  for (size_t c = 0; c < channels; ++c) {
    for (size_t x = c < cvec ? xvec : 0; x < width; ++x) {
      out[x * out_stride + c] = f32 ? Fp32ToBf16(s32[c * plane + x]) : s16[c * plane + x];
    }
  }
}

void StoreRowNeon(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                  size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  const bool bf16 = g.p.dstT == DataType::k16b, nhwc = g.p.dstF == TensorFormat::kNhwc;
  if (WithVectorActivation(e.activation, [&](auto a) {
        constexpr Activation A = decltype(a)::value;
        if (nhwc) {
          (bf16 ? StoreNhwcQ<A, true> : StoreNhwcQ<A, false>)(g, e, sums, ld, n, oy, c0, nc, dst);
        } else {
          (bf16 ? StoreNchwQ<A, true> : StoreNchwQ<A, false>)(g, e, sums, ld, n, oy, c0, nc, dst);
        }
      })) {
    return;
  }
  StoreOutputVector(g, e, sums, ld, n, oy, 0, g.p.dstW, c0, nc, dst);
}

}  // namespace conv16b_internal
}  // namespace synops
