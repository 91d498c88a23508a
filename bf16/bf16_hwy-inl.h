// BF16 <-> FP32 on Highway vectors, shared by every op's Highway kernels:
// exact widening and SPEC.md §2 rounding (to nearest, ties to even; NaN stays
// a quiet NaN), the scalar Fp32ToBf16 / Bf16ToFp32 of bf16.h lane by lane.
//
// A Highway "-inl" header: include it after hwy/highway.h in a translation
// unit compiled per target by foreach_target.h; the include guard toggles
// with HWY_TARGET_TOGGLE like Highway's own. Functions live in
// synops::HWY_NAMESPACE.
#if defined(SYNOPS_BF16_BF16_HWY_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNOPS_BF16_BF16_HWY_INL_H_
#undef SYNOPS_BF16_BF16_HWY_INL_H_
#else
#define SYNOPS_BF16_BF16_HWY_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace bf16_hn = hwy::HWY_NAMESPACE;

// BF16 bits (one per lane of a half-width vector) widened to FP32: exact.
template <class DF>
HWY_INLINE bf16_hn::Vec<DF> WidenBf16(DF df, bf16_hn::Vec<bf16_hn::Rebind<uint16_t, DF>> h) {
  const bf16_hn::RebindToUnsigned<DF> du;
  return bf16_hn::BitCast(df, bf16_hn::ShiftLeft<16>(bf16_hn::PromoteTo(du, h)));
}

// Lanes(df) BF16 values at p (unaligned), widened.
template <class DF>
HWY_INLINE bf16_hn::Vec<DF> LoadBf16(DF df, const uint16_t* HWY_RESTRICT p) {
  const bf16_hn::Rebind<uint16_t, DF> d16;
  return WidenBf16(df, bf16_hn::LoadU(d16, p));
}

// v rounded to BF16, the result in the UPPER 16 bits of each 32-bit lane (the
// lower 16 bits are garbage): u + 0x7FFF + (bit 16 of u), and with kNan a NaN
// quieted (u | 0x00400000). kNan = false for values that are never NaN.
// kTiesUp (never NaN, finite): to nearest with ties away from zero, u + 0x8000,
// one instruction instead of four, for values that are approximations anyway
// (an exact tie of an approximation is not one of the exact value); it
// differs from Fp32ToBf16 only on ties, by one ULP.
template <bool kNan = true, bool kTiesUp = false, class DF>
HWY_INLINE bf16_hn::Vec<bf16_hn::RebindToUnsigned<DF>> RoundBf16Upper(DF df, bf16_hn::Vec<DF> v) {
  (void)df;
  const bf16_hn::RebindToUnsigned<DF> du;
  const auto u = bf16_hn::BitCast(du, v);
  if constexpr (kTiesUp) {
    static_assert(!kNan, "ties-up rounding is for values that are never NaN");
    return bf16_hn::Add(u, bf16_hn::Set(du, 0x8000u));
  }
  const auto odd = bf16_hn::And(bf16_hn::ShiftRight<16>(u), bf16_hn::Set(du, 1u));
  const auto r = bf16_hn::Add(u, bf16_hn::Add(bf16_hn::Set(du, 0x7FFFu), odd));
  if constexpr (!kNan) return r;
  const auto quiet = bf16_hn::Or(u, bf16_hn::Set(du, 0x00400000u));
  return bf16_hn::IfThenElse(bf16_hn::RebindMask(du, bf16_hn::IsNaN(v)), quiet, r);
}

// v rounded to BF16, the bits in the lower 16 bits of each 32-bit lane.
template <bool kNan = true, bool kTiesUp = false, class DF>
HWY_INLINE bf16_hn::Vec<bf16_hn::RebindToUnsigned<DF>> RoundBf16(DF df, bf16_hn::Vec<DF> v) {
  return bf16_hn::ShiftRight<16>(RoundBf16Upper<kNan, kTiesUp>(df, v));
}

