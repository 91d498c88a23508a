// The transcendental activations of SPEC.md §4 (Elu, Mish, Swish, Gelu) on
// FP32 rows, Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
// The vector algorithms' epilogues use them; ref::direct keeps the formula
// in double. Within SPEC's activation error (<= 4 ULP or 1e-6 absolute,
// whichever is larger):
//   Elu   v >= 0 ? v : p0 * expm1(v)             (Highway Expm1)
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
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Highway's Exp and Expm1 are specified on [-87, 88] (e^x is then 0 or
// +Inf within FP32 anyway): arguments are clamped there.
HWY_INLINE VF Clamp(DF d, VF x) {
  return hn::Min(hn::Max(x, hn::Set(d, -87.0f)), hn::Set(d, 88.0f));
}

template <Activation A>
HWY_INLINE VF ActivateVec(DF d, VF v, float p0) {
  const VF zero = hn::Zero(d), one = hn::Set(d, 1.0f);
  if constexpr (A == Activation::kElu) {
    const VF neg = hn::Mul(hn::Set(d, p0), hn::Expm1(d, Clamp(d, hn::Min(v, zero))));
    return hn::IfThenElse(hn::Ge(v, zero), v, neg);
  } else if constexpr (A == Activation::kSwish) {
    // e^80 already makes v / (1 + e) negligible; larger would make normal
    // v denormal (a microcode assist per operation).
    const VF arg = hn::Min(hn::Mul(hn::Neg(v), hn::Set(d, p0)), hn::Set(d, 80.0f));
    return hn::Div(v, hn::Add(one, hn::Exp(d, Clamp(d, arg))));
  } else if constexpr (A == Activation::kMish) {
    const VF e = hn::Exp(d, Clamp(d, hn::Min(v, hn::Set(d, 20.0f))));
    const VF n = hn::Mul(e, hn::Add(e, hn::Set(d, 2.0f)));
    const VF m = hn::Mul(v, hn::Div(n, hn::Add(n, hn::Set(d, 2.0f))));
    return hn::IfThenElse(hn::Gt(v, hn::Set(d, p0)), v, m);
  } else {
    static_assert(A == Activation::kGelu, "activation");
    const VF x = hn::Mul(hn::Abs(v), hn::Set(d, 0.70710678118654752440f));
    const VF t = hn::Div(one, hn::MulAdd(x, hn::Set(d, 0.5f), one));
    VF q = hn::Set(d, 0.17087277f);
    q = hn::MulAdd(q, t, hn::Set(d, -0.82215223f));
    q = hn::MulAdd(q, t, hn::Set(d, 1.48851587f));
    q = hn::MulAdd(q, t, hn::Set(d, -1.13520398f));
    q = hn::MulAdd(q, t, hn::Set(d, 0.27886807f));
    q = hn::MulAdd(q, t, hn::Set(d, -0.18628806f));
    q = hn::MulAdd(q, t, hn::Set(d, 0.09678418f));
    q = hn::MulAdd(q, t, hn::Set(d, 0.37409196f));
    q = hn::MulAdd(q, t, hn::Set(d, 1.00002368f));
    q = hn::MulAdd(q, t, hn::Set(d, -1.26551223f));
    // erfc(|v| / sqrt 2); the exponent is clamped at -80 so no intermediate
    // is denormal (each denormal operation costs a microcode assist; the
    // result is then below 1e-35 either way).
    const VF arg = hn::Max(hn::NegMulAdd(x, x, q), hn::Set(d, -80.0f));
    const VF erfc = hn::Mul(t, hn::Exp(d, arg));
    const VF half = hn::Mul(erfc, hn::Set(d, 0.5f));
    const VF phi = hn::IfThenElse(hn::Ge(v, zero), hn::Sub(one, half), half);
    return hn::Mul(v, phi);
  }
}

// NaN sums stay NaN (the clamps would turn them into numbers).
template <Activation A>
HWY_INLINE VF ActivateOrNaN(DF d, VF v, float p0) {
  return hn::IfThenElse(hn::IsNaN(v), v, ActivateVec<A>(d, v, p0));
}

template <Activation A>
HWY_INLINE void ActivateRow(float* v, size_t n, float p0) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(ActivateOrNaN<A>(d, hn::LoadU(d, v + i), p0), d, v + i);
  }
  if (i < n) {
    // The tail through a zero-padded copy: a full-vector load at v + i
    // would read past the row (ASan: heap-buffer-overflow).
    const size_t left = n - i;
    HWY_ALIGN float tmp[hn::MaxLanes(d)] = {};
    for (size_t j = 0; j < left; ++j) tmp[j] = v[i + j];
    hn::Store(ActivateOrNaN<A>(d, hn::Load(d, tmp), p0), d, tmp);
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
