// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
//
// One kernel per target: it switches on the op once, then runs that op's
// vector loop. The bit-exact ops use single IEEE instructions (roundps/frint*,
// divps/fdiv, sqrtps/fsqrt) or bit operations. Erf is a 32-segment
// polynomial; Sin, Cos and Tanh (on FMA targets) are ours; Exp and Log (and
// the rest on SSE4) come from hwy/contrib/math with the special values
// SPEC.md fixes.
//
// On AVX-512 (namespace x512) the transcendental ops are rewritten for
// throughput with instructions Highway 1.0.3 does not wrap (scalef,
// getmant/getexp, two-register permutes, fixupimm, rcp14/rsqrt14), and Rcp
// and Sqrt mix Newton iterations with the divider, still correctly rounded.
// The AVX-512 loop aligns its stores, masks head and tail, and streams large
// arrays (core/streaming.h). Every path is checked by the same tests (unary_test.cc).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/unary/unary_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <cstdint>
#include <cstring>

#include "core/hwy_math-inl.h"
#include "core/streaming.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "ops/unary/unary_kernels.h"

#ifndef SYNOPS_OPS_UNARY_UNARY_HWY_TABLES_
#define SYNOPS_OPS_UNARY_UNARY_HWY_TABLES_
namespace synops {
namespace unary_internal {

// erf(|x|) on segment k = round(8|x|), k < 32, as c0 + t*(c1 + t*(c2 + t*(c3
// + t*c4))) with t = |x| - k/8 (segment 0: t = |x| in [0, 1/16], c0 = 0).
// Near-minimax fits of the relative error (Lawson), rounded to float:
// <= 0.8 * 2^-24 before rounding of the evaluation. Segment 31 (|x| >=
// 3.8125, where erf is within 7e-8 of 1) is the constant 1.
alignas(64) const float kErfCoeffs[5][32] = {
  {0.000000000e+00f, 1.403162032e-01f, 2.763263881e-01f, 4.041168988e-01f, 5.204998851e-01f, 6.232408881e-01f, 7.111556530e-01f, 7.840750813e-01f, 8.427007794e-01f, 8.883882165e-01f, 9.229001403e-01f, 9.481700659e-01f, 9.661051631e-01f, 9.784437418e-01f, 9.866716862e-01f, 9.919900298e-01f, 9.953222871e-01f, 9.973459840e-01f, 9.985373020e-01f, 9.992170334e-01f, 9.995930195e-01f, 9.997946024e-01f, 9.998993874e-01f, 9.999521375e-01f, 9.999778867e-01f, 9.999901056e-01f, 9.999957085e-01f, 9.999982119e-01f, 9.999992847e-01f, 9.999997020e-01f, 9.999998808e-01f, 1.000000000e+00f},
  {1.128379107e+00f, 1.110884786e+00f, 1.060013771e+00f, 9.803525805e-01f, 8.787825704e-01f, 7.634996772e-01f, 6.429313421e-01f, 5.247453451e-01f, 4.151078165e-01f, 3.182742596e-01f, 2.365213484e-01f, 1.703599244e-01f, 1.189303622e-01f, 8.047226816e-02f, 5.277496576e-02f, 3.354577348e-02f, 2.066692337e-02f, 1.234076079e-02f, 7.142268121e-03f, 4.006437957e-03f, 2.178255003e-03f, 1.147854957e-03f, 5.862640683e-04f, 2.902201086e-04f, 1.392481936e-04f, 6.475592818e-05f, 2.918752398e-05f, 1.275095747e-05f, 5.399033853e-06f, 2.215730774e-06f, 8.813441923e-07f, 0.0f},
  {6.866926924e-06f, -1.388536245e-01f, -2.650006413e-01f, -3.676308393e-01f, -4.393905699e-01f, -4.771869481e-01f, -4.821983278e-01f, -4.591521323e-01f, -4.151078165e-01f, -3.580585718e-01f, -2.956517637e-01f, -2.342450023e-01f, -1.783956885e-01f, -1.307675987e-01f, -9.235635400e-02f, -6.289847940e-02f, -4.133397341e-02f, -2.622422017e-02f, -1.607018150e-02f, -9.515346028e-03f, -5.445675924e-03f, -3.013144247e-03f, -1.612241846e-03f, -8.343921509e-04f, -4.177500086e-04f, -2.023652778e-04f, -9.486106137e-05f, -4.303530659e-05f, -1.889702799e-05f, -8.032219739e-06f, -3.305131031e-06f, 0.0f},
  {-3.766760230e-01f, -3.582225144e-01f, -3.087815642e-01f, -2.346547246e-01f, -1.464283466e-01f, -5.580544099e-02f, 2.652914636e-02f, 9.259573370e-02f, 1.380316168e-01f, 1.621530801e-01f, 1.673054844e-01f, 1.577882469e-01f, 1.386793405e-01f, 1.148301512e-01f, 9.018949419e-02f, 6.749695539e-02f, 4.828680679e-02f, 3.309838101e-02f, 2.177657932e-02f, 1.377134304e-02f, 8.379969746e-03f, 4.911034368e-03f, 2.773857443e-03f, 1.510911970e-03f, 7.940719370e-04f, 4.028422409e-04f, 1.973452745e-04f, 9.338465316e-05f, 4.269761848e-05f, 1.886768769e-05f, 8.059641914e-06f, 0.0f},
  {1.408213191e-02f, 6.682303548e-02f, 1.260934472e-01f, 1.660235226e-01f, 1.827150285e-01f, 1.762429923e-01f, 1.505973637e-01f, 1.124135330e-01f, 6.928256899e-02f, 2.812225558e-02f, -5.990345497e-03f, -3.033852577e-02f, -4.446328059e-02f, -4.962049797e-02f, -4.804165289e-02f, -4.223253950e-02f, -3.444231674e-02f, -2.637353167e-02f, -1.910334639e-02f, -1.315454021e-02f, -8.641516790e-03f, -5.429656710e-03f, -3.269446315e-03f, -1.889556763e-03f, -1.049446641e-03f, -5.606689956e-04f, -2.883732086e-04f, -1.428903633e-04f, -6.825035962e-05f, -3.143952927e-05f, -1.397329834e-05f, 0.0f},
};

// log x = e ln2 + T_j + log1p(r) with e = getexp(x), m = getmant(x) in
// [0.75, 1.5), bucket j = the top five mantissa bits of m (width 1/32 on
// [1, 1.5), 1/64 on [0.75, 1)), r = m * inv_c_j - 1 in [-1/64, 1/32].
// Row 0: inv_c_j, a float near 1/midpoint (1 for the two buckets next to 1).
// Row 1: T_j = -log(inv_c_j), plus ln2f (float(ln2)) on [0.75, 1) where
// getexp is one less than m's exponent; ln2f itself for the bucket just
// below 1, so e ln2f + T_j cancels exactly there. inv_c_j was searched so
// that T_j is within 2^-34 of its exact value: e ln2f + T_j is then exact
// (Sterbenz) or relatively accurate wherever log x is small.
alignas(64) const float kLogTable[2][32] = {
  {1.000000000e+00f, 9.552043080e-01f, 9.275087118e-01f, 9.015070796e-01f, 8.766513467e-01f, 8.534204960e-01f, 8.311185241e-01f, 8.100588918e-01f, 7.901990414e-01f, 7.711816430e-01f, 7.528231740e-01f, 7.356563807e-01f, 7.190330029e-01f, 7.033945918e-01f, 6.882533431e-01f, 6.737800241e-01f, 1.319621682e+00f, 1.292992949e+00f, 1.267435551e+00f, 1.242736340e+00f, 1.219279885e+00f, 1.196092486e+00f, 1.174247742e+00f, 1.153080344e+00f, 1.132776499e+00f, 1.113232136e+00f, 1.093877554e+00f, 1.075641751e+00f, 1.058087468e+00f, 1.040544629e+00f, 1.024033308e+00f, 1.000000000e+00f},
  {0.000000000e+00f, 4.583002627e-02f, 7.525309175e-02f, 1.036873832e-01f, 1.316459179e-01f, 1.585028917e-01f, 1.849828660e-01f, 2.106483281e-01f, 2.354704142e-01f, 2.598313391e-01f, 2.839249074e-01f, 3.069921434e-01f, 3.298480213e-01f, 3.518372476e-01f, 3.735982776e-01f, 3.948515952e-01f, 4.158020914e-01f, 4.361875355e-01f, 4.561515749e-01f, 4.758315086e-01f, 4.948867559e-01f, 5.140872002e-01f, 5.325194597e-01f, 5.507102609e-01f, 5.684754848e-01f, 5.858795643e-01f, 6.034184098e-01f, 6.202297211e-01f, 6.366841793e-01f, 6.534029245e-01f, 6.693981290e-01f, 6.931471825e-01f},
};

// tanh(|x|) on 32 segments (AVX-512): the slot is bits(|x|) >> 21 mod 32,
// i.e. four segments per octave from 1/16 to 16 (|x| is clamped to 9.5,
// where tanh and the last segment round to 1); |x| < 1/16 uses slot 11 (that of [10, 12),
// unused). Per slot: c0..c5 of c0 + t (c1 + ... + t c5), t = |x| - mid,
// then mid (0 for |x| < 1/16, where c0 = 0; 9.5 for [8, 9.5], where c0 = 1
// instead of tanh(9.5) = 1 - 1.1e-8, so that clamped inputs give exactly 1). Near-minimax fits of the
// relative error, rounded to float: <= 1.1e-8 before evaluation.
alignas(64) const float kTanhTable[7][32] = {
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
#endif  // SYNOPS_OPS_UNARY_UNARY_HWY_TABLES_

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using DF = hn::ScalableTag<float>;
using DU = hn::RebindToUnsigned<DF>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;

HWY_INLINE VF FromBits(DF d, uint32_t bits) { return hn::BitCast(d, hn::Set(DU(), bits)); }

#if HWY_TARGET == HWY_AVX3
// Four vectors of the main loop; ops that mix the divider with Newton
// iterations overload this (see RcpOp, SqrtOp).
template <class Op>
HWY_INLINE void Quad(const Op& op, VF& a, VF& b, VF& c, VF& e) {
  const DF d;
  a = op(d, a), b = op(d, b), c = op(d, c), e = op(d, e);
}

// Arrays of at least kStreamingStoreMinBytes (core/streaming.h), not in
// place, are written with non-temporal stores, and their input prefetched
// this far ahead.
constexpr size_t kPrefetchBytes = 4096;

// dst[i] = op(d, src[i]): a masked head that aligns dst to 64 bytes, four
// vectors per iteration with aligned (or streaming) stores, a masked tail.
// Masked loads never touch memory outside the arrays; in place is safe
// because every element is loaded before its own store.
template <class Op>
HWY_INLINE void Map(const float* src, size_t n, float* dst, Op op) {
  const DF d;
  size_t i = 0;
  const size_t misaligned = (reinterpret_cast<uintptr_t>(dst) / sizeof(float)) & 15;
  if (misaligned != 0) {
    const size_t head = HWY_MIN(16 - misaligned, n);
    const __mmask16 m = static_cast<__mmask16>((1u << head) - 1);
    _mm512_mask_storeu_ps(dst, m, op(d, VF{_mm512_maskz_loadu_ps(m, src)}).raw);
    i = head;
  }
  if (n * sizeof(float) >= kStreamingStoreMinBytes && src != dst) {
    for (; i + 64 <= n; i += 64) {
      // Prefetch well ahead: the compute-heavy ops otherwise keep too few
      // misses in flight to saturate memory.
      const char* ahead = reinterpret_cast<const char*>(src + i) + kPrefetchBytes;
      _mm_prefetch(ahead, _MM_HINT_T0);
      _mm_prefetch(ahead + 64, _MM_HINT_T0);
      _mm_prefetch(ahead + 128, _MM_HINT_T0);
      _mm_prefetch(ahead + 192, _MM_HINT_T0);
      VF a = hn::LoadU(d, src + i), b = hn::LoadU(d, src + i + 16);
      VF c = hn::LoadU(d, src + i + 32), e = hn::LoadU(d, src + i + 48);
      Quad(op, a, b, c, e);
      _mm512_stream_ps(dst + i, a.raw);
      _mm512_stream_ps(dst + i + 16, b.raw);
      _mm512_stream_ps(dst + i + 32, c.raw);
      _mm512_stream_ps(dst + i + 48, e.raw);
    }
    _mm_sfence();
  }
  for (; i + 64 <= n; i += 64) {
    VF a = hn::LoadU(d, src + i), b = hn::LoadU(d, src + i + 16);
    VF c = hn::LoadU(d, src + i + 32), e = hn::LoadU(d, src + i + 48);
    Quad(op, a, b, c, e);
    hn::Store(a, d, dst + i);
    hn::Store(b, d, dst + i + 16);
    hn::Store(c, d, dst + i + 32);
    hn::Store(e, d, dst + i + 48);
  }
  for (; i + 16 <= n; i += 16) hn::Store(op(d, hn::LoadU(d, src + i)), d, dst + i);
  if (i < n) {
    const __mmask16 m = static_cast<__mmask16>((1u << (n - i)) - 1);
    _mm512_mask_storeu_ps(dst + i, m, op(d, VF{_mm512_maskz_loadu_ps(m, src + i)}).raw);
  }
}
#else
// dst[i] = op(d, src[i]) over whole vectors, then the tail through a
// zero-padded buffer (never past either array, and safe in place).
template <class Op>
HWY_INLINE void Map(const float* src, size_t n, float* dst, Op op) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const VF a = hn::LoadU(d, src + i);
    const VF b = hn::LoadU(d, src + i + lanes);
    hn::StoreU(op(d, a), d, dst + i);
    hn::StoreU(op(d, b), d, dst + i + lanes);
  }
  if (i + lanes <= n) {
    hn::StoreU(op(d, hn::LoadU(d, src + i)), d, dst + i);
    i += lanes;
  }
  if (i < n) {
    HWY_ALIGN float buf[hn::MaxLanes(DF())] = {};
    std::memcpy(buf, src + i, (n - i) * sizeof(float));
    hn::Store(op(d, hn::Load(d, buf)), d, buf);
    std::memcpy(dst + i, buf, (n - i) * sizeof(float));
  }
}
#endif  // HWY_TARGET == HWY_AVX3

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

using hmath::kLn2Hi;  // 12 bits: n * kLn2Hi is exact
using hmath::kLn2Lo;
using hmath::kLog2e;

// x = n ln2 + r, |r| <= ln2/2 (Cody-Waite; exact first step), n rounded by
// adding 1.5 * 2^23 (an FMA and a subtraction instead of roundscale).
HWY_INLINE __m512 ReduceLn2(__m512 x, __m512* n) {
  *n = _mm512_sub_ps(_mm512_fmadd_ps(x, C(kLog2e), C(kMagic)), C(kMagic));
  return _mm512_fnmadd_ps(*n, C(kLn2Lo), _mm512_fnmadd_ps(*n, C(kLn2Hi), x));
}

// e^x: 2^n * p(r), p of degree 6 (relative error 3.3e-9), scalef rounds into
// denormals and overflows to Inf. x is clamped to [-104, 104] (min/max keep NaN).
HWY_INLINE __m512 Exp(__m512 x) {
  x = _mm512_min_ps(C(104.0f), _mm512_max_ps(C(-104.0f), x));
  __m512 n;
  const __m512 r = ReduceLn2(x, &n);
  const __m512 p = hmath::ExpPolyReduced(DF(), VF{r}).raw;  // shared with softmax
  return _mm512_scalef_ps(p, n);
}

// log x (see kLogTable): getmant/getexp handle denormals, ±0 (getexp = -Inf
// gives -Inf), +Inf, NaN and negative inputs (NaN).
HWY_INLINE __m512 Log(__m512 x) {
  const __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_p75_1p5, _MM_MANT_SIGN_nan);
  const __m512 e = _mm512_getexp_ps(x);
  const __m512i j = _mm512_srli_epi32(_mm512_castps_si512(m), 18);
  const __m512 inv_c = Table(unary_internal::kLogTable[0], j);
  const __m512 t = _mm512_fmadd_ps(e, C(0.693147182f), Table(unary_internal::kLogTable[1], j));
  const __m512 r = _mm512_fmsub_ps(m, inv_c, C(1.0f));
  // log1p(r) = r q(r), relative error 8.3e-9 on [-1/64, 1/32].
  __m512 q = _mm512_fmadd_ps(C(-2.438943982e-01f), r, C(3.333665729e-01f));
  q = _mm512_fmadd_ps(q, r, C(-5.000012517e-01f));
  q = _mm512_fmadd_ps(q, r, C(1.0f));
  return _mm512_fmadd_ps(q, r, t);
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

#if HWY_NATIVE_FMA && HWY_TARGET != HWY_AVX3
// ---- AVX2 and NEON: sine and cosine as on AVX-512, tanh from expm1 (the
// reductions need a fused multiply-add; SSE4 keeps Highway's). ----
namespace fma_math {

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

HWY_INLINE VF SubtractPi(DF d, VF x, VF n, float scale) {
  const VF r = hn::MulAdd(n, hn::Set(d, -unary_internal::kPiHi * scale), x);
  return hn::MulAdd(n, hn::Set(d, -unary_internal::kPiLo * scale),
                    hn::MulAdd(n, hn::Set(d, -unary_internal::kPiMid * scale), r));
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
  return hn::Xor(SinPoly(d, r), hn::BitCast(d, flip));
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
  const VF h = hn::NegMulAdd(hn::Sub(u, magic), hn::Set(d, 3.465735912e-01f), ax);
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

}  // namespace fma_math
#endif  // HWY_NATIVE_FMA && HWY_TARGET != HWY_AVX3

struct AbsOp {
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::And(v, FromBits(d, 0x7FFFFFFFu)); }
};
struct NegOp {
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::Xor(v, FromBits(d, 0x80000000u)); }
};
struct NotOp {
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::Xor(v, FromBits(d, 0xFFFFFFFFu)); }
};
struct ZeroOp {
  HWY_INLINE VF operator()(DF d, VF) const { return hn::Zero(d); }
};
// roundps / frint* quiet a NaN and keep its payload, as the reference does.
struct CeilOp {
  HWY_INLINE VF operator()(DF, VF v) const { return hn::Ceil(v); }
};
struct FloorOp {
  HWY_INLINE VF operator()(DF, VF v) const { return hn::Floor(v); }
};
struct RoundOp {
  HWY_INLINE VF operator()(DF, VF v) const { return hn::Round(v); }
};
struct RcpOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Rcp(v.raw)};
#else
    (void)d;
    return hn::Div(hn::Set(d, 1.0f), v);
