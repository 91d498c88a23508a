// The transcendental and correctly rounded math of unary's Highway kernels:
// AVX-512 (namespace x512: instructions Highway 1.0.3 does not wrap, written
// for throughput) and the other targets' sine, cosine and tanh (poly_math).
// Exp and Log come from core/hwy_math-inl.h (hmath), shared with softmax and
// lrn. Every function is checked through unary_test.cc.
//
// A Highway "-inl" header, included by unary_hwy.cc once per target; the
// include guard toggles with HWY_TARGET_TOGGLE like Highway's own.
#if defined(SYNOPS_OPS_UNARY_UNARY_MATH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef SYNOPS_OPS_UNARY_UNARY_MATH_INL_H_
#undef SYNOPS_OPS_UNARY_UNARY_MATH_INL_H_
#else
#define SYNOPS_OPS_UNARY_UNARY_MATH_INL_H_
#endif

#include <cstdint>

#include "core/hwy_math-inl.h"
#include "hwy/highway.h"

// Tables: defined once (C++17 inline variables), outside the per-target toggle.
#ifndef SYNOPS_OPS_UNARY_UNARY_MATH_TABLES_
#define SYNOPS_OPS_UNARY_UNARY_MATH_TABLES_
namespace synops {
namespace unary_internal {

// erf(|x|) on segment k = round(8|x|), k < 32, as c0 + t*(c1 + t*(c2 + t*(c3
// + t*c4))) with t = |x| - k/8 (segment 0: t = |x| in [0, 1/16], c0 = 0).
// Near-minimax fits of the relative error (Lawson), rounded to float:
// <= 0.8 * 2^-24 before rounding of the evaluation. Segment 31 (|x| >=
// 3.8125, where erf is within 7e-8 of 1) is the constant 1.
alignas(64) inline constexpr float kErfCoeffs[5][32] = {
  {0.000000000e+00f, 1.403162032e-01f, 2.763263881e-01f, 4.041168988e-01f, 5.204998851e-01f, 6.232408881e-01f, 7.111556530e-01f, 7.840750813e-01f, 8.427007794e-01f, 8.883882165e-01f, 9.229001403e-01f, 9.481700659e-01f, 9.661051631e-01f, 9.784437418e-01f, 9.866716862e-01f, 9.919900298e-01f, 9.953222871e-01f, 9.973459840e-01f, 9.985373020e-01f, 9.992170334e-01f, 9.995930195e-01f, 9.997946024e-01f, 9.998993874e-01f, 9.999521375e-01f, 9.999778867e-01f, 9.999901056e-01f, 9.999957085e-01f, 9.999982119e-01f, 9.999992847e-01f, 9.999997020e-01f, 9.999998808e-01f, 1.000000000e+00f},
  {1.128379107e+00f, 1.110884786e+00f, 1.060013771e+00f, 9.803525805e-01f, 8.787825704e-01f, 7.634996772e-01f, 6.429313421e-01f, 5.247453451e-01f, 4.151078165e-01f, 3.182742596e-01f, 2.365213484e-01f, 1.703599244e-01f, 1.189303622e-01f, 8.047226816e-02f, 5.277496576e-02f, 3.354577348e-02f, 2.066692337e-02f, 1.234076079e-02f, 7.142268121e-03f, 4.006437957e-03f, 2.178255003e-03f, 1.147854957e-03f, 5.862640683e-04f, 2.902201086e-04f, 1.392481936e-04f, 6.475592818e-05f, 2.918752398e-05f, 1.275095747e-05f, 5.399033853e-06f, 2.215730774e-06f, 8.813441923e-07f, 0.0f},
  {6.866926924e-06f, -1.388536245e-01f, -2.650006413e-01f, -3.676308393e-01f, -4.393905699e-01f, -4.771869481e-01f, -4.821983278e-01f, -4.591521323e-01f, -4.151078165e-01f, -3.580585718e-01f, -2.956517637e-01f, -2.342450023e-01f, -1.783956885e-01f, -1.307675987e-01f, -9.235635400e-02f, -6.289847940e-02f, -4.133397341e-02f, -2.622422017e-02f, -1.607018150e-02f, -9.515346028e-03f, -5.445675924e-03f, -3.013144247e-03f, -1.612241846e-03f, -8.343921509e-04f, -4.177500086e-04f, -2.023652778e-04f, -9.486106137e-05f, -4.303530659e-05f, -1.889702799e-05f, -8.032219739e-06f, -3.305131031e-06f, 0.0f},
  {-3.766760230e-01f, -3.582225144e-01f, -3.087815642e-01f, -2.346547246e-01f, -1.464283466e-01f, -5.580544099e-02f, 2.652914636e-02f, 9.259573370e-02f, 1.380316168e-01f, 1.621530801e-01f, 1.673054844e-01f, 1.577882469e-01f, 1.386793405e-01f, 1.148301512e-01f, 9.018949419e-02f, 6.749695539e-02f, 4.828680679e-02f, 3.309838101e-02f, 2.177657932e-02f, 1.377134304e-02f, 8.379969746e-03f, 4.911034368e-03f, 2.773857443e-03f, 1.510911970e-03f, 7.940719370e-04f, 4.028422409e-04f, 1.973452745e-04f, 9.338465316e-05f, 4.269761848e-05f, 1.886768769e-05f, 8.059641914e-06f, 0.0f},
  {1.408213191e-02f, 6.682303548e-02f, 1.260934472e-01f, 1.660235226e-01f, 1.827150285e-01f, 1.762429923e-01f, 1.505973637e-01f, 1.124135330e-01f, 6.928256899e-02f, 2.812225558e-02f, -5.990345497e-03f, -3.033852577e-02f, -4.446328059e-02f, -4.962049797e-02f, -4.804165289e-02f, -4.223253950e-02f, -3.444231674e-02f, -2.637353167e-02f, -1.910334639e-02f, -1.315454021e-02f, -8.641516790e-03f, -5.429656710e-03f, -3.269446315e-03f, -1.889556763e-03f, -1.049446641e-03f, -5.606689956e-04f, -2.883732086e-04f, -1.428903633e-04f, -6.825035962e-05f, -3.143952927e-05f, -1.397329834e-05f, 0.0f},
};

// tanh(|x|) on 32 segments (AVX-512): the slot is bits(|x|) >> 21 mod 32,
// i.e. four segments per octave from 1/16 to 16 (|x| is clamped to 9.5,
// where tanh and the last segment round to 1); |x| < 1/16 uses slot 11 (that of [10, 12),
// unused). Per slot: c0..c5 of c0 + t (c1 + ... + t c5), t = |x| - mid,
// then mid (0 for |x| < 1/16, where c0 = 0; 9.5 for [8, 9.5], where c0 = 1
// instead of tanh(9.5) = 1 - 1.1e-8, so that clamped inputs give exactly 1). Near-minimax fits of the
// relative error, rounded to float: <= 1.1e-8 before evaluation.
alignas(64) inline constexpr float kTanhTable[7][32] = {
  {9.780260921e-01f, 9.918597341e-01f, 9.969976544e-01f, 9.988944530e-01f, 9.997531772e-01f, 9.999666214e-01f, 9.999954700e-01f, 9.999994040e-01f, 1.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 7.019685954e-02f, 8.572656661e-02f, 1.012147292e-01f, 1.166539863e-01f, 1.397053003e-01f, 1.702023149e-01f, 2.003767192e-01f, 2.301757038e-01f, 2.740615904e-01f, 3.308211267e-01f, 3.852839768e-01f, 4.371887743e-01f, 5.098299980e-01f, 5.963735580e-01f, 6.709671021e-01f, 7.340714931e-01f, 8.093010783e-01f, 8.798267245e-01f, 9.253462553e-01f, 9.540452361e-01f},
  {4.346491396e-02f, 1.621429250e-02f, 5.995717831e-03f, 2.209893428e-03f, 4.935360048e-04f, 6.680712977e-05f, 9.041623343e-06f, 1.223655431e-06f, 2.246722097e-08f, 0.000000000e+00f, 0.000000000e+00f, 1.000000000e+00f, 9.950724244e-01f, 9.926509261e-01f, 9.897555709e-01f, 9.863918424e-01f, 9.804823995e-01f, 9.710311890e-01f, 9.598491788e-01f, 9.470191598e-01f, 9.248902202e-01f, 8.905574083e-01f, 8.515562415e-01f, 8.088659644e-01f, 7.400733829e-01f, 6.443386078e-01f, 5.498031974e-01f, 4.611389935e-01f, 3.450317681e-01f, 2.259049714e-01f, 1.437343657e-01f, 8.979763836e-02f},
  {-4.250824079e-02f, -1.608110033e-02f, -5.977179389e-03f, -2.207239391e-03f, -4.926095717e-04f, -6.669516733e-05f, -9.026717635e-06f, -1.221642606e-06f, -2.062243176e-08f, 0.000000000e+00f, 0.000000000e+00f, 1.404409300e-08f, -6.985095888e-02f, -8.509656042e-02f, -1.001778468e-01f, -1.150665432e-01f, -1.369785964e-01f, -1.652717441e-01f, -1.923314184e-01f, -2.179808021e-01f, -2.534768581e-01f, -2.946151495e-01f, -3.280909359e-01f, -3.536270857e-01f, -3.773112893e-01f, -3.842664063e-01f, -3.688998818e-01f, -3.385091424e-01f, -2.792371213e-01f, -1.987587363e-01f, -1.330046207e-01f, -8.567110449e-02f},
  {2.708783001e-02f, 1.054611057e-02f, 3.960902337e-03f, 1.468255650e-03f, 3.282979887e-04f, 4.446740786e-05f, 6.018688964e-06f, 8.145534593e-07f, 2.371453256e-08f, 0.000000000e+00f, 0.000000000e+00f, -3.333349824e-01f, -3.267874718e-01f, -3.235886097e-01f, -3.197790384e-01f, -3.153743148e-01f, -3.076908588e-01f, -2.955474257e-01f, -2.814109921e-01f, -2.654991746e-01f, -2.388285995e-01f, -1.993876547e-01f, -1.574440002e-01f, -1.150202677e-01f, -5.432744324e-02f, 1.438624784e-02f, 6.425167620e-02f, 9.477680922e-02f, 1.109762117e-01f, 9.957206994e-02f, 7.516428083e-02f, 5.180183053e-02f},
  {-1.239031181e-02f, -5.151128862e-03f, -1.979499357e-03f, -7.398731541e-04f, -1.725510811e-04f, -2.339849198e-05f, -3.167489240e-06f, -4.286885940e-07f, 7.000957147e-09f, 0.000000000e+00f, 0.000000000e+00f, 6.483241305e-05f, 4.622073844e-02f, 5.610280484e-02f, 6.575559825e-02f, 7.514144480e-02f, 8.862791955e-02f, 1.053728685e-01f, 1.204757392e-01f, 1.337470114e-01f, 1.498409212e-01f, 1.640615165e-01f, 1.699272841e-01f, 1.680786610e-01f, 1.532495469e-01f, 1.194410995e-01f, 7.989820093e-02f, 4.336297885e-02f, 3.700617468e-03f, -2.109515481e-02f, -2.512123808e-02f, -2.084892988e-02f},
  {3.976149019e-03f, 1.916743233e-03f, 7.715101819e-04f, 2.930639312e-04f, 6.870414654e-05f, 9.334550668e-06f, 1.263962304e-06f, 1.710708659e-07f, 1.173071684e-08f, 0.000000000e+00f, 0.000000000e+00f, 1.324531883e-01f, 1.278054714e-01f, 1.251188815e-01f, 1.219271868e-01f, 1.183023751e-01f, 1.119898260e-01f, 1.021797061e-01f, 9.101206809e-02f, 7.878085971e-02f, 5.917249247e-02f, 3.205073997e-02f, 6.004349794e-03f, -1.710142381e-02f, -4.334130883e-02f, -6.151807308e-02f, -6.266439706e-02f, -5.307447538e-02f, -3.211044893e-02f, -9.554736316e-03f, 1.378577668e-03f, 4.595878534e-03f},
  {2.250000000e+00f, 2.750000000e+00f, 3.250000000e+00f, 3.750000000e+00f, 4.500000000e+00f, 5.500000000e+00f, 6.500000000e+00f, 7.500000000e+00f, 9.500000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 7.031250000e-02f, 8.593750000e-02f, 1.015625000e-01f, 1.171875000e-01f, 1.406250000e-01f, 1.718750000e-01f, 2.031250000e-01f, 2.343750000e-01f, 2.812500000e-01f, 3.437500000e-01f, 4.062500000e-01f, 4.687500000e-01f, 5.625000000e-01f, 6.875000000e-01f, 8.125000000e-01f, 9.375000000e-01f, 1.125000000e+00f, 1.375000000e+00f, 1.625000000e+00f, 1.875000000e+00f},
};

// Shared by the AVX-512 and the FMA (AVX2, NEON) sine and cosine.
constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23: x + kMagic rounds x to an integer
// pi = kPiHi + kPiMid + kPiLo (to 2e-22), all three positive, kPiHi just
// below pi: n * kPiHi is exact in an FMA and so is x - n * kPiHi. The parts
// are subtracted as products with negative constants, so n = +0 adds -0 and
// sin(-0) stays -0.
constexpr float kPiHi = 3.141592503e+00f;
constexpr float kPiMid = 1.509957883e-07f;
constexpr float kPiLo = 1.078060591e-14f;
constexpr float kInvPi = 0.318309873f;
// sin r = r (1 + z q(z)), z = r^2, |r| <= pi/2 (a little beyond): relative
// error 6e-9; the product form keeps sin(-0) = -0.
constexpr float kSinQ[4] = {-1.6666659712791443e-01f, 8.333064615726471e-03f,
                            -1.9809475634247065e-04f, 2.6054817681142595e-06f};

}  // namespace unary_internal
}  // namespace synops
#endif  // SYNOPS_OPS_UNARY_UNARY_MATH_TABLES_

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;

