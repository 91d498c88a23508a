// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
//
// NCHW: every output channel is one input channel plane: plane copies.
// NHWC: per pixel, type 0 splits the even and odd channels of each input row
// (ConcatEven/ConcatOdd), type 1 zips two input rows (a permutation of their
// lower and upper halves). Rows shorter than a vector use 8-, 4-lane or
// scalar code; the last vector of a row may overlap the previous one (the
// outputs never alias the inputs, so rewriting an element is harmless).
// Large outputs are written with streaming stores where every store covers
// whole aligned vectors.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/shuffle/shuffle_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "ops/shuffle/shuffle_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using D = hn::ScalableTag<float>;

template <bool kStream, class DT>
HWY_INLINE void Put(DT d, hn::Vec<DT> v, float* p) {
  if constexpr (kStream) {
    hn::Stream(v, d, p);
  } else {
    hn::StoreU(v, d, p);
  }
}

// ------------------------------ NCHW

// o[0, n) = s[0, n). With kStream: ordinary stores up to o's first cache-line
// boundary and after its last, streaming stores for the whole lines between
// (no line is written both ways).
template <bool kStream>
HWY_INLINE void CopyPlane(const float* s, float* o, size_t n) {
  if constexpr (!kStream) {
    const D d;
    const size_t lanes = hn::Lanes(d);
    if (n < 2 * lanes) {
      std::memcpy(o, s, n * sizeof(float));
      return;
    }
    size_t i = 0;
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
      const auto a = hn::LoadU(d, s + i);
      const auto b = hn::LoadU(d, s + i + lanes);
      hn::StoreU(a, d, o + i);
      hn::StoreU(b, d, o + i + lanes);
      // Keeps GCC from turning the loop back into a memcpy call, whose
      // per-call overhead is what this loop avoids for planes of a few KiB.
      asm volatile("");
    }
    if (i + lanes <= n) {
      hn::StoreU(hn::LoadU(d, s + i), d, o + i);
      i += lanes;
    }
    if (i != n) hn::StoreU(hn::LoadU(d, s + n - lanes), d, o + n - lanes);
  } else {
    const D d;
    const size_t lanes = hn::Lanes(d);
    const uintptr_t addr = reinterpret_cast<uintptr_t>(o);
    const size_t head = std::min(n, (64 - addr % 64) % 64 / sizeof(float));
    const size_t body_end = head + (n - head) / 16 * 16;
    std::memcpy(o, s, head * sizeof(float));
    for (size_t i = head; i < body_end; i += lanes) hn::Stream(hn::LoadU(d, s + i), d, o + i);
    std::memcpy(o + body_end, s + body_end, (n - body_end) * sizeof(float));
  }
}

template <bool kStream>
void Nchw(const float* src0, const float* src1, size_t channels0, size_t channels1,
          size_t spatial, float* dst0, float* dst1, int type) {
  const size_t c = channels0 / 2 + channels1 / 2;
  if (type == 0) {
    // S[j]: src0 channel j, then src1's channels.
    auto plane = [&](size_t j) {
      return j < channels0 ? src0 + j * spatial : src1 + (j - channels0) * spatial;
    };
    for (size_t k = 0; k < c; ++k) {
      CopyPlane<kStream>(plane(2 * k), dst0 + k * spatial, spatial);
      CopyPlane<kStream>(plane(2 * k + 1), dst1 + k * spatial, spatial);
    }
  } else {
    // T[2k] = src0 channel k, T[2k+1] = src1 channel k.
    auto plane = [&](size_t j) { return (j % 2 == 0 ? src0 : src1) + j / 2 * spatial; };
    for (size_t j = 0; j < channels0; ++j) {
      CopyPlane<kStream>(plane(j), dst0 + j * spatial, spatial);
    }
    for (size_t j = 0; j < channels1; ++j) {
      CopyPlane<kStream>(plane(channels0 + j), dst1 + j * spatial, spatial);
    }
  }
}

// ------------------------------ NHWC

