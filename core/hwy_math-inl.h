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

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "core/exp_constants.h"
#include "hwy/highway.h"

// Tables of the AVX-512 functions below: defined once (C++17 inline
// variables), outside the per-target toggle.
#ifndef SYNOPS_CORE_HWY_MATH_TABLES_
#define SYNOPS_CORE_HWY_MATH_TABLES_
namespace synops {
namespace hmath_tables {

// log x = e ln2 + T_j + log1p(r) with e = getexp(x), m = getmant(x) in
// [0.75, 1.5), bucket j = the top five mantissa bits of m (width 1/32 on
// [1, 1.5), 1/64 on [0.75, 1)), r = m * inv_c_j - 1 in [-1/64, 1/32].
// Row 0: inv_c_j, a float near 1/midpoint (1 for the two buckets next to 1).
// Row 1: T_j = -log(inv_c_j), plus ln2f (float(ln2)) on [0.75, 1) where
// getexp is one less than m's exponent; ln2f itself for the bucket just
// below 1, so e ln2f + T_j cancels exactly there. inv_c_j was searched so
// that T_j is within 2^-34 of its exact value: e ln2f + T_j is then exact
// (Sterbenz) or relatively accurate wherever log x is small.
alignas(64) inline constexpr float kLogTable[2][32] = {
  {1.000000000e+00f, 9.552043080e-01f, 9.275087118e-01f, 9.015070796e-01f, 8.766513467e-01f, 8.534204960e-01f, 8.311185241e-01f, 8.100588918e-01f, 7.901990414e-01f, 7.711816430e-01f, 7.528231740e-01f, 7.356563807e-01f, 7.190330029e-01f, 7.033945918e-01f, 6.882533431e-01f, 6.737800241e-01f, 1.319621682e+00f, 1.292992949e+00f, 1.267435551e+00f, 1.242736340e+00f, 1.219279885e+00f, 1.196092486e+00f, 1.174247742e+00f, 1.153080344e+00f, 1.132776499e+00f, 1.113232136e+00f, 1.093877554e+00f, 1.075641751e+00f, 1.058087468e+00f, 1.040544629e+00f, 1.024033308e+00f, 1.000000000e+00f},
  {0.000000000e+00f, 4.583002627e-02f, 7.525309175e-02f, 1.036873832e-01f, 1.316459179e-01f, 1.585028917e-01f, 1.849828660e-01f, 2.106483281e-01f, 2.354704142e-01f, 2.598313391e-01f, 2.839249074e-01f, 3.069921434e-01f, 3.298480213e-01f, 3.518372476e-01f, 3.735982776e-01f, 3.948515952e-01f, 4.158020914e-01f, 4.361875355e-01f, 4.561515749e-01f, 4.758315086e-01f, 4.948867559e-01f, 5.140872002e-01f, 5.325194597e-01f, 5.507102609e-01f, 5.684754848e-01f, 5.858795643e-01f, 6.034184098e-01f, 6.202297211e-01f, 6.366841793e-01f, 6.534029245e-01f, 6.693981290e-01f, 6.931471825e-01f},
};


// log1p(r) = r q(r) on [-1/64, 1/32], relative error 8.3e-9: q's
// coefficients, highest degree first (LogAvx512 and LogAvx2Normal).
inline constexpr float kLog1pPoly[4] = {-2.438943982e-01f, 3.333665729e-01f, -5.000012517e-01f,
                                        1.0f};

}  // namespace hmath_tables
}  // namespace synops
#endif  // SYNOPS_CORE_HWY_MATH_TABLES_

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hmath {
namespace hn = hwy::HWY_NAMESPACE;

// Cody-Waite reduction x = n ln2 + r, the rounding constant and ExpPolyReduced's
// coefficients: core/exp_constants.h.
using exp_constants::kExpMagic;
using exp_constants::kExpPoly;
using exp_constants::kLn2Hi;
using exp_constants::kLn2Lo;
using exp_constants::kLog2e;

// Calls f(0), ..., f(K - 1), unrolled at compile time. Each index is a
// std::integral_constant: a size_t parameter takes its value, an auto one
// can use it as a template argument (decltype(i)::value).
template <class F, size_t... I>
HWY_INLINE void UnrollImpl(F&& f, std::index_sequence<I...>) {
  (f(std::integral_constant<size_t, I>{}), ...);
}
template <size_t K, class F>
HWY_INLINE void Unroll(F&& f) {
  UnrollImpl(f, std::make_index_sequence<K>());
}

// The last step of LogAvx512 and LogAvx2Normal on K vectors of either
// width: x += r q(r) (log1p(r), hmath_tables::kLog1pPoly), each Horner step
// for all K before the next. fma(a, b, c) = a b + c; set(c) broadcasts c.
template <size_t K, class V, class Fma, class Set>
HWY_INLINE void AddLog1p(const V (&r)[K], V (&x)[K], Fma fma, Set set) {
  using hmath_tables::kLog1pPoly;
  V q[K];
  Unroll<K>([&](size_t k) HWY_ATTR { q[k] = fma(set(kLog1pPoly[0]), r[k], set(kLog1pPoly[1])); });
  Unroll<K>([&](size_t k) HWY_ATTR { q[k] = fma(q[k], r[k], set(kLog1pPoly[2])); });
  Unroll<K>([&](size_t k) HWY_ATTR { q[k] = fma(q[k], r[k], set(kLog1pPoly[3])); });
  Unroll<K>([&](size_t k) HWY_ATTR { x[k] = fma(q[k], r[k], x[k]); });
}

// e^r for |r| <= ln2/2 (a little beyond is fine): degree-6 polynomial
// kExpPoly, relative error 3.3e-9 before the rounding of its Horner
// evaluation; p(0) = 1 exactly. Used by unary's AVX-512 Exp, softmax and
// ExpAvx512.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpPolyReduced(D d, V r) {
  V p = hn::MulAdd(hn::Set(d, kExpPoly[0]), r, hn::Set(d, kExpPoly[1]));
  p = hn::MulAdd(p, r, hn::Set(d, kExpPoly[2]));
  p = hn::MulAdd(p, r, hn::Set(d, kExpPoly[3]));
  p = hn::MulAdd(p, r, hn::Set(d, kExpPoly[4]));
  p = hn::MulAdd(p, r, hn::Set(d, kExpPoly[5]));
  return hn::MulAdd(p, r, hn::Set(d, kExpPoly[6]));
}