#endif
  }
};
struct SqrtOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Sqrt(v.raw)};
#else
    (void)d;
    return hn::Sqrt(v);
#endif
  }
};
// 1/sqrt(x) with two IEEE roundings: <= 1.5 ULP.
struct RsqrtOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Rsqrt(v.raw)};
#else
    (void)d;
    return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(v));
#endif
  }
};
// +1 / -1 with the sign of v for v != 0; +0 for ±0; v itself for NaN.
struct SignOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Sign(v.raw)};
#else
    const VF one = hn::Set(d, 1.0f);
    const VF r = hn::Or(hn::IfThenElseZero(hn::Gt(v, hn::Zero(d)), one),
                        hn::IfThenElseZero(hn::Lt(v, hn::Zero(d)), hn::Neg(one)));
    return hn::IfThenElse(hn::IsNaN(v), v, r);
#endif
  }
};

// Highway's Exp (1 ULP) is valid up to 104; beyond it the result is Inf.
struct ExpOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Exp(v.raw)};
#else
    const VF r = hn::Exp(d, hn::Min(v, hn::Set(d, 100.0f)));
    return hn::IfThenElse(hn::IsNaN(v), v, r);
#endif
  }
};
// Highway's Log (<= 2 ULP measured) for x > 0; SPEC's special values.
struct LogOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Log(v.raw)};
#else
    const VF inf = hn::Set(d, HUGE_VALF);
    VF r = hn::Log(d, v);
    r = hn::IfThenElse(hn::Eq(v, inf), inf, r);
    r = hn::IfThenElse(hn::Eq(v, hn::Zero(d)), hn::Neg(inf), r);
    r = hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Set(d, NAN), r);
    return hn::IfThenElse(hn::IsNaN(v), v, r);
