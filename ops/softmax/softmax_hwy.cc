// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
//
// Layouts:
// * inner == 1, count 2 or 3 (detection heads): one vector of rows at a time,
//   de-interleaved so that each lane is a row (no horizontal reductions);
//   count 2 needs a single exp per row (the larger entry's is exactly 1).
// * inner == 1, count <= 4 vectors: the row stays in registers.
// * inner == 1, longer rows: max pass, exp pass (exps stored to dst, or to
//   an FP32 scratch row for BF16, and summed), scale pass; a row of up to a
//   few thousand elements stays in L1 between the passes.
// * inner > 1: vectorized across inner, one cache line of each row (FP32)
//   or 4 vectors (BF16) of columns at a time, then 1 vector, then a partial
//   one, all three passes per column block; exps kept in dst (FP32) or an
//   FP32 scratch (BF16). On AVX-512 up to 16 rows (count) of a column block
//   are read once into registers instead (StridedInRegisters).
// The exp is core/hwy_math-inl.h's ExpNonPositive (x - max <= 0), for BF16
// ExpNonPositiveBf16.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/softmax/softmax_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "bf16/bf16_hwy-inl.h"
#include "core/hwy_math-inl.h"
#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "ops/softmax/softmax_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using D16 = hn::Rebind<uint16_t, DF>;

// Masked loads and stores that never touch memory outside [p, p + n):
// native on AVX2 (32-bit lanes) and AVX-512; elsewhere through a buffer.
#undef SYNOPS_SOFTMAX_MASKED_F32
#undef SYNOPS_SOFTMAX_MASKED_16
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2
#define SYNOPS_SOFTMAX_MASKED_F32 1
#else
#define SYNOPS_SOFTMAX_MASKED_F32 0
#endif
#if HWY_TARGET == HWY_AVX3
#define SYNOPS_SOFTMAX_MASKED_16 1
#else
#define SYNOPS_SOFTMAX_MASKED_16 0
#endif

// e^x for x <= 0. BF16 results (8 significant bits) take the BF16 exp
// (relative error at most 2^-16 instead of ~2^-23): the result moves by
// far less than half a BF16 ULP (2^-9), so it still rounds to within one
// BF16 ULP of the FP32 result (SPEC §5).
template <class Tr>
HWY_INLINE VF Exp(DF d, VF x) {
  if constexpr (Tr::kCoarseExp) return hmath::ExpNonPositiveBf16(d, x);
  return hmath::ExpNonPositive<false>(d, x);
}

// 1 / s for s >= 1 (a sum of exps that includes e^0): on AVX-512 rcp14
// (relative error 2^-14) and one Newton step, about 2^-23 in all, instead of
// the divider; elsewhere the IEEE division.
HWY_INLINE VF Reciprocal(DF d, VF s) {
#if HWY_TARGET == HWY_AVX3
  const VF r0 = hn::ApproximateReciprocal(s);
  return hn::Mul(r0, hn::NegMulAdd(s, r0, hn::Set(d, 2.0f)));
#else
  return hn::Div(hn::Set(d, 1.0f), s);
#endif
}

// The same for results rounded to BF16: on AVX-512 rcp14 alone, whose 2^-14
// is 32 times below half a BF16 ULP (count 2: 1.16x -> 1.03x the FP32 time).
// SSE/AVX2's rcpps (1.5 * 2^-12) would be too close to it, and with a Newton
// step it measured no faster than the divider.
template <class Tr>
HWY_INLINE VF ReciprocalFor(DF d, VF s) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (Tr::kCoarseExp) return hn::ApproximateReciprocal(s);
#endif
  return Reciprocal(d, s);
}

// FP32 elements.
struct F32 {
  using T = float;
  static HWY_INLINE VF Load(DF d, const float* HWY_RESTRICT p) { return hn::LoadU(d, p); }
  // 1 <= n <= Lanes; lanes >= n are zero.
  static HWY_INLINE VF LoadPart(DF d, const float* HWY_RESTRICT p, size_t n) {
#if SYNOPS_SOFTMAX_MASKED_F32
    return hn::MaskedLoad(hn::FirstN(d, n), d, p);
#else
    HWY_ALIGN float buf[hn::MaxLanes(d)] = {};
    std::memcpy(buf, p, n * sizeof(float));
    return hn::Load(d, buf);
#endif
  }
  static HWY_INLINE void Store(VF v, DF d, float* HWY_RESTRICT p) { hn::StoreU(v, d, p); }
  static HWY_INLINE void StorePart(VF v, DF d, float* HWY_RESTRICT p, size_t n) {
#if SYNOPS_SOFTMAX_MASKED_F32
    hn::BlendedStore(v, hn::FirstN(d, n), d, p);
#else
    HWY_ALIGN float buf[hn::MaxLanes(d)];
    hn::Store(v, d, buf);
    std::memcpy(p, buf, n * sizeof(float));
#endif
  }
  // 2L consecutive elements as two vectors (any fixed order; StorePair
  // writes them back in the same order).
  static HWY_INLINE void LoadPair(DF d, const float* HWY_RESTRICT p, VF& a, VF& b) {
    a = hn::LoadU(d, p);
    b = hn::LoadU(d, p + hn::Lanes(d));
  }
  static HWY_INLINE void StorePair(DF d, VF a, VF b, float* HWY_RESTRICT p) {
    hn::StoreU(a, d, p);
    hn::StoreU(b, d, p + hn::Lanes(d));
  }
  static constexpr float kOne = 1.0f;
  static constexpr bool kCoarseExp = false;
};

