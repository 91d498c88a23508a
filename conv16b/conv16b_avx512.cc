// AVX-512 kernels without BF16 instructions: BF16 values are widened to FP32
// (a shift) and multiplied with FMAs, which is exact for BF16 products.
#include <algorithm>
#include <cstring>

#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_x86_depthwise-inl.h"
#include "conv16b/conv16b_x86_epilogue-inl.h"
#include "conv16b/conv16b_x86_f32-inl.h"
#include "conv16b/conv16b_x86_gemm-inl.h"

namespace synops {
namespace conv16b_internal {
namespace {

inline __m512 LoadBf16(const uint16_t* p, __mmask16 mask) {
  const __m256i h = _mm256_maskz_loadu_epi16(mask, p);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

}  // namespace

void StridedDepthwiseRowAvx512(const GemmRowF32Args& args) {
  x86_f32::DepthwiseRow<Avx512F32>(args);
}

void GemmRowF32Avx512(const GemmRowF32Args& args) { x86_f32::GemmRow<Avx512F32, false>(args); }

void RoundRowF32Avx512(const float* src, size_t n, float* out) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, RoundToBf16F32(_mm512_loadu_ps(src + i)));
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(out + i, m, RoundToBf16F32(_mm512_maskz_loadu_ps(m, src + i)));
  }
}

namespace {

// One im2row row from the pieces (masked loads: nothing read or written
// outside the row and the source window); kMaxPieces > 0: kp == 32 and a
// compile-time bound the compiler unrolls; 0: any count.
template <size_t kMaxPieces>
inline void PiecesRow(const Im2RowArgs& a, const uint16_t* origin, uint16_t* row) {
  if (kMaxPieces != 0) {
    __m512i v = _mm512_setzero_si512();
    for (size_t j = 0; j < kMaxPieces; ++j) {
      if (j < a.npieces) v = _mm512_mask_loadu_epi16(v, a.mask[j], origin + a.offset[j]);
    }
    _mm512_store_si512(row, v);
    return;
  }
  size_t j = 0;
  for (size_t c = 0; c < a.kp / 32; ++c) {
    __m512i v = _mm512_setzero_si512();
    // Masked lanes are not accessed, so a piece may start before its
    // source run: lane L of the load reads origin + offset + L.
    for (; j < a.npieces && a.chunk[j] == c; ++j) {
      v = _mm512_mask_loadu_epi16(v, a.mask[j], origin + a.offset[j]);
    }
    _mm512_store_si512(row + 32 * c, v);
  }
}

// One im2row row from the segments (Im2RowArgs::seg_width == kWidth, at
// most kMaxSegments of them, copied to locals by the caller: a store
// through the row may alias Im2RowArgs): a plain load and store of kWidth
// elements per segment, in row order, then zeros from k to kp; each
// store's elements past its segment are overwritten by the next store,
// the last ones by the next pixel's row. Nine: the taps of a 3x3 kernel
// over groups of 16 channels (with eight they went through PiecesRow's
// loop of masked loads: 16-channel group 3x3 56x56 on AMX 187 -> 386
// GFLOP/s with nine).
constexpr size_t kMaxSegments = 9;
template <size_t kWidth>
inline void SegmentsRow(const ptrdiff_t* offset, const size_t* pos, size_t nseg, size_t k,
                        size_t kp, const uint16_t* origin, uint16_t* row) {
#pragma GCC unroll 9
  for (size_t j = 0; j < kMaxSegments; ++j) {
    if (j >= nseg) break;
    if (kWidth == 16) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + pos[j]),
                          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(origin + offset[j])));
    } else {
      _mm512_storeu_si512(row + pos[j], _mm512_loadu_si512(origin + offset[j]));
    }
  }
  // kp - k < 32: one or two stores (a loop here became a memset call).
  if (kWidth == 16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + k), _mm256_setzero_si256());
    if (k + 16 < kp) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(row + k + 16), _mm256_setzero_si256());
    }
  } else if (k < kp) {
    _mm512_storeu_si512(row + k, _mm512_setzero_si512());
  }
}