// e^r for |r| <= 1.02 ln2/2 to a relative 3.2e-6 (2^-18.3), degree 4 (minimax
// in relative error, p(0) = 1 exactly), for results that are rounded to BF16
// (8 significant bits): two FMAs fewer than ExpPolyReduced.
inline constexpr float kExpPoly4[5] = {4.150717333e-02f, 1.679224968e-01f, 5.000326633e-01f,
                                       9.999642372e-01f, 1.0f};
// float(ln2), 1.9e-9 above ln2: x - n ln2f is off by at most 151 * 1.9e-9 =
// 2.9e-7 for n in [-151, 0], a relative 2.9e-7 of e^x.
constexpr float kLn2f = 0.693147182f;
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpPoly4Reduced(D d, V r) {
  V p = hn::MulAdd(hn::Set(d, kExpPoly4[0]), r, hn::Set(d, kExpPoly4[1]));
  p = hn::MulAdd(p, r, hn::Set(d, kExpPoly4[2]));
  p = hn::MulAdd(p, r, hn::Set(d, kExpPoly4[3]));
  return hn::MulAdd(p, r, hn::Set(d, kExpPoly4[4]));
}

// e^x for x <= 0 (softmax's x - max), -Inf included (gives +0), with correct
// denormal results: 2^n * p(r). Lanes >= -86 (results >= 2^-124, the only
// ones in typical data) scale by adding n to the exponent field; if any lane
// is below, the vector takes a slower path that clamps x to -104 (where e^x
// rounds to 0) and scales by two exact normal factors (one final rounding).
// Measured error: <= 1 ULP with FMA (max over all floats in [-104, 0]).
// NaN gives an unspecified value; x > 0 is not supported.
//
// kCoarse (for results rounded to BF16): ExpPoly4Reduced and, with FMA, a
// one-constant reduction: three FMAs fewer, relative error 3.4e-6 measured
// (about 2^-18), far below half a BF16 ULP (2^-9 relative).
template <bool kCoarse = false, class D, class V = hn::Vec<D>>
HWY_INLINE V ExpNonPositive(D d, V x) {
  const auto reduce = [&](V n) HWY_ATTR {
    // Without FMA, n ln2f would round (2^-18 relative for n near -100).
    if constexpr (kCoarse && HWY_NATIVE_FMA) {
      return hn::NegMulAdd(n, hn::Set(d, kLn2f), x);
    } else {
      return hn::NegMulAdd(n, hn::Set(d, kLn2Lo), hn::NegMulAdd(n, hn::Set(d, kLn2Hi), x));
    }
  };
  const auto poly = [&](V r) HWY_ATTR {
    if constexpr (kCoarse) {
      return ExpPoly4Reduced(d, r);
    } else {
      return ExpPolyReduced(d, r);
    }
  };
#if HWY_TARGET == HWY_AVX3
  // AVX-512: 2^n p by scalef, which rounds denormal results once: no
  // branch. Clamping keeps -Inf out of the reduction (e^-104 rounds to 0).
  // n by the magic constant (two uops; roundscale takes two on port 0 alone).
  if constexpr (hn::MaxLanes(d) * sizeof(float) == 64) {
    x = hn::Max(x, hn::Set(d, -104.0f));
    const V magic = hn::Set(d, kExpMagic);
    const V n = hn::Sub(hn::MulAdd(x, hn::Set(d, kLog2e), magic), magic);
    return V{_mm512_scalef_ps(poly(reduce(n)).raw, n.raw)};
  }
#endif
  const hn::RebindToSigned<D> di;
  const V magic = hn::Set(d, kExpMagic);
  if (HWY_LIKELY(hn::AllFalse(d, hn::Lt(x, hn::Set(d, -86.0f))))) {
    const V t = hn::MulAdd(x, hn::Set(d, kLog2e), magic);
    const V n = hn::Sub(t, magic);
    const V p = poly(reduce(n));
    // The low bits of t hold n: shifting them into the exponent field drops
    // the magic constant's bits.
    return hn::BitCast(d, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(hn::BitCast(di, t))));
  }
  x = hn::Max(x, hn::Set(d, -104.0f));
  const V t = hn::MulAdd(x, hn::Set(d, kLog2e), magic);
  const V n = hn::Sub(t, magic);
  const V p = poly(reduce(n));
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