// BF16 elements: widened exactly; results (probabilities, never NaN for
// specified inputs) rounded to nearest, ties up (kTiesUp): they are
// approximations (coarse exp, rcp14), so a tie in them is not one in the
// exact value, and u + 0x8000 is one instruction where ties-to-even takes four.
constexpr bool kNan = false, kTiesUp = true;
struct B16 {
  using T = uint16_t;
  static HWY_INLINE VF Widen(DF d, hn::Vec<D16> h) { return WidenBf16(d, h); }
  static HWY_INLINE hn::Vec<D16> Round(DF d, VF v) { return DemoteBf16<kNan, kTiesUp>(d, v); }
  static HWY_INLINE VF Load(DF d, const uint16_t* HWY_RESTRICT p) {
    return Widen(d, hn::LoadU(D16(), p));
  }
  static HWY_INLINE VF LoadPart(DF d, const uint16_t* HWY_RESTRICT p, size_t n) {
#if SYNOPS_SOFTMAX_MASKED_16
    return Widen(d, hn::MaskedLoad(hn::FirstN(D16(), n), D16(), p));
#elif HWY_TARGET == HWY_AVX2
    // n < 8: n / 2 whole 32-bit words by VPMASKMOVD and an odd last element
    // blended in (a memcpy call per row tail made count-49 BF16 rows 2.8x
    // the time of FP32); one element (rows of 8k + 1) by a scalar load.
    if (n == 1) return Widen(d, hn::Vec<D16>{_mm_cvtsi32_si128(p[0])});
    const __m128i words = _mm_cmpgt_epi32(_mm_set1_epi32(static_cast<int>(n / 2)),
                                          _mm_setr_epi32(0, 1, 2, 3));
    __m128i v = _mm_maskload_epi32(reinterpret_cast<const int*>(p), words);
    if (n & 1) {
      const __m128i lane = _mm_cmpeq_epi16(_mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7),
                                           _mm_set1_epi16(static_cast<int16_t>(n - 1)));
      v = _mm_blendv_epi8(v, _mm_set1_epi16(static_cast<int16_t>(p[n - 1])), lane);
    }
    return Widen(d, hn::Vec<D16>{v});
#else
    HWY_ALIGN uint16_t buf[hn::MaxLanes(D16())] = {};
    std::memcpy(buf, p, n * sizeof(uint16_t));
    return Widen(d, hn::Load(D16(), buf));
#endif
  }
  static HWY_INLINE void Store(VF v, DF d, uint16_t* HWY_RESTRICT p) {
    hn::StoreU(Round(d, v), D16(), p);
  }
  static HWY_INLINE void StorePart(VF v, DF d, uint16_t* HWY_RESTRICT p, size_t n) {
#if SYNOPS_SOFTMAX_MASKED_16
    hn::BlendedStore(Round(d, v), hn::FirstN(D16(), n), D16(), p);
#elif HWY_TARGET == HWY_AVX2
    // As LoadPart: whole words by VPMASKMOVD, an odd last element alone.
    const __m128i r = Round(d, v).raw;
    if (n == 1) {
      p[0] = static_cast<uint16_t>(_mm_extract_epi16(r, 0));
      return;
    }
    const __m128i words = _mm_cmpgt_epi32(_mm_set1_epi32(static_cast<int>(n / 2)),
                                          _mm_setr_epi32(0, 1, 2, 3));
    _mm_maskstore_epi32(reinterpret_cast<int*>(p), words, r);
    if (n & 1) {
      HWY_ALIGN uint16_t buf[8];
      _mm_store_si128(reinterpret_cast<__m128i*>(buf), r);
      p[n - 1] = buf[n - 1];
    }
#else
    HWY_ALIGN uint16_t buf[hn::MaxLanes(D16())];
    hn::Store(Round(d, v), D16(), buf);
    std::memcpy(p, buf, n * sizeof(uint16_t));
#endif
  }
  // 2L BF16 values as 32-bit lanes: the even elements (low halves) and the
  // odd ones (high halves), one instruction each, no shuffles.
  using D16x2 = hn::Repartition<uint16_t, DF>;
  static HWY_INLINE void LoadPair(DF d, const uint16_t* HWY_RESTRICT p, VF& even, VF& odd) {
    const DU du;
    const auto u = hn::BitCast(du, hn::LoadU(D16x2(), p));
    even = hn::BitCast(d, hn::ShiftLeft<16>(u));
    odd = hn::BitCast(d, hn::And(u, hn::Set(du, 0xFFFF0000u)));
  }
  // Rounds both into the halves they came from.
  static HWY_INLINE void StorePair(DF d, VF even, VF odd, uint16_t* HWY_RESTRICT p) {
    const auto re = RoundBf16<kNan, kTiesUp>(d, even);
    const auto ro = RoundBf16Upper<kNan, kTiesUp>(d, odd);
#if HWY_TARGET == HWY_AVX2
    const auto both = hn::Vec<DU>{_mm256_blend_epi16(re.raw, ro.raw, 0xAA)};
#elif HWY_TARGET == HWY_SSE4
    const auto both = hn::Vec<DU>{_mm_blend_epi16(re.raw, ro.raw, 0xAA)};
#else
    const auto both = hn::OrAnd(re, ro, hn::Set(DU(), 0xFFFF0000u));
#endif
    hn::StoreU(hn::BitCast(D16x2(), both), D16x2(), p);
  }
  static constexpr uint16_t kOne = 0x3F80;
  static constexpr bool kCoarseExp = true;
};

HWY_INLINE VF NegInf(DF d) { return hn::Set(d, -HUGE_VALF); }

// ---- inner == 1, count 2 and 3: a vector of rows at a time. ----

// Count 2 on FP32 rows at `in` (L rows), results to `out` (may equal in).
// Rows (a, b) of 2L floats as vectors of a and b; StoreRows2 inverts it.
// On x86 both stay within 128-bit blocks (one shufps / unpck each), which
// permutes the rows inside the vector: fine, every lane is independent.
HWY_INLINE void LoadRows2(DF d, const float* HWY_RESTRICT in, VF& a, VF& b) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
  const VF lo = hn::LoadU(d, in), hi = hn::LoadU(d, in + hn::Lanes(d));
#if HWY_TARGET == HWY_AVX3
  a = VF{_mm512_shuffle_ps(lo.raw, hi.raw, 0x88)};
  b = VF{_mm512_shuffle_ps(lo.raw, hi.raw, 0xDD)};
#elif HWY_TARGET == HWY_AVX2
  a = VF{_mm256_shuffle_ps(lo.raw, hi.raw, 0x88)};
  b = VF{_mm256_shuffle_ps(lo.raw, hi.raw, 0xDD)};
#else
  a = VF{_mm_shuffle_ps(lo.raw, hi.raw, 0x88)};
  b = VF{_mm_shuffle_ps(lo.raw, hi.raw, 0xDD)};
#endif
#else
  hn::LoadInterleaved2(d, in, a, b);
#endif
}

HWY_INLINE void StoreRows2(DF d, VF a, VF b, float* HWY_RESTRICT out) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
  // Per 128-bit block, unpacklo gives back the block of the first vector.
  hn::StoreU(hn::InterleaveLower(d, a, b), d, out);
  hn::StoreU(hn::InterleaveUpper(d, a, b), d, out + hn::Lanes(d));
#else
  hn::StoreInterleaved2(a, b, d, out);
#endif
}

// Softmax of the rows (a[i], b[i]), in place.
template <class Tr>
HWY_INLINE void Softmax2(DF d, VF& a, VF& b) {
  const auto a_max = hn::Ge(a, b);
  // The larger entry's exp is exactly 1; the other's argument is the same
  // FP32 difference min - max that the reference exponentiates.
  const VF e = Exp<Tr>(d, hn::Sub(hn::Min(a, b), hn::Max(a, b)));
  const VF r = ReciprocalFor<Tr>(d, hn::Add(hn::Set(d, 1.0f), e));
  const VF er = hn::Mul(e, r);
  b = hn::IfThenElse(a_max, er, r);
  a = hn::IfThenElse(a_max, r, er);
}

// Softmax of the rows (a[i], b[i], c[i]), in place.
template <class Tr>
HWY_INLINE void Softmax3(DF d, VF& a, VF& b, VF& c) {
  const VF m = hn::Max(hn::Max(a, b), c);
  const VF ea = Exp<Tr>(d, hn::Sub(a, m));
  const VF eb = Exp<Tr>(d, hn::Sub(b, m));
  const VF ec = Exp<Tr>(d, hn::Sub(c, m));
  const VF r = ReciprocalFor<Tr>(d, hn::Add(hn::Add(ea, eb), ec));
  a = hn::Mul(ea, r);
  b = hn::Mul(eb, r);
  c = hn::Mul(ec, r);
}

template <class Tr>
HWY_INLINE void Block2(DF d, const float* in, float* out) {
  VF a, b;
  LoadRows2(d, in, a, b);
  Softmax2<Tr>(d, a, b);
  StoreRows2(d, a, b, out);
}

// BF16 rows of 2: a row is one 32-bit word, so B16's pair load and store
// (a shift and a mask; no shuffles) de-interleave and re-interleave them.
template <class Tr>
HWY_INLINE void Block2(DF d, const uint16_t* in, uint16_t* out) {
  VF a, b;
  B16::LoadPair(d, in, a, b);
  Softmax2<Tr>(d, a, b);
  B16::StorePair(d, a, b, out);
}

