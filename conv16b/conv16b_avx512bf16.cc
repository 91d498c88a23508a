// AVX512-BF16 GEMM row: vdpbf16ps on pair-interleaved weights (compiled with
// -mavx512bf16; x86 only).
#include <algorithm>

#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_x86_depthwise-inl.h"
#include "conv16b/conv16b_x86_epilogue-inl.h"
#include "conv16b/conv16b_x86_f32-inl.h"
#include "conv16b/conv16b_x86_gemm-inl.h"

namespace synops {
namespace conv16b_internal {
namespace {

// 16 or 32 values rounded with vcvtne2ps2bf16, which flushes denormal
// inputs to zero where SPEC rounds them: lanes with a zero exponent and a
// non-zero fraction take the integer rounding instead (rare). One vfpclassps
// per vector (class 0x20: denormal) and one kortest per pixel, where two
// vptestmd per vector plus kmov/or/test were the bulk of the epilogue's
// port-5 uops.
inline __mmask16 Denormals(__m512 v) { return _mm512_fpclass_ps_mask(v, 0x20); }

// 16 values: vcvtneps2bf16, with the integer rounding for lanes it would
// flush (the AMX epilogue's single-block case and the depthwise row).
struct StoreBf16Cvt {
  static void Store(uint16_t* d, __mmask16 m, __m512 v) {
    const __m256i h = __builtin_expect(Denormals(v) != 0, 0) ? ToBf16(v)
                                                              : (__m256i)_mm512_cvtneps_pbh(v);
    _mm256_mask_storeu_epi16(d, m, h);
  }
};

// Avx512F32 with the BF16 stores rounded by vcvtneps2bf16 (the lanes it
// would flush, denormals, by the integer rounding).
struct Avx512Bf16F32 : Avx512F32 {
  static void StoreBf16(uint16_t* p, T v) {
    const bool denormal = _mm512_fpclass_ps_mask(v, 0x20) != 0;
    const __m256i h = __builtin_expect(denormal, 0) ? ToBf16(v) : (__m256i)_mm512_cvtneps_pbh(v);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), h);
  }
  static void StoreBf16Split(uint16_t* p0, uint16_t* p1, T v0, T v1) {
    StoreBf16(p0, v0);
    StoreBf16(p1, v1);
  }
  // One vcvtne2ps2bf16, one denormal test and one 64-byte store for both.
  static void StoreBf16x2(uint16_t* p, T v0, T v1) {
    if (__builtin_expect(!_kortestz_mask16_u8(Denormals(v0), Denormals(v1)), 0)) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), ToBf16(v0));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + 16), ToBf16(v1));
    } else {
      _mm512_storeu_si512(p, (__m512i)_mm512_cvtne2ps_pbh(v1, v0));
    }
  }
};

struct Bf16Dot {
  static constexpr int kTileM1 = 28;
  static constexpr int kTileM4 = 6;  // 24 accumulators, 4 weights, a broadcast
  struct W {
    __m512bh v;
  };
  struct S {
    __m512bh v;
  };
  // The weight vector through an empty asm, so it stays in its register:
  // GCC otherwise reloaded it for every pixel in some tiles (12 loads
  // instead of 4 per pair in the 3 x 4 tile once the fused epilogue was
  // added: load-bound, 3x3 512->512 7x7 7% slower).
  static W LoadW(const uint16_t* p) {
    __m512i v = _mm512_loadu_si512(p);
    asm("" : "+v"(v));
    return {(__m512bh)v};
  }
  static S Broadcast(const uint16_t* p) {
    return {(__m512bh)_mm512_set1_epi32(x86_gemm::LoadPair(p))};
  }
  // (p[0], 0) in every lane: a word broadcast into the even words only.
  static S BroadcastLow(const uint16_t* p) {
    return {(__m512bh)_mm512_maskz_broadcastw_epi16(0x55555555, _mm_loadu_si16(p))};
  }
  static __m512 Accumulate(__m512 acc, S s, W w) { return _mm512_dpbf16_ps(acc, w.v, s.v); }
  // Accumulate(acc, Broadcast(p), w) as one vdpbf16ps with an embedded
  // broadcast of the pair at p (GCC keeps the vpbroadcastd apart).
  static __m512 AccumulateAt(__m512 acc, const uint16_t* p, W w) {
    asm("vdpbf16ps %2%{1to16%}, %1, %0"
        : "+v"(acc)
        : "v"(w.v), "m"(*reinterpret_cast<const uint32_t*>(p)));
    return acc;
  }