// v rounded to BF16, one uint16_t per lane of a half-width vector.
template <bool kNan = true, bool kTiesUp = false, class DF>
HWY_INLINE bf16_hn::Vec<bf16_hn::Rebind<uint16_t, DF>> DemoteBf16(DF df, bf16_hn::Vec<DF> v) {
  const bf16_hn::RebindToSigned<DF> di;
  const bf16_hn::Rebind<uint16_t, DF> d16;
  // Every lane is < 2^16, so the saturating demotion is exact.
  return bf16_hn::DemoteTo(d16, bf16_hn::BitCast(di, RoundBf16<kNan, kTiesUp>(df, v)));
}

// v rounded to BF16, stored to Lanes(df) elements at p (unaligned).
template <bool kNan = true, bool kTiesUp = false, class DF>
HWY_INLINE void StoreBf16(DF df, bf16_hn::Vec<DF> v, uint16_t* HWY_RESTRICT p) {
  const bf16_hn::Rebind<uint16_t, DF> d16;
  bf16_hn::StoreU(DemoteBf16<kNan, kTiesUp>(df, v), d16, p);
}

namespace bf16_detail {
// StoreBf16x2 with every lane rounded as RoundBf16Upper<kNan, kTiesUp>.
template <bool kNan, bool kTiesUp, class DF>
HWY_INLINE void StoreBf16x2(DF df, bf16_hn::Vec<DF> v0, bf16_hn::Vec<DF> v1,
                            uint16_t* HWY_RESTRICT p) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (bf16_hn::MaxLanes(df) == 16) {
    // Output word i: word 2i + 1 of (v0, v1), the upper halves.
    alignas(64) static constexpr uint16_t kUpperHalves[32] = {
        1,  3,  5,  7,  9,  11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31,
        33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63};
    _mm512_storeu_si512(
        p, _mm512_permutex2var_epi16(RoundBf16Upper<kNan, kTiesUp>(df, v0).raw,
                                     _mm512_load_si512(kUpperHalves),
                                     RoundBf16Upper<kNan, kTiesUp>(df, v1).raw));
    return;
  }
#endif
  StoreBf16<kNan, kTiesUp>(df, v0, p);
  StoreBf16<kNan, kTiesUp>(df, v1, p + bf16_hn::Lanes(df));
}
}  // namespace bf16_detail

// v0 then v1 rounded to BF16, stored to 2 Lanes(df) consecutive elements at p
// (unaligned). On AVX-512 one two-source word permute packs the upper halves
// of both rounded vectors (instead of a shift and a two-uop narrowing each).
// With kNan, the NaN quieting blend only where either vector holds a NaN
// (v0 + v1 is NaN; Inf - Inf takes the blend too, with the same results).
// Zen 4, best of 4 alternating rounds: bf16_bench Fp32ToBf16 (which also
// went from one vector a step to two), ns, L1 / L2: AVX-512 479 -> 222 /
// 2019 -> 898, AVX2 431 -> 352 / 1714 -> 1422, SSE4.1 806 -> 627 / 3220 ->
// 2473; normalize_bench 16bV2 SSE4.1 7-17% less time (NCHW c512 56x56 1240
// -> 1046 us), AVX2 5-12%, AVX-512 2-10%.
template <bool kNan = true, bool kTiesUp = false, class DF>
HWY_INLINE void StoreBf16x2(DF df, bf16_hn::Vec<DF> v0, bf16_hn::Vec<DF> v1,
                            uint16_t* HWY_RESTRICT p) {
  if constexpr (kNan) {
    if (HWY_LIKELY(bf16_hn::AllFalse(df, bf16_hn::IsNaN(bf16_hn::Add(v0, v1))))) {
      return bf16_detail::StoreBf16x2</*kNan=*/false, kTiesUp>(df, v0, v1, p);
    }
  }
  bf16_detail::StoreBf16x2<kNan, kTiesUp>(df, v0, v1, p);
}

}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#endif  // SYNOPS_BF16_BF16_HWY_INL_H_