// One 32-element im2row row of 2 to 4 segments of at most 16 elements
// (the 3x3 stem: three of 9), assembled in a register: each segment's 16
// elements loaded, two segments per 512-bit vector, one vpermt2w moving
// each row element to its lane (`index`), zeros past k (`keep`), and one
// aligned store, where SegmentsRow's overlapping stores crossed cache
// lines.
inline void PermutedRow(const ptrdiff_t* offset, size_t nseg, __m512i index, __mmask32 keep,
                        const uint16_t* origin, uint16_t* row) {
  const auto load = [&](size_t j) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(origin + offset[j]));
  };
  const __m512i a = _mm512_inserti64x4(_mm512_castsi256_si512(load(0)), load(1), 1);
  __m512i b = _mm512_setzero_si512();
  if (nseg > 2) b = _mm512_castsi256_si512(load(2));
  if (nseg > 3) b = _mm512_inserti64x4(b, load(3), 1);
  _mm512_store_si512(row, _mm512_maskz_permutex2var_epi16(keep, a, index, b));
}

// Rows [p0, p0 + npix): all but the last through SegmentsRow<kWidth>
// (kWidth 0: none; PermutedRow where kPermuted), the last through
// PiecesRow<kMaxPieces>.
template <size_t kWidth, size_t kMaxPieces, bool kPermuted = false>
void Im2Row(const Im2RowArgs& a) {
  const size_t kp = a.kp, dst_w = a.dst_w;
  const size_t step_x = a.stride_x * a.cp, step_y = a.stride_y * a.pw * a.cp;
  size_t oy = a.p0 / dst_w, ox = a.p0 % dst_w;
  const uint16_t* origin = a.src + oy * step_y + ox * step_x;
  uint16_t* row = a.out;
  ptrdiff_t seg_offset[kMaxSegments];
  size_t seg_pos[kMaxSegments];
  const size_t nseg = a.nseg, k = a.k, npix = a.npix;
  for (size_t j = 0; j < nseg && j < kMaxSegments; ++j) {
    seg_offset[j] = a.seg_offset[j];
    seg_pos[j] = a.seg_pos[j];
  }
  // PermutedRow's lanes: row element e of segment j is element e - pos[j]
  // of vector j / 2's 256-bit half j % 2.
  alignas(64) uint16_t lanes[32] = {};
  for (size_t j = 0; kPermuted && j < nseg; ++j) {
    const size_t end = j + 1 < nseg ? seg_pos[j + 1] : k;
    for (size_t e = seg_pos[j]; e < end; ++e) {
      lanes[e] = static_cast<uint16_t>((j / 2) * 32 + (j % 2) * 16 + e - seg_pos[j]);
    }
  }
  const __m512i index = _mm512_load_si512(lanes);
  const __mmask32 keep = kPermuted ? static_cast<__mmask32>((uint64_t{1} << k) - 1) : 0;
  for (size_t i = 0; i < npix; ++i, row += kp) {
    if (kPermuted && i + 1 < npix) {
      PermutedRow(seg_offset, nseg, index, keep, origin, row);
    } else if (kWidth != 0 && i + 1 < npix) {
      SegmentsRow<kWidth>(seg_offset, seg_pos, nseg, k, kp, origin, row);
    } else {
      PiecesRow<kMaxPieces>(a, origin, row);
    }
    origin += step_x;
    if (++ox == dst_w) {
      ox = 0;
      ++oy;
      origin = a.src + oy * step_y;
    }
  }
}

}  // namespace

bool AllFiniteBf16Avx512(const uint16_t* p, size_t n) {
  // (v & 0x7F80) never exceeds 0x7F80: their maximum is 0x7F80 only if
  // some value's exponent is all ones.
  const __m512i exponent = _mm512_set1_epi16(0x7F80);
  __m512i a0 = _mm512_setzero_si512(), a1 = a0;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    a0 = _mm512_max_epu16(a0, _mm512_and_si512(_mm512_loadu_si512(p + i), exponent));
    a1 = _mm512_max_epu16(a1, _mm512_and_si512(_mm512_loadu_si512(p + i + 32), exponent));
  }
  for (; i < n; i += 32) {
    const __mmask32 m = n - i >= 32 ? ~__mmask32{0} : (__mmask32{1} << (n - i)) - 1;
    a0 = _mm512_max_epu16(a0, _mm512_and_si512(_mm512_maskz_loadu_epi16(m, p + i), exponent));
  }
  return _mm512_cmpeq_epi16_mask(_mm512_max_epu16(a0, a1), exponent) == 0;
}

