// Highway kernels: SSE4/AVX2/AVX-512 on x86, NEON on aarch64.
//
// The window sums add the squares of the window's own elements (2*half + 1
// terms at most), never a running sum with subtractions: a running sum
// carries the rounding error of every square it ever held, so one huge
// channel would spoil the sums of all later windows, which SPEC.md's sum bound
// (n * 2^-23 * sum of the window's |terms|) does not allow.
// NCHW walks the channels for one L1-sized chunk of spatial positions at a
// time, so the 2*half + 1 rows of a window stay cached (small planes run as
// one flat array instead, see LrnNchwFlat); NHWC squares one
// pixel's channels into a zero-padded scratch row, then sums shifted loads
// of it (the padding clips the window without branches).
// pow(b, e) = exp(log(b) * e) as 2^(log(b) * e log2(e)): on AVX-512 with
// core/hwy_math-inl.h's LogAvx512 and Exp2Avx512 (getmant/getexp, table,
// scalef: half the instructions, no branches, the special values for free),
// on AVX2 and SSE4 where every b is normal and every exponent within ±125
// with LogAvx2Normal (the same table; SSE4: Highway's Log, faster there
// without FMA) and Exp2Bounded, elsewhere Highway's Exp and Log
// (hwy/contrib/math). Measured (core:hwy_math_test): log <= 1.06 * 2^-23
// |log b| (Highway's, SSE4: 0.70), 2^x <= 0.65 * 2^-23 2^y (SSE4: 0.80),
// inside lrn_accuracy.h's kLogUlps and kExpUlps together with glibc's 0.66
// and 0.5.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/lrn/lrn_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <cmath>
#include <cstddef>
#include <cstring>

#include "core/hwy_math-inl.h"
#include "hwy/aligned_allocator.h"
#include "hwy/cache_control.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "ops/lrn/lrn_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR

using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// x * exp(log(b) * e), with log's special values (log 0 = -Inf, log Inf =
// Inf, NaN below 0 and for NaN) that Highway's Log leaves undefined.
HWY_INLINE VF ScaleByPowAny(DF d, VF x, VF b, VF e) {
#if HWY_TARGET == HWY_AVX3
  (void)d;
  return hn::Mul(x, VF{hmath::ExpAvx512(hn::Mul(VF{hmath::LogAvx512(b.raw)}, e).raw)});
#else
  const VF inf = hn::Set(d, HUGE_VALF);
  VF l;
  // Usual case: every b normal and finite (k0 > 0 gives b >= k0). Highway's
  // Log then needs no denormal rescaling (the same polynomial otherwise).
  if (HWY_LIKELY(hmath::AllPositiveNormal(d, b))) {
    l = hn::impl::Log<DF, VF, /*kAllowSubnormals=*/false>(d, b);
  } else {
    const VF zero = hn::Zero(d);
    l = hn::Log(d, b);
    l = hn::IfThenElse(hn::Eq(b, zero), hn::Neg(inf), l);
    l = hn::IfThenElse(hn::Eq(b, inf), inf, l);
    l = hn::IfThenElse(hn::Lt(b, zero), hn::Set(d, NAN), l);
    l = hn::IfThenElse(hn::IsNaN(b), b, l);
  }
  const VF y = hn::Mul(l, e);
  if (HWY_LIKELY(hn::AllTrue(d, hn::Lt(hn::Abs(y), hn::Set(d, 87.0f))))) {
    return hn::Mul(x, hn::Exp(d, y));
  }
  // Highway's Exp is valid on [-FLT_MAX, 104]: exp(100) is already +Inf and
  // exp(-150) is 0 in FP32. Min/Max may drop a NaN; it is restored.
  const VF r = hn::Exp(d, hn::Min(hn::Max(y, hn::Set(d, -150.0f)), hn::Set(d, 100.0f)));
  return hn::Mul(x, hn::IfThenElse(hn::IsNaN(y), y, r));
#endif
}

// Vectors per step of the main loops: four on AVX-512, whose log and exp
// interleave four dependency chains (hmath::LogAvx512, ExpAvx512), and on
// SSE4, whose Highway Log and Exp are long chains of 4-lane operations
// (Zen 4, lrn_bench, best of 4 alternating rounds, two -> four: 9-14% less
// time on every shape, e.g. NHWC c64 56x56 1120 -> 998 us, NCHW c256 7x7
// 72.2 -> 63.7; eight: no better); two elsewhere.
constexpr size_t kK = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_SSE4 ? 4 : 2;