template <class Tr>
HWY_INLINE void Block3(DF d, const float* in, float* out) {
  VF a, b, c;
  hn::LoadInterleaved3(d, in, a, b, c);
  Softmax3<Tr>(d, a, b, c);
  hn::StoreInterleaved3(a, b, c, d, out);
}

#if HWY_TARGET == HWY_AVX3
// BF16 rows of 3, 16 rows (48 values, 96 bytes) at a time: one vpermt2w per
// column takes element 3j + k into the upper half of lane j (BF16 -> FP32
// exactly, a zero from the second table in the lower half), and two put the
// rounded results back in row order.
constexpr int kZeroWord = 48;  // hi's word 16: zero (masked load)
struct Interleave3Tables {
  alignas(64) uint16_t column[3][32];  // lanes' (low, high) word sources
  alignas(64) uint16_t out[2][32];     // output word p from (ab, c)
};
constexpr Interleave3Tables MakeInterleave3Tables() {
  Interleave3Tables t{};
  for (int k = 0; k < 3; ++k) {
    for (int j = 0; j < 16; ++j) {
      t.column[k][2 * j] = kZeroWord;
      t.column[k][2 * j + 1] = static_cast<uint16_t>(3 * j + k);
    }
  }
  // ab: word 2j = a_j, 2j + 1 = b_j; c (table words 32..63): c_j in word 2j + 1.
  for (int p = 0; p < 48; ++p) {
    const int j = p / 3, k = p % 3;
    const int word = k == 0 ? 2 * j : k == 1 ? 2 * j + 1 : 32 + 2 * j + 1;
    t.out[p / 32][p % 32] = static_cast<uint16_t>(word);
  }
  return t;
}
constexpr Interleave3Tables kInterleave3 = MakeInterleave3Tables();

template <class Tr>
HWY_INLINE void Block3(DF d, const uint16_t* in, uint16_t* out) {
  const DU du;
  const __m512i lo = _mm512_loadu_si512(in);
  const __m512i hi = _mm512_maskz_loadu_epi16(0xFFFF, in + 32);
  const auto column = [&](int k) HWY_ATTR {
    return VF{_mm512_castsi512_ps(
        _mm512_permutex2var_epi16(lo, _mm512_load_si512(kInterleave3.column[k]), hi))};
  };
  VF a = column(0), b = column(1), c = column(2);
  Softmax3<Tr>(d, a, b, c);
  const auto ua = RoundBf16Upper<kNan, kTiesUp>(d, a);
  const auto ub = RoundBf16Upper<kNan, kTiesUp>(d, b);
  const __m512i uc = RoundBf16Upper<kNan, kTiesUp>(d, c).raw;
  const __m512i ab = hn::OrAnd(hn::ShiftRight<16>(ua), ub, hn::Set(du, 0xFFFF0000u)).raw;
  const __m512i out0 = _mm512_load_si512(kInterleave3.out[0]);
  const __m512i out1 = _mm512_load_si512(kInterleave3.out[1]);
  _mm512_storeu_si512(out, _mm512_permutex2var_epi16(ab, out0, uc));
  _mm512_mask_storeu_epi16(out + 32, 0xFFFF, _mm512_permutex2var_epi16(ab, out1, uc));
}
#endif  // HWY_TARGET == HWY_AVX3

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
// BF16 rows of 3, 4 rows (12 values, 24 bytes) per 128-bit block: `lo` holds
// the block's values 0..7, `hi` its values 4..11 (two overlapping loads), and
// two pshufb per column move value 3j + k into the upper half of lane j
// (BF16 -> FP32 exactly, zeros below). The results go back the same way:
// (a, b) interleaved by one word blend, then two pshufb per output register
// and overlapping stores. No FP32 buffer, no 3-way float de-interleave.
struct Rows3Tables {
  alignas(16) uint8_t col_lo[3][16];  // column k's bytes taken from lo
  alignas(16) uint8_t col_hi[3][16];  // ... and from hi
  alignas(16) uint8_t out_ab[2][16];  // output register o (lo, hi): from ab
  alignas(16) uint8_t out_c[2][16];   // ... and from c
};
constexpr Rows3Tables MakeRows3Tables() {
  Rows3Tables t{};
  for (int k = 0; k < 3; ++k) {
    for (int b = 0; b < 16; ++b) {
      t.col_lo[k][b] = 0x80;
      t.col_hi[k][b] = 0x80;
    }
    for (int j = 0; j < 4; ++j) {
      const int v = 3 * j + k;  // the block's value in lane j's upper half
      for (int h = 0; h < 2; ++h) {
        if (v < 8) {
          t.col_lo[k][4 * j + 2 + h] = static_cast<uint8_t>(2 * v + h);
        } else {
          t.col_hi[k][4 * j + 2 + h] = static_cast<uint8_t>(2 * (v - 4) + h);
        }
      }
    }
  }
  // ab: lane j = a_j (low word), b_j (high word); c: c_j in lane j's high word.
  for (int o = 0; o < 2; ++o) {
    for (int w = 0; w < 8; ++w) {
      const int v = 4 * o + w, j = v / 3, k = v % 3;
      for (int h = 0; h < 2; ++h) {
        const int b = 2 * w + h;
        t.out_ab[o][b] = k < 2 ? static_cast<uint8_t>(4 * j + 2 * k + h) : 0x80;
        t.out_c[o][b] = k == 2 ? static_cast<uint8_t>(4 * j + 2 + h) : 0x80;
      }
    }
  }
  return t;
}
constexpr Rows3Tables kRows3 = MakeRows3Tables();

#if HWY_TARGET == HWY_AVX2
using Raw3 = __m256i;
// Blocks 0 (values at p) and 1 (values at p + 12) in the two 128-bit halves.
HWY_INLINE Raw3 Load3(const uint16_t* p) {
  return _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 12)), 1);
}
HWY_INLINE void Store3(uint16_t* p, Raw3 v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(v));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p + 12), _mm256_extracti128_si256(v, 1));
}
HWY_INLINE Raw3 Table3(const uint8_t* t) {
  return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(t)));
}
HWY_INLINE Raw3 Shuffle3(Raw3 v, Raw3 t) { return _mm256_shuffle_epi8(v, t); }
HWY_INLINE Raw3 Or3(Raw3 a, Raw3 b) { return _mm256_or_si256(a, b); }
HWY_INLINE Raw3 BlendWords3(Raw3 a, Raw3 b) { return _mm256_blend_epi16(a, b, 0xAA); }
#else
using Raw3 = __m128i;
HWY_INLINE Raw3 Load3(const uint16_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
HWY_INLINE void Store3(uint16_t* p, Raw3 v) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}
HWY_INLINE Raw3 Table3(const uint8_t* t) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(t));
}
HWY_INLINE Raw3 Shuffle3(Raw3 v, Raw3 t) { return _mm_shuffle_epi8(v, t); }
HWY_INLINE Raw3 Or3(Raw3 a, Raw3 b) { return _mm_or_si128(a, b); }
HWY_INLINE Raw3 BlendWords3(Raw3 a, Raw3 b) { return _mm_blend_epi16(a, b, 0xAA); }
#endif

