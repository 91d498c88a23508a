// The transcendental activations of SPEC.md §4 (Elu, Mish, Swish, Gelu) on
// FP32 rows, Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
// The vector algorithms' epilogues use them; ref::direct keeps the formula
// in double. Within SPEC's activation error (<= 4 ULP or 1e-6 absolute,
// whichever is larger):
//   Elu   v >= 0 ? v : p0 * expm1(v)             (Highway Expm1; the exps
//         below are hmath::ExpClamped)
//   Swish v / (1 + exp(-v p0))
//   Mish  v > p0 ? v : v * n / (n + 2), n = e (e + 2), e = exp(min(v, 20))
//         (tanh(log1p(e)) = ((1+e)^2 - 1) / ((1+e)^2 + 1); at v = 20 the
//         ratio is already 1 in FP32)
//   Gelu  v * Phi(v), Phi(v) = erfc(-v / sqrt 2) / 2, erfc(x) for x >= 0
//         as t exp(-x^2 + P(t)), t = 1 / (1 + x / 2) (Numerical Recipes'
//         Chebyshev fit, relative error < 1.2e-7); where x^2's rounding
//         matters the result is below 1e-6.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "conv16b/conv16b_act_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <cstddef>

#include "conv16b/conv16b_internal.h"
#include "core/hwy_math-inl.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// N independent vectors computed stage by stage: an activation is one
// long dependency chain (Gelu: a division, ten FMAs and an exponential,
// about 100 cycles), and one vector per loop iteration left the core
// waiting on it; interleaved in the instruction stream, N chains overlap.
template <size_t N>
struct Pack {
  VF v[N];
};
template <size_t N>
struct MaskPack {
  hn::Mask<DF> v[N];
};
#define SYNOPS_EACH(N, expr)                                     \
  _Pragma("GCC unroll 4") for (size_t k = 0; k < N; ++k) expr;
// Name(Params) on each of the N vectors, as a Pack (R = Pack) or a
// MaskPack of the results.
#define SYNOPS_PACK_OP(R, Name, Params, Args)                    \
  template <size_t N>                                            \
  HWY_INLINE R<N> Name Params {                                  \
    R<N> r;                                                      \
    SYNOPS_EACH(N, r.v[k] = hn::Name Args)                       \
    return r;                                                    \
  }
SYNOPS_PACK_OP(Pack, Abs, (Pack<N> a), (a.v[k]))
SYNOPS_PACK_OP(Pack, Neg, (Pack<N> a), (a.v[k]))
SYNOPS_PACK_OP(Pack, Add, (Pack<N> a, Pack<N> b), (a.v[k], b.v[k]))
SYNOPS_PACK_OP(Pack, Sub, (Pack<N> a, Pack<N> b), (a.v[k], b.v[k]))
SYNOPS_PACK_OP(Pack, Mul, (Pack<N> a, Pack<N> b), (a.v[k], b.v[k]))
SYNOPS_PACK_OP(Pack, Div, (Pack<N> a, Pack<N> b), (a.v[k], b.v[k]))
SYNOPS_PACK_OP(Pack, Min, (Pack<N> a, Pack<N> b), (a.v[k], b.v[k]))
SYNOPS_PACK_OP(Pack, Max, (Pack<N> a, Pack<N> b), (a.v[k], b.v[k]))
SYNOPS_PACK_OP(Pack, MulAdd, (Pack<N> a, Pack<N> b, Pack<N> c), (a.v[k], b.v[k], c.v[k]))
SYNOPS_PACK_OP(Pack, NegMulAdd, (Pack<N> a, Pack<N> b, Pack<N> c), (a.v[k], b.v[k], c.v[k]))
SYNOPS_PACK_OP(Pack, Expm1, (DF d, Pack<N> a), (d, a.v[k]))
SYNOPS_PACK_OP(Pack, IfThenElse, (MaskPack<N> m, Pack<N> a, Pack<N> b), (m.v[k], a.v[k], b.v[k]))
SYNOPS_PACK_OP(MaskPack, Ge, (Pack<N> a, Pack<N> b), (a.v[k], b.v[k]))
SYNOPS_PACK_OP(MaskPack, Gt, (Pack<N> a, Pack<N> b), (a.v[k], b.v[k]))
SYNOPS_PACK_OP(MaskPack, IsNaN, (Pack<N> a), (a.v[k]))
#undef SYNOPS_PACK_OP
template <size_t N>
HWY_INLINE Pack<N> Set(DF d, float c) {
  Pack<N> r;
  SYNOPS_EACH(N, r.v[k] = hn::Set(d, c))
  return r;
}
#undef SYNOPS_EACH

// Highway's Exp and Expm1 are specified on [-87, 88] (e^x is then 0 or
// +Inf within FP32 anyway): arguments are clamped there.
template <size_t N>
HWY_INLINE Pack<N> Clamp(DF d, Pack<N> x) {
  return Min(Max(x, Set<N>(d, -87.0f)), Set<N>(d, 88.0f));
}
// e^x for x in [-87, 88] by hmath::ExpClamped (<= 1 ULP): Highway's hn::Exp,
// which takes any x, made Swish 1.5x slower on AVX-512 and 1.8x on AVX2.
template <size_t N>
HWY_INLINE Pack<N> ExpClamped(DF d, Pack<N> x) {
  Pack<N> r;
  for (size_t k = 0; k < N; ++k) r.v[k] = hmath::ExpClamped(d, x.v[k]);
  return r;
}

