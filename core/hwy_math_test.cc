// Accuracy of core/hwy_math-inl.h's ExpNonPositive, on every Highway target
// this CPU runs: the full-precision variant (softmax FP32) and the coarse one
// (BF16 results), over every 64th float in [-104, 0] and the edges, and
// ExpClamped over [-87, 88] (a stride of 64, 3 s in all natively and 83 s
// under qemu with 16; the bounds also hold with a stride of 16).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/hwy_math_test.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "core/hwy_math-inl.h"
#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// y[i] = e^x[i]; n a multiple of the lane count.
template <bool kCoarse>
void ExpArray(const float* x, size_t n, float* y) {
  const hn::ScalableTag<float> d;
  for (size_t i = 0; i < n; i += hn::Lanes(d)) {
    hn::StoreU(hmath::ExpNonPositive<kCoarse>(d, hn::LoadU(d, x + i)), d, y + i);
  }
}
void ExpFine(const float* x, size_t n, float* y) { ExpArray<false>(x, n, y); }
void ExpCoarse(const float* x, size_t n, float* y) { ExpArray<true>(x, n, y); }
void ExpBf16(const float* x, size_t n, float* y) {
  const hn::ScalableTag<float> d;
  for (size_t i = 0; i < n; i += hn::Lanes(d)) {
    hn::StoreU(hmath::ExpNonPositiveBf16(d, hn::LoadU(d, x + i)), d, y + i);
  }
}
void ExpClampedArray(const float* x, size_t n, float* y) {
  const hn::ScalableTag<float> d;
  for (size_t i = 0; i < n; i += hn::Lanes(d)) {
    hn::StoreU(hmath::ExpClamped(d, hn::LoadU(d, x + i)), d, y + i);
  }
}

// The log (kLog: y = log x) or 2^x (y = 2^x) of lrn's paths of this target
// (ops/lrn/lrn_hwy.cc), four vectors at a time as lrn calls them; false
// where the target has none (x must be positive normal floats for the log,
// |x| <= 125 for 2^x; n a multiple of 64).
template <bool kLog>
bool LrnMathArray(const float* x, size_t n, float* y) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_SSE4
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const size_t lanes = hn::Lanes(d);
  for (size_t i = 0; i < n; i += 4 * lanes) {
    V v[4];
    decltype(V().raw) raw[4];
    hmath::Unroll<4>([&](size_t k) HWY_ATTR {
      v[k] = hn::LoadU(d, x + i + k * lanes);
      raw[k] = v[k].raw;
    });
#if HWY_TARGET == HWY_AVX3
    kLog ? hmath::LogAvx512(raw) : hmath::Exp2Avx512(raw);
    hmath::Unroll<4>([&](size_t k) HWY_ATTR { v[k] = V{raw[k]}; });
#else
    if (!kLog) {
      hmath::Exp2Bounded(d, v);
    } else {
#if HWY_TARGET == HWY_AVX2
      hmath::LogAvx2Normal(raw);
      hmath::Unroll<4>([&](size_t k) HWY_ATTR { v[k] = V{raw[k]}; });
#else
      hmath::Unroll<4>([&](size_t k) HWY_ATTR {
        v[k] = hn::impl::Log<decltype(d), V, /*kAllowSubnormals=*/false>(d, v[k]);
      });
#endif
    }
#endif
    hmath::Unroll<4>([&](size_t k) HWY_ATTR { hn::StoreU(v[k], d, y + i + k * lanes); });
  }
  return true;
#else
  (void)x, (void)n, (void)y;
  return false;
#endif
}

// out[r] = the sum of the lanes of row r (rows[r * lanes ..], lanes rows)
// by this target's many-row reduction (Reduce16 with an add, Reduce8Sum);
// false where it has none.
bool RowSums(const float* rows, float* out) {
#if HWY_TARGET == HWY_AVX3
  __m512 v[16];
  for (size_t r = 0; r < 16; ++r) v[r] = _mm512_loadu_ps(rows + 16 * r);
  _mm512_storeu_ps(out, hmath::Reduce16(v, [](__m512 a, __m512 b) HWY_ATTR {
                     return _mm512_add_ps(a, b);
                   }));
  return true;
#elif HWY_TARGET == HWY_AVX2
  __m256 v[8];
  for (size_t r = 0; r < 8; ++r) v[r] = _mm256_loadu_ps(rows + 8 * r);
  _mm256_storeu_ps(out, hmath::Reduce8Sum(v));
  return true;
#else
  (void)rows, (void)out;
  return false;
#endif
}

bool LrnLogArray(const float* x, size_t n, float* y) { return LrnMathArray<true>(x, n, y); }
bool LrnExp2Array(const float* x, size_t n, float* y) { return LrnMathArray<false>(x, n, y); }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/dispatch.h"
#include "core/hwy_kernels.h"
#include "gtest/gtest.h"