// y[k] = x[k] * pow(b[k], e) for K vectors (b is clobbered).
template <size_t K>
HWY_INLINE void ScaleByPowK(DF d, const VF (&x)[K], VF (&b)[K], VF e, VF (&y)[K]) {
#if HWY_TARGET == HWY_AVX3
  (void)d;
  __m512 v[K];
  hmath::Unroll<K>([&](size_t k) HWY_ATTR { v[k] = b[k].raw; });
  // exp(log(b) e) = 2^(log(b) (e log2(e))): rounding e log2(e) adds 2^-24
  // |y| to the exponent's error, inside the log's share of the bound
  // (kLogUlps = 3 against 1.06 + 0.66 measured).
  const __m512 e2 = _mm512_mul_ps(e.raw, _mm512_set1_ps(1.44269502f));
  hmath::LogAvx512(v);
  hmath::Unroll<K>([&](size_t k) HWY_ATTR { v[k] = _mm512_mul_ps(v[k], e2); });
  hmath::Exp2Avx512(v);
  hmath::Unroll<K>([&](size_t k) HWY_ATTR { y[k] = hn::Mul(x[k], VF{v[k]}); });
#elif HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
  // The AVX-512 path's log and 2^x where every b is normal and every
  // exponent within ±125 (AVX2: the same table, polynomials and order of
  // operations; SSE4: Highway's Log, and Exp2Bounded without FMA); Highway's
  // Log and Exp were 84% of the AVX2 time, at 5x AVX-512's, and SSE4.1 ran
  // at 3.7-6.2x its AVX2 time (Zen 4; 2.2-2.7x since).
  // (hmath::AllPositiveNormal's test, one branch for the K vectors.)
  auto normal = hmath::PositiveNormal(d, b[0]);
  hmath::Unroll<K - 1>(
      [&](size_t k) HWY_ATTR { normal = hn::And(normal, hmath::PositiveNormal(d, b[k + 1])); });
  if (HWY_LIKELY(hn::AllTrue(d, normal))) {
    VF v[K];
#if HWY_TARGET == HWY_AVX2
    decltype(b[0].raw) raw[K];
    hmath::Unroll<K>([&](size_t k) HWY_ATTR { raw[k] = b[k].raw; });
    hmath::LogAvx2Normal(raw);
    hmath::Unroll<K>([&](size_t k) HWY_ATTR { v[k] = VF{raw[k]}; });
#else
    hmath::Unroll<K>([&](size_t k) HWY_ATTR { v[k] = hn::impl::Log<DF, VF, false>(d, b[k]); });
#endif
    const VF e2 = hn::Mul(e, hn::Set(d, 1.44269502f));
    const VF limit = hn::Set(d, 125.0f);
    hmath::Unroll<K>([&](size_t k) HWY_ATTR { v[k] = hn::Mul(v[k], e2); });
    auto bounded = hn::Le(hn::Abs(v[0]), limit);
    hmath::Unroll<K - 1>(
        [&](size_t k) HWY_ATTR { bounded = hn::And(bounded, hn::Le(hn::Abs(v[k + 1]), limit)); });
    if (HWY_LIKELY(hn::AllTrue(d, bounded))) {
      hmath::Exp2Bounded(d, v);
      hmath::Unroll<K>([&](size_t k) HWY_ATTR { y[k] = hn::Mul(x[k], v[k]); });
      return;
    }
  }
  hmath::Unroll<K>([&](size_t k) HWY_ATTR { y[k] = ScaleByPowAny(d, x[k], b[k], e); });
#else
  hmath::Unroll<K>([&](size_t k) HWY_ATTR { y[k] = ScaleByPowAny(d, x[k], b[k], e); });
#endif
}

// One vector: on AVX2 and SSE4 through ScaleByPowK's table path (Highway's
// Log and Exp took 2x its time on AVX2: NCHW 7x7 planes, LrnNchwFlat, 4.5
// GB/s against 9.1 for NHWC on a Zen 5 core).
HWY_INLINE VF ScaleByPow(DF d, VF x, VF b, VF e) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
  const VF xs[1] = {x};
  VF bs[1] = {b}, ys[1];
  ScaleByPowK(d, xs, bs, e, ys);
  return ys[0];