#if HWY_TARGET == HWY_AVX3
// ---- AVX-512: the same ops with instructions Highway 1.0.3 does not wrap
// (getmant/getexp, scalef, permutex2var, fixupimm, rcp14/rsqrt14), written
// for throughput. Every function here is checked by the same tests. ----
namespace x512 {

using unary_internal::kInvPi;
using unary_internal::kMagic;
using unary_internal::kPiHi;
using unary_internal::kPiLo;
using unary_internal::kPiMid;
using unary_internal::kSinQ;

HWY_INLINE __m512 C(float f) { return _mm512_set1_ps(f); }
HWY_INLINE __m512 Abs(__m512 x) {
  return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7FFFFFFF)));
}
// |m| with the sign of s (vpternlog: (m & ~signbit) | (s & signbit)).
HWY_INLINE __m512 WithSignOf(__m512 m, __m512 s) {
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(_mm512_set1_epi32(0x7FFFFFFF),
                                                       _mm512_castps_si512(m),
                                                       _mm512_castps_si512(s), 0xCA));
}
HWY_INLINE __m512 Xor(__m512 a, __m512i b) {
  return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), b));
}
HWY_INLINE __m512 Table(const float* t, __m512i idx) {
  return _mm512_permutex2var_ps(_mm512_load_ps(t), idx, _mm512_load_ps(t + 16));
}