// 2^f for |f| <= 1/2 to a relative 3.5e-6, degree 4 (Chebyshev
// interpolation, constant term first).
inline constexpr float kExp2Poly4[5] = {1.0f, 0.69312102f, 0.24022350f, 0.055921976f,
                                        0.0096663684f};

// e^x for x <= 0 (-Inf included: +0) whose results are rounded to BF16 (8
// significant bits: half an ULP is at least 2^-9 of the value), to a
// relative 2^-16 (softmax BF16). AVX-512: y = x log2e, f = y - round(y) by
// vreduceps, which gives -Inf an f of 0 (no clamp), then scalef(p(f), y -
// f) with kExp2Poly4: nine instructions with the caller's subtraction of
// the max where ExpNonPositive<true> takes ten, and no dependency through
// the clamp. The rounding of y adds up to 5.3e-6 where |y| > 128 (results
// near and below 2^-126). Elsewhere ExpNonPositive<true>.
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpNonPositiveBf16(D d, V x) {
#if HWY_TARGET == HWY_AVX3
  if constexpr (hn::MaxLanes(d) * sizeof(float) == 64) {
    const V y = hn::Mul(x, hn::Set(d, kLog2e));
    const V f = V{_mm512_reduce_ps(y.raw, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)};
    V p = hn::MulAdd(hn::Set(d, kExp2Poly4[4]), f, hn::Set(d, kExp2Poly4[3]));
    p = hn::MulAdd(p, f, hn::Set(d, kExp2Poly4[2]));
    p = hn::MulAdd(p, f, hn::Set(d, kExp2Poly4[1]));
    p = hn::MulAdd(p, f, hn::Set(d, kExp2Poly4[0]));
    return V{_mm512_scalef_ps(p.raw, hn::Sub(y, f).raw)};
  }
#endif
  return ExpNonPositive<true>(d, x);
}