#else
  return ScaleByPowAny(d, x, b, e);
#endif
}

// y[u L .. (u + 1) L) for the kK vectors u at x, y: the sums of squares of
// `rows` window rows `stride` apart from `first`, then ScaleByPowK.
HWY_INLINE void WindowVectors(DF d, const float* HWY_RESTRICT first, size_t rows, size_t stride,
                              const float* HWY_RESTRICT x, VF k0, VF k1, VF k2,
                              float* HWY_RESTRICT y) {
  const size_t lanes = hn::Lanes(d);
  VF sum[kK], xs[kK], ys[kK];
  hmath::Unroll<kK>([&](size_t u) HWY_ATTR { sum[u] = hn::Zero(d); });
  const float* HWY_RESTRICT row = first;
  for (size_t i = 0; i < rows; ++i, row += stride) {
    hmath::Unroll<kK>([&](size_t u) HWY_ATTR {
      const VF v = hn::LoadU(d, row + u * lanes);
      sum[u] = hn::MulAdd(v, v, sum[u]);
    });
  }
  hmath::Unroll<kK>([&](size_t u) HWY_ATTR {
    sum[u] = hn::MulAdd(k1, sum[u], k0);
    xs[u] = hn::LoadU(d, x + u * lanes);
  });
  ScaleByPowK(d, xs, sum, k2, ys);
  hmath::Unroll<kK>([&](size_t u) HWY_ATTR { hn::StoreU(ys[u], d, y + u * lanes); });
}

// Spatial positions per NCHW chunk: a window's 2*half + 1 rows of a chunk
// (4 KiB each) stay in L1 while the chunk's channels are walked (1024 over
// 512: c256 56x56 0.31 -> 0.30 ms, c512 0.91 -> 0.75 ms; 2048 is no better).
constexpr size_t kChunk = 1024;
// Planes smaller than this run as one flat array (LrnNchwFlat).
constexpr size_t kFlatBelow = 512;

void LrnNchw(const float* HWY_RESTRICT src, size_t half, size_t channels, size_t spatial,
             const float* HWY_RESTRICT k, float* HWY_RESTRICT dst) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  const VF k0 = hn::Set(d, k[0]), k1 = hn::Set(d, k[1]), k2 = hn::Set(d, k[2]);
  for (size_t s0 = 0; s0 < spatial; s0 += kChunk) {
    const size_t n = spatial - s0 < kChunk ? spatial - s0 : kChunk;
    for (size_t c = 0; c < channels; ++c) {
      size_t lo, hi;
      lrn_internal::Window(c, half, channels, &lo, &hi);
      const float* HWY_RESTRICT x = src + c * spatial + s0;
      float* HWY_RESTRICT y = dst + c * spatial + s0;
      const float* HWY_RESTRICT first = src + lo * spatial + s0;
      const size_t rows = hi - lo + 1;
      size_t j = 0;
      for (; j + kK * lanes <= n; j += kK * lanes) {
        WindowVectors(d, first + j, rows, spatial, x + j, k0, k1, k2, y + j);
      }
      for (; j + lanes <= n; j += lanes) {
        VF sum = hn::Zero(d);
        const float* HWY_RESTRICT row = first + j;
        for (size_t i = 0; i < rows; ++i, row += spatial) {
          const VF v = hn::LoadU(d, row);
          sum = hn::MulAdd(v, v, sum);
        }
        hn::StoreU(ScaleByPow(d, hn::LoadU(d, x + j), hn::MulAdd(k1, sum, k0), k2), d, y + j);
      }
      if (j < n) {  // tail: the same vector code on a copy (no reads past the row)
        HWY_ALIGN float sums[hn::MaxLanes(d)] = {};
        HWY_ALIGN float xs[hn::MaxLanes(d)] = {};
        for (size_t l = 0; l < n - j; ++l) {
          float sum = 0.0f;
          for (size_t i = 0; i < rows; ++i) {
            const float v = first[i * spatial + j + l];
            sum += v * v;
          }
          sums[l] = sum;
          xs[l] = x[j + l];
        }
        hn::Store(ScaleByPow(d, hn::Load(d, xs), hn::MulAdd(k1, hn::Load(d, sums), k0), k2), d,
                  xs);
        std::memcpy(y + j, xs, (n - j) * sizeof(float));
      }
    }
  }
}