template <class Tr>
HWY_INLINE void Block3(DF d, const uint16_t* in, uint16_t* out) {
  const Raw3 lo = Load3(in), hi = Load3(in + 4);
  const auto column = [&](int k) HWY_ATTR {
    return VF{hn::BitCast(d, hn::Vec<DU>{Or3(Shuffle3(lo, Table3(kRows3.col_lo[k])),
                                             Shuffle3(hi, Table3(kRows3.col_hi[k])))})};
  };
  VF a = column(0), b = column(1), c = column(2);
  Softmax3<Tr>(d, a, b, c);
  const Raw3 ab = BlendWords3(hn::ShiftRight<16>(RoundBf16Upper<kNan, kTiesUp>(d, a)).raw,
                              RoundBf16Upper<kNan, kTiesUp>(d, b).raw);
  const Raw3 uc = RoundBf16Upper<kNan, kTiesUp>(d, c).raw;
  const auto pack = [&](int o) HWY_ATTR {
    return Or3(Shuffle3(ab, Table3(kRows3.out_ab[o])), Shuffle3(uc, Table3(kRows3.out_c[o])));
  };
  // In place, both loads above precede these stores; the two overlap on
  // values 4..7 of each block, which both hold.
  Store3(out + 4, pack(1));
  Store3(out, pack(0));
}
#endif  // HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4

// Blocks of L rows of kCount elements, run in place on the arrays (FP32;
// BF16 rows of 2; BF16 rows of 3 on AVX-512); other BF16 blocks are widened
// into a buffer first. The last (rows % L) rows are copied into a
// zero-padded buffer.
template <size_t kCount, class Tr>
HWY_INLINE void RunBlock(DF d, const typename Tr::T* src, typename Tr::T* dst) {
  const size_t lanes = hn::Lanes(d);
  if constexpr (std::is_same_v<Tr, F32> || kCount == 2 ||
                (kCount == 3 && (HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2 ||
                                 HWY_TARGET == HWY_SSE4))) {
    if constexpr (kCount == 2) Block2<Tr>(d, src, dst);
    if constexpr (kCount == 3) Block3<Tr>(d, src, dst);
  } else {
    HWY_ALIGN float buf[kCount * hn::MaxLanes(d)];
    for (size_t k = 0; k < kCount; ++k) hn::Store(Tr::Load(d, src + k * lanes), d, buf + k * lanes);
    if constexpr (kCount == 2) Block2<Tr>(d, buf, buf);
    if constexpr (kCount == 3) Block3<Tr>(d, buf, buf);
    for (size_t k = 0; k < kCount; ++k) Tr::Store(hn::Load(d, buf + k * lanes), d, dst + k * lanes);
  }
}

template <size_t kCount, class Tr>
HWY_NOINLINE void FewColumns(const typename Tr::T* src, size_t rows, typename Tr::T* dst) {
  using T = typename Tr::T;
  const DF d;
  const size_t lanes = hn::Lanes(d);
  size_t r = 0;
  for (; r + lanes <= rows; r += lanes) {
    RunBlock<kCount, Tr>(d, src + r * kCount, dst + r * kCount);
  }
  if (r < rows) {
    HWY_ALIGN T buf[kCount * hn::MaxLanes(d)] = {};
    const size_t n = (rows - r) * kCount;
    std::memcpy(buf, src + r * kCount, n * sizeof(T));
    RunBlock<kCount, Tr>(d, buf, buf);
    std::memcpy(dst + r * kCount, buf, n * sizeof(T));
  }
}

// ---- inner == 1, rows of at most 4 vectors: in registers. ----
// (AVX2 rows of 5 to 8 vectors this way were slower than LongRow: Zen 5,
// softmax_bench 392x49 FP32 1.19x the time two rows at a time, 2.1x one.)

// kRows consecutive rows of n elements, each kVecs vectors, the last one
// holding n - (kVecs-1)*L (1..L) elements. Two rows at a time: each row is
// one chain of dependent steps (max, its horizontal reduction, exp, sum,
// its reduction, reciprocal), which the core overlapped for barely two rows.
template <size_t kVecs, size_t kRows, class Tr>
HWY_INLINE void RowsInRegisters(DF d, const typename Tr::T* HWY_RESTRICT src, size_t n,
                                typename Tr::T* HWY_RESTRICT dst) {
  const size_t lanes = hn::Lanes(d);
  const size_t last = n - (kVecs - 1) * lanes;
  const auto mask = hn::FirstN(d, last);
  VF v[kRows][kVecs], m[kRows], sum[kRows];
#pragma GCC unroll 2
  for (size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 4
    for (size_t j = 0; j + 1 < kVecs; ++j) v[i][j] = Tr::Load(d, src + i * n + j * lanes);
    v[i][kVecs - 1] = Tr::LoadPart(d, src + i * n + (kVecs - 1) * lanes, last);
  }
#pragma GCC unroll 2
  for (size_t i = 0; i < kRows; ++i) {
    // Pairwise (tree) max and sum: shorter dependency chains per row.
    m[i] = hn::IfThenElse(mask, v[i][kVecs - 1], NegInf(d));
    if constexpr (kVecs == 2) m[i] = hn::Max(m[i], v[i][0]);
    if constexpr (kVecs == 3) m[i] = hn::Max(m[i], hn::Max(v[i][0], v[i][1]));
    if constexpr (kVecs == 4) m[i] = hn::Max(hn::Max(m[i], v[i][2]), hn::Max(v[i][0], v[i][1]));
  }
#pragma GCC unroll 2
  for (size_t i = 0; i < kRows; ++i) m[i] = hn::MaxOfLanes(d, m[i]);
#pragma GCC unroll 2
  for (size_t i = 0; i < kRows; ++i) {
    // Padding lanes exponentiate 0 (never the slow path), then count as 0.
    v[i][kVecs - 1] = hn::IfThenElse(mask, v[i][kVecs - 1], m[i]);
#pragma GCC unroll 4
    for (size_t j = 0; j < kVecs; ++j) v[i][j] = Exp<Tr>(d, hn::Sub(v[i][j], m[i]));
    v[i][kVecs - 1] = hn::IfThenElseZero(mask, v[i][kVecs - 1]);
    sum[i] = v[i][0];
    if constexpr (kVecs == 2) sum[i] = hn::Add(v[i][0], v[i][1]);
    if constexpr (kVecs == 3) sum[i] = hn::Add(hn::Add(v[i][0], v[i][1]), v[i][2]);
    if constexpr (kVecs == 4) {
      sum[i] = hn::Add(hn::Add(v[i][0], v[i][1]), hn::Add(v[i][2], v[i][3]));
    }
  }
#pragma GCC unroll 2
  for (size_t i = 0; i < kRows; ++i) sum[i] = Reciprocal(d, hn::SumOfLanes(d, sum[i]));
#pragma GCC unroll 2
  for (size_t i = 0; i < kRows; ++i) {
#pragma GCC unroll 4
    for (size_t j = 0; j + 1 < kVecs; ++j) {
      Tr::Store(hn::Mul(v[i][j], sum[i]), d, dst + i * n + j * lanes);
    }
    Tr::StorePart(hn::Mul(v[i][kVecs - 1], sum[i]), d, dst + i * n + (kVecs - 1) * lanes, last);
  }
}

template <size_t kVecs, class Tr>
HWY_NOINLINE void ShortRows(const typename Tr::T* src, size_t rows, size_t count,
                            typename Tr::T* dst) {
  const DF d;
  size_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    RowsInRegisters<kVecs, 2, Tr>(d, src + r * count, count, dst + r * count);
  }
  if (r < rows) RowsInRegisters<kVecs, 1, Tr>(d, src + r * count, count, dst + r * count);
}