// sin r for |r| <= pi/2 (see kSinQ).
HWY_INLINE __m512 SinPoly(__m512 r) {
  const __m512 z = _mm512_mul_ps(r, r);
  __m512 q = _mm512_fmadd_ps(C(kSinQ[3]), z, C(kSinQ[2]));
  q = _mm512_fmadd_ps(q, z, C(kSinQ[1]));
  q = _mm512_fmadd_ps(q, z, C(kSinQ[0]));
  return _mm512_mul_ps(r, _mm512_fmadd_ps(z, q, C(1.0f)));
}

// r = x - n c, c = kPi* * scale (scale 1 or 1/2: exact for the three parts).
HWY_INLINE __m512 SubtractPi(__m512 x, __m512 n, float scale) {
  const __m512 r = _mm512_fmadd_ps(n, C(-kPiHi * scale), x);
  return _mm512_fmadd_ps(n, C(-kPiLo * scale), _mm512_fmadd_ps(n, C(-kPiMid * scale), r));
}

// x = n pi + r, |r| <= pi/2; returns r and n's parity in bit 31 of *odd.
// For |x| <= 39000 r is relative-accurate (2 ULP for sin measured).
HWY_INLINE __m512 ReducePi(__m512 x, __m512i* odd) {
  const __m512 u = _mm512_fmadd_ps(x, C(kInvPi), C(kMagic));
  const __m512 n = _mm512_sub_ps(u, C(kMagic));
  *odd = _mm512_slli_epi32(_mm512_castps_si512(u), 31);
  return SubtractPi(x, n, 1.0f);
}