  // x86_gemm::Tile's epilogue with GemmRowArgs::fused: the sums of pixels
  // pixel(0..M-1) (dst pixel indices) and channels c.. (NV blocks) plus the bias, then ReLU or
  // nothing, rounded as StoreBlockRun rounds them (or FP32), stored to the
  // dst. In registers: the separate pass (StoreRowAvx512Bf16) read the
  // sums back after the whole row and left the vdpbf16ps pipes idle while
  // it ran (1x1 256->64 56x56, Zen 5: 4.5% of the time).
  static constexpr bool kFusedStore = true;
  template <int M, int NV, class Pixel>
  __attribute__((always_inline)) static void StoreFused(const __m512 (&acc)[M][NV],
                                                        const FusedStoreArgs& f, Pixel pixel,
                                                        size_t c) {
    const bool relu = f.epilogue->activation == Activation::kRelu;
    if (f.bf16) {
      // vdpbf16ps flushes denormal sums: with every bias zero or large no
      // value to round is denormal, and vcvtne2ps2bf16 rounds it alone (the
      // denormal test was a third of the epilogue's work: 1x1 64->256 56x56,
      // Zen 5, 475 -> 502 GFLOP/s).
      if (f.bias_zero_or_large) {
        if (relu) return StoreFusedT<M, NV, true, true, false>(acc, f, pixel, c);
        return StoreFusedT<M, NV, true, false, false>(acc, f, pixel, c);
      }
      if (relu) return StoreFusedT<M, NV, true, true>(acc, f, pixel, c);
      return StoreFusedT<M, NV, true, false>(acc, f, pixel, c);
    }
    if (relu) return StoreFusedT<M, NV, false, true>(acc, f, pixel, c);
    StoreFusedT<M, NV, false, false>(acc, f, pixel, c);
  }
  // kDenormals: values to round may be denormal (the integer rounding for them).
  template <int M, int NV, bool kBf16, bool kRelu, bool kDenormals = true, class Pixel>
  __attribute__((always_inline)) static void StoreFusedT(const __m512 (&acc)[M][NV],
                                                         const FusedStoreArgs& f, Pixel pixel,
                                                         size_t c) {
    const float* bias = f.epilogue->bias + f.channel_base + c;
    // In locals: the stores could alias f, and GCC reloaded both after each.
    uint8_t* const dst = f.dst;
    const size_t pixel_stride = f.pixel_stride;
    __m512 b[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) b[v] = _mm512_loadu_ps(bias + v * 16);
#pragma GCC unroll 28
    for (int m = 0; m < M; ++m) {
      __m512 r[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        r[v] = _mm512_add_ps(acc[m][v], b[v]);
        if (kRelu) r[v] = _mm512_max_ps(_mm512_setzero_ps(), r[v]);  // ActivateV's order
      }
      const size_t at = pixel(m) * pixel_stride + c;
      if constexpr (kBf16) {
        uint16_t* d = reinterpret_cast<uint16_t*>(dst) + at;
        if constexpr (!kDenormals) {
#pragma GCC unroll 2
          for (int v = 0; v + 1 < NV; v += 2) {
            _mm512_storeu_si512(d + v * 16, (__m512i)_mm512_cvtne2ps_pbh(r[v + 1], r[v]));
          }
          if constexpr (NV % 2 != 0) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + (NV - 1) * 16),
                                (__m256i)_mm512_cvtneps_pbh(r[NV - 1]));
          }
        } else if constexpr (NV % 2 != 0) {
          StoreBf16Cvt::Store(d, __mmask16(0xFFFF), r[0]);
        } else {
#pragma GCC unroll 2
          for (int v = 0; v < NV; v += 2) Avx512Bf16F32::StoreBf16x2(d + v * 16, r[v], r[v + 1]);
        }
      } else {
        // The empty asm keeps one address per pixel, its NV lines at
        // d + 16 v: GCC otherwise formed all M x NV store addresses apart
        // (12 x 2 tile: 24, half of them spilled to xmm registers and the
        // stack) and the FP32 stem ran 10-12% slower than with a BF16 dst
        // (Zen 5, 3x3 s2 3->32, one binary each, 5 alternating rounds, us:
        // 224x224 74.8-79.8 -> 66.6-76.1, 112x112 18.3-18.8 -> 16.1-16.7).
        float* d = reinterpret_cast<float*>(dst) + at;
        asm("" : "+r"(d));
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) _mm512_storeu_ps(d + v * 16, r[v]);
      }
    }
  }
};

