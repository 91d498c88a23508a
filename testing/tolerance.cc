#include "testing/tolerance.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_format.h"
#include "bf16/bf16.h"

namespace synops {
namespace testing {

bool BitEqual(float a, float b) {
  // memcpy, not memcmp: a load, where memcmp is a call (an interceptor under
  // ASan) for every element compared.
  uint32_t x, y;
  std::memcpy(&x, &a, sizeof(x));
  std::memcpy(&y, &b, sizeof(y));
  return x == y;
}

double RelBound(float ref) { return 1e-5 * std::fmax(1.0, std::fabs(static_cast<double>(ref))); }

double SumBound(size_t n, double sum_abs_terms) {
  return static_cast<double>(n) * kFp32Eps * sum_abs_terms;
}

double SoftmaxBound(size_t n, float ref) {
  return std::fabs(static_cast<double>(ref)) * static_cast<double>(n + 6) * kFp32Eps +
         0x1p-147;
}

int64_t UlpDistance(float a, float b) {
  auto key = [](float f) -> int64_t {
    int32_t i;
    std::memcpy(&i, &f, sizeof(i));
    // Map the sign-magnitude bit pattern onto a monotonic integer line.
    return i < 0 ? -static_cast<int64_t>(i & 0x7FFFFFFF) : static_cast<int64_t>(i);
  };
  const int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

bool WithinUlpOrAbs(float got, float want, int64_t max_ulp, double max_abs) {
  if (std::isnan(got) || std::isnan(want)) return std::isnan(got) && std::isnan(want);
  if (std::isinf(got) || std::isinf(want)) return got == want;
  return UlpDistance(got, want) <= max_ulp ||
         std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= max_abs;
}

bool WithinOneBf16Ulp(uint16_t got, float ref_fp32) {
  const uint16_t want = Fp32ToBf16(ref_fp32);
  if (std::isnan(ref_fp32)) return std::isnan(Bf16ToFp32(got));
  return UlpDistance(Bf16ToFp32(got), Bf16ToFp32(want)) <= (1 << 16);
}

namespace {
constexpr double kDenormUlp = 1.0 / 3.5681192317648639e+44;  // 2^-148
// One rounding of each implementation of a result of magnitude |v|.
double Rounding(double v) { return kFp32Eps * std::fabs(v) + kDenormUlp; }
constexpr double kFp32Max = 3.4028234663852886e+38;
// No bound where an FP32 implementation may overflow (|v| + e beyond FLT_MAX).
ErrVal Finish(double v, double e) {
  if (!std::isfinite(v) || !(std::fabs(v) + e <= kFp32Max)) return ErrVal{v, HUGE_VAL};
  return ErrVal{v, e + Rounding(v)};
}
}  // namespace

ErrVal ErrAdd(ErrVal a, ErrVal b) { return Finish(a.v + b.v, a.e + b.e); }
ErrVal ErrSub(ErrVal a, ErrVal b) { return Finish(a.v - b.v, a.e + b.e); }
ErrVal ErrMul(ErrVal a, ErrVal b) {
  return Finish(a.v * b.v, std::fabs(a.v) * b.e + std::fabs(b.v) * a.e + a.e * b.e);
}
ErrVal ErrDiv(ErrVal a, ErrVal b) {
  const double den = std::fabs(b.v) - b.e;
  // No bound where the divisor may be zero; and no division by zero (UBSan's
  // float-divide-by-zero, which OSS-Fuzz enables, rejects it).
  if (!(den > 0)) return ErrVal{b.v != 0 ? a.v / b.v : HUGE_VAL, HUGE_VAL};
  const double v = a.v / b.v;
  return Finish(v, (a.e + std::fabs(v) * b.e) / den);
}
ErrVal ErrSqrt(ErrVal a) {
  const double v = std::sqrt(std::fmax(a.v, 0.0));
  // |sqrt(x) - sqrt(y)| <= min(|x - y| / sqrt(x), sqrt(|x - y|)).
  const double e = v > 0 ? std::fmin(a.e / v, std::sqrt(a.e)) : std::sqrt(a.e);
  return Finish(v, e);
}
ErrVal ErrSum(absl::Span<const ErrVal> terms) {
  ErrSumAcc acc;
  for (const ErrVal& t : terms) acc.Add(t);
  return acc.Result();
}
ErrVal ErrSumAcc::Result() const {
  // A partial sum in another order can be as large as sum |terms|.
  if (!(abs_sum_ <= kFp32Max)) return ErrVal{v_, HUGE_VAL};
  return Finish(v_, e_ + SumBound(n_, abs_sum_));
}
ErrVal ErrExp(ErrVal a, double ulps) {
  const double v = std::exp(a.v);
  if (!(a.e < HUGE_VAL)) return ErrVal{v, HUGE_VAL};
  // exp's Lipschitz factor on [v - e, v + e], then the ULP error there.
  const double hi = std::exp(a.v + a.e);
  return Finish(v, (hi - v) + ulps * kFp32Eps * hi);
}
ErrVal ErrLog(ErrVal a, double ulps) {
  const double v = std::log(a.v);
  if (!(a.e < a.v)) return ErrVal{v, HUGE_VAL};
  const double e = -std::log1p(-a.e / a.v);
  return Finish(v, e + ulps * kFp32Eps * (std::fabs(v) + e));
}

std::string Mismatch::ToString() const {
  std::string s = absl::StrFormat("element %d: got %.9g, want %.9g (|diff| %.3g > bound %.3g)",
                                  index, got, want, std::fabs(got - want), bound);
  if (!note.empty()) absl::StrAppend(&s, " [", note, "]");
  return s;
}

std::optional<Mismatch> CompareBitExact(absl::Span<const float> got, absl::Span<const float> want) {
  const size_t n = std::min(got.size(), want.size());
  // Equal buffers (the common case) in one call; the loop finds the first difference.
  if (n == 0 || std::memcmp(got.data(), want.data(), n * sizeof(float)) != 0) {
    for (size_t i = 0; i < n; ++i) {
      if (!BitEqual(got[i], want[i])) return Mismatch{i, got[i], want[i], 0.0};
    }
  }
  if (got.size() != want.size()) return Mismatch{n, 0, 0, 0};
  return std::nullopt;
}

std::optional<Mismatch> CompareBitExact(absl::Span<const uint16_t> got,
                                        absl::Span<const uint16_t> want) {
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    if (got[i] != want[i]) return Mismatch{i, static_cast<double>(got[i]),
                                           static_cast<double>(want[i]), 0.0};
  }
  if (got.size() != want.size()) return Mismatch{std::min(got.size(), want.size()), 0, 0, 0};
  return std::nullopt;
}

std::optional<Mismatch> CompareBitExactOrNan(absl::Span<const float> got,
                                             absl::Span<const float> want) {
  const size_t n = std::min(got.size(), want.size());
  if (n == 0 || std::memcmp(got.data(), want.data(), n * sizeof(float)) != 0) {
    const float* g = got.data();
    const float* w = want.data();
    for (size_t i = 0; i < n; ++i) {
      if (BitEqual(g[i], w[i]) || (std::isnan(g[i]) && std::isnan(w[i]))) continue;
      return Mismatch{i, g[i], w[i], 0.0};
    }
  }
  if (got.size() != want.size()) return Mismatch{n, 0, 0, 0};
  return std::nullopt;
}

namespace {

// |got[i] - want[i]| <= bound[i], NaN matches NaN only, Inf matches itself.
// With skip_unbounded, an infinite bound accepts anything (NaN and Inf too).
std::optional<Mismatch> CompareElements(absl::Span<const float> got,
                                        absl::Span<const float> want,
                                        absl::Span<const double> bound, bool skip_unbounded) {
  const size_t n = std::min(got.size(), want.size());
  const float* gp = got.data();
  const float* wp = want.data();
  const double* bp = bound.data();
  for (size_t i = 0; i < n; ++i) {
    const double g = gp[i], w = wp[i];
    // Both finite and within the bound: the common case, two compares (|g - w|
    // is Inf or NaN when either side is).
    const double d = std::fabs(g - w);
    if (d < HUGE_VAL && d <= bp[i]) continue;
    if (skip_unbounded && !(bp[i] < HUGE_VAL)) continue;
    bool ok;
    if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else {
      // Inf on either side (|g - w| is then Inf or NaN), or beyond the bound.
      ok = (std::isinf(w) || std::isinf(g)) && g == w;
    }
    if (!ok) return Mismatch{i, g, w, bp[i]};
  }
  if (got.size() != want.size()) return Mismatch{n, 0, 0, 0};
  return std::nullopt;
}

}  // namespace

std::optional<Mismatch> CompareWithin(absl::Span<const float> got, absl::Span<const float> want,
                                      absl::Span<const double> bound) {
  return CompareElements(got, want, bound, /*skip_unbounded=*/false);
}

std::optional<Mismatch> CompareWithinBounds(absl::Span<const float> got,
                                            absl::Span<const float> want,
                                            absl::Span<const double> bound) {
  return CompareElements(got, want, bound, /*skip_unbounded=*/true);
}

std::optional<Mismatch> CompareWithinOneBf16Ulp(absl::Span<const uint16_t> got,
                                                absl::Span<const float> want) {
  const size_t n = std::min(got.size(), want.size());
  for (size_t i = 0; i < n; ++i) {
    if (!WithinOneBf16Ulp(got[i], want[i])) {
      return Mismatch{i, Bf16ToFp32(got[i]), want[i], Bf16Ulp(want[i]), "more than one BF16 ULP"};
    }
  }
  if (got.size() != want.size()) return Mismatch{n, 0, 0, 0};
  return std::nullopt;
}

double BoundFraction(absl::Span<const float> got, absl::Span<const float> want,
                     absl::Span<const double> bound) {
  if (got.size() != want.size() || bound.size() < got.size()) return HUGE_VAL;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i], b = bound[i];
    if (!(b < HUGE_VAL)) continue;
    if (std::isnan(g) || std::isnan(w)) {
      if (!(std::isnan(g) && std::isnan(w))) return HUGE_VAL;
      continue;
    }
    if (g == w) continue;
    const double d = std::fabs(g - w);
    if (!(d < HUGE_VAL) || b <= 0) return HUGE_VAL;
    worst = std::fmax(worst, d / b);
  }
  return worst;
}