// sin x = (-1)^n sin r.
HWY_INLINE __m512 Sin(__m512 x) {
  __m512i odd;
  const __m512 r = ReducePi(x, &odd);
  return Xor(SinPoly(r), odd);
}

// cos x = (-1)^(n+1) sin r with x = (2n+1) pi/2 + r, n = round(x/pi - 1/2):
// the same polynomial, and r stays relative-accurate near the zeros of cos.
HWY_INLINE __m512 Cos(__m512 x) {
  const __m512 u = _mm512_add_ps(_mm512_fmadd_ps(x, C(kInvPi), C(-0.5f)), C(kMagic));
  const __m512 odd_n = _mm512_fmadd_ps(_mm512_sub_ps(u, C(kMagic)), C(2.0f), C(1.0f));
  const __m512 r = SubtractPi(x, odd_n, 0.5f);
  // Sign bit: n even -> flip (bit 0 of u, shifted to bit 31, xor the sign bit).
  const __m512i flip = _mm512_slli_epi32(_mm512_castps_si512(u), 31);
  return _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
      _mm512_castps_si512(SinPoly(r)), flip, _mm512_set1_epi32(static_cast<int>(0x80000000u)), 0x96));
}

// tanh: a degree-5 polynomial per segment of kTanhTable through
// two-register permutes: no division, no exponential.
HWY_INLINE __m512 Tanh(__m512 x) {
  const __m512 ax = _mm512_min_ps(C(9.5f), Abs(x));
  const __m512i k = _mm512_max_epi32(_mm512_srli_epi32(_mm512_castps_si512(ax), 21),
                                     _mm512_set1_epi32(491));  // below 1/16 -> slot 11
  const auto& c = unary_internal::kTanhTable;
  const __m512 t = _mm512_sub_ps(ax, Table(c[6], k));
  __m512 p = _mm512_fmadd_ps(Table(c[5], k), t, Table(c[4], k));
  p = _mm512_fmadd_ps(p, t, Table(c[3], k));
  p = _mm512_fmadd_ps(p, t, Table(c[2], k));
  p = _mm512_fmadd_ps(p, t, Table(c[1], k));
  p = _mm512_fmadd_ps(p, t, Table(c[0], k));
  return WithSignOf(p, x);
}