// Avx512Bf16F32 multiplying BF16 sources by vdpbf16ps (HasBf16Dot):
// vpmovzxwd puts each BF16 value in the low half of a 32-bit lane, the
// weight is stored there too (GemmRowF32Args::rows16), so each lane's pair
// product is x * w + 0 * 0 (exact) added to the sum in one rounding, like
// FMA; one load-and-extend per source vector where widening takes a load
// and a shuffle. vdpbf16ps treats denormal inputs and results as zero (SPEC
// §4's absolute term covers the products; the bias is added after it).
struct Avx512Bf16Dot : Avx512Bf16F32 {
  static constexpr bool kBf16Dot = true;
  static T MulAddBf16(const uint16_t* p, T w, T acc) { return DotLanes(LoadLanes(p), w, acc); }
  // MulAddBf16 in two steps, for a source vector that feeds several taps.
  static T LoadLanes(const uint16_t* p) {
    return _mm512_castsi512_ps(
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
  }
  static T DotLanes(T x, T w, T acc) {
    return _mm512_dpbf16_ps(acc, (__m512bh)_mm512_castps_si512(x), (__m512bh)_mm512_castps_si512(w));
  }
  // 32 BF16 channels as loaded (LoadPairs: channel 2i in the low half of
  // 32-bit lane i, 2i + 1 in the upper half), split into the LoadLanes of
  // the even channels (an AND) and of the odd ones (a shift): no shuffle,
  // one load per 32 channels. These replace Avx512F32's FP32 split.
  static T EvenOf(T raw) {
    return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(raw), _mm512_set1_epi32(0xFFFF)));
  }
  static T OddOf(T raw) { return _mm512_castsi512_ps(_mm512_srli_epi32(_mm512_castps_si512(raw), 16)); }
  static T SplitMulAdd(T x, T w, T acc) { return DotLanes(x, w, acc); }
  // x86_f32::DepthwisePairTile: the 32 BF16 channels at a and at b (zeros
  // for b null) paired: lane j of lo holds (a, b) of channel 8 * (j / 4) +
  // j % 4, of hi channel 8 * (j / 4) + 4 + j % 4 (vpunpck{l,h}wd work
  // within 128-bit blocks).
  static constexpr bool kPairDot = true;
  static void LoadPair(const uint16_t* a, const uint16_t* b, T* lo, T* hi) {
    const __m512 va = _mm512_castsi512_ps(_mm512_loadu_si512(a));
    Pair(va, b != nullptr ? _mm512_castsi512_ps(_mm512_loadu_si512(b)) : Zero(), lo, hi);
  }
  // 32 BF16 channels as one vector for Pair (LoadPairs keeps its load out
  // of the instructions that use it, which here cost a store and reload).
  static T Load32(const uint16_t* p) { return _mm512_castsi512_ps(_mm512_loadu_si512(p)); }
  // LoadPair of two vectors of 32 BF16 channels (Zero() for zeros).
  static void Pair(T a, T b, T* lo, T* hi) {
    const __m512i va = _mm512_castps_si512(a), vb = _mm512_castps_si512(b);
    *lo = _mm512_castsi512_ps(_mm512_unpacklo_epi16(va, vb));
    *hi = _mm512_castsi512_ps(_mm512_unpackhi_epi16(va, vb));
  }
  // LoadPair for 16 channels (DepthwisePairTile's last 16): lane j holds
  // (a, b) of channel j, in channel order.
  static T LoadPair16(const uint16_t* a, const uint16_t* b) {
    const __m512i va = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)));
    if (b == nullptr) return _mm512_castsi512_ps(va);
    const __m512i vb = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b)));
    return _mm512_castsi512_ps(_mm512_or_si512(va, _mm512_slli_epi32(vb, 16)));
  }
  // Channels 0-15 and 16-31 from LoadPair's lo and hi orders: 128-bit
  // blocks (lo0, hi0, lo1, hi1) and (lo2, hi2, lo3, hi3).
  static void FromPairOrder(T lo, T hi, T* v0, T* v1) {
    *v0 = _mm512_permutex2var_ps(
        lo, _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23), hi);
    *v1 = _mm512_permutex2var_ps(
        lo, _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31), hi);
  }
};