// Whether every lane of v is a positive normal finite float: the lanes the
// table paths of log (LogAvx2Normal) and the Newton paths of 1/sqrt take
// without special cases (NaN, zero, denormals, negatives and Inf are not).
// PositiveNormal: that test per lane.
template <class D, class V = hn::Vec<D>>
HWY_INLINE auto PositiveNormal(D d, V v) {
  return hn::And(hn::Ge(v, hn::Set(d, 1.17549435e-38f)), hn::Lt(v, hn::Set(d, HUGE_VALF)));
}
template <class D, class V = hn::Vec<D>>
HWY_INLINE bool AllPositiveNormal(D d, V v) {
  return hn::AllTrue(d, PositiveNormal(d, v));
}

// e^x for x in [-87, 88] (callers clamp; e^x is then normal): 2^n p(r) with
// the Cody-Waite reduction of ExpNonPositive and n added to p's exponent
// field (r >= -ln2/2 keeps p >= 0.7, so n = -126 still gives a normal
// field). About 20 instructions fewer than Highway's hn::Exp, which
// handles every input. Measured: <= 1 ULP with FMA over every 16th float
// in the range (core:hwy_math_test).
template <class D, class V = hn::Vec<D>>
HWY_INLINE V ExpClamped(D d, V x) {
  const hn::RebindToSigned<D> di;
  const V magic = hn::Set(d, kExpMagic);
  const V t = hn::MulAdd(x, hn::Set(d, kLog2e), magic);
  const V n = hn::Sub(t, magic);
  const V r = hn::NegMulAdd(n, hn::Set(d, kLn2Lo), hn::NegMulAdd(n, hn::Set(d, kLn2Hi), x));
  const V p = ExpPolyReduced(d, r);
  return hn::BitCast(d, hn::Add(hn::BitCast(di, p), hn::ShiftLeft<23>(hn::BitCast(di, t))));
}

// 2^x for |x| <= 125 only (the caller checks), in Highway ops: f = x -
// round(x) (exact, by the rounding constant, whose low bits then hold n),
// p(f ln2) with ExpPolyReduced's coefficients, and n added to p's exponent
// (exact: the result is normal, as scalef's is). With FMA (AVX2) these are
// Exp2Avx512's operations in its order, so its results and error bound;
// without (SSE4) each Horner step rounds twice: <= 0.80 * 2^-23 2^x
// measured (core:hwy_math_test). Each step for all K vectors before the next.
template <size_t K, class D, class V = hn::Vec<D>>
HWY_INLINE void Exp2Bounded(D d, V (&x)[K]) {
  const hn::RebindToSigned<D> di;
  const V magic = hn::Set(d, kExpMagic);
  V t[K], f[K], p[K];
  Unroll<K>([&](size_t k) HWY_ATTR {
    t[k] = hn::Add(x[k], magic);
    f[k] = hn::Mul(hn::Sub(x[k], hn::Sub(t[k], magic)), hn::Set(d, 0.693147182f));
    p[k] = hn::MulAdd(hn::Set(d, kExpPoly[0]), f[k], hn::Set(d, kExpPoly[1]));
  });
  Unroll<5>([&](size_t i) HWY_ATTR {
    Unroll<K>([&](size_t k)
                  HWY_ATTR { p[k] = hn::MulAdd(p[k], f[k], hn::Set(d, kExpPoly[i + 2])); });
  });
  Unroll<K>([&](size_t k) HWY_ATTR {
    x[k] = hn::BitCast(d, hn::Add(hn::BitCast(di, p[k]), hn::ShiftLeft<23>(hn::BitCast(di, t[k]))));
  });
}

#if HWY_TARGET == HWY_AVX3
// AVX-512 only (instructions Highway 1.0.3 does not wrap: scalef, getmant,
// getexp, two-register permutes); the same instructions as ops/unary's
// AVX-512 Exp and Log. Each takes K independent vectors and issues every
// step for all K before the next: one vector's exp or log is a chain of
// ~12 dependent instructions, and K interleaved chains keep both FMA ports
// busy without filling the scheduler with waiting uops (LRN's pow: 15%
// faster with K = 4 than one vector at a time).