#if HWY_TARGET == HWY_AVX3
// ---- AVX-512, inner == 1, 16 < count <= 64 with count % 16 < 4:
// 16 rows at a time. ----
// Per row its kFull = count / 16 full vectors; the horizontal max and sum of
// the 16 rows are done together by Reduce16 (lane r = row r: 45 instructions
// for 16 rows instead of ~8 per row), and the t = count % 16 trailing
// elements of the 16 rows are gathered into t vectors (lane r = row r), so
// no lanes of a partial vector are exponentiated in vain (count 49: 49 exps
// per 16 rows instead of 64). Gather and scatter cost ~6 and ~15 cycles
// here, so a larger t keeps RowInRegisters' masked last vector.

// 16 rows of count = 16 kFull + t (t < 4) FP32 elements at s; the exps go
// to e (may equal s), the results to o (FP32: o == e; BF16: rounded).
// tail_idx: TailIndex(count).
template <size_t kFull, class Tr>
HWY_INLINE void Block16(const float* s, size_t count, __m512i tail_idx, float* e,
                        typename Tr::T* o) {
  const DF d;
  const size_t t = count - 16 * kFull;
  const auto max = [](__m512 a, __m512 b) HWY_ATTR { return _mm512_max_ps(a, b); };
  const auto add = [](__m512 a, __m512 b) HWY_ATTR { return _mm512_add_ps(a, b); };
  HWY_ALIGN float lane[16];
  __m512 v[16];
  hmath::Unroll<16>([&](size_t r) HWY_ATTR {
    v[r] = _mm512_loadu_ps(s + r * count);
    hmath::Unroll<kFull - 1>([&](size_t k) HWY_ATTR {
      v[r] = _mm512_max_ps(v[r], _mm512_loadu_ps(s + r * count + 16 * (k + 1)));
    });
  });
  __m512 m = hmath::Reduce16(v, max);
  __m512 tail[3];
  for (size_t j = 0; j < t; ++j) {
    tail[j] = _mm512_i32gather_ps(tail_idx, s + j, 4);
    m = _mm512_max_ps(m, tail[j]);
  }
  // In place, every element is read above before its exp is stored.
  _mm512_store_ps(lane, m);
  hmath::Unroll<16>([&](size_t r) HWY_ATTR {
    const VF mr = hn::Set(d, lane[r]);
    hmath::Unroll<kFull>([&](size_t k) HWY_ATTR {
      const VF x = Exp<Tr>(d, hn::Sub(VF{_mm512_loadu_ps(s + r * count + 16 * k)}, mr));
      _mm512_storeu_ps(e + r * count + 16 * k, x.raw);
      v[r] = k == 0 ? x.raw : _mm512_add_ps(v[r], x.raw);
    });
  });
  __m512 sum = hmath::Reduce16(v, add);
  for (size_t j = 0; j < t; ++j) {
    tail[j] = Exp<Tr>(d, hn::Sub(VF{tail[j]}, VF{m})).raw;
    sum = _mm512_add_ps(sum, tail[j]);
  }
  const __m512 rcp = Reciprocal(d, VF{sum}).raw;
  _mm512_store_ps(lane, rcp);
  hmath::Unroll<16>([&](size_t r) HWY_ATTR {
    const __m512 rr = _mm512_set1_ps(lane[r]);
    if constexpr (std::is_same_v<Tr, F32>) {
      hmath::Unroll<kFull>([&](size_t k) HWY_ATTR {
        const size_t i = r * count + 16 * k;
        Tr::Store(VF{_mm512_mul_ps(_mm512_loadu_ps(e + i), rr)}, d, o + i);
      });
    } else {  // BF16: pairs of vectors packed by one permute
      hmath::Unroll<kFull / 2>([&](size_t k) HWY_ATTR {
        const size_t i = r * count + 32 * k;
        StoreBf16x2<kNan, kTiesUp>(d, VF{_mm512_mul_ps(_mm512_loadu_ps(e + i), rr)},
                                    VF{_mm512_mul_ps(_mm512_loadu_ps(e + i + 16), rr)}, o + i);
      });
      if constexpr (kFull % 2 != 0) {
        const size_t i = r * count + 16 * (kFull - 1);
        Tr::Store(VF{_mm512_mul_ps(_mm512_loadu_ps(e + i), rr)}, d, o + i);
      }
    }
  });
  for (size_t j = 0; j < t; ++j) {
    const VF y{_mm512_mul_ps(tail[j], rcp)};
    if constexpr (std::is_same_v<Tr, F32>) {
      _mm512_i32scatter_ps(o + j, tail_idx, y.raw, 4);
    } else {
      HWY_ALIGN uint32_t bits[16];
      hn::Store(RoundBf16<kNan, kTiesUp>(d, y), DU(), bits);
      for (size_t r = 0; r < 16; ++r) {
        o[r * count + 16 * kFull + j] = static_cast<uint16_t>(bits[r]);
      }
    }
  }
}

// Row r's first trailing element (16 kFull + count r), relative to the block.
HWY_INLINE __m512i TailIndex(size_t count) {
  return _mm512_add_epi32(
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<int>(count))),
      _mm512_set1_epi32(static_cast<int>(count / 16 * 16)));
}

// The first rows - rows % 16 rows. BF16 rows are widened into a buffer that
// then holds their exps; the results are rounded straight to dst (the exps
// dominate: 49 per row of 49 instead of 64 for RowInRegisters' padded
// vectors).
template <size_t kFull, class Tr>
HWY_NOINLINE void Rows16(const typename Tr::T* src, size_t rows, size_t count,
                         typename Tr::T* dst) {
  const __m512i tail_idx = TailIndex(count);
  for (size_t r0 = 0; r0 + 16 <= rows; r0 += 16) {
    if constexpr (std::is_same_v<Tr, F32>) {
      Block16<kFull, Tr>(src + r0 * count, count, tail_idx, dst + r0 * count, dst + r0 * count);
    } else {
      const DF d;
      HWY_ALIGN float buf[16 * (16 * kFull + 3)];
      // 16 count elements: a multiple of the 16 lanes.
      const typename Tr::T* s = src + r0 * count;
      for (size_t i = 0; i < 16 * count; i += 16) hn::Store(Tr::Load(d, s + i), d, buf + i);
      Block16<kFull, Tr>(buf, count, tail_idx, buf, dst + r0 * count);
    }
  }
}

// Rows16 for the counts it takes; returns the rows done. FP32 rows of 48
// and more go two at a time through RowsInRegisters instead (Zen 5 core,
// synbench outer4000: count 48 38 against 49-50 us, 49 46 against 50-51,
// 64 46 against 65-66; count 17 and 33 Rows16 17 against 31 and 32-33
// against 39; BF16 Rows16 as fast or faster for every count). Not on AVX2:
// the same blocks of 8 rows (Reduce8 for the max and the sum) took, Zen 5,
// synbench outer4000 FP32, one round: count 25 and 41 0.86x and 0.85x the
// time of the paths they replaced, 17 and 33 1.04-1.06x, 49, 57 and 64
// 1.31-2.1x (LongRow); softmax_bench 392x49, best of 5 alternating rounds,
// 1.29-1.33x in FP32 and BF16.
template <class Tr>
HWY_INLINE size_t SixteenRows(const typename Tr::T* src, size_t rows, size_t count,
                              typename Tr::T* dst) {
  if (count <= 16 || count > 64 || count % 16 >= 4 || rows < 16) return 0;
  if (std::is_same_v<Tr, F32> && count >= 48) return 0;
  switch (count / 16) {
    case 1:
      Rows16<1, Tr>(src, rows, count, dst);
      break;
    case 2:
      Rows16<2, Tr>(src, rows, count, dst);
      break;
    case 3:
      Rows16<3, Tr>(src, rows, count, dst);
      break;
    default:
      Rows16<4, Tr>(src, rows, count, dst);
      break;
  }
  return rows - rows % 16;
}
#endif  // HWY_TARGET == HWY_AVX3