// One pixel run of an AMX block or a GEMM row: sums[i * ld + j] -> dst
// NHWC, nx pixels from `base` (element index of channel c0), nc <= 32
// channels.
template <Activation A, bool kBf16, bool kTwo>
void StoreBlockRun(const Epilogue& e, const float* sums, size_t ld, size_t nx, size_t stride,
                   size_t base, size_t c0, __mmask16 m0, __mmask16 m1, uint8_t* dst) {
  const __m512 b0 = _mm512_maskz_loadu_ps(m0, e.bias + c0);
  const __m512 b1 = kTwo ? _mm512_maskz_loadu_ps(m1, e.bias + c0 + 16) : _mm512_setzero_ps();
  for (size_t x = 0; x < nx; ++x, sums += ld, base += stride) {
    const __m512 v0 = ActivateV<A>(_mm512_add_ps(_mm512_loadu_ps(sums), b0), e.params, c0, m0);
    __m512 v1 = _mm512_setzero_ps();
    if (kTwo) {
      v1 = ActivateV<A>(_mm512_add_ps(_mm512_loadu_ps(sums + 16), b1), e.params, c0 + 16, m1);
    }
    if (kBf16) {
      uint16_t* d = reinterpret_cast<uint16_t*>(dst) + base;
      if (kTwo) {
        if (__builtin_expect(!_kortestz_mask16_u8(Denormals(v0), Denormals(v1)), 0)) {
          _mm256_mask_storeu_epi16(d, m0, ToBf16(v0));
          _mm256_mask_storeu_epi16(d + 16, m1, ToBf16(v1));
        } else {
          const __m512i h = (__m512i)_mm512_cvtne2ps_pbh(v1, v0);
          _mm512_mask_storeu_epi16(d, _mm512_kunpackw(m1, m0), h);
        }
      } else {
        StoreBf16Cvt::Store(d, m0, v0);
      }
    } else {
      float* d = reinterpret_cast<float*>(dst) + base;
      _mm512_mask_storeu_ps(d, m0, v0);
      if (kTwo) _mm512_mask_storeu_ps(d + 16, m1, v1);
    }
  }
}

template <Activation A, bool kBf16, bool kTwo>
void StoreBlockT(const Geometry& g, const Epilogue& e, const float* sums, size_t n, size_t oy,
                 size_t ox, size_t vw, size_t npix, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  const __mmask16 m0 = nc >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << nc) - 1u);
  const __mmask16 m1 =
      nc >= 32 ? __mmask16(0xFFFF) : nc > 16 ? __mmask16((1u << (nc - 16)) - 1u) : 0;
  while (npix != 0 && oy < p.dstH) {
    const size_t in_row = std::min(npix, vw - ox);
    if (ox < p.dstW) {
      StoreBlockRun<A, kBf16, kTwo>(e, sums, 32, std::min(in_row, p.dstW - ox), p.dstC,
                                    ((n * p.dstH + oy) * p.dstW + ox) * p.dstC + c0, c0, m0, m1,
                                    dst);
    }
    sums += in_row * 32;
    npix -= in_row;
    ox = 0;
    ++oy;
  }
}