// e^x for any x, in place: 2^n * ExpPolyReduced(r) with scalef, which rounds
// denormal results once and overflows to +Inf. x is clamped to [-104, 104]
// (where e^x is already 0 or +Inf; min/max keep NaN).
// Measured over all floats in [-87.3, 88.7]: <= 0.65 * 2^-23 e^x.
template <size_t K>
HWY_INLINE void ExpAvx512(__m512 (&x)[K]) {
  __m512 n[K], p[K];
  const __m512 magic = _mm512_set1_ps(kExpMagic);
  Unroll<K>([&](size_t k) HWY_ATTR {
    x[k] = _mm512_min_ps(_mm512_set1_ps(104.0f), _mm512_max_ps(_mm512_set1_ps(-104.0f), x[k]));
    n[k] = _mm512_sub_ps(_mm512_fmadd_ps(x[k], _mm512_set1_ps(kLog2e), magic), magic);
  });
  Unroll<K>([&](size_t k) HWY_ATTR {
    x[k] = _mm512_fnmadd_ps(n[k], _mm512_set1_ps(kLn2Hi), x[k]);
  });
  Unroll<K>([&](size_t k) HWY_ATTR {
    x[k] = _mm512_fnmadd_ps(n[k], _mm512_set1_ps(kLn2Lo), x[k]);  // r
    p[k] = _mm512_fmadd_ps(_mm512_set1_ps(kExpPoly[0]), x[k], _mm512_set1_ps(kExpPoly[1]));
  });
  Unroll<5>([&](size_t i) HWY_ATTR {
    Unroll<K>([&](size_t k) HWY_ATTR {
      p[k] = _mm512_fmadd_ps(p[k], x[k], _mm512_set1_ps(kExpPoly[i + 2]));
    });
  });
  Unroll<K>([&](size_t k) HWY_ATTR { x[k] = _mm512_scalef_ps(p[k], n[k]); });
}