// 1/x correctly rounded without the divider: rcp14 (2^-14), one Newton step
// (2^-28), then y + y (1 - x y) (Markstein), which is correctly rounded
// except when the significand of x is all ones (1/x then lies just above a
// midpoint that the correction lands on exactly). Valid when the result is
// normal; returns the lanes where it is not (a zero, denormal, Inf or NaN
// result) or where x has such a significand: the caller divides those.
HWY_INLINE __mmask16 RcpFast(__m512 x, __m512* out) {
  const __m512 y0 = _mm512_rcp14_ps(x);
  const __m512 y1 = _mm512_fmadd_ps(y0, _mm512_fnmadd_ps(x, y0, C(1.0f)), y0);
  const __m512 y = _mm512_fmadd_ps(y1, _mm512_fnmadd_ps(x, y1, C(1.0f)), y1);
  *out = y;
  const __mmask16 all_ones = _mm512_cmpeq_epi32_mask(
      _mm512_or_si512(_mm512_castps_si512(x), _mm512_set1_epi32(static_cast<int>(0xFF800000u))),
      _mm512_set1_epi32(-1));
  return _mm512_fpclass_ps_mask(y, 0xBF) | all_ones;  // NaN, ±0, ±Inf, denormal
}
HWY_INLINE __m512 Rcp(__m512 x) {
  __m512 y;
  return RcpFast(x, &y) == 0 ? y : _mm512_div_ps(C(1.0f), x);
}