template <Activation A>
void StoreBlockA(const Geometry& g, const Epilogue& e, const float* sums, size_t n, size_t oy,
                 size_t ox, size_t vw, size_t npix, size_t c0, size_t nc, uint8_t* dst) {
  const bool bf16 = g.p.dstT == DataType::k16b;
  if (nc > 16) {
    (bf16 ? StoreBlockT<A, true, true> : StoreBlockT<A, false, true>)(g, e, sums, n, oy, ox, vw,
                                                                        npix, c0, nc, dst);
  } else {
    (bf16 ? StoreBlockT<A, true, false> : StoreBlockT<A, false, false>)(g, e, sums, n, oy, ox, vw,
                                                                          npix, c0, nc, dst);
  }
}

// ActivateV with one channel's parameters in every lane (lanes are pixels).
template <Activation A>
inline __m512 ActivateRowV(__m512 v, const float* p, size_t c) {
  if constexpr (A == Activation::kPrelu) {
    const __m512 zero = _mm512_setzero_ps();
    return _mm512_add_ps(_mm512_max_ps(zero, v),
                         _mm512_mul_ps(_mm512_set1_ps(p[c]), _mm512_min_ps(zero, v)));
  } else {
    return ActivateV<A>(v, p, c, __mmask16(0xFFFF));
  }
}

// Channel rows of an NCHW block: row j holds 32 pixels.
template <Activation A, bool kBf16>
void StoreNchwBlockT(const Geometry& g, const Epilogue& e, const float* sums, size_t n, size_t oy,
                     size_t ox, size_t vw, size_t npix, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  const size_t plane = p.dstH * p.dstW;
  size_t i = 0;
  while (i < npix && oy < p.dstH) {
    const size_t in_row = std::min(npix - i, vw - ox);
    if (ox < p.dstW) {
      const size_t run = std::min(in_row, p.dstW - ox);
      const size_t at = (n * p.dstC + c0) * plane + oy * p.dstW + ox;
      for (size_t j = 0; j < nc; ++j) {
        const __m512 bias = _mm512_set1_ps(e.bias[c0 + j]);
        for (size_t x = 0; x < run; x += 16) {
          const size_t k = std::min<size_t>(16, run - x);
          const __mmask16 m = __mmask16((1u << k) - 1u);
          const __m512 v = ActivateRowV<A>(
              _mm512_add_ps(_mm512_maskz_loadu_ps(m, sums + j * 32 + i + x), bias), e.params,
              c0 + j);
          if (kBf16) {
            _mm256_mask_storeu_epi16(reinterpret_cast<uint16_t*>(dst) + at + j * plane + x, m,
                                     ToBf16(v));
          } else {
            _mm512_mask_storeu_ps(reinterpret_cast<float*>(dst) + at + j * plane + x, m, v);
          }
        }
      }
    }
    i += in_row;
    ox = 0;
    ++oy;
  }
}

// Transposes the block (to pixel rows, ld 32) for StoreOutputVector.
void StoreNchwBlockGeneric(const Geometry& g, const Epilogue& e, const float* sums, size_t n,
                           size_t oy, size_t ox, size_t vw, size_t npix, size_t c0, size_t nc,
                           uint8_t* dst) {
  alignas(64) float t[32 * 32];
  for (size_t j = 0; j < nc; ++j)
    for (size_t i = 0; i < npix; ++i) t[i * 32 + j] = sums[j * 32 + i];
  StorePixels(StoreOutputVector, g, e, t, 32, n, oy, ox, vw, npix, c0, nc, dst);
}

}  // namespace