void Im2RowAvx512(const Im2RowArgs& a) {
  const bool one_chunk = a.kp == 32 && a.npieces <= 4;
  if (a.nseg <= kMaxSegments && a.seg_width == 16) {
    if (a.kp == 32 && a.nseg >= 2 && a.nseg <= 4 && one_chunk) return Im2Row<16, 4, true>(a);
    return one_chunk ? Im2Row<16, 4>(a) : Im2Row<16, 0>(a);
  }
  if (a.nseg <= kMaxSegments && a.seg_width == 32) return Im2Row<32, 0>(a);
  if (one_chunk) return Im2Row<0, 4>(a);
  if (a.kp == 32 && a.npieces <= 8) return Im2Row<0, 8>(a);
  Im2Row<0, 0>(a);
}


namespace {

template <Activation A, bool kBf16>
void StoreNhwc(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
               size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst) {
  const ConvParams& p = g.p;
  for (size_t x = 0; x < nx; ++x) {
    const size_t base = ((n * p.dstH + oy) * p.dstW + x0 + x) * p.dstC + c0;
    const float* s = sums + x * ld;
    size_t j = 0;
    if (kBf16) {
      for (; j + 32 <= nc; j += 32) {
        const __m512 v0 = ActivateV<A>(_mm512_add_ps(_mm512_loadu_ps(s + j),
                                                     _mm512_loadu_ps(e.bias + c0 + j)),
                                       e.params, c0 + j, 0xFFFF);
        const __m512 v1 = ActivateV<A>(_mm512_add_ps(_mm512_loadu_ps(s + j + 16),
                                                     _mm512_loadu_ps(e.bias + c0 + j + 16)),
                                       e.params, c0 + j + 16, 0xFFFF);
        StoreBf16Pair(reinterpret_cast<uint16_t*>(dst) + base + j, v0, v1);
      }
    }
    for (; j < nc; j += 16) {
      const size_t left = nc - j;
      const __mmask16 mask = left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u);
      __m512 v = _mm512_add_ps(_mm512_loadu_ps(s + j), _mm512_maskz_loadu_ps(mask, e.bias + c0 + j));
      v = ActivateV<A>(v, e.params, c0 + j, mask);
      if (kBf16) {
        _mm256_mask_storeu_epi16(reinterpret_cast<uint16_t*>(dst) + base + j, mask, ToBf16(v));
      } else {
        _mm512_mask_storeu_ps(reinterpret_cast<float*>(dst) + base + j, mask, v);
      }
    }
  }
}

template <Activation A>
void StoreNhwcA(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst) {
  if (g.p.dstT == DataType::k16b) {
    StoreNhwc<A, true>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  } else {
    StoreNhwc<A, false>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  }
}

}  // namespace