// NCHW with small planes (spatial < kFlatBelow): the tensor as one flat array.
// Element i = c*spatial + s has its window rows at i + j*spatial, and the
// clipping 0 <= c + j < channels is exactly 0 <= i + j*spatial < total, so
// vectors run across channel boundaries and only the array's ends need
// partial loads (a 7x7 plane is not a multiple of any vector length).
void LrnNchwFlat(const float* HWY_RESTRICT src, size_t half, size_t channels, size_t spatial,
                 const float* HWY_RESTRICT k, float* HWY_RESTRICT dst) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  const VF k0 = hn::Set(d, k[0]), k1 = hn::Set(d, k[1]), k2 = hn::Set(d, k[2]);
  const ptrdiff_t total = static_cast<ptrdiff_t>(channels * spatial);
  const ptrdiff_t n = static_cast<ptrdiff_t>(lanes);
  const ptrdiff_t stride = static_cast<ptrdiff_t>(spatial);
  const ptrdiff_t reach = static_cast<ptrdiff_t>(half < channels - 1 ? half : channels - 1);
  HWY_ALIGN float tmp[hn::MaxLanes(d)];
  // One vector at i0, its window rows clipped to the array.
  const auto one = [&](ptrdiff_t i0) HWY_ATTR {
    const ptrdiff_t valid = total - i0 < n ? total - i0 : n;  // lanes inside the array
    VF sum = hn::Zero(d);
    for (ptrdiff_t j = -reach; j <= reach; ++j) {
      const ptrdiff_t off = i0 + j * stride;
      VF v;
      if (off >= 0 && off + n <= total) {
        v = hn::LoadU(d, src + off);
      } else if (off + n <= 0 || off >= total) {
        continue;  // the whole row is outside the tensor
      } else {
        for (ptrdiff_t l = 0; l < n; ++l) {
          const ptrdiff_t at = off + l;
          tmp[l] = (l < valid && at >= 0 && at < total) ? src[at] : 0.0f;
        }
        v = hn::Load(d, tmp);
      }
      sum = hn::MulAdd(v, v, sum);
    }
    const VF b = hn::MulAdd(k1, sum, k0);
    if (valid == n) {
      hn::StoreU(ScaleByPow(d, hn::LoadU(d, src + i0), b, k2), d, dst + i0);
    } else {
      for (ptrdiff_t l = 0; l < n; ++l) tmp[l] = l < valid ? src[i0 + l] : 0.0f;
      hn::Store(ScaleByPow(d, hn::Load(d, tmp), b, k2), d, tmp);
      std::memcpy(dst + i0, tmp, static_cast<size_t>(valid) * sizeof(float));
    }
  };
  ptrdiff_t i0 = 0;
  for (; i0 < total && i0 < reach * stride; i0 += n) one(i0);
  // Between the first and last `reach` planes every window row is inside
  // the array: kK vectors at a time (ScaleByPowK's interleaved chains).
  const ptrdiff_t kw = static_cast<ptrdiff_t>(kK) * n;
  for (; i0 + reach * stride + kw <= total; i0 += kw) {
    WindowVectors(d, src + i0 - reach * stride, static_cast<size_t>(2 * reach + 1), spatial,
                  src + i0, k0, k1, k2, dst + i0);
  }
  for (; i0 < total; i0 += n) one(i0);
}