// sqrt x correctly rounded for x in [2^-100, FLT_MAX] (Markstein: Goldschmidt
// from rsqrt14, then one correction with the exact residual x - s^2); the
// divider's vsqrtps for vectors with anything else.
// Lanes outside [2^-100, FLT_MAX] (sign, zero, denormal, tiny, Inf, NaN).
HWY_INLINE __mmask16 SqrtFast(__m512 x, __m512* out) {
  const __m512 y0 = _mm512_rsqrt14_ps(x);
  const __m512 s0 = _mm512_mul_ps(x, y0);
  const __m512 h0 = _mm512_mul_ps(C(0.5f), y0);
  const __m512 r = _mm512_fnmadd_ps(s0, h0, C(0.5f));
  const __m512 s1 = _mm512_fmadd_ps(s0, r, s0);
  const __m512 h1 = _mm512_fmadd_ps(h0, r, h0);
  *out = _mm512_fmadd_ps(_mm512_fnmadd_ps(s1, s1, x), h1, s1);
  return _mm512_cmpge_epu32_mask(
      _mm512_sub_epi32(_mm512_castps_si512(x), _mm512_set1_epi32(0x0D800000)),
      _mm512_set1_epi32(0x7F800000 - 0x0D800000));
}
HWY_INLINE __m512 Sqrt(__m512 x) {
  __m512 y;
  return SqrtFast(x, &y) == 0 ? y : _mm512_sqrt_ps(x);
}

// 1/sqrt x: rsqrt14 (2^-14) and one Newton step y + (y/2)(1 - x y^2) whose
// last FMA is the only rounding that matters: <= 1 ULP (all 2^32 inputs
// checked with SYNOPS_UNARY_EXHAUSTIVE=1); rsqrt14 itself at ±0 and +Inf
// (±Inf, +0), which are exactly the lanes where e = 1 - x y^2 is NaN with a
// non-NaN y (below zero, and for NaN, y is NaN already).
HWY_INLINE __m512 Rsqrt(__m512 x) {
  const __m512 y0 = _mm512_rsqrt14_ps(x);
  const __m512 e = _mm512_fnmadd_ps(_mm512_mul_ps(x, y0), y0, C(1.0f));
  // The last FMA only where e is ordered: the other lanes keep y0. One
  // compare on e instead of a class test of x and a mask inversion: the op
  // is bound on the two vector ports (-8% time in L1, -13% at L2).
  return _mm512_mask3_fmadd_ps(_mm512_mul_ps(y0, C(0.5f)), e, y0,
                               _mm512_cmp_ps_mask(e, e, _CMP_ORD_Q));
}

// Four vectors at once: one through the divider, which runs in parallel with
// the FMA ports, three through the Newton paths (all three redone on the
// divider if any lane needs it).
HWY_INLINE void RcpQuad(__m512& a, __m512& b, __m512& c, __m512& e) {
  __m512 rb, rc, re;
  const __mmask16 bad = RcpFast(b, &rb) | RcpFast(c, &rc) | RcpFast(e, &re);
  a = _mm512_div_ps(C(1.0f), a);
  if (HWY_UNLIKELY(bad != 0)) {
    rb = _mm512_div_ps(C(1.0f), b), rc = _mm512_div_ps(C(1.0f), c), re = _mm512_div_ps(C(1.0f), e);
  }
  b = rb, c = rc, e = re;
}
HWY_INLINE void SqrtQuad(__m512& a, __m512& b, __m512& c, __m512& e) {
  __m512 rb, rc, re;
  const __mmask16 bad = SqrtFast(b, &rb) | SqrtFast(c, &rc) | SqrtFast(e, &re);
  a = _mm512_sqrt_ps(a);
  if (HWY_UNLIKELY(bad != 0)) rb = _mm512_sqrt_ps(b), rc = _mm512_sqrt_ps(c), re = _mm512_sqrt_ps(e);
  b = rb, c = rc, e = re;
}