// ---- inner == 1, long rows: three passes; exps go to `ebuf` (dst for FP32). ----

template <class Tr>
HWY_NOINLINE void LongRow(const typename Tr::T* src, size_t n, float* ebuf,
                          typename Tr::T* dst) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  // BF16: the max pass keeps the widened row in ebuf (in the exp pass's
  // layout), so each element is widened once; FP32 reads src twice.
  constexpr bool kKeep = !std::is_same_v<Tr, F32>;
  VF m0 = NegInf(d), m1 = m0, m2 = m0, m3 = m0;
  size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    VF a, b, c, e;
    Tr::LoadPair(d, src + i, a, b);
    Tr::LoadPair(d, src + i + 2 * lanes, c, e);
    if constexpr (kKeep) {
      hn::StoreU(a, d, ebuf + i);
      hn::StoreU(b, d, ebuf + i + lanes);
      hn::StoreU(c, d, ebuf + i + 2 * lanes);
      hn::StoreU(e, d, ebuf + i + 3 * lanes);
    }
    m0 = hn::Max(m0, a);
    m1 = hn::Max(m1, b);
    m2 = hn::Max(m2, c);
    m3 = hn::Max(m3, e);
  }
  if (i + 2 * lanes <= n) {
    VF a, b;
    Tr::LoadPair(d, src + i, a, b);
    if constexpr (kKeep) {
      hn::StoreU(a, d, ebuf + i);
      hn::StoreU(b, d, ebuf + i + lanes);
    }
    m0 = hn::Max(m0, a);
    m1 = hn::Max(m1, b);
    i += 2 * lanes;
  }
  if (i + lanes <= n) {
    const VF a = Tr::Load(d, src + i);
    if constexpr (kKeep) hn::StoreU(a, d, ebuf + i);
    m2 = hn::Max(m2, a);
    i += lanes;
  }
  // The partial last vector stays in registers through all three passes (a
  // masked store does not forward to a later load: count 49 on AVX2 spent a
  // third of the row's time on it).
  const size_t tail = n - i;
  VF xtail = m0;
  if (tail != 0) {
    xtail = Tr::LoadPart(d, src + i, tail);
    m3 = hn::Max(m3, hn::IfThenElse(hn::FirstN(d, tail), xtail, m0));
  }
  const VF m = hn::MaxOfLanes(d, hn::Max(hn::Max(m0, m1), hn::Max(m2, m3)));

  VF s0 = hn::Zero(d), s1 = hn::Zero(d);
  // Blocks of 2L elements keep LoadPair's order in ebuf; the rest is in
  // element order.
  for (i = 0; i + 2 * lanes <= n; i += 2 * lanes) {
    // The next row (a hint; never faults): overlaps its misses with this
    // row's exps.
    hwy::Prefetch(src + n + i);
    hwy::Prefetch(src + n + i + lanes);
    VF a, b;
    if constexpr (kKeep) {
      a = hn::LoadU(d, ebuf + i);
      b = hn::LoadU(d, ebuf + i + lanes);
    } else {
      Tr::LoadPair(d, src + i, a, b);
    }
    const VF e0 = Exp<Tr>(d, hn::Sub(a, m));
    const VF e1 = Exp<Tr>(d, hn::Sub(b, m));
    hn::StoreU(e0, d, ebuf + i);
    hn::StoreU(e1, d, ebuf + i + lanes);
    s0 = hn::Add(s0, e0);
    s1 = hn::Add(s1, e1);
  }
  for (; i + lanes <= n; i += lanes) {
    const VF x = kKeep ? hn::LoadU(d, ebuf + i) : Tr::Load(d, src + i);
    const VF e0 = Exp<Tr>(d, hn::Sub(x, m));
    hn::StoreU(e0, d, ebuf + i);
    s0 = hn::Add(s0, e0);
  }
  VF etail = xtail;
  if (tail != 0) {
    const auto mask = hn::FirstN(d, tail);
    etail = hn::IfThenElseZero(mask, Exp<Tr>(d, hn::Sub(hn::IfThenElse(mask, xtail, m), m)));
    s1 = hn::Add(s1, etail);
  }
  const VF r = Reciprocal(d, hn::SumOfLanes(d, hn::Add(s0, s1)));

  for (i = 0; i + 2 * lanes <= n; i += 2 * lanes) {
    __builtin_prefetch(dst + n + i, 1);  // the next row's lines, for writing
    __builtin_prefetch(dst + n + i + lanes, 1);
    Tr::StorePair(d, hn::Mul(hn::LoadU(d, ebuf + i), r),
                  hn::Mul(hn::LoadU(d, ebuf + i + lanes), r), dst + i);
  }
  for (; i + lanes <= n; i += lanes) Tr::Store(hn::Mul(hn::LoadU(d, ebuf + i), r), d, dst + i);
  if (tail != 0) Tr::StorePart(hn::Mul(etail, r), d, dst + i, tail);
}

// ---- inner > 1: columns of a count x inner slab, kVecs vectors at a time. ----

// The kLines cache lines from `ahead` bytes past `row` (as integers: they
// may lie past the source, and a prefetch does not fault): the prefetchers
// do not run ahead of a few rows kilobytes apart.
template <size_t kLines = 1, class T>
HWY_INLINE void PrefetchAhead(const T* row, size_t ahead) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(row) + ahead;
  for (size_t i = 0; i < kLines; ++i) hwy::Prefetch(reinterpret_cast<const uint8_t*>(at + 64 * i));
}

