// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
//
// One pass over memory: dst is written once and every input is read once.
// Up to kGroup inputs are folded in registers straight into dst; with more,
// the inputs are folded kGroup at a time into an L1-resident block of the
// running result, and the last group writes dst. Either way every src[i][j]
// is read before dst[j] is written, so dst == src[i] works.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/eltwise/eltwise_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <algorithm>
#include <cstdint>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "ops/eltwise/eltwise_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

// Inputs folded per pass, and the elements of a block of the running result
// (8 KiB, stays in L1 while all groups pass over it).
constexpr size_t kGroup = 4;
constexpr size_t kBlock = 2048;

template <EltwiseOp kOp>
HWY_INLINE V Combine(V a, V b) {
  if constexpr (kOp == EltwiseOp::kProduct) {
    return hn::Mul(a, b);
  } else if constexpr (kOp == EltwiseOp::kSum) {
    return hn::Add(a, b);
  } else if constexpr (kOp == EltwiseOp::kMax) {
#if HWY_ARCH_X86
    return hn::Max(a, b);  // maxps(a, b) is exactly a > b ? a : b, NaN included.
#else
    return hn::IfThenElse(hn::Gt(a, b), a, b);  // NEON's fmax differs on ±0 and NaN.
#endif
  } else {
#if HWY_ARCH_X86
    return hn::Min(a, b);  // minps(a, b) is exactly a < b ? a : b.
#else
    return hn::IfThenElse(hn::Lt(a, b), a, b);
#endif
  }
}

template <EltwiseOp kOp>
HWY_INLINE float CombineScalar(float a, float b) {
  if constexpr (kOp == EltwiseOp::kProduct) {
    return a * b;
  } else if constexpr (kOp == EltwiseOp::kSum) {
    return a + b;
  } else if constexpr (kOp == EltwiseOp::kMax) {
    return eltwise_internal::MaxOf(a, b);
  } else {
    return eltwise_internal::MinOf(a, b);
  }
}

// Input k's contribution: the value, times weight[k] for Sum (a separate
// multiply, rounded like the reference's).
// (The broadcast of w is loop-invariant and hoisted.)
template <EltwiseOp kOp>
HWY_INLINE V Term(D d, const float* p, float w) {
  const V v = hn::LoadU(d, p);
  if constexpr (kOp == EltwiseOp::kSum) return hn::Mul(v, hn::Set(d, w));
  return v;
}

template <EltwiseOp kOp>
HWY_INLINE float TermScalar(float v, float w) {
  if constexpr (kOp == EltwiseOp::kSum) return v * w;
  return v;
}

// The running result at j after folding in inputs p[0..kN): starting from
// acc[j] if kFromAcc, else from Combine(term 0, term 1).
template <EltwiseOp kOp, size_t kN, bool kFromAcc>
HWY_INLINE V FoldAt(D d, const float* const* p, const float* w, const float* acc, size_t j) {
  V a;
  size_t k = 0;
  if constexpr (kFromAcc) {
    a = hn::LoadU(d, acc + j);
  } else {
    a = Combine<kOp>(Term<kOp>(d, p[0] + j, w[0]), Term<kOp>(d, p[1] + j, w[1]));
    k = 2;
  }
#pragma GCC unroll 4
  for (; k < kN; ++k) a = Combine<kOp>(a, Term<kOp>(d, p[k] + j, w[k]));
  return a;
}

template <EltwiseOp kOp, size_t kN, bool kFromAcc>
HWY_INLINE float FoldAtScalar(const float* const* p, const float* ws, const float* acc, size_t j) {
  float a;
  size_t k = 0;
  if constexpr (kFromAcc) {
    a = acc[j];
  } else {
    a = CombineScalar<kOp>(TermScalar<kOp>(p[0][j], ws[0]), TermScalar<kOp>(p[1][j], ws[1]));
    k = 2;
  }
  for (; k < kN; ++k) a = CombineScalar<kOp>(a, TermScalar<kOp>(p[k][j], ws[k]));
  return a;
}

template <bool kStream>
HWY_INLINE void Put(D d, V v, float* p) {
  if constexpr (kStream) {
    hn::Stream(v, d, p);
  } else {
    hn::StoreU(v, d, p);
  }
}

// out[j] = fold of inputs src[0..kN) at elements off + j, for j < n (see
// FoldAt). With kStream, `out` must be aligned to the vector size.
template <EltwiseOp kOp, size_t kN, bool kFromAcc, bool kStream>
HWY_NOINLINE void Fold(const float* const* src, const float* weight, size_t off, const float* acc,
                       float* out, size_t n) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  const float* p[kN];
  float w[kN];
