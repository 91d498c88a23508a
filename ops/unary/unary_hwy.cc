// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
//
// One kernel per target: it switches on the op once, then runs that op's
// vector loop. The bit-exact ops use single IEEE instructions (roundps/frint*,
// divps/fdiv, sqrtps/fsqrt) or bit operations. Erf is a 32-segment
// polynomial; Exp, Sin, Cos and Tanh are ours; Log is hwy/contrib/math's
// (on AVX2 only where a vector has lanes that are not positive normal)
// with the special values SPEC.md fixes.
//
// On AVX-512 (namespace x512, in unary_math-inl.h) the transcendental ops are
// rewritten for throughput with instructions Highway 1.0.3 does not wrap
// (scalef, getmant/getexp, two-register permutes, fixupimm, rcp14/rsqrt14;
// Exp and Log are core/hwy_math-inl.h's), and Rcp and Sqrt mix Newton
// iterations with the divider, still correctly rounded.
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
#include "ops/unary/unary_math-inl.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "ops/unary/unary_kernels.h"


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

// Arrays of at least StreamingStoreMinBytes() (core/streaming.h), not in
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
  if (n * sizeof(float) >= StreamingStoreMinBytes() && src != dst) {
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


struct AbsOp {
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::And(v, FromBits(d, 0x7FFFFFFFu)); }
};
struct NegOp {
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::Xor(v, FromBits(d, 0x80000000u)); }
};
struct NotOp {
  HWY_INLINE VF operator()(DF d, VF v) const { return hn::Xor(v, FromBits(d, 0xFFFFFFFFu)); }
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
// 1/sqrt(x) with two IEEE roundings: <= 1.5 ULP. AVX2 and SSE4, vectors of
// positive normal finite lanes: rsqrtps (2^-11) and two Newton steps y +=
// y/2 (1 - x y y), each correction small enough that its own rounding adds
// ~2^-25 (with FMA the last step rounds once; without, the correction's
// products round too, and the exhaustive sweep measures <= 1 ULP); sqrt
// and divide took 2.9x its time on a Zen 5 core with AVX2.
struct RsqrtOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Rsqrt(v.raw)};
#else
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
    if (HWY_LIKELY(hmath::AllPositiveNormal(d, v))) {
      const VF half = hn::Set(d, 0.5f), one = hn::Set(d, 1.0f);
      VF y = hn::ApproximateReciprocalSqrt(v);
      for (int step = 0; step < 2; ++step) {
        const VF e = hn::NegMulAdd(hn::Mul(v, y), y, one);
        y = hn::MulAdd(hn::Mul(y, half), e, y);
      }
      return y;
    }
#endif
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

#if HWY_TARGET != HWY_AVX3
// e^x, any x: 2^n p(r) as hmath::ExpClamped (without FMA too: kLn2Hi's
// 12 bits keep the reduction exact; the sweep measures <= 1 ULP on SSE4.1),
// 2^n applied as 2^n1 * 2^n2 (n1 = n >> 1, both normal for x in [-104,
// 89]): p * 2^n1 is exact, the second product rounds once, so results
// beyond the float range overflow to +Inf and tiny ones round to denormals
// (flushed to 0 under MapFlushingDenormals' FTZ). Highway's Exp took 1.6x
// its time with AVX2 and 1.5x with SSE4.1 (Zen 5).
HWY_INLINE VF ExpTwoScales(DF d, VF x) {
  const DI di;
  const VF c = hn::Min(hn::Max(x, hn::Set(d, -104.0f)), hn::Set(d, 89.0f));
  const VF magic = hn::Set(d, hmath::kExpMagic);
  const VF t = hn::MulAdd(c, hn::Set(d, hmath::kLog2e), magic);
  const VF n = hn::Sub(t, magic);
  const VF r = hn::NegMulAdd(n, hn::Set(d, hmath::kLn2Lo),
                             hn::NegMulAdd(n, hn::Set(d, hmath::kLn2Hi), c));
  const VF p = hmath::ExpPolyReduced(d, r);
  // The low bits of t hold n (as in ExpClamped).
  const auto ni = hn::Sub(hn::BitCast(di, t), hn::BitCast(di, magic));
  const auto n1 = hn::ShiftRight<1>(ni);
  const auto bias = hn::Set(di, 127);
  const VF s1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n1, bias)));
  const VF s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::Sub(ni, n1), bias)));
  return hn::IfThenElse(hn::IsNaN(x), x, hn::Mul(hn::Mul(p, s1), s2));
}
#endif

// Highway's Exp (1 ULP) is valid up to 104; beyond it the result is Inf.
struct ExpOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{hmath::ExpAvx512(v.raw)};
#else
    return ExpTwoScales(d, v);
#endif
  }
};
// Highway's Log (<= 2 ULP measured) for x > 0; SPEC's special values.
// AVX2: vectors of positive normal finite lanes through LogAvx512's table
// and polynomial (hmath::LogAvx2Normal; Highway's Log took 3x its time).
struct LogOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{hmath::LogAvx512(v.raw)};
#else
#if HWY_TARGET == HWY_AVX2
    if (HWY_LIKELY(hmath::AllPositiveNormal(d, v))) {
      __m256 x[1] = {v.raw};
      hmath::LogAvx2Normal(x);
      return VF{x[0]};
    }
#endif
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
#else
    return poly_math::Sin(d, v);
#endif
  }
};
struct CosOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Cos(v.raw)};
#else
    return poly_math::Cos(d, v);
#endif
  }
};
struct TanhOp {
  HWY_INLINE VF operator()(DF d, VF v) const {
#if HWY_TARGET == HWY_AVX3
    (void)d;
    return VF{x512::Tanh(v.raw)};
#else
    return poly_math::Tanh(d, v);
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
#if HWY_TARGET == HWY_AVX2
    // Permutes instead of vgatherdps (5 gathers per vector: 13x AVX-512's
    // time on a Zen 5 core, slower than SSE4's scalar loads).
    const auto coeff = [&](size_t i) HWY_ATTR { return VF{hmath::Lookup32(c[i], k.raw)}; };
#else
    const auto coeff = [&](size_t i) HWY_ATTR { return hn::GatherIndex(d, c[i], k); };
#endif
    VF p = coeff(4);
    p = hn::MulAdd(p, t, coeff(3));
    p = hn::MulAdd(p, t, coeff(2));
    p = hn::MulAdd(p, t, coeff(1));
    p = hn::MulAdd(p, t, coeff(0));
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
      // +0.0f is all zero bits: memset, which reads nothing (Map would
      // prefetch src) and picks the CPU's best way to write memory.
      // (n == 0 may come with dst == nullptr, which memset does not accept.)
      if (n != 0) std::memset(dst, 0, n * sizeof(float));
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
namespace unary_internal {

std::vector<Kernel<UnaryOperation32fFn>> UnaryOperation32fHwyKernels() {
  return {SYNOPS_HWY_KERNELS(UnaryHwy)};
}

}  // namespace unary_internal
}  // namespace synops
#endif  // HWY_ONCE
