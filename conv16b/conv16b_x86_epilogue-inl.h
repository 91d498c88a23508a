// The AVX-512 pieces of the output epilogue shared by the x86 kernel files
// (each compiled with at least AVX-512 F/BW/VL/DQ): SPEC rounding to BF16,
// the activations that are a few FP32 operations, and the 16-lane vector
// traits of conv16b_x86_f32-inl.h's templates (Avx512F32).
#ifndef SYNOPS_CONV16B_CONV16B_X86_EPILOGUE_INL_H_
#define SYNOPS_CONV16B_CONV16B_X86_EPILOGUE_INL_H_

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "conv16b/conv16b.h"
#include "conv16b/conv16b_internal.h"
#include "core/exp_constants.h"

namespace synops {
namespace conv16b_internal {
namespace {

// The rounding to nearest even of SPEC.md §2's Fp32ToBf16 on 16 lanes, in
// the upper half of each: u + 0x7FFF + the lowest kept bit (NaN not
// handled here).
inline __m512i RoundedUpper(__m512i u) {
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  return _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb);
}

// Fp32ToBf16 of SPEC.md §2 on 16 lanes: round to nearest even on the bit
// pattern, NaN -> quiet NaN of the same sign. Bit-exact with the scalar one.
inline __m256i ToBf16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i rounded = _mm512_srli_epi32(RoundedUpper(u), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  const __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x0040));
  return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rounded, quiet));
}

// ToBf16 as FP32 (the BF16 value's bits in the upper half, zeros below):
// the rounding and a mask, the quieting a masked OR of the same bits.
inline __m512 RoundToBf16F32(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i r = _mm512_mask_or_epi32(RoundedUpper(u), _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q),
                                         u, _mm512_set1_epi32(0x00400000));
  return _mm512_castsi512_ps(_mm512_and_si512(r, _mm512_set1_epi32(int32_t(0xFFFF0000u))));
}

// v0 then v1 rounded as ToBf16, 32 values stored at p: the rounding left in
// the upper halves and one two-source word permute for both (ToBf16's
// narrowing is two uops per vector), the NaN quieting only when a compare
// finds one.
inline void StoreBf16Pair(uint16_t* p, __m512 v0, __m512 v1) {
  if (__builtin_expect(_mm512_cmp_ps_mask(v0, v1, _CMP_UNORD_Q) != 0, 0)) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), ToBf16(v0));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 16), ToBf16(v1));
    return;
  }
  const auto upper = [](__m512 v) { return RoundedUpper(_mm512_castps_si512(v)); };
  alignas(64) static constexpr uint16_t kUpperHalves[32] = {
      1,  3,  5,  7,  9,  11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31,
      33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63};
  _mm512_storeu_si512(p, _mm512_permutex2var_epi16(upper(v0), _mm512_load_si512(kUpperHalves),
                                                   upper(v1)));
}

// e^x for x in [-87, 88]: hmath::ExpClamped's Cody-Waite reduction and
// polynomial, 2^n by scalef (<= 1 ULP).
inline __m512 ExpClamped512(__m512 x) {
  using namespace exp_constants;  // NOLINT(build/namespaces)
  const __m512 magic = _mm512_set1_ps(kExpMagic);
  const __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(kLog2e), magic), magic);
  const __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo),
                                    _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x));
  __m512 q = _mm512_set1_ps(kExpPoly[0]);
#pragma GCC unroll 6
  for (int i = 1; i < 7; ++i) q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(kExpPoly[i]));
  return _mm512_scalef_ps(q, n);
}

inline __m512 ClampExpArg(__m512 x) {
  return _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.0f)), _mm512_set1_ps(88.0f));
}

