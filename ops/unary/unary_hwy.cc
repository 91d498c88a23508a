// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
//
// One kernel per target: it switches on the op once, then runs that op's
// vector loop. The bit-exact ops use single IEEE instructions (roundps/frint*,
// divps/fdiv, sqrtps/fsqrt) or bit operations. The approximations are written
// here or taken from hwy/contrib/math with the special values SPEC.md fixes.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/unary/unary_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <cstring>

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
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::Div(hn::Set(d, 1.0f), v); }
};
struct SqrtOp {
  HWY_INLINE VF operator()(DF, VF v) const { return hn::Sqrt(v); }
};
// 1/sqrt(x) with two IEEE roundings: <= 1.5 ULP.
struct RsqrtOp {
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(v)); }
};
// +1 / -1 with the sign of v for v != 0; +0 for ±0; v itself for NaN.
struct SignOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
    const VF one = hn::Set(d, 1.0f);
    const VF r = hn::Or(hn::IfThenElseZero(hn::Gt(v, hn::Zero(d)), one),
                        hn::IfThenElseZero(hn::Lt(v, hn::Zero(d)), hn::Neg(one)));
    return hn::IfThenElse(hn::IsNaN(v), v, r);
  }
};

// Highway's Exp (1 ULP) is valid up to 104; beyond it the result is Inf.
struct ExpOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
    const VF r = hn::Exp(d, hn::Min(v, hn::Set(d, 100.0f)));
    return hn::IfThenElse(hn::IsNaN(v), v, r);
  }
};
// Highway's Log (<= 2 ULP measured) for x > 0; SPEC's special values.
struct LogOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
    const VF inf = hn::Set(d, HUGE_VALF);
    VF r = hn::Log(d, v);
    r = hn::IfThenElse(hn::Eq(v, inf), inf, r);
    r = hn::IfThenElse(hn::Eq(v, hn::Zero(d)), hn::Neg(inf), r);
    r = hn::IfThenElse(hn::Lt(v, hn::Zero(d)), hn::Set(d, NAN), r);
    return hn::IfThenElse(hn::IsNaN(v), v, r);
  }
};
struct SinOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
    // Highway's Sin loses the sign of -0.
    const VF r = hn::IfThenElse(hn::Eq(v, hn::Zero(d)), v, hn::Sin(d, v));
    return hn::IfThenElse(hn::IsInf(v), hn::Set(d, NAN), r);
  }
};
struct CosOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
    return hn::IfThenElse(hn::IsInf(v), hn::Set(d, NAN), hn::Cos(d, v));
  }
};
struct TanhOp {
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::Tanh(d, v); }
};

// erf: 32 polynomial segments of width 1/8 over [0, 3.93]; |x| is clamped
// to 3.93 (segment 31: erf = ±1).
struct ErfOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
    const DI di;
    const VF sign_mask = FromBits(d, 0x80000000u);
    const VF ax = hn::Min(hn::AndNot(sign_mask, v), hn::Set(d, 3.93f));
    const VF magic = hn::Set(d, 12582912.0f);  // 1.5 * 2^23: rounds to integers
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
  }
};

void UnaryHwy(const float* src, size_t n, UnaryOp type, float* dst) {
  switch (type) {
    case UnaryOp::kAbs:
      return Map(src, n, dst, AbsOp());
    case UnaryOp::kCeil:
      return Map(src, n, dst, CeilOp());
    case UnaryOp::kCos:
      return Map(src, n, dst, CosOp());
    case UnaryOp::kErf:
      return Map(src, n, dst, ErfOp());
    case UnaryOp::kExp:
      return Map(src, n, dst, ExpOp());
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
      return Map(src, n, dst, SinOp());
    case UnaryOp::kSqrt:
      return Map(src, n, dst, SqrtOp());
    case UnaryOp::kTanh:
      return Map(src, n, dst, TanhOp());
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