// `n` valid lanes in the last vector (n == L for full blocks). Every loop
// over the kVecs vectors is unrolled (`#pragma GCC unroll`): GCC 12 kept
// m[] and s[] on the stack otherwise (Zen 5, softmax_bench 64x8x3136:
// BF16 AVX2 454 -> 357 us, FP32 AVX2 455 -> 426). FP32 keeps
// the exps in dst; BF16 in `ebuf` (count * kVecs vectors of FP32, in L1 or
// L2 for the counts of real layers: one exp per element, as FP32).
template <size_t kVecs, bool kPart, class Tr>
HWY_INLINE void Columns(DF d, const typename Tr::T* HWY_RESTRICT src, size_t count, size_t inner,
                        size_t n, float* HWY_RESTRICT ebuf, typename Tr::T* HWY_RESTRICT dst) {
  const size_t lanes = hn::Lanes(d);
  auto load = [&](const typename Tr::T* p) HWY_ATTR {
    return kPart ? Tr::LoadPart(d, p, n) : Tr::Load(d, p);
  };
  VF m[kVecs], s[kVecs];
  if constexpr (!std::is_same_v<Tr, F32> && kVecs % 2 == 0 && !kPart) {
    // BF16 pairs of vectors: the max pass widens each pair once (LoadPair: a
    // shift and a mask, lanes in even/odd order) into ebuf, the exp pass
    // reads FP32 from there, and StorePair rounds both back into place.
    for (size_t c = 0; c < count; ++c) {
      // The next block's 2 lines of this row. 64x8x3136: 388-399 -> 353-363
      // us on Sapphire Rapids (2 blocks ahead 363-374, 4 382-384).
      PrefetchAhead<2>(src + c * inner, kVecs * lanes * sizeof(typename Tr::T));
#pragma GCC unroll 8
      for (size_t k = 0; k < kVecs; k += 2) {
        VF a, b;
        Tr::LoadPair(d, src + c * inner + k * lanes, a, b);
        hn::Store(a, d, ebuf + (c * kVecs + k) * lanes);
        hn::Store(b, d, ebuf + (c * kVecs + k + 1) * lanes);
        m[k] = c == 0 ? a : hn::Max(m[k], a);
        m[k + 1] = c == 0 ? b : hn::Max(m[k + 1], b);
      }
    }
#pragma GCC unroll 8
    for (size_t k = 0; k < kVecs; ++k) s[k] = hn::Zero(d);
    for (size_t c = 0; c < count; ++c) {
#pragma GCC unroll 8
      for (size_t k = 0; k < kVecs; ++k) {
        float* e = ebuf + (c * kVecs + k) * lanes;
        const VF x = Exp<Tr>(d, hn::Sub(hn::Load(d, e), m[k]));
        s[k] = hn::Add(s[k], x);
        hn::Store(x, d, e);
      }
    }
#pragma GCC unroll 8
    for (size_t k = 0; k < kVecs; ++k) s[k] = ReciprocalFor<Tr>(d, s[k]);
    for (size_t c = 0; c < count; ++c) {
#pragma GCC unroll 8
      for (size_t k = 0; k < kVecs; k += 2) {
        const VF e0 = hn::Mul(hn::Load(d, ebuf + (c * kVecs + k) * lanes), s[k]);
        const VF e1 = hn::Mul(hn::Load(d, ebuf + (c * kVecs + k + 1) * lanes), s[k + 1]);
        Tr::StorePair(d, e0, e1, dst + c * inner + k * lanes);
      }
    }
    return;
  }
  // The line two blocks ahead in each row (FP32: a block is a line, or
  // less; BF16 single vectors: half a line). Emerald Rapids, softmax_bench
  // 64x8x3136 FP32, best of 5 rounds, us: AVX-512 636 -> 578 (one block
  // ahead 579, four 595), AVX2 770 -> 719 (BM_Copy 550-562); 50x10x100
  // unchanged.
  const size_t ahead = kPart ? 0 : 2 * kVecs * lanes * sizeof(typename Tr::T);
  if constexpr (!kPart) PrefetchAhead(src, ahead);
#pragma GCC unroll 8
  for (size_t k = 0; k < kVecs; ++k) m[k] = load(src + k * lanes);
  for (size_t c = 1; c < count; ++c) {
    if constexpr (!kPart) PrefetchAhead(src + c * inner, ahead);
#pragma GCC unroll 8
    for (size_t k = 0; k < kVecs; ++k) m[k] = hn::Max(m[k], load(src + c * inner + k * lanes));
  }
#pragma GCC unroll 8
  for (size_t k = 0; k < kVecs; ++k) s[k] = hn::Zero(d);
  for (size_t c = 0; c < count; ++c) {
#pragma GCC unroll 8
    for (size_t k = 0; k < kVecs; ++k) {
      const VF e = Exp<Tr>(d, hn::Sub(load(src + c * inner + k * lanes), m[k]));
      s[k] = hn::Add(s[k], e);
      if constexpr (std::is_same_v<Tr, F32>) {
        // Exps go to dst (in place: after their own element was read).
        if (kPart) {
          F32::StorePart(e, d, dst + c * inner + k * lanes, n);
        } else {
          F32::Store(e, d, dst + c * inner + k * lanes);
        }
      } else {
        hn::Store(e, d, ebuf + (c * kVecs + k) * lanes);
      }
    }
  }
#pragma GCC unroll 8
  for (size_t k = 0; k < kVecs; ++k) s[k] = ReciprocalFor<Tr>(d, s[k]);
  for (size_t c = 0; c < count; ++c) {
#pragma GCC unroll 8
    for (size_t k = 0; k < kVecs; ++k) {
      VF e;
      if constexpr (std::is_same_v<Tr, F32>) {
        e = kPart ? F32::LoadPart(d, dst + c * inner + k * lanes, n)
                  : F32::Load(d, dst + c * inner + k * lanes);
      } else {
        e = hn::Load(d, ebuf + (c * kVecs + k) * lanes);
      }
      e = hn::Mul(e, s[k]);
      if (kPart) {
        Tr::StorePart(e, d, dst + c * inner + k * lanes, n);
      } else {
        Tr::Store(e, d, dst + c * inner + k * lanes);
      }
    }
  }
}

#if HWY_TARGET <= HWY_AVX3
// ---- inner > 1, few rows (AVX-512): each column block read once, into registers ----
// The block's kC x kV vectors (kC = count) are loaded once, and their max,
// exps, sum and scaled exps stay in registers, where Columns reads every
// element three times and stores the exps between its passes (to dst, or
// to ebuf for BF16). The same operations in the same order as Columns: the
// same results. kV vectors of each row per block, 1 or 2 (LoadPair: BF16 as
// an even/odd pair of one line, FP32 two lines); `n` valid lanes in a kPart
// block (kV == 1).
template <size_t kC, size_t kV, bool kPart, class Tr>
HWY_INLINE void ColumnsInRegisters(DF d, const typename Tr::T* HWY_RESTRICT src, size_t inner,
                                   size_t n, size_t ahead, typename Tr::T* HWY_RESTRICT dst) {
  static_assert(kV == 1 || (kV == 2 && !kPart), "pairs are whole");
  // The lines of a row the block reads (a BF16 vector is half a line).
  constexpr size_t kLines =
      HWY_MAX(size_t{1}, kV * HWY_MAX_BYTES / sizeof(float) * sizeof(typename Tr::T) / 64);
  VF x[kC][kV];
  hmath::Unroll<kC>([&](size_t c) HWY_ATTR __attribute__((always_inline)) {
    const typename Tr::T* HWY_RESTRICT p = src + c * inner;
    if constexpr (!kPart) PrefetchAhead<kLines>(p, ahead);
    if constexpr (kV == 2) {
      Tr::LoadPair(d, p, x[c][0], x[c][1]);
    } else {
      x[c][0] = kPart ? Tr::LoadPart(d, p, n) : Tr::Load(d, p);
    }
  });
  VF m[kV], s[kV];
  hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
    m[k] = x[0][k];
    s[k] = hn::Zero(d);
  });
  hmath::Unroll<kC * kV>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
    if (i >= kV) m[i % kV] = hn::Max(m[i % kV], x[i / kV][i % kV]);
  });
  hmath::Unroll<kC * kV>([&](size_t i) HWY_ATTR __attribute__((always_inline)) {
    VF& e = x[i / kV][i % kV];
    e = Exp<Tr>(d, hn::Sub(e, m[i % kV]));
    s[i % kV] = hn::Add(s[i % kV], e);
  });
  hmath::Unroll<kV>([&](size_t k) HWY_ATTR __attribute__((always_inline)) {
    s[k] = ReciprocalFor<Tr>(d, s[k]);
  });
  hmath::Unroll<kC>([&](size_t c) HWY_ATTR __attribute__((always_inline)) {
    typename Tr::T* HWY_RESTRICT p = dst + c * inner;
    if constexpr (kV == 2) {
      Tr::StorePair(d, hn::Mul(x[c][0], s[0]), hn::Mul(x[c][1], s[1]), p);
    } else if constexpr (kPart) {
      Tr::StorePart(hn::Mul(x[c][0], s[0]), d, p, n);
    } else {
      Tr::Store(hn::Mul(x[c][0], s[0]), d, p);
    }
  });
}