// The activations whose SPEC formula is a few FP32 operations, in the same
// order as Activate<A> (so results are identical), on 16 channels; Swish and
// Mish as ActivateKernels() computes them.
template <Activation A>
inline __m512 ActivateV(__m512 v, const float* p, size_t c, __mmask16 mask) {
  const __m512 zero = _mm512_setzero_ps();
  if constexpr (A == Activation::kSwish || A == Activation::kMish || A == Activation::kGelu) {
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 r;
    if constexpr (A == Activation::kGelu) {
      // v Phi(v), Phi(v) = erfc(-v / sqrt 2) / 2 (conv16b_act_hwy.cc).
      const __m512 x = _mm512_mul_ps(_mm512_abs_ps(v), _mm512_set1_ps(0.70710678118654752440f));
      const __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(x, _mm512_set1_ps(0.5f), one));
      __m512 q = _mm512_set1_ps(kGeluErfcPoly[0]);
#pragma GCC unroll 9
      for (int i = 1; i < 10; ++i) q = _mm512_fmadd_ps(q, t, _mm512_set1_ps(kGeluErfcPoly[i]));
      const __m512 arg = _mm512_max_ps(_mm512_fnmadd_ps(x, x, q), _mm512_set1_ps(-80.0f));
      const __m512 half = _mm512_mul_ps(_mm512_mul_ps(t, ExpClamped512(arg)), _mm512_set1_ps(0.5f));
      const __m512 phi = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, zero, _CMP_GE_OQ), half,
                                              _mm512_sub_ps(one, half));
      r = _mm512_mul_ps(v, phi);
    } else if constexpr (A == Activation::kSwish) {
      // v / (1 + e^(-v p0)); e^80 already makes the quotient negligible.
      const __m512 arg = _mm512_min_ps(_mm512_mul_ps(_mm512_sub_ps(zero, v), _mm512_set1_ps(p[0])),
                                       _mm512_set1_ps(80.0f));
      r = _mm512_div_ps(v, _mm512_add_ps(one, ExpClamped512(ClampExpArg(arg))));
    } else {
      // v > p0 ? v : v * n / (n + 2), n = e (e + 2), e = e^min(v, 20).
      const __m512 e = ExpClamped512(ClampExpArg(_mm512_min_ps(v, _mm512_set1_ps(20.0f))));
      const __m512 n = _mm512_mul_ps(e, _mm512_add_ps(e, _mm512_set1_ps(2.0f)));
      const __m512 m = _mm512_mul_ps(v, _mm512_div_ps(n, _mm512_add_ps(n, _mm512_set1_ps(2.0f))));
      r = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, _mm512_set1_ps(p[0]), _CMP_GT_OQ), m, v);
    }
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), r, v);
  } else if constexpr (A == Activation::kIdentity) {
    return v;
  } else if constexpr (A == Activation::kRelu) {
    return _mm512_max_ps(zero, v);
  } else if constexpr (A == Activation::kLeakyRelu) {
    return _mm512_add_ps(_mm512_max_ps(zero, v), _mm512_mul_ps(_mm512_set1_ps(p[0]), _mm512_min_ps(zero, v)));
  } else if constexpr (A == Activation::kRestrictRange) {
    return _mm512_min_ps(_mm512_max_ps(_mm512_set1_ps(p[0]), v), _mm512_set1_ps(p[1]));
  } else if constexpr (A == Activation::kPrelu) {
    const __m512 slope = _mm512_maskz_loadu_ps(mask, p + c);
    return _mm512_add_ps(_mm512_max_ps(zero, v), _mm512_mul_ps(slope, _mm512_min_ps(zero, v)));
  } else if constexpr (A == Activation::kHswish) {
    const __m512 shift = _mm512_set1_ps(p[0]);
    const __m512 t = _mm512_max_ps(_mm512_add_ps(_mm512_min_ps(v, shift), shift), zero);
    return _mm512_mul_ps(_mm512_mul_ps(t, _mm512_set1_ps(p[1])), v);
  } else {
    static_assert(A == Activation::kHardSigmoid, "activation");
    const __m512 t = _mm512_add_ps(_mm512_mul_ps(v, _mm512_set1_ps(p[0])), _mm512_set1_ps(p[1]));
    return _mm512_max_ps(zero, _mm512_min_ps(t, _mm512_set1_ps(1.0f)));
  }
}

// Transposes 16 rows of 16 32-bit lanes in place: r[i][j] -> r[j][i].
// Inlined with every loop unrolled so r, t and u live in registers.
__attribute__((always_inline)) inline void Transpose16x16(__m512i r[16]) {
  __m512i t[16], u[16];
#pragma GCC unroll 8
  for (int k = 0; k < 8; ++k) {
    t[2 * k] = _mm512_unpacklo_epi32(r[2 * k], r[2 * k + 1]);
    t[2 * k + 1] = _mm512_unpackhi_epi32(r[2 * k], r[2 * k + 1]);
  }
  // u[4k + m]: rows 4k..4k+3 of columns m, m + 4, m + 8, m + 12 (one per
  // 128-bit lane).
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    u[4 * k] = _mm512_unpacklo_epi64(t[4 * k], t[4 * k + 2]);
    u[4 * k + 1] = _mm512_unpackhi_epi64(t[4 * k], t[4 * k + 2]);
    u[4 * k + 2] = _mm512_unpacklo_epi64(t[4 * k + 1], t[4 * k + 3]);
    u[4 * k + 3] = _mm512_unpackhi_epi64(t[4 * k + 1], t[4 * k + 3]);
  }
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m) {
    const __m512i v02 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0x88);
    const __m512i w02 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0x88);
    const __m512i v13 = _mm512_shuffle_i32x4(u[m], u[4 + m], 0xDD);
    const __m512i w13 = _mm512_shuffle_i32x4(u[8 + m], u[12 + m], 0xDD);
    r[m] = _mm512_shuffle_i32x4(v02, w02, 0x88);
    r[m + 8] = _mm512_shuffle_i32x4(v02, w02, 0xDD);
    r[m + 4] = _mm512_shuffle_i32x4(v13, w13, 0x88);
    r[m + 12] = _mm512_shuffle_i32x4(v13, w13, 0xDD);
  }
}