#pragma GCC unroll 4
  for (size_t k = 0; k < kN; ++k) {
    p[k] = src[k] + off;
    w[k] = kOp == EltwiseOp::kSum ? weight[k] : 1.0f;
  }
  size_t j = 0;
  // Each vector is stored only after its inputs are loaded, and later
  // vectors read only later elements: in place is safe.
  for (; j + 2 * lanes <= n; j += 2 * lanes) {
    const V a = FoldAt<kOp, kN, kFromAcc>(d, p, w, acc, j);
    const V b = FoldAt<kOp, kN, kFromAcc>(d, p, w, acc, j + lanes);
    Put<kStream>(d, a, out + j);
    Put<kStream>(d, b, out + j + lanes);
  }
  for (; j + lanes <= n; j += lanes) Put<kStream>(d, FoldAt<kOp, kN, kFromAcc>(d, p, w, acc, j), out + j);
  for (; j < n; ++j) out[j] = FoldAtScalar<kOp, kN, kFromAcc>(p, w, acc, j);
}

// dst[j] for j in [begin, end).
template <EltwiseOp kOp, bool kStream>
void Range(const float* const* src, const float* weight, size_t count, float* dst, size_t begin,
           size_t end) {
  for (size_t b = begin; b < end; b += kBlock) {
    const size_t n = std::min(kBlock, end - b);
    switch (count) {
      case 2:
        Fold<kOp, 2, false, kStream>(src, weight, b, nullptr, dst + b, n);
        continue;
      case 3:
        Fold<kOp, 3, false, kStream>(src, weight, b, nullptr, dst + b, n);
        continue;
      case 4:
        Fold<kOp, 4, false, kStream>(src, weight, b, nullptr, dst + b, n);
        continue;
      default:
        break;
    }
    HWY_ALIGN float acc[kBlock];
    Fold<kOp, kGroup, false, false>(src, weight, b, nullptr, acc, n);
    size_t i = kGroup;
    for (; count - i > kGroup; i += kGroup) {
      Fold<kOp, kGroup, true, false>(src + i, weight ? weight + i : nullptr, b, acc, acc, n);
    }
    const float* w = weight ? weight + i : nullptr;
    switch (count - i) {
      case 1:
        Fold<kOp, 1, true, kStream>(src + i, w, b, acc, dst + b, n);
        break;
      case 2:
        Fold<kOp, 2, true, kStream>(src + i, w, b, acc, dst + b, n);
        break;
      case 3:
        Fold<kOp, 3, true, kStream>(src + i, w, b, acc, dst + b, n);
        break;
      default:
        Fold<kOp, 4, true, kStream>(src + i, w, b, acc, dst + b, n);
        break;
    }
  }
}

// Scalar code up to the first cache-line boundary of dst, then vectors: a
// vector store that straddles two lines costs two (halves the L2 bandwidth
// with AVX-512), a misaligned load costs far less. Large outputs stream,
// unless dst is one of the sources (see TiledScale2D32fHwy; Zen 4,
// synbench, sum of 2 x 8 MiB in place, best of 6 alternating rounds, us,
// AVX-512 / AVX2 / SSE4.1: 399 -> 251 / 404 -> 229 / 428 -> 229).
template <EltwiseOp kOp>
void EltwiseOf(const float* const* src, const float* weight, size_t count, size_t size,
               float* dst) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(dst);
  const size_t head = addr % sizeof(float) != 0
                          ? 0
                          : std::min(size, ((64 - addr % 64) % 64) / sizeof(float));
  Range<kOp, false>(src, weight, count, dst, 0, head);
  const bool in_place = std::find(src, src + count, dst) != src + count;
  if (in_place || size * sizeof(float) < StreamingStoreMinBytes() || addr % sizeof(float) != 0) {
    Range<kOp, false>(src, weight, count, dst, head, size);
    return;
  }
  Range<kOp, true>(src, weight, count, dst, head, size);
  hwy::FlushStream();
}

void EltwiseHwy(const float* const* src, const float* weight, size_t count, size_t size,
                EltwiseOp type, float* dst) {
  switch (type) {
    case EltwiseOp::kProduct:
      return EltwiseOf<EltwiseOp::kProduct>(src, weight, count, size, dst);
    case EltwiseOp::kSum:
      return EltwiseOf<EltwiseOp::kSum>(src, weight, count, size, dst);
    case EltwiseOp::kMax:
      return EltwiseOf<EltwiseOp::kMax>(src, weight, count, size, dst);
    case EltwiseOp::kMin:
      return EltwiseOf<EltwiseOp::kMin>(src, weight, count, size, dst);
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
namespace eltwise_internal {

std::vector<Kernel<EltwiseFn>> EltwiseHwyKernels() { return {SYNOPS_HWY_KERNELS(EltwiseHwy)}; }

}  // namespace eltwise_internal
}  // namespace synops
#endif  // HWY_ONCE