double Bf16UlpFraction(absl::Span<const uint16_t> got, absl::Span<const float> want) {
  if (got.size() != want.size()) return HUGE_VAL;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const float g = Bf16ToFp32(got[i]);
    const float w = Bf16ToFp32(Fp32ToBf16(want[i]));
    if (std::isnan(g) || std::isnan(w)) {
      if (!(std::isnan(g) && std::isnan(w))) return HUGE_VAL;
      continue;
    }
    if (std::isinf(g) || std::isinf(w)) {
      if (g != w) return HUGE_VAL;
      continue;
    }
    // A BF16 ULP is 2^16 FP32 ULP (BF16 values are FP32 values with 16 zero low bits).
    worst = std::fmax(worst, static_cast<double>(UlpDistance(g, w)) / 65536.0);
  }
  return worst;
}

double Conv16bSumBound(size_t k, double sum_abs_products) {
  return static_cast<double>(k) * 2.0 * kFp32Eps * sum_abs_products + 1e-6;
}

double Bf16Ulp(double x) {
  const double a = std::fabs(x);
  if (!(a >= 0x1p-126)) return 0x1p-133;
  return std::ldexp(1.0, std::ilogb(a) - 7);
}

double ActivationErrorBound(double x) {
  const double a = std::fabs(x);
  const double ulp = a >= 0x1p-126 ? std::ldexp(1.0, std::ilogb(a) - 23) : 0x1p-149;
  return std::fmax(4.0 * ulp, 1e-6);
}

}  // namespace testing
}  // namespace synops