#endif
  }
};
struct SinOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Sin(v.raw)};
#elif HWY_NATIVE_FMA
    return fma_math::Sin(d, v);
#else
    // Highway's Sin loses the sign of -0.
    const VF r = hn::IfThenElse(hn::Eq(v, hn::Zero(d)), v, hn::Sin(d, v));
    return hn::IfThenElse(hn::IsInf(v), hn::Set(d, NAN), r);
#endif
  }
};
struct CosOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Cos(v.raw)};
#elif HWY_NATIVE_FMA
    return fma_math::Cos(d, v);
#else
    return hn::IfThenElse(hn::IsInf(v), hn::Set(d, NAN), hn::Cos(d, v));
#endif
  }
};
struct TanhOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Tanh(v.raw)};
#elif HWY_NATIVE_FMA
    return fma_math::Tanh(d, v);
#else
    return hn::Tanh(d, v);
#endif
  }
};

// erf: 32 polynomial segments of width 1/8 over [0, 3.93]; |x| is clamped
// to 3.93 (segment 31: erf = ±1).
struct ErfOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Erf(v.raw)};
#else
    const DI di;
    const VF sign_mask = FromBits(d, 0x80000000u);
    const VF ax = hn::Min(hn::AndNot(sign_mask, v), hn::Set(d, 3.93f));
    const VF magic = hn::Set(d, unary_internal::kMagic);
    const VF u = hn::MulAdd(ax, hn::Set(d, 8.0f), magic);
    const VF t = hn::NegMulAdd(hn::Sub(u, magic), hn::Set(d, 0.125f), ax);
    const auto k = hn::And(hn::BitCast(di, u), hn::Set(di, 31));
    const auto& c = unary_internal::kErfCoeffs;
    VF p = hn::GatherIndex(d, c[4], k);
    p = hn::MulAdd(p, t, hn::GatherIndex(d, c[3], k));
    p = hn::MulAdd(p, t, hn::GatherIndex(d, c[2], k));
    p = hn::MulAdd(p, t, hn::GatherIndex(d, c[1], k));
    p = hn::MulAdd(p, t, hn::GatherIndex(d, c[0], k));
    const VF r = hn::Or(p, hn::And(v, sign_mask));
    return hn::IfThenElse(hn::IsNaN(v), v, r);
