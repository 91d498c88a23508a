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
template <bool kNan = true, class DF>
HWY_INLINE bf16_hn::Vec<bf16_hn::RebindToUnsigned<DF>> RoundBf16Upper(DF df, bf16_hn::Vec<DF> v) {
  (void)df;
  const bf16_hn::RebindToUnsigned<DF> du;
  const auto u = bf16_hn::BitCast(du, v);
  const auto odd = bf16_hn::And(bf16_hn::ShiftRight<16>(u), bf16_hn::Set(du, 1u));
  const auto r = bf16_hn::Add(u, bf16_hn::Add(bf16_hn::Set(du, 0x7FFFu), odd));
  if constexpr (!kNan) return r;
  const auto quiet = bf16_hn::Or(u, bf16_hn::Set(du, 0x00400000u));
  return bf16_hn::IfThenElse(bf16_hn::RebindMask(du, bf16_hn::IsNaN(v)), quiet, r);
}

// v rounded to BF16, the bits in the lower 16 bits of each 32-bit lane.
template <bool kNan = true, class DF>
HWY_INLINE bf16_hn::Vec<bf16_hn::RebindToUnsigned<DF>> RoundBf16(DF df, bf16_hn::Vec<DF> v) {
  return bf16_hn::ShiftRight<16>(RoundBf16Upper<kNan>(df, v));
}

// v rounded to BF16, one uint16_t per lane of a half-width vector.
template <bool kNan = true, class DF>
HWY_INLINE bf16_hn::Vec<bf16_hn::Rebind<uint16_t, DF>> DemoteBf16(DF df, bf16_hn::Vec<DF> v) {
  const bf16_hn::RebindToSigned<DF> di;
  const bf16_hn::Rebind<uint16_t, DF> d16;
  // Every lane is < 2^16, so the saturating demotion is exact.
  return bf16_hn::DemoteTo(d16, bf16_hn::BitCast(di, RoundBf16<kNan>(df, v)));
}

// v rounded to BF16, stored to Lanes(df) elements at p (unaligned).
template <bool kNan = true, class DF>
HWY_INLINE void StoreBf16(DF df, bf16_hn::Vec<DF> v, uint16_t* HWY_RESTRICT p) {
  const bf16_hn::Rebind<uint16_t, DF> d16;
  bf16_hn::StoreU(DemoteBf16<kNan>(df, v), d16, p);
}

}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#endif  // SYNOPS_BF16_BF16_HWY_INL_H_