// 2^x for any x, in place: f = x - round(x) by reduce (exact, |f| <= 1/2),
// then scalef(ExpPolyReduced(f ln2), x - f). No clamp: ±Inf and huge x
// give f = 0 and scalef's +Inf or 0; NaN stays NaN. Four instructions fewer
// than ExpAvx512 (no Cody-Waite steps, no clamp). Measured over every third
// float in [-126, 128): <= 0.65 * 2^-23 2^x.
template <size_t K>
HWY_INLINE void Exp2Avx512(__m512 (&x)[K]) {
  __m512 f[K], p[K];
  Unroll<K>([&](size_t k) HWY_ATTR {
    f[k] = _mm512_reduce_ps(x[k], _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  });
  Unroll<K>([&](size_t k) HWY_ATTR {
    x[k] = _mm512_sub_ps(x[k], f[k]);  // round(x), exact
    f[k] = _mm512_mul_ps(f[k], _mm512_set1_ps(0.693147182f));
    p[k] = _mm512_fmadd_ps(_mm512_set1_ps(kExpPoly[0]), f[k], _mm512_set1_ps(kExpPoly[1]));
  });
  Unroll<5>([&](size_t i) HWY_ATTR {
    Unroll<K>([&](size_t k) HWY_ATTR {
      p[k] = _mm512_fmadd_ps(p[k], f[k], _mm512_set1_ps(kExpPoly[i + 2]));
    });
  });
  Unroll<K>([&](size_t k) HWY_ATTR { x[k] = _mm512_scalef_ps(p[k], x[k]); });
}

// log x in place (see hmath_tables::kLogTable): getmant/getexp handle
// denormals, ±0 (-Inf), +Inf, NaN and negative inputs (NaN).
// Measured over all positive floats: <= 1.06 * 2^-23 |log x|.
template <size_t K>
HWY_INLINE void LogAvx512(__m512 (&x)[K]) {
  const float* t0 = hmath_tables::kLogTable[0];
  const float* t1 = hmath_tables::kLogTable[1];
  const __m512 t0lo = _mm512_load_ps(t0), t0hi = _mm512_load_ps(t0 + 16);
  const __m512 t1lo = _mm512_load_ps(t1), t1hi = _mm512_load_ps(t1 + 16);
  __m512 m[K], r[K];
  Unroll<K>([&](size_t k) HWY_ATTR {
    m[k] = _mm512_getmant_ps(x[k], _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_nan);
    x[k] = _mm512_getexp_ps(x[k]);
  });
  Unroll<K>([&](size_t k) HWY_ATTR {
    const __m512i j = _mm512_srli_epi32(_mm512_castps_si512(m[k]), 18);
    r[k] = _mm512_fmsub_ps(m[k], _mm512_permutex2var_ps(t0lo, j, t0hi), _mm512_set1_ps(1.0f));
    // t = e ln2f + T_j
    x[k] = _mm512_fmadd_ps(x[k], _mm512_set1_ps(0.693147182f),
                           _mm512_permutex2var_ps(t1lo, j, t1hi));
  });
  AddLog1p<K>(
      r, x, [](__m512 a, __m512 b, __m512 c) HWY_ATTR { return _mm512_fmadd_ps(a, b, c); },
      [](float c) HWY_ATTR { return _mm512_set1_ps(c); });
}

// One vector.
HWY_INLINE __m512 ExpAvx512(__m512 x) {
  __m512 v[1] = {x};
  ExpAvx512(v);
  return v[0];
}
HWY_INLINE __m512 LogAvx512(__m512 x) {
  __m512 v[1] = {x};
  LogAvx512(v);
  return v[0];
}

// Sixteen horizontal reductions at once (softmax's row max and sum,
// channel_sum's short rows): 30 shuffles and 15 ops for 16 rows instead of
// ~8 dependent steps per row.
// Input slot s of Reduce16 takes row Slot(s): the four levels below leave
// slot 4l + k's result in lane 4k + l.
constexpr size_t Slot(size_t s) { return 4 * (s % 4) + s / 4; }

// Lane r = op-reduction of the 16 lanes of rows[r].
template <class Op>
HWY_INLINE __m512 Reduce16(const __m512 (&rows)[16], Op op) {
  __m512 a[8], b[4], c[2];
  hmath::Unroll<8>([&](size_t i) HWY_ATTR {
    const __m512 p = rows[Slot(2 * i)], q = rows[Slot(2 * i + 1)];
    a[i] = op(_mm512_shuffle_f32x4(p, q, 0x44), _mm512_shuffle_f32x4(p, q, 0xEE));
  });
  hmath::Unroll<4>([&](size_t i) HWY_ATTR {
    b[i] = op(_mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0x88),
              _mm512_shuffle_f32x4(a[2 * i], a[2 * i + 1], 0xDD));
  });
  hmath::Unroll<2>([&](size_t i) HWY_ATTR {
    c[i] = op(_mm512_shuffle_ps(b[2 * i], b[2 * i + 1], 0x44),
              _mm512_shuffle_ps(b[2 * i], b[2 * i + 1], 0xEE));
  });
  return op(_mm512_shuffle_ps(c[0], c[1], 0x88), _mm512_shuffle_ps(c[0], c[1], 0xDD));
}
#endif  // HWY_TARGET == HWY_AVX3

#if HWY_TARGET == HWY_AVX2
// A 32-entry table t[j] at the low five bits of j: four vpermps (low three
// bits) and three blends on bits 3 and 4.
HWY_INLINE __m256 Lookup32(const float* t, __m256i j) {
  const __m256 v0 = _mm256_permutevar8x32_ps(_mm256_load_ps(t), j);
  const __m256 v1 = _mm256_permutevar8x32_ps(_mm256_load_ps(t + 8), j);
  const __m256 v2 = _mm256_permutevar8x32_ps(_mm256_load_ps(t + 16), j);
  const __m256 v3 = _mm256_permutevar8x32_ps(_mm256_load_ps(t + 24), j);
  const __m256 bit3 = _mm256_castsi256_ps(_mm256_slli_epi32(j, 28));
  const __m256 bit4 = _mm256_castsi256_ps(_mm256_slli_epi32(j, 27));
  return _mm256_blendv_ps(_mm256_blendv_ps(v0, v1, bit3), _mm256_blendv_ps(v2, v3, bit3), bit4);
}