#endif
  }
};


#if HWY_TARGET == HWY_AVX3
HWY_INLINE void Quad(const RcpOp&, VF& a, VF& b, VF& c, VF& e) {
  x512::RcpQuad(a.raw, b.raw, c.raw, e.raw);
}
HWY_INLINE void Quad(const SqrtOp&, VF& a, VF& b, VF& c, VF& e) {
  x512::SqrtQuad(a.raw, b.raw, c.raw, e.raw);
}
#endif

// Map with denormal inputs read as zero and denormal results flushed to
// zero (MXCSR DAZ and FTZ on x86, restored afterwards). On x86 every
// arithmetic instruction that meets a denormal takes a microcode assist: a
// few such inputs made Exp 20x slower. Only for the approximate ops whose
// SPEC bound absorbs it: exp(denormal) = 1 either way; sin, erf and tanh of
// a denormal become ±0 (within 1e-7 absolute), cos 1; exp results below
// FLT_MIN become 0 (allowed below -87.3). Log needs none (getmant/getexp
// take denormals without assists; elsewhere Highway's Log scales them).
template <class Op>
HWY_INLINE void MapFlushingDenormals(const float* src, size_t n, float* dst, Op op) {
#if HWY_ARCH_X86
  const unsigned int saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040);  // FTZ (bit 15) | DAZ (bit 6)
  Map(src, n, dst, op);
  _mm_setcsr(saved);
