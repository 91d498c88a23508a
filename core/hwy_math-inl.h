// Vector math shared by several ops' Highway kernels (include after
// hwy/highway.h, inside HWY_BEFORE_NAMESPACE / namespace synops::HWY_NAMESPACE
// is NOT required: this header opens its own namespaces).
//
// A Highway "-inl" header: included once per target by foreach_target.h, so
// the include guard toggles with HWY_TARGET_TOGGLE like Highway's own.
#if defined(SYNOPS_CORE_HWY_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNOPS_CORE_HWY_MATH_INL_H_
#undef SYNOPS_CORE_HWY_MATH_INL_H_
#else
#define SYNOPS_CORE_HWY_MATH_INL_H_
#endif

#include <cstdint>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hmath {
namespace hn = hwy::HWY_NAMESPACE;

// Cody-Waite reduction x = n ln2 + r: kLn2Hi has 12 significant bits, so
// n * kLn2Hi and x - n * kLn2Hi are exact for |n| < 2^12.
constexpr float kLn2Hi = 0.693145751953125f;
constexpr float kLn2Lo = 1.42860677e-06f;
constexpr float kLog2e = 1.44269502f;
// 1.5 * 2^23: x + kMagic rounds x to an integer, held in the low mantissa bits.
constexpr float kExpMagic = 12582912.0f;

// e^r for |r| <= ln2/2 (a little beyond is fine): degree-6 polynomial,
// relative error 3.3e-9 before the rounding of its Horner evaluation.
// p(0) = 1 exactly. Used by unary's AVX-512 Exp and by softmax.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpPolyReduced(D d, V r) {
  V p = hn::MulAdd(hn::Set(d, 1.3813142431899905e-03f), r, hn::Set(d, 8.369418792426586e-03f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.166845604777336e-02f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.6666515171527863e-01f));
  p = hn::MulAdd(p, r, hn::Set(d, 4.999999403953552e-01f));
  p = hn::MulAdd(p, r, hn::Set(d, 1.0f));
  return hn::MulAdd(p, r, hn::Set(d, 1.0f));
}

// e^x for x <= 0 (softmax's x - max), -Inf included (gives +0), with correct
// denormal results: 2^n * p(r). Lanes >= -86 (results >= 2^-124, the only
// ones in typical data) scale by adding n to the exponent field; if any lane
// is below, the vector takes a slower path that clamps x to -104 (where e^x
// rounds to 0) and scales by two exact normal factors (one final rounding).
// Measured error: <= 1 ULP with FMA (max over all floats in [-104, 0]).
// NaN gives an unspecified value; x > 0 is not supported.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpNonPositive(D d, V x) {
#if HWY_TARGET == HWY_AVX3
  // AVX-512: 2^n p by scalef, which rounds denormal results once: no
  // branch. Clamping keeps -Inf out of the reduction (e^-104 rounds to 0).
  // n by the magic constant (two uops; roundscale takes two on port 0 alone).
  if constexpr (hn::MaxLanes(d) * sizeof(float) == 64) {
    x = hn::Max(x, hn::Set(d, -104.0f));
    const V magic = hn::Set(d, kExpMagic);
    const V n = hn::Sub(hn::MulAdd(x, hn::Set(d, kLog2e), magic), magic);
    const V r = hn::NegMulAdd(n, hn::Set(d, kLn2Lo), hn::NegMulAdd(n, hn::Set(d, kLn2Hi), x));
    return V{_mm512_scalef_ps(ExpPolyReduced(d, r).raw, n.raw)};
  }
#endif
  const hn::RebindToSigned<D> di;
  const V magic = hn::Set(d, kExpMagic);
  if (HWY_LIKELY(hn::AllFalse(d, hn::Lt(x, hn::Set(d, -86.0f))))) {
    const V t = hn::MulAdd(x, hn::Set(d, kLog2e), magic);
    const V n = hn::Sub(t, magic);
    const V r = hn::NegMulAdd(n, hn::Set(d, kLn2Lo), hn::NegMulAdd(n, hn::Set(d, kLn2Hi), x));
    const V p = ExpPolyReduced(d, r);
    // The low bits of t hold n: shifting them into the exponent field drops
    // the magic constant's bits.
    return hn::BitCast(d, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(hn::BitCast(di, t))));
  }
  x = hn::Max(x, hn::Set(d, -104.0f));
  const V t = hn::MulAdd(x, hn::Set(d, kLog2e), magic);
  const V n = hn::Sub(t, magic);
  const V r = hn::NegMulAdd(n, hn::Set(d, kLn2Lo), hn::NegMulAdd(n, hn::Set(d, kLn2Hi), x));
  const V p = ExpPolyReduced(d, r);
  // n in [-151, 0]: 2^n = 2^n1 * 2^n2 with n1 = n >> 1, n2 = n - n1, both in
  // [-76, 0] (normal); p * 2^n1 is exact, the second product rounds once.
  const auto ni = hn::Sub(hn::BitCast(di, t), hn::BitCast(di, magic));
  const auto n1 = hn::ShiftRight<1>(ni);
  const auto n2 = hn::Sub(ni, n1);
  const auto bias = hn::Set(di, 127);
  const V s1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n1, bias)));
  const V s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n2, bias)));
  return hn::Mul(hn::Mul(p, s1), s2);
}

}  // namespace hmath
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#endif  // SYNOPS_CORE_HWY_MATH_INL_H_