namespace {

template <Activation A>
void StoreNchwA(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst) {
  if (g.p.dstT == DataType::k16b) {
    StoreNchwRun<A, true>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  } else {
    StoreNchwRun<A, false>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  }
}

// StoreOutput for NCHW dst: 16 x 16 transposes for the vector activations.
void StoreNchwRunAvx512(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,
                        size_t n, size_t oy, size_t x0, size_t nx, size_t c0, size_t nc,
                        uint8_t* dst) {
  if (WithFusedActivation(e.activation, [&](auto a) {
        StoreNchwA<decltype(a)::value>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
      })) {
    return;
  }
  StoreOutputVector(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
}

// NHWC dst with an activation outside WithFusedActivation (Elu): the
// bias added in vectors into a chunk of whole pixels (channels padded to 16,
// the padding lanes zero), one ActivateKernels() call per chunk, and the
// results rounded and stored in masked vectors. StoreOutputVector's scalar
// loops took 41% of a Swish depthwise 3x3 32ch 112x112 (0.89 ms in all,
// 0.13 ms without the activation).
template <bool kBf16>
void StoreNhwcTranscendental(const Geometry& g, const Epilogue& e, const float* sums, size_t ld,
                             size_t n, size_t oy, size_t x0, size_t nx, size_t c0, size_t nc,
                             uint8_t* dst) {
  const ConvParams& p = g.p;
  constexpr size_t kChunk = 1024;
  const size_t cpad = (nc + 15) / 16 * 16;
  if (cpad > kChunk) return StoreOutputVector(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  const ActivateFn activate = ActivateKernels().Best().fn;
  alignas(64) float v[kChunk];
  const size_t px = kChunk / cpad;
  const auto mask_at = [&](size_t j) {
    return static_cast<__mmask16>(nc - j >= 16 ? 0xFFFF : (1u << (nc - j)) - 1u);
  };
  for (size_t x = 0; x < nx; x += px) {
    const size_t npx = std::min(px, nx - x);
    for (size_t i = 0; i < npx; ++i) {
      const float* s = sums + (x + i) * ld;
      for (size_t j = 0; j < nc; j += 16) {
        const __mmask16 m = mask_at(j);
        _mm512_store_ps(v + i * cpad + j, _mm512_add_ps(_mm512_maskz_loadu_ps(m, s + j),
                                                        _mm512_maskz_loadu_ps(m, e.bias + c0 + j)));
      }
    }
    activate(e.activation, e.params, v, npx * cpad);
    for (size_t i = 0; i < npx; ++i) {
      const size_t base = ((n * p.dstH + oy) * p.dstW + x0 + x + i) * p.dstC + c0;
      for (size_t j = 0; j < nc; j += 16) {
        const __mmask16 m = mask_at(j);
        const __m512 r = _mm512_load_ps(v + i * cpad + j);
        if (kBf16) {
          _mm256_mask_storeu_epi16(reinterpret_cast<uint16_t*>(dst) + base + j, m, ToBf16(r));
        } else {
          _mm512_mask_storeu_ps(reinterpret_cast<float*>(dst) + base + j, m, r);
        }
      }
    }
  }
}

}  // namespace

void StoreRunAvx512(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                    size_t oy, size_t x0, size_t nx, size_t c0, size_t nc, uint8_t* dst) {
  if (g.p.dstF != TensorFormat::kNhwc) {
    return StoreNchwRunAvx512(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
  }
  if (WithFusedActivation(e.activation, [&](auto a) {
        StoreNhwcA<decltype(a)::value>(g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
      })) {
    return;
  }
  (g.p.dstT == DataType::k16b ? StoreNhwcTranscendental<true> : StoreNhwcTranscendental<false>)(
      g, e, sums, ld, n, oy, x0, nx, c0, nc, dst);
}

void StoreRowAvx512(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                    size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  StoreRunAvx512(g, e, sums, ld, n, oy, 0, g.p.dstW, c0, nc, dst);
}

void PlanarToNhwcAvx512(const void* src, bool f32, size_t plane, size_t channels, size_t width,
                        uint16_t* out, size_t out_stride) {
  const size_t es = f32 ? 4 : 2;
  // Pixels outer: each output pixel's channels are written together, and the
  // other half of every source line read here is read by the next block
  // while still in L1.
  for (size_t x = 0; x < width; x += 16) {
    for (size_t c = 0; c < channels; c += 16) {
      const size_t nc = std::min<size_t>(16, channels - c), nx = std::min<size_t>(16, width - x);
      const uint8_t* from = static_cast<const uint8_t*>(src) + (c * plane + x) * es;
      if (nc == 16 && nx == 16) {
        if (f32) {
          PlanarToInterleaved16<true>(from, true, plane, 16, 16, out + x * out_stride + c,
                                      out_stride);
        } else {
          PlanarToInterleaved16<true>(from, false, plane, 16, 16, out + x * out_stride + c,
                                      out_stride);
        }
      } else {
        PlanarToInterleaved16<false>(from, f32, plane, nc, nx, out + x * out_stride + c,
                                     out_stride);
      }
    }
  }
}

void InterleavePairsAvx512(const void* src, bool f32, size_t plane, size_t width, size_t y0,
                           size_t y1, size_t pairs, size_t pw, size_t pad_y, size_t pad_x,
                           size_t pair_stride, uint16_t* out) {
  // Lanes 0..31 of the result take element i / 2 of a (even i) or b (odd i);
  // lanes 32..63 continue from element 16.
  alignas(64) static const uint16_t kLo[32] = {0, 32, 1, 33, 2,  34, 3,  35, 4,  36, 5,
                                               37, 6, 38, 7, 39, 8,  40, 9,  41, 10, 42,
                                               11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
  alignas(64) static const uint16_t kHi[32] = {16, 48, 17, 49, 18, 50, 19, 51, 20, 52, 21,
                                               53, 22, 54, 23, 55, 24, 56, 25, 57, 26, 58,
                                               27, 59, 28, 60, 29, 61, 30, 62, 31, 63};
  const __m512i lo = _mm512_load_si512(kLo), hi = _mm512_load_si512(kHi);
  auto load32 = [&](size_t c, size_t y, size_t x, __mmask32 m) -> __m512i {
    const size_t at = c * plane + y * width + x;
    if (f32) {
      const float* p = static_cast<const float*>(src) + at;
      const __m256i a = ToBf16(_mm512_maskz_loadu_ps(__mmask16(m), p));
      const __m256i b = ToBf16(_mm512_maskz_loadu_ps(__mmask16(m >> 16), p + 16));
      return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
    }
    return _mm512_maskz_loadu_epi16(m, static_cast<const uint16_t*>(src) + at);
  };
  for (size_t p = 0; p < pairs; ++p) {
    for (size_t y = y0; y < y1; ++y) {
      uint16_t* d = out + p * pair_stride + 2 * ((y + pad_y) * pw + pad_x);
      for (size_t x = 0; x < width; x += 32) {
        const size_t nx = std::min<size_t>(32, width - x);
        const __mmask32 m = nx == 32 ? ~__mmask32(0) : (__mmask32(1) << nx) - 1u;
        const __m512i a = load32(2 * p, y, x, m), b = load32(2 * p + 1, y, x, m);
        const __m512i r0 = _mm512_permutex2var_epi16(a, lo, b);
        const __m512i r1 = _mm512_permutex2var_epi16(a, hi, b);
        // 2 * nx elements: the first 32 from r0, the rest from r1.
        const size_t n2 = 2 * nx;
        _mm512_mask_storeu_epi16(d + 2 * x, n2 >= 32 ? ~__mmask32(0) : (__mmask32(1) << n2) - 1u,
                                 r0);
        if (n2 > 32) {
          _mm512_mask_storeu_epi16(d + 2 * x + 32,
                                   n2 - 32 >= 32 ? ~__mmask32(0) : (__mmask32(1) << (n2 - 32)) - 1u,
                                   r1);
        }
      }
    }
  }
}

void WidenPlanarAvx512(const void* src, bool f32, size_t plane, size_t nc, size_t width,
                       float* out) {
  // Each channel's 16 pixels rounded or widened as loaded, then one 16 x 16
  // transpose of 32-bit lanes (not through a BF16 block: its narrowing,
  // store and reload took half the time of this function's NCHW callers).
  for (size_t x = 0; x < width; x += 16) {
    const size_t xn = std::min<size_t>(16, width - x);
    const __mmask16 xm = __mmask16((1u << xn) - 1u);
    __m512i r[16];
#pragma GCC unroll 16
    for (size_t k = 0; k < 16; ++k) {
      const size_t at = k * plane + x;
      if (k >= nc) {
        r[k] = _mm512_setzero_si512();
      } else if (f32) {
        r[k] = _mm512_castps_si512(
            RoundToBf16F32(_mm512_maskz_loadu_ps(xm, static_cast<const float*>(src) + at)));
      } else {
        const __m256i h = _mm256_maskz_loadu_epi16(xm, static_cast<const uint16_t*>(src) + at);
        r[k] = _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
      }
    }
    Transpose16x16(r);
    for (size_t i = 0; i < xn; ++i) _mm512_store_si512(out + (x + i) * 16, r[i]);
  }
}

void WidenPixelsAvx512(const void* src, bool f32, size_t stride, size_t count, size_t nc,
                       float* out) {
  const __mmask16 m = __mmask16((1u << nc) - 1u);
  if (f32) {
    const float* s = static_cast<const float*>(src);
    for (size_t x = 0; x < count; ++x, s += stride, out += 16) {
      _mm512_store_ps(out, RoundToBf16F32(_mm512_maskz_loadu_ps(m, s)));
    }
    return;
  }
  const uint16_t* s = static_cast<const uint16_t*>(src);
  for (size_t x = 0; x < count; ++x, s += stride, out += 16) {
    _mm512_store_ps(out, LoadBf16(s, m));
  }
}

namespace {

// SPEC's RNE in integer operations (AVX-512 without BF16 instructions).
struct StoreBf16Rne {
  static void Store(uint16_t* d, __mmask16 m, __m512 v) {
    _mm256_mask_storeu_epi16(d, m, ToBf16(v));
  }
};

}  // namespace

void DepthwiseRowF32Avx512(const DepthwiseF32Args& a, const Geometry& g, const Epilogue& e,
                           size_t n, size_t oy, uint8_t* dst) {
  x86_depthwise::Row<StoreBf16Rne>(a, g, e, n, oy, dst);
}

uint64_t PeakAvx512(uint64_t iterations) {
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
  return x86_gemm::PeakLoop(iterations, [&](__m512 acc) { return _mm512_fmadd_ps(acc, a, b); }) *
         16 * 2;
}

}  // namespace conv16b_internal
}  // namespace synops