// ev[j] = in[2j], od[j] = in[2j+1] for j < m, m >= Lanes(d).
template <bool kStream, class DT>
HWY_INLINE void SplitSpan(DT d, const float* in, size_t m, float* ev, float* od) {
  const size_t lanes = hn::Lanes(d);
  size_t j = 0;
  for (; j + 2 * lanes <= m; j += 2 * lanes) {
    const auto lo0 = hn::LoadU(d, in + 2 * j);
    const auto hi0 = hn::LoadU(d, in + 2 * j + lanes);
    const auto lo1 = hn::LoadU(d, in + 2 * j + 2 * lanes);
    const auto hi1 = hn::LoadU(d, in + 2 * j + 3 * lanes);
    Put<kStream>(d, hn::ConcatEven(d, hi0, lo0), ev + j);
    Put<kStream>(d, hn::ConcatOdd(d, hi0, lo0), od + j);
    Put<kStream>(d, hn::ConcatEven(d, hi1, lo1), ev + j + lanes);
    Put<kStream>(d, hn::ConcatOdd(d, hi1, lo1), od + j + lanes);
  }
  if (j + lanes <= m) {
    const auto lo = hn::LoadU(d, in + 2 * j);
    const auto hi = hn::LoadU(d, in + 2 * j + lanes);
    Put<kStream>(d, hn::ConcatEven(d, hi, lo), ev + j);
    Put<kStream>(d, hn::ConcatOdd(d, hi, lo), od + j);
    j += lanes;
  }
  if (j != m) {  // never with kStream
    j = m - lanes;
    const auto lo = hn::LoadU(d, in + 2 * j);
    const auto hi = hn::LoadU(d, in + 2 * j + lanes);
    hn::StoreU(hn::ConcatEven(d, hi, lo), d, ev + j);
    hn::StoreU(hn::ConcatOdd(d, hi, lo), d, od + j);
  }
}

template <bool kStream>
HWY_INLINE void Split(const float* in, size_t m, float* ev, float* od) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  if (m >= lanes) return SplitSpan<kStream>(d, in, m, ev, od);
  if (lanes > 8 && m >= 8) return SplitSpan<false>(hn::CappedTag<float, 8>(), in, m, ev, od);
  if (lanes > 4 && m >= 4) return SplitSpan<false>(hn::CappedTag<float, 4>(), in, m, ev, od);
  for (size_t j = 0; j < m; ++j) {
    ev[j] = in[2 * j];
    od[j] = in[2 * j + 1];
  }
}

// out[2j] = a[j], out[2j+1] = b[j] for j < m, m >= Lanes(d). `zip` picks
// lanes 0, N/2, 1, N/2+1, ... of a vector holding two half vectors.
template <bool kStream, class DT>
HWY_INLINE void ZipSpan(DT d, const float* a, const float* b, size_t m, float* out) {
  const size_t lanes = hn::Lanes(d);
  const hn::RebindToSigned<DT> di;
  const auto iota = hn::Iota(di, 0);
  const auto zip = hn::IndicesFromVec(
      d, hn::Add(hn::ShiftRight<1>(iota),
                 hn::Mul(hn::And(iota, hn::Set(di, 1)), hn::Set(di, static_cast<int32_t>(lanes / 2)))));
  size_t j = 0;
  for (; j + lanes <= m; j += lanes) {
    const auto va = hn::LoadU(d, a + j);
    const auto vb = hn::LoadU(d, b + j);
    Put<kStream>(d, hn::TableLookupLanes(hn::ConcatLowerLower(d, vb, va), zip), out + 2 * j);
    Put<kStream>(d, hn::TableLookupLanes(hn::ConcatUpperUpper(d, vb, va), zip), out + 2 * j + lanes);
  }
  if (j != m) {  // never with kStream
    j = m - lanes;
    const auto va = hn::LoadU(d, a + j);
    const auto vb = hn::LoadU(d, b + j);
    hn::StoreU(hn::TableLookupLanes(hn::ConcatLowerLower(d, vb, va), zip), d, out + 2 * j);
    hn::StoreU(hn::TableLookupLanes(hn::ConcatUpperUpper(d, vb, va), zip), d, out + 2 * j + lanes);
  }
}

template <bool kStream>
HWY_INLINE void Zip(const float* a, const float* b, size_t m, float* out) {
  const D d;
  const size_t lanes = hn::Lanes(d);
  if (m >= lanes) return ZipSpan<kStream>(d, a, b, m, out);
  if (lanes > 8 && m >= 8) return ZipSpan<false>(hn::CappedTag<float, 8>(), a, b, m, out);
  if (lanes > 4 && m >= 4) return ZipSpan<false>(hn::CappedTag<float, 4>(), a, b, m, out);
  for (size_t j = 0; j < m; ++j) {
    out[2 * j] = a[j];
    out[2 * j + 1] = b[j];
  }
}