// LogAvx512 for positive normal finite lanes only (the caller checks):
// getexp and getmant (to [0.75, 1.5)) from the bits, then the same table,
// polynomial and operations in the same order: by construction the results
// are LogAvx512's, and so is its error bound.
template <size_t K>
HWY_INLINE void LogAvx2Normal(__m256 (&x)[K]) {
  const float* t0 = hmath_tables::kLogTable[0];
  const float* t1 = hmath_tables::kLogTable[1];
  __m256 m[K], r[K];
  Unroll<K>([&](size_t k) HWY_ATTR {
    const __m256i u = _mm256_castps_si256(x[k]);
    // m = 1.f, or 1.f / 2 when 1.f >= 1.5 (fraction bit 22 set).
    const __m256i mant = _mm256_or_si256(_mm256_and_si256(u, _mm256_set1_epi32(0x007FFFFF)),
                                         _mm256_set1_epi32(0x3F800000));
    m[k] = _mm256_castsi256_ps(_mm256_sub_epi32(
        mant, _mm256_slli_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x00400000)), 1)));
    const __m256i j = _mm256_srli_epi32(u, 18);  // the top five fraction bits (low five bits)
    r[k] = _mm256_fmsub_ps(m[k], Lookup32(t0, j), _mm256_set1_ps(1.0f));
    const __m256 e = _mm256_cvtepi32_ps(
        _mm256_sub_epi32(_mm256_srli_epi32(u, 23), _mm256_set1_epi32(127)));
    x[k] = _mm256_fmadd_ps(e, _mm256_set1_ps(0.693147182f), Lookup32(t1, j));
  });
  AddLog1p<K>(
      r, x, [](__m256 a, __m256 b, __m256 c) HWY_ATTR { return _mm256_fmadd_ps(a, b, c); },
      [](float c) HWY_ATTR { return _mm256_set1_ps(c); });
}

// Lane r = the sum of the 8 lanes of rows[r]: Reduce16's counterpart for
// AVX2. Each level adds a blend of two vectors (lanes in place) to a
// shuffle of them (the other lanes): rows r and r + 4 to four lanes each
// (vperm2f128), those pairs to two lanes (shufps), then to one; 8 shuffles,
// 6 blends and 7 adds for 8 rows. With six vhaddps (two shuffles and an add
// each) and two vperm2f128, channel_sum's NCHW short rows (SumShortRows8)
// took 1.09x the time at 512 channels x 7x7 (AMD Zen 5, channel_sum_bench,
// best of 8 alternating rounds, ns: 706 -> 648; 256 x 128 697 -> 682).
HWY_INLINE __m256 Reduce8Sum(const __m256 (&rows)[8]) {
  // [a.lo + a.hi | b.lo + b.hi]
  const auto halves = [](__m256 a, __m256 b) HWY_ATTR {
    return _mm256_add_ps(_mm256_permute2f128_ps(a, b, 0x21), _mm256_blend_ps(a, b, 0xF0));
  };
  // Per 128-bit half: [p0 + p2, p1 + p3, q2 + q0, q3 + q1].
  const auto pairs = [](__m256 p, __m256 q) HWY_ATTR {
    return _mm256_add_ps(_mm256_blend_ps(p, q, 0xCC), _mm256_shuffle_ps(p, q, 0x4E));
  };
  // u: rows 0, 1 | 4, 5 as two lanes each; w: rows 2, 3 | 6, 7.
  const __m256 u = pairs(halves(rows[0], rows[4]), halves(rows[1], rows[5]));
  const __m256 w = pairs(halves(rows[2], rows[6]), halves(rows[3], rows[7]));
  return _mm256_add_ps(_mm256_shuffle_ps(u, w, 0x88), _mm256_shuffle_ps(u, w, 0xDD));
}
#endif  // HWY_TARGET == HWY_AVX2

}  // namespace hmath
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#endif  // SYNOPS_CORE_HWY_MATH_INL_H_