template <Activation A, size_t N>
HWY_INLINE Pack<N> ActivateVec(DF d, Pack<N> v, float p0) {
  const Pack<N> zero = Set<N>(d, 0.0f), one = Set<N>(d, 1.0f);
  if constexpr (A == Activation::kElu) {
    const Pack<N> neg = Mul(Set<N>(d, p0), Expm1(d, Clamp(d, Min(v, zero))));
    return IfThenElse(Ge(v, zero), v, neg);
  } else if constexpr (A == Activation::kSwish) {
    // e^80 already makes v / (1 + e) negligible; larger would make normal
    // v denormal (a microcode assist per operation).
    const Pack<N> arg = Min(Mul(Neg(v), Set<N>(d, p0)), Set<N>(d, 80.0f));
    return Div(v, Add(one, ExpClamped(d, Clamp(d, arg))));
  } else if constexpr (A == Activation::kMish) {
    const Pack<N> e = ExpClamped(d, Clamp(d, Min(v, Set<N>(d, 20.0f))));
    const Pack<N> n = Mul(e, Add(e, Set<N>(d, 2.0f)));
    const Pack<N> m = Mul(v, Div(n, Add(n, Set<N>(d, 2.0f))));
    return IfThenElse(Gt(v, Set<N>(d, p0)), v, m);
  } else {
    static_assert(A == Activation::kGelu, "activation");
    const Pack<N> x = Mul(Abs(v), Set<N>(d, 0.70710678118654752440f));
    const Pack<N> t = Div(one, MulAdd(x, Set<N>(d, 0.5f), one));
    Pack<N> q = Set<N>(d, conv16b_internal::kGeluErfcPoly[0]);
    for (int i = 1; i < 10; ++i) q = MulAdd(q, t, Set<N>(d, conv16b_internal::kGeluErfcPoly[i]));
    // erfc(|v| / sqrt 2); the exponent is clamped at -80 so no intermediate
    // is denormal (each denormal operation costs a microcode assist; the
    // result is then below 1e-35 either way).
    const Pack<N> arg = Max(NegMulAdd(x, x, q), Set<N>(d, -80.0f));
    const Pack<N> erfc = Mul(t, ExpClamped(d, arg));
    const Pack<N> half = Mul(erfc, Set<N>(d, 0.5f));
    const Pack<N> phi = IfThenElse(Ge(v, zero), Sub(one, half), half);
    return Mul(v, phi);
  }
}

// NaN sums stay NaN (the clamps would turn them into numbers).
template <Activation A, size_t N>
HWY_INLINE Pack<N> ActivateOrNaN(DF d, Pack<N> v, float p0) {
  return IfThenElse(IsNaN(v), v, ActivateVec<A>(d, v, p0));
}

template <Activation A, size_t N>
HWY_INLINE void ActivateAt(DF d, float* HWY_RESTRICT p, float p0) {
  const size_t lanes = hn::Lanes(d);
  Pack<N> v;
  for (size_t k = 0; k < N; ++k) v.v[k] = hn::LoadU(d, p + k * lanes);
  v = ActivateOrNaN<A>(d, v, p0);
  for (size_t k = 0; k < N; ++k) hn::StoreU(v.v[k], d, p + k * lanes);
}

// Chains per iteration: as many as the registers hold without spilling
// (16 vector registers on x86 below AVX-512: 2; 32 elsewhere: 4).
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
constexpr size_t kPack = 2;
#else
constexpr size_t kPack = 4;
#endif

template <Activation A>
HWY_INLINE void ActivateRow(float* v, size_t n, float p0) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + kPack * lanes <= n; i += kPack * lanes) ActivateAt<A, kPack>(d, v + i, p0);
  for (; i + lanes <= n; i += lanes) ActivateAt<A, 1>(d, v + i, p0);
  if (i < n) {
    // The tail through a zero-padded copy: a full-vector load at v + i
    // would read past the row (ASan: heap-buffer-overflow).
    const size_t left = n - i;
    HWY_ALIGN float tmp[hn::MaxLanes(d)] = {};
    for (size_t j = 0; j < left; ++j) tmp[j] = v[i + j];
    ActivateAt<A, 1>(d, tmp, p0);
    for (size_t j = 0; j < left; ++j) v[i + j] = tmp[j];
  }
}

void ActivateTranscendentalHwy(Activation a, const float* params, float* v, size_t n) {
  switch (a) {
    case Activation::kElu:
      return ActivateRow<Activation::kElu>(v, n, params[0]);
    case Activation::kMish:
      return ActivateRow<Activation::kMish>(v, n, params[0]);
    case Activation::kSwish:
      return ActivateRow<Activation::kSwish>(v, n, params[0]);
    case Activation::kGelu:
      return ActivateRow<Activation::kGelu>(v, n, 0.0f);
    default:
      return;
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
namespace conv16b_internal {

namespace {
void ActivateTranscendentalRef(Activation a, const float* params, float* v, size_t n) {
  for (size_t i = 0; i < n; ++i) v[i] = ActivateAny(v[i], a, params, 0);
}
}  // namespace

const KernelTable<ActivateFn>& ActivateKernels() {
  static const KernelTable<ActivateFn>* const table = new KernelTable<ActivateFn>({
      SYNOPS_HWY_KERNELS(ActivateTranscendentalHwy){"ref", Isa::kRef, &ActivateTranscendentalRef},
  });
  return *table;
}

}  // namespace conv16b_internal
}  // namespace synops
#endif  // HWY_ONCE