// erf: the 32 segments of kErfCoeffs through two-register permutes.
HWY_INLINE __m512 Erf(__m512 x) {
  const __m512 ax = _mm512_min_ps(C(3.93f), Abs(x));
  const __m512 u = _mm512_fmadd_ps(ax, C(8.0f), C(kMagic));
  const __m512 t = _mm512_fnmadd_ps(_mm512_sub_ps(u, C(kMagic)), C(0.125f), ax);
  const __m512i k = _mm512_castps_si512(u);
  const auto& c = unary_internal::kErfCoeffs;
  __m512 p = _mm512_fmadd_ps(Table(c[4], k), t, Table(c[3], k));
  p = _mm512_fmadd_ps(p, t, Table(c[2], k));
  p = _mm512_fmadd_ps(p, t, Table(c[1], k));
  p = _mm512_fmadd_ps(p, t, Table(c[0], k));
  return WithSignOf(p, x);
}

// -1, +0, +1 or the NaN itself, by input class in one fixupimm:
// QNaN, SNaN -> input; ±0 -> +0; +1, +Inf, positive -> +1; -Inf, negative -> -1.
HWY_INLINE __m512 Sign(__m512 x) {
  return _mm512_fixupimm_ps(x, x, _mm512_set1_epi32(0xA9A9A811), 0);
}

}  // namespace x512
#endif  // HWY_TARGET == HWY_AVX3