#else
  Map(src, n, dst, op);
#endif
}

void UnaryHwy(const float* src, size_t n, UnaryOp type, float* dst) {
  switch (type) {
    case UnaryOp::kAbs:
      return Map(src, n, dst, AbsOp());
    case UnaryOp::kCeil:
      return Map(src, n, dst, CeilOp());
    case UnaryOp::kCos:
      return MapFlushingDenormals(src, n, dst, CosOp());
    case UnaryOp::kErf:
      return MapFlushingDenormals(src, n, dst, ErfOp());
    case UnaryOp::kExp:
      return MapFlushingDenormals(src, n, dst, ExpOp());
    case UnaryOp::kFloor:
      return Map(src, n, dst, FloorOp());
    case UnaryOp::kLog:
      return Map(src, n, dst, LogOp());
    case UnaryOp::kNeg:
      return Map(src, n, dst, NegOp());
    case UnaryOp::kNot:
      return Map(src, n, dst, NotOp());
    case UnaryOp::kRcp:
      return Map(src, n, dst, RcpOp());
    case UnaryOp::kRound:
      return Map(src, n, dst, RoundOp());
    case UnaryOp::kRsqrt:
      return Map(src, n, dst, RsqrtOp());
    case UnaryOp::kSign:
      return Map(src, n, dst, SignOp());
    case UnaryOp::kSin:
      return MapFlushingDenormals(src, n, dst, SinOp());
    case UnaryOp::kSqrt:
      return Map(src, n, dst, SqrtOp());
    case UnaryOp::kTanh:
      return MapFlushingDenormals(src, n, dst, TanhOp());
    case UnaryOp::kZero:
      return Map(src, n, dst, ZeroOp());
  }
}

#endif  // HWY_TARGET != HWY_SCALAR
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/hwy_kernels.h"

namespace synops {
namespace unary_internal {

std::vector<Kernel<UnaryOperation32fFn>> UnaryOperation32fHwyKernels() {
  return {SYNOPS_HWY_KERNELS(UnaryHwy)};
}

}  // namespace unary_internal
}  // namespace synops
#endif  // HWY_ONCE