void StoreNchwBlockAvx512Bf16(const Geometry& g, const Epilogue& e, const float* sums, size_t n,
                              size_t oy, size_t ox, size_t vw, size_t npix, size_t c0, size_t nc,
                              uint8_t* dst) {
  const bool bf16 = g.p.dstT == DataType::k16b;
  if (WithFusedActivation(e.activation, [&](auto a) {
        (bf16 ? StoreNchwBlockT<decltype(a)::value, true>
              : StoreNchwBlockT<decltype(a)::value, false>)(g, e, sums, n, oy, ox, vw, npix, c0,
                                                            nc, dst);
      })) {
    return;
  }
  StoreNchwBlockGeneric(g, e, sums, n, oy, ox, vw, npix, c0, nc, dst);
}

void StoreBlockAvx512Bf16(const Geometry& g, const Epilogue& e, const float* sums, size_t n,
                          size_t oy, size_t ox, size_t vw, size_t npix, size_t c0, size_t nc,
                          uint8_t* dst) {
  if (g.p.dstF == TensorFormat::kNhwc &&
      WithFusedActivation(e.activation, [&](auto a) {
        StoreBlockA<decltype(a)::value>(g, e, sums, n, oy, ox, vw, npix, c0, nc, dst);
      })) {
    return;
  }
  StorePixels(StoreRunAvx512, g, e, sums, 32, n, oy, ox, vw, npix, c0, nc, dst);
}

void StoreRowAvx512Bf16(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,
                        size_t n, size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  // NHWC: StoreBlockRun over the row, 32 channels at a time, so BF16 pairs
  // of vectors are rounded by one vcvtne2ps2bf16 (StoreRowAvx512's integer
  // rounding was most of the epilogue: 16% of a 3x3 stem 3->32).
  if (p.dstF == TensorFormat::kNhwc &&
      WithFusedActivation(e.activation, [&](auto a) {
        constexpr Activation A = decltype(a)::value;
        const bool bf16 = p.dstT == DataType::k16b;
        const size_t base = (n * p.dstH + oy) * p.dstW * p.dstC;
        for (size_t j = 0; j < nc; j += 32) {
          const size_t left = nc - j;
          const __mmask16 m0 = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u);
          const __mmask16 m1 = left >= 32   ? __mmask16(0xFFFF)
                               : left > 16 ? __mmask16((1u << (left - 16)) - 1u)
                                           : __mmask16(0);
          const auto run = left > 16 ? (bf16 ? StoreBlockRun<A, true, true>
                                             : StoreBlockRun<A, false, true>)
                                     : (bf16 ? StoreBlockRun<A, true, false>
                                             : StoreBlockRun<A, false, false>);
          run(e, sums + j, ld, p.dstW, p.dstC, base + c0 + j, c0 + j, m0, m1, dst);
        }
      })) {
    return;
  }
  StoreRowAvx512(g, e, sums, ld, n, oy, c0, nc, dst);
}

void DepthwiseRowF32Avx512Bf16(const DepthwiseF32Args& a, const Geometry& g, const Epilogue& e,
                               size_t n, size_t oy, uint8_t* dst) {
  x86_depthwise::Row<StoreBf16Cvt>(a, g, e, n, oy, dst);
}

void StridedDepthwiseRowAvx512Bf16(const GemmRowF32Args& args) {
  x86_f32::DepthwiseRow<Avx512Bf16F32>(args);
}

void DotDepthwiseRowAvx512Bf16(const GemmRowF32Args& args) {
  x86_f32::DepthwiseRow<Avx512Bf16Dot>(args);
}

void GemmRowAvx512Bf16(const GemmRowArgs& args) { x86_gemm::GemmRow<Bf16Dot>(args); }

uint64_t PeakAvx512Bf16(uint64_t iterations) {
  const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3F80), b = (__m512bh)_mm512_set1_epi16(0x3A83);
  return x86_gemm::PeakLoop(iterations,
                            [&](__m512 acc) { return _mm512_dpbf16_ps(acc, a, b); }) *
         32 * 2;
}

}  // namespace conv16b_internal
}  // namespace synops