// A run of nx pixels (x0.. of output row oy) x nc channels (c0..) of sums
// (pixel i at sums + i * ld) to an NCHW dst, 16 x 16 blocks at a time: bias
// and activation in pixel-major order (lanes are channels, as ActivateV
// expects), then a transpose so each channel's pixels are one store.
template <Activation A, bool kBf16>
void StoreNchwRun(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                  size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  const size_t plane = p.dstH * p.dstW;
  for (size_t c = 0; c < nc; c += 16) {
    const size_t cn = std::min<size_t>(16, nc - c);
    const __mmask16 cm = __mmask16((1u << cn) - 1u);
    const __m512 bias = _mm512_maskz_loadu_ps(cm, e.bias + c0 + c);
    for (size_t x = 0; x < nx; x += 16) {
      const size_t xn = std::min<size_t>(16, nx - x);
      __m512i r[16];
#pragma GCC unroll 16
      for (size_t i = 0; i < 16; ++i) {
        if (i < xn) {
          const __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(cm, sums + (x + i) * ld + c), bias);
          r[i] = _mm512_castps_si512(ActivateV<A>(v, e.params, c0 + c, cm));
        } else {
          r[i] = _mm512_setzero_si512();
        }
      }
      Transpose16x16(r);
      const __mmask16 xm = __mmask16((1u << xn) - 1u);
      const size_t at = ((n * p.dstC + c0 + c) * p.dstH + oy) * p.dstW + x0 + x;
#pragma GCC unroll 16
      for (size_t j = 0; j < 16; ++j) {
        if (j >= cn) break;
        if (kBf16) {
          _mm256_mask_storeu_epi16(reinterpret_cast<uint16_t*>(dst) + at + j * plane, xm,
                                   ToBf16(_mm512_castsi512_ps(r[j])));
        } else {
          _mm512_mask_storeu_ps(reinterpret_cast<float*>(dst) + at + j * plane, xm,
                                _mm512_castsi512_ps(r[j]));
        }
      }
    }
  }
}

// Channels [0, nc) (nc <= 16) x pixels [0, nx) (nx <= 16) of a planar
// source (channel c's pixels at src + c * plane, FP32 or BF16) to BF16
// out[x * out_stride + c] (FP32 rounded as SPEC says). kFull: nc == nx ==
// 16, no masks or bounds tests.
template <bool kFull>
__attribute__((always_inline)) inline void PlanarToInterleaved16(const void* src, bool f32,
                                                                 size_t plane, size_t nc,
                                                                 size_t nx, uint16_t* out,
                                                                 size_t out_stride) {
  const __mmask16 xm = kFull ? __mmask16(0xFFFF) : __mmask16((1u << nx) - 1u);
  __m512i r[16];
#pragma GCC unroll 16
  for (size_t c = 0; c < 16; ++c) {
    if (!kFull && c >= nc) {
      r[c] = _mm512_setzero_si512();
    } else if (f32) {
      r[c] = _mm512_cvtepu16_epi32(
          ToBf16(_mm512_maskz_loadu_ps(xm, static_cast<const float*>(src) + c * plane)));
    } else {
      r[c] = _mm512_cvtepu16_epi32(
          _mm256_maskz_loadu_epi16(xm, static_cast<const uint16_t*>(src) + c * plane));
    }
  }
  Transpose16x16(r);
  const __mmask16 cm = kFull ? __mmask16(0xFFFF) : __mmask16((1u << nc) - 1u);
#pragma GCC unroll 16
  for (size_t x = 0; x < 16; ++x) {
    if (kFull) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x * out_stride),
                          _mm512_cvtepi32_epi16(r[x]));
    } else if (x < nx) {
      _mm256_mask_storeu_epi16(out + x * out_stride, cm, _mm512_cvtepi32_epi16(r[x]));
    }
  }
}