void LrnNhwc(const float* HWY_RESTRICT src, size_t half, size_t channels, size_t spatial,
             const float* HWY_RESTRICT k, float* HWY_RESTRICT dst) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  const VF k0 = hn::Set(d, k[0]), k1 = hn::Set(d, k[1]), k2 = hn::Set(d, k[2]);
  const size_t pad = half < channels - 1 ? half : channels - 1;
  const size_t taps = 2 * pad + 1;
  // [pad zeros][channels squares][pad + lanes zeros]: the window sum of
  // channel c is the sum of padded[c .. c + 2*pad]. Two such rows: the next
  // pixel's squares are stored while this pixel's windows are summed, so
  // the shifted loads never wait on stores that are still in flight (a
  // load spanning two buffered stores cannot be forwarded).
  const size_t padded_size = (channels + 2 * pad + lanes + 15) / 16 * 16;
  auto padded = hwy::AllocateAligned<float>(2 * padded_size);
  std::memset(padded.get(), 0, 2 * padded_size * sizeof(float));
  const auto square = [&](size_t s) HWY_ATTR {
    const float* HWY_RESTRICT x = src + s * channels;
    float* HWY_RESTRICT sq = padded.get() + (s % 2) * padded_size + pad;
    size_t c = 0;
    for (; c + lanes <= channels; c += lanes) {
      const VF v = hn::LoadU(d, x + c);
      hn::StoreU(hn::Mul(v, v), d, sq + c);
    }
    for (; c < channels; ++c) sq[c] = x[c] * x[c];
  };
  if (spatial != 0) square(0);
  for (size_t s = 0; s < spatial; ++s) {
    const float* HWY_RESTRICT x = src + s * channels;
    float* HWY_RESTRICT y = dst + s * channels;
    const float* HWY_RESTRICT taps0 = padded.get() + (s % 2) * padded_size;
    if (s + 1 < spatial) square(s + 1);
    if (s + 4 < spatial) {
      for (size_t c = 0; c < channels; c += 16) hwy::Prefetch(src + (s + 4) * channels + c);
    }
    size_t c = 0;
    for (; c + kK * lanes <= channels; c += kK * lanes) {
      VF sum[kK], xs[kK], ys[kK];
      hmath::Unroll<kK>([&](size_t u) HWY_ATTR {
        const float* HWY_RESTRICT t0 = taps0 + c + u * lanes;
        VF sum0 = hn::LoadU(d, t0), sum1 = hn::Zero(d);
        size_t t = 1;
        for (; t + 2 <= taps; t += 2) {
          sum0 = hn::Add(sum0, hn::LoadU(d, t0 + t));
          sum1 = hn::Add(sum1, hn::LoadU(d, t0 + t + 1));
        }
        if (t < taps) sum0 = hn::Add(sum0, hn::LoadU(d, t0 + t));
        sum[u] = hn::MulAdd(k1, hn::Add(sum0, sum1), k0);
        xs[u] = hn::LoadU(d, x + c + u * lanes);
      });
      ScaleByPowK(d, xs, sum, k2, ys);
      hmath::Unroll<kK>([&](size_t u) HWY_ATTR { hn::StoreU(ys[u], d, y + c + u * lanes); });
    }
    for (; c + lanes <= channels; c += lanes) {
      VF sum0 = hn::LoadU(d, taps0 + c), sum1 = hn::Zero(d);
      size_t t = 1;
      for (; t + 2 <= taps; t += 2) {
        sum0 = hn::Add(sum0, hn::LoadU(d, taps0 + c + t));
        sum1 = hn::Add(sum1, hn::LoadU(d, taps0 + c + t + 1));
      }
      if (t < taps) sum0 = hn::Add(sum0, hn::LoadU(d, taps0 + c + t));
      const VF sum = hn::Add(sum0, sum1);
      hn::StoreU(ScaleByPow(d, hn::LoadU(d, x + c), hn::MulAdd(k1, sum, k0), k2), d, y + c);
    }
    if (c < channels) {  // tail: padded has `lanes` zeros past the end
      VF sum = hn::Zero(d);
      for (size_t t = 0; t < taps; ++t) sum = hn::Add(sum, hn::LoadU(d, taps0 + c + t));
      HWY_ALIGN float xs[hn::MaxLanes(d)] = {};
      std::memcpy(xs, x + c, (channels - c) * sizeof(float));
      hn::Store(ScaleByPow(d, hn::Load(d, xs), hn::MulAdd(k1, sum, k0), k2), d, xs);
      std::memcpy(y + c, xs, (channels - c) * sizeof(float));
    }
  }
}

void LrnHwy(const float* src, size_t half, size_t channels, size_t spatial, const float* k,
            float* dst, TensorFormat format) {
  if (format == TensorFormat::kNchw && spatial < kFlatBelow) {
    LrnNchwFlat(src, half, channels, spatial, k, dst);
  } else if (format == TensorFormat::kNchw) {
    LrnNchw(src, half, channels, spatial, k, dst);
  } else {
    LrnNhwc(src, half, channels, spatial, k, dst);
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
namespace lrn_internal {

std::vector<Kernel<LrnFn>> LrnHwyKernels() { return {SYNOPS_HWY_KERNELS(LrnHwy)}; }

}  // namespace lrn_internal
}  // namespace synops
#endif  // HWY_ONCE