namespace synops {
namespace {

using ExpFn = void (*)(const float*, size_t, float*);

struct Worst {
  double rel = 0;  // relative error where e^x >= 2^-126 (normal)
  // Where e^x < 2^-126: error in units of 2^-149 beyond `rel_bound` e^x.
  double denorm_ulps = 0;
  float at = 0;
};

// Every `stride`-th float from -0 down to `lowest` and, if `highest` > 0,
// from +0 up to it; the ends themselves.
std::vector<float> Floats(float lowest, float highest, uint32_t stride) {
  std::vector<float> x;
  const auto walk = [&](float from, float to) {
    uint32_t lo, hi;
    std::memcpy(&lo, &from, 4);
    std::memcpy(&hi, &to, 4);
    for (uint64_t b = lo; b <= hi; b += stride) {
      float f;
      const uint32_t bits = static_cast<uint32_t>(b);
      std::memcpy(&f, &bits, 4);
      x.push_back(f);
    }
    x.push_back(to);
  };
  walk(-0.0f, lowest);
  if (highest > 0.0f) walk(0.0f, highest);
  return x;
}

Worst MeasureOn(ExpFn fn, std::vector<float> x, double rel_bound) {
  while (x.size() % 64 != 0) x.push_back(0.0f);
  std::vector<float> y(x.size());
  fn(x.data(), x.size(), y.data());
  Worst w;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(static_cast<double>(x[i]));
    const double err = std::fabs(static_cast<double>(y[i]) - want);
    if (want >= std::ldexp(1.0, -126)) {
      if (err / want > w.rel) {
        w.rel = err / want;
        w.at = x[i];
      }
    } else {
      w.denorm_ulps =
          std::max(w.denorm_ulps, (err - rel_bound * want) / std::ldexp(1.0, -149));
    }
  }
  return w;
}

// Every `stride`-th float in [-104, 0], plus -Inf (which must give +0).
Worst Measure(ExpFn fn, uint32_t stride, double rel_bound) {
  std::vector<float> x = Floats(-104.0f, 0.0f, stride);
  x.push_back(-std::numeric_limits<float>::infinity());
  x.push_back(-87.33654f);  // e^x near FLT_MIN
  x.push_back(-103.27893f);  // e^x near the smallest denormal
  return MeasureOn(fn, std::move(x), rel_bound);
}

std::vector<Kernel<ExpFn>> Kernels(bool coarse) {
  if (coarse) return {SYNOPS_HWY_KERNELS(ExpCoarse)};
  return {SYNOPS_HWY_KERNELS(ExpFine)};
}

// Every kernel this CPU runs within `rel` of e^x on every `stride`-th float
// in [-104, 0] and -Inf; denormal results within `denorm_rel` e^x plus
// their rounding, 1 ULP of 2^-149.
void ExpectWithin(const std::vector<Kernel<ExpFn>>& kernels, uint32_t stride, double rel,
                  double denorm_rel) {
  int tested = 0;
  for (const auto& k : kernels) {
    if (!CpuSupports(k.isa)) continue;
    ++tested;
    const Worst w = Measure(k.fn, stride, denorm_rel);
    EXPECT_LE(w.rel, rel) << k.name << " at x = " << w.at;
    EXPECT_LE(w.denorm_ulps, 1.0) << k.name;
  }
  EXPECT_GT(tested, 0);
}

// Full precision: within 1 ULP (2^-23 relative bounds an ULP from above),
// denormal results within their rounding.
TEST(HwyMath, ExpNonPositiveWithinOneUlp) {
  ExpectWithin(Kernels(false), 64, std::ldexp(1.0, -23), 0.0);
}

// Coarse (BF16 results): 2^-17 relative, 2.2 times what was measured
// (3.4e-6) and 256 times below half a BF16 ULP (at least 2^-9 of the value).
TEST(HwyMath, ExpNonPositiveCoarseWithinBound) {
  ExpectWithin(Kernels(true), 64, std::ldexp(1.0, -17), std::ldexp(1.0, -17));
}

// For BF16 results: 2^-16 relative, 128 times below half a BF16 ULP, on
// every 16th float. Measured: AVX-512 7.1e-6 (normal results), the others
// ExpNonPositive<true>'s.
TEST(HwyMath, ExpNonPositiveBf16WithinBound) {
  ExpectWithin({SYNOPS_HWY_KERNELS(ExpBf16)}, 16, std::ldexp(1.0, -16), std::ldexp(1.0, -16));
}

// ExpClamped over its whole domain [-87, 88]: 1 ULP.
TEST(HwyMath, ExpClampedWithinOneUlp) {
  const std::vector<Kernel<ExpFn>> kernels = {SYNOPS_HWY_KERNELS(ExpClampedArray)};
  int tested = 0;
  for (const auto& k : kernels) {
    if (!CpuSupports(k.isa)) continue;
    ++tested;
    const Worst w = MeasureOn(k.fn, Floats(-87.0f, 88.0f, 64), 0.0);
    EXPECT_LE(w.rel, std::ldexp(1.0, -23)) << k.name << " at x = " << w.at;
    EXPECT_EQ(w.denorm_ulps, 0.0) << k.name;
  }
  EXPECT_GT(tested, 0);
}

using TableFn = bool (*)(const float*, size_t, float*);

// The worst error of fn, relative to |want(x)| in units of 2^-23, over the
// floats with bit patterns [lo, hi] in steps of `stride` (in chunks, so
// that no array of them all is built); -1 where fn has no such path.
template <class Want>
double WorstUlps(TableFn fn, uint32_t lo, uint32_t hi, uint32_t stride, Want want, float* at) {
  constexpr size_t kChunk = 1 << 16;
  std::vector<float> x(kChunk), y(kChunk);
  double worst = 0;
  for (uint64_t b = lo; b <= hi;) {
    size_t n = 0;
    for (; n < kChunk && b <= hi; ++n, b += stride) {
      const uint32_t bits = static_cast<uint32_t>(b);
      std::memcpy(&x[n], &bits, 4);
    }
    for (size_t i = n; i < kChunk; ++i) x[i] = x[0];
    if (!fn(x.data(), kChunk, y.data())) return -1;
    for (size_t i = 0; i < n; ++i) {
      const double w = want(static_cast<double>(x[i]));
      const double err = std::fabs(static_cast<double>(y[i]) - w);
      const double ulps = w == 0 ? (err == 0 ? 0 : HUGE_VAL) : err / std::fabs(w) * 0x1p23;
      if (ulps > worst) {
        worst = ulps;
        *at = x[i];
      }
    }
  }
  return worst;
}

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// The worst of `kernels` (TableFn) over the bit patterns of [lo, hi]
// (either sign's order) in steps of `stride`, against want, within `bound`
// (units of 2^-23 of |want|); skipped where no kernel has the path (NEON).
template <class Want>
void ExpectWithinShare(const std::vector<Kernel<TableFn>>& kernels, const char* what,
                       const std::vector<std::pair<float, float>>& ranges, uint32_t stride,
                       Want want, double bound) {
  int tested = 0;
  for (const auto& k : kernels) {
    if (!CpuSupports(k.isa)) continue;
    double worst = 0;
    float at = 0;
    bool has_path = true;
    for (const auto& [lo, hi] : ranges) {
      float where = 0;
      const double ulps = WorstUlps(k.fn, Bits(lo), Bits(hi), stride, want, &where);
      has_path = ulps >= 0;
      if (!has_path) break;
      if (ulps > worst) worst = ulps, at = where;
    }
    if (!has_path) continue;
    ++tested;
    EXPECT_LE(worst, bound) << k.name << " " << what << " at x = " << at;
    std::printf("%s lrn %s: %.3f * 2^-23 at %.9g\n", k.name, what, worst, at);
  }
  if (tested == 0) GTEST_SKIP() << "no kernel with lrn's " << what << " path on this CPU";
}

// lrn's log on every x86 target (LogAvx512, LogAvx2Normal, Highway's Log
// on SSE4), on every 61st positive normal float: within 1.8 * 2^-23
// |log x|, the share of lrn_accuracy.h's kLogUlps = 3 that glibc's logf
// (0.66) and the rounding of the exponent's product (0.5) leave.
// LogAvx512 was measured at 1.06 over all positive floats.
TEST(HwyMath, LrnLogWithinShare) {
  ExpectWithinShare(
      {SYNOPS_HWY_KERNELS(LrnLogArray)}, "log", {{1.17549435e-38f, 3.40282347e38f}}, 61,
      [](double v) { return std::log(v); }, 1.8);
}

// lrn's 2^x (Exp2Avx512, Exp2Bounded on AVX2 and SSE4) on every
// 17th float in [-125, 125]: within 1.4 * 2^-23 2^x, below the 1.5 of
// lrn_accuracy.h's kExpUlps = 2 that glibc's expf (0.5) leaves.
TEST(HwyMath, LrnExp2WithinShare) {
  ExpectWithinShare(
      {SYNOPS_HWY_KERNELS(LrnExp2Array)}, "2^x", {{0.0f, 125.0f}, {-0.0f, -125.0f}}, 17,
      [](double v) { return std::exp2(v); }, 1.4);
}

// Lane r of the reduction is row r's sum: integer lanes (exact sums), each
// row's distinct, so a lane that took another row's sum or missed a lane
// shows.
TEST(HwyMath, RowReductionsPutEachRowInItsLane) {
  using RowSumsFn = bool (*)(const float*, float*);
  const std::vector<Kernel<RowSumsFn>> kernels = {SYNOPS_HWY_KERNELS(RowSums)};
  int tested = 0;
  for (const auto& k : kernels) {
    if (!CpuSupports(k.isa)) continue;
    float rows[16 * 16], out[16];
    for (size_t i = 0; i < 16 * 16; ++i) rows[i] = static_cast<float>((i * 37) % 101);
    if (!k.fn(rows, out)) continue;
    ++tested;
    const size_t lanes = k.isa == Isa::kAvx2 ? 8 : 16;
    for (size_t r = 0; r < lanes; ++r) {
      float want = 0.0f;
      for (size_t j = 0; j < lanes; ++j) want += rows[r * lanes + j];
      EXPECT_EQ(out[r], want) << k.name << " row " << r;
    }
  }
  if (CpuSupports(Isa::kAvx2)) EXPECT_GT(tested, 0);
}

}  // namespace
}  // namespace synops
#endif  // HWY_ONCE