// The most rows StridedInRegisters takes. Its blocks of 2 vectors a row
// with the max, the sum and the exp's constants are more than the 32
// vector registers from 11 rows (FP32) or 15 (BF16) on, but what GCC
// spills costs less than Columns' three passes up to 16 rows, not beyond
// (Zen 5, synbench us, inner 100 / 3136: FP32 16 rows 15.6 / 82 against
// 15.8 / 85 with one vector a row; 20 rows 22.3 / 118 against Columns'
// 21.3 / 111, 32 rows 47.5 / 228 against 35.9 / 195).
constexpr size_t kMaxRegisterRows = 16;

// Softmax over `kC` rows of every column of the slabs, a column block of
// kV vectors at a time (ColumnsInRegisters), single vectors after them.
template <size_t kC, class Tr>
HWY_NOINLINE void StridedInRegisters(const typename Tr::T* src, size_t outer, size_t inner,
                                     typename Tr::T* dst) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  // Two vectors of each row per block (FP32: two lines, BF16: one as an
  // even/odd pair). One vector a row took 0.99-1.07x the time at 9 to 16
  // rows in FP32 and 1.2-1.33x in BF16, whose single vectors are widened
  // by a shuffle.
  constexpr size_t kV = 2;
  // One line two blocks ahead in each row (as Columns).
  const size_t ahead = 2 * kV * lanes * sizeof(typename Tr::T);
  for (size_t o = 0; o < outer; ++o) {
    const typename Tr::T* s = src + o * kC * inner;
    typename Tr::T* t = dst + o * kC * inner;
    size_t i = 0;
    for (; i + kV * lanes <= inner; i += kV * lanes) {
      ColumnsInRegisters<kC, kV, false, Tr>(d, s + i, inner, lanes, ahead, t + i);
    }
    for (; i + lanes <= inner; i += lanes) {
      ColumnsInRegisters<kC, 1, false, Tr>(d, s + i, inner, lanes, ahead, t + i);
    }
    if (i < inner) ColumnsInRegisters<kC, 1, true, Tr>(d, s + i, inner, inner - i, 0, t + i);
  }
}

// StridedInRegisters<count> for 2 <= count <= kMaxRegisterRows; false
// for other counts.
template <class Tr, size_t... kIs>
HWY_INLINE bool StridedFewRows(const typename Tr::T* src, size_t outer, size_t count, size_t inner,
                               typename Tr::T* dst, std::index_sequence<kIs...>) {
  return ((count == kIs + 2 ? (StridedInRegisters<kIs + 2, Tr>(src, outer, inner, dst), true)
                            : false) ||
          ...);
}
#endif  // HWY_TARGET <= HWY_AVX3

template <class Tr>
HWY_NOINLINE void Strided(const typename Tr::T* src, size_t outer, size_t count, size_t inner,
                          typename Tr::T* dst) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
#if HWY_TARGET <= HWY_AVX3
  if (StridedFewRows<Tr>(src, outer, count, inner, dst,
                         std::make_index_sequence<kMaxRegisterRows - 1>())) {
    return;
  }
#endif
  hwy::AlignedFreeUniquePtr<float[]> ebuf_storage;
  if constexpr (!std::is_same_v<Tr, F32>) {
    ebuf_storage = hwy::AllocateAligned<float>(count * (inner >= 4 * lanes ? 4 : 1) * lanes);
  }
  float* ebuf = ebuf_storage.get();
  // FP32: blocks of one cache line per row (AVX-512 one vector, AVX2 two,
  // SSE4 four). Sapphire Rapids, softmax_bench 64x8x3136 (beyond the L2),
  // us, 4 vectors -> one line: AVX-512 537-573 -> 482-486 (BM_Copy 468),
  // AVX2 668-723 -> 574-588; 50x10x100 AVX-512 14.1 -> 12.2. BF16: 4
  // vectors (2 lines; 2 vectors, one line: 377 -> 423).
  constexpr size_t kV =
      std::is_same_v<Tr, F32> ? HWY_MAX(size_t{1}, 64 / (hn::MaxLanes(d) * sizeof(float))) : 4;
  for (size_t o = 0; o < outer; ++o) {
    const typename Tr::T* s = src + o * count * inner;
    typename Tr::T* t = dst + o * count * inner;
    size_t i = 0;
    for (; i + kV * lanes <= inner; i += kV * lanes) {
      Columns<kV, false, Tr>(d, s + i, count, inner, lanes, ebuf, t + i);
    }
    for (; i + lanes <= inner; i += lanes) {
      Columns<1, false, Tr>(d, s + i, count, inner, lanes, ebuf, t + i);
    }
    if (i < inner) Columns<1, true, Tr>(d, s + i, count, inner, inner - i, ebuf, t + i);
  }
}

template <class Tr>
HWY_INLINE void Softmax(const typename Tr::T* src, size_t outer, size_t count, size_t inner,
                        typename Tr::T* dst) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  if (inner != 1) return Strided<Tr>(src, outer, count, inner, dst);
  switch (count) {
    case 1:
      for (size_t o = 0; o < outer; ++o) dst[o] = Tr::kOne;
      return;
    case 2:
      return FewColumns<2, Tr>(src, outer, dst);
    case 3:
      return FewColumns<3, Tr>(src, outer, dst);
    default:
      break;
  }
#if HWY_TARGET == HWY_AVX3
  {
    const size_t done = SixteenRows<Tr>(src, outer, count, dst);
    src += done * count;
    dst += done * count;
    outer -= done;
  }
#endif
  if (count <= lanes) return ShortRows<1, Tr>(src, outer, count, dst);
  if (count <= 2 * lanes) return ShortRows<2, Tr>(src, outer, count, dst);
  if (count <= 3 * lanes) return ShortRows<3, Tr>(src, outer, count, dst);
  if (count <= 4 * lanes) return ShortRows<4, Tr>(src, outer, count, dst);
  if constexpr (std::is_same_v<Tr, F32>) {
    for (size_t o = 0; o < outer; ++o) {
      LongRow<Tr>(src + o * count, count, dst + o * count, dst + o * count);
    }
  } else {
    const hwy::AlignedFreeUniquePtr<float[]> ebuf = hwy::AllocateAligned<float>(count);
    for (size_t o = 0; o < outer; ++o) {
      LongRow<Tr>(src + o * count, count, ebuf.get(), dst + o * count);
    }
  }
}

void Softmax32fHwy(const float* src, size_t outer, size_t count, size_t inner, float* dst) {
  Softmax<F32>(src, outer, count, inner, dst);
}

void Softmax16bHwy(const uint16_t* src, size_t outer, size_t count, size_t inner,
                   uint16_t* dst) {
  Softmax<B16>(src, outer, count, inner, dst);
}

#endif  // HWY_TARGET != HWY_SCALAR
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/hwy_kernels.h"

namespace synops {
namespace softmax_internal {

std::vector<Kernel<Softmax32fFn>> Softmax32fHwyKernels() {
  return {SYNOPS_HWY_KERNELS(Softmax32fHwy)};
}

std::vector<Kernel<Softmax16bFn>> Softmax16bHwyKernels() {
  return {SYNOPS_HWY_KERNELS(Softmax16bHwy)};
}

}  // namespace softmax_internal
}  // namespace synops
#endif  // HWY_ONCE