#if HWY_TARGET != HWY_AVX3
// ---- AVX2, SSE4 and NEON: sine and cosine as on AVX-512, tanh from
// expm1, in Highway ops (hn::MulAdd: one FMA where the target has it, a
// multiply and an add on SSE4, whose reductions then take constants split
// so that every product with n is exact). ----
namespace poly_math {

using unary_internal::kInvPi;
using unary_internal::kMagic;
using unary_internal::kSinQ;

HWY_INLINE VF SinPoly(DF d, VF r) {
  const VF z = hn::Mul(r, r);
  VF q = hn::MulAdd(hn::Set(d, kSinQ[3]), z, hn::Set(d, kSinQ[2]));
  q = hn::MulAdd(q, z, hn::Set(d, kSinQ[1]));
  q = hn::MulAdd(q, z, hn::Set(d, kSinQ[0]));
  return hn::Mul(r, hn::MulAdd(z, q, hn::Set(d, 1.0f)));
}

// x - n pi scale (scale 1 or 1/2, |n| < 2^15 for |x| <= 39000).
HWY_INLINE VF SubtractPi(DF d, VF x, VF n, float scale) {
#if HWY_NATIVE_FMA
  const VF r = hn::MulAdd(n, hn::Set(d, -unary_internal::kPiHi * scale), x);
  return hn::MulAdd(n, hn::Set(d, -unary_internal::kPiLo * scale),
                    hn::MulAdd(n, hn::Set(d, -unary_internal::kPiMid * scale), r));
#else
  // Cody-Waite without FMA: pi = 3.140625 + 9.670257568e-04 + 6.277114153e-07
  // (9 significant bits each, so n times each is exact and so is each
  // difference where it cancels) + 1.215420126e-10 (to 2.4e-18).
  VF r = hn::MulAdd(n, hn::Set(d, -3.140625f * scale), x);
  r = hn::MulAdd(n, hn::Set(d, -9.670257568e-04f * scale), r);
  r = hn::MulAdd(n, hn::Set(d, -6.277114153e-07f * scale), r);
  return hn::MulAdd(n, hn::Set(d, -1.215420126e-10f * scale), r);
#endif
}

// sin x = (-1)^n sin(x - n pi), n = round(x / pi).
HWY_INLINE VF Sin(DF d, VF x) {
  const VF magic = hn::Set(d, kMagic);
  const VF u = hn::MulAdd(x, hn::Set(d, kInvPi), magic);
  const VF r = SubtractPi(d, x, hn::Sub(u, magic), 1.0f);
  return hn::Xor(SinPoly(d, r), hn::BitCast(d, hn::ShiftLeft<31>(hn::BitCast(DU(), u))));
}

// cos x = (-1)^(n+1) sin(x - (2n+1) pi/2), n = round(x / pi - 1/2).
HWY_INLINE VF Cos(DF d, VF x) {
  const VF magic = hn::Set(d, kMagic);
  const VF u = hn::Add(hn::MulAdd(x, hn::Set(d, kInvPi), hn::Set(d, -0.5f)), magic);
  const VF odd_n = hn::MulAdd(hn::Sub(u, magic), hn::Set(d, 2.0f), hn::Set(d, 1.0f));
  const VF r = SubtractPi(d, x, odd_n, 0.5f);
  const auto flip = hn::Xor(hn::ShiftLeft<31>(hn::BitCast(DU(), u)), hn::Set(DU(), 0x80000000u));
  const VF c = hn::Xor(SinPoly(d, r), hn::BitCast(d, flip));
#if HWY_NATIVE_FMA
  return c;
#else
  // Without FMA, sin(x + pi/2) near x = 0 rounds to 1 - 2^-24 at best: cos
  // x = 1 for |x| < 2^-12 (where 1 - x^2/2 rounds to 1), cos 0 included.
  return hn::IfThenElse(hn::Lt(hn::Abs(x), hn::Set(d, 0x1p-12f)), hn::Set(d, 1.0f), c);
#endif
}

// tanh |x| = e / (e + 2), e = expm1(2|x|) = 2^n (expm1(2h) + 1) - 1 with
// |x| = n ln2/2 + h (no cancellation near 0), with the sign of x; |x| is
// clamped to 9.1, where tanh rounds to 1. An error of e (relative) reaches
// tanh divided by at least 4: one Cody-Waite step and a degree-6 expm1
// (1.2e-8) suffice.
HWY_INLINE VF Tanh(DF d, VF x) {
  const DI di;
  const VF sign = hn::BitCast(d, hn::Set(DU(), 0x80000000u));
  const VF ax = hn::Min(hn::Set(d, 9.1f), hn::AndNot(sign, x));
  const VF magic = hn::Set(d, kMagic);
  const VF u = hn::MulAdd(ax, hn::Set(d, 2.885390043f), magic);
#if HWY_NATIVE_FMA
  const VF h = hn::NegMulAdd(hn::Sub(u, magic), hn::Set(d, 3.465735912e-01f), ax);
#else
  // ln2/2 = 0.3465728759765625 (19 bits: n times it is exact for n <= 27)
  // + 7.143033827e-07.
  const VF nf = hn::Sub(u, magic);
  const VF h = hn::NegMulAdd(nf, hn::Set(d, 7.143033827e-07f),
                             hn::NegMulAdd(nf, hn::Set(d, 0.3465728759765625f), ax));
#endif
  VF p = hn::MulAdd(hn::Set(d, 8.888874948e-02f), h, hn::Set(d, 2.678563893e-01f));
  p = hn::MulAdd(p, h, hn::Set(d, 6.666747928e-01f));
  p = hn::MulAdd(p, h, hn::Set(d, 1.333319426e+00f));
  p = hn::MulAdd(p, h, hn::Set(d, 1.999999881e+00f));
  p = hn::MulAdd(p, h, hn::Set(d, 2.0f));
  const VF em1 = hn::Mul(p, h);  // expm1(2h)
  // 2^n, n in [0, 27]: the low bits of u are n.
  const auto n = hn::Sub(hn::BitCast(di, u), hn::BitCast(di, magic));
  const VF two_n = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n, hn::Set(di, 127))));
  const VF e = hn::MulAdd(em1, two_n, hn::Sub(two_n, hn::Set(d, 1.0f)));
  const VF q = hn::Div(e, hn::Add(e, hn::Set(d, 2.0f)));
  // NEON's Min returns the number when the other operand is NaN.
  return hn::IfThenElse(hn::IsNaN(x), x, hn::Or(q, hn::And(x, sign)));
}

}  // namespace poly_math
#endif  // HWY_TARGET != HWY_AVX3

#endif  // HWY_TARGET != HWY_SCALAR
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#endif  // SYNOPS_OPS_UNARY_UNARY_MATH_INL_H_