// NHWC rows whose halves are whole vectors: no tiers, no tails.
template <bool kStream>
HWY_NOINLINE void NhwcWhole(const float* src0, const float* src1, size_t channels0,
                            size_t channels1, size_t spatial, float* dst0, float* dst1, int type) {
  const D d;
  const size_t h0 = channels0 / 2, h1 = channels1 / 2, c = h0 + h1;
  if (type == 0) {
    for (size_t s = 0; s < spatial; ++s) {
      float* o0 = dst0 + s * c;
      float* o1 = dst1 + s * c;
      SplitSpan<kStream>(d, src0 + s * channels0, h0, o0, o1);
      SplitSpan<kStream>(d, src1 + s * channels1, h1, o0 + h0, o1 + h0);
    }
  } else {
    for (size_t s = 0; s < spatial; ++s) {
      const float* a = src0 + s * c;
      const float* b = src1 + s * c;
      ZipSpan<kStream>(d, a, b, h0, dst0 + s * channels0);
      ZipSpan<kStream>(d, a + h0, b + h0, h1, dst1 + s * channels1);
    }
  }
}

template <bool kStream>
void Nhwc(const float* src0, const float* src1, size_t channels0, size_t channels1,
          size_t spatial, float* dst0, float* dst1, int type) {
  const size_t h0 = channels0 / 2, h1 = channels1 / 2, c = h0 + h1;
  const size_t lanes = hn::Lanes(D());
  if (h0 % lanes == 0 && h1 % lanes == 0 && h0 != 0 && h1 != 0) {
    return NhwcWhole<kStream>(src0, src1, channels0, channels1, spatial, dst0, dst1, type);
  }
  if (type == 0) {
    for (size_t s = 0; s < spatial; ++s) {
      float* o0 = dst0 + s * c;
      float* o1 = dst1 + s * c;
      Split<kStream>(src0 + s * channels0, h0, o0, o1);
      Split<kStream>(src1 + s * channels1, h1, o0 + h0, o1 + h0);
    }
  } else {
    for (size_t s = 0; s < spatial; ++s) {
      const float* a = src0 + s * c;
      const float* b = src1 + s * c;
      Zip<kStream>(a, b, h0, dst0 + s * channels0);
      Zip<kStream>(a + h0, b + h0, h1, dst1 + s * channels1);
    }
  }
}

void ShuffleHwy(const float* src0, const float* src1, size_t channels0, size_t channels1,
                size_t spatial, float* dst0, float* dst1, TensorFormat format, int type) {
  const size_t out_bytes = (channels0 + channels1) * spatial * sizeof(float);
  const bool large = out_bytes >= StreamingStoreMinBytes();
  const bool aligned =
      reinterpret_cast<uintptr_t>(dst0) % 64 == 0 && reinterpret_cast<uintptr_t>(dst1) % 64 == 0;
  if (format == TensorFormat::kNchw) {
    if (large) {
      Nchw<true>(src0, src1, channels0, channels1, spatial, dst0, dst1, type);
    } else {
      Nchw<false>(src0, src1, channels0, channels1, spatial, dst0, dst1, type);
    }
  } else {
    // Streaming needs every Split/Zip call to cover whole aligned vectors:
    // both take channels0/2 and channels1/2 values of a row at a time.
    if (large && aligned && channels0 / 2 % 16 == 0 && channels1 / 2 % 16 == 0) {
      Nhwc<true>(src0, src1, channels0, channels1, spatial, dst0, dst1, type);
    } else {
      Nhwc<false>(src0, src1, channels0, channels1, spatial, dst0, dst1, type);
    }
  }
  if (large) hwy::FlushStream();
}

#endif  // HWY_TARGET != HWY_SCALAR
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/hwy_kernels.h"

namespace synops {
namespace shuffle_internal {

std::vector<Kernel<ShuffleFn>> ShuffleHwyKernels() { return {SYNOPS_HWY_KERNELS(ShuffleHwy)}; }

}  // namespace shuffle_internal
}  // namespace synops
#endif  // HWY_ONCE