// The vector traits of conv16b_x86_f32-inl.h's templates on 16 lanes
// (its depthwise tiles with a strided BF16 NHWC source: all channels of a
// pixel group, each tap's 16 BF16 channels widened in place by one
// zero-masked word permute). Masks as vectors for Activate's blends.
struct Avx512F32 {
  using T = __m512;
  static constexpr int kLanes = 16;
  // The GEMM tiles (x86_f32::Tile): 12 pixels x 2 blocks (24 accumulators,
  // 2 weights, a broadcast), and up to 24 pixels of a single block.
  static constexpr int kTileM = 12;
  static constexpr int kTileNV = 2;
  static constexpr int kTileM1 = 24;
  static constexpr bool kFused = true;
  static T Zero() { return _mm512_setzero_ps(); }
  static T Set1(float v) { return _mm512_set1_ps(v); }
  static T Load(const float* p) { return _mm512_load_ps(p); }
  static T LoadU(const float* p) { return _mm512_loadu_ps(p); }
  static void Store(float* p, T v) { _mm512_storeu_ps(p, v); }
  static void StoreU(float* p, T v) { _mm512_storeu_ps(p, v); }
  static T Broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static T MulAdd(T a, T b, T c) { return _mm512_fmadd_ps(a, b, c); }
  static T Add(T a, T b) { return _mm512_add_ps(a, b); }
  static T Mul(T a, T b) { return _mm512_mul_ps(a, b); }
  static T Max(T a, T b) { return _mm512_max_ps(a, b); }
  static T Min(T a, T b) { return _mm512_min_ps(a, b); }
  static T Sub(T a, T b) { return _mm512_sub_ps(a, b); }
  static T Div(T a, T b) { return _mm512_div_ps(a, b); }
  static T NegMulAdd(T a, T b, T c) { return _mm512_fnmadd_ps(a, b, c); }
  static T FromMask(__mmask16 m) { return _mm512_castsi512_ps(_mm512_movm_epi32(m)); }
  static T Greater(T a, T b) { return FromMask(_mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)); }
  static T Unordered(T a, T b) { return FromMask(_mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q)); }
  static T Blend(T mask, T a, T b) {
    return _mm512_mask_blend_ps(_mm512_movepi32_mask(_mm512_castps_si512(mask)), a, b);
  }
  static T AddToExponent(T q, T t) {
    return _mm512_castsi512_ps(_mm512_add_epi32(
        _mm512_castps_si512(q), _mm512_slli_epi32(_mm512_castps_si512(t), 23)));
  }
  static T WidenBf16(const uint16_t* p) {
    const __m512i idx = _mm512_set_epi16(15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8, 0,
                                         7, 0, 6, 0, 5, 0, 4, 0, 3, 0, 2, 0, 1, 0, 0, 0);
    const __m512i h = _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    return _mm512_castsi512_ps(_mm512_maskz_permutexvar_epi16(0xAAAAAAAAu, idx, h));
  }
  static void StoreBf16(uint16_t* p, T v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), ToBf16(v));
  }
  static void StoreBf16Split(uint16_t* p0, uint16_t* p1, T v0, T v1) {
    StoreBf16(p0, v0);
    StoreBf16(p1, v1);
  }
  static void StoreBf16x2(uint16_t* p, T v0, T v1) { StoreBf16Pair(p, v0, v1); }
  // The even/odd split of 32 BF16 channels (x86_f32::HasEvenOdd; the
  // empty asm keeps the loaded vector in a register, see Avx2::LoadPairs).
  static constexpr bool kEvenOdd = true;
  static constexpr int kEvenOddM = 8;  // 16 accumulators
  static T LoadPairs(const uint16_t* p) {
    T v = _mm512_castsi512_ps(_mm512_loadu_si512(p));
    asm("" : "+v"(v));
    return v;
  }
  static T EvenOf(T v) { return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_castps_si512(v), 16)); }
  static T OddOf(T v) {
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(-65536)));
  }
  static T SplitMulAdd(T x, T w, T acc) { return MulAdd(x, w, acc); }
  // Channels 0-15 and 16-31 from the even channels (0, 2, .., 30) and the
  // odd ones, and back.
  static void Interleave(T even, T odd, T* lo, T* hi) {
    *lo = _mm512_permutex2var_ps(
        even, _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23), odd);
    *hi = _mm512_permutex2var_ps(
        even, _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31), odd);
  }
  static void Deinterleave(T lo, T hi, T* even, T* odd) {
    const __m512i e = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i o = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    *even = _mm512_permutex2var_ps(lo, e, hi);
    *odd = _mm512_permutex2var_ps(lo, o, hi);
  }
  static void StoreBf16EvenOdd(uint16_t* p, T even, T odd) {
    T lo, hi;
    Interleave(even, odd, &lo, &hi);
    StoreBf16Pair(p, lo, hi);
  }
};

}  // namespace
}  // namespace conv16b_internal
}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_X86_EPILOGUE_INL_H_
