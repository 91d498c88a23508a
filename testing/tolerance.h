// The tolerances of SPEC.md §5, in one place, for tests, fuzzers and synbench.
// No GoogleTest dependency: fuzzers and synbench use these too.
#ifndef SYNOPS_TESTING_TOLERANCE_H_
#define SYNOPS_TESTING_TOLERANCE_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/types/span.h"

namespace synops {
namespace testing {

// 2^-23: one FP32 ULP at 1.0 (the unit of the sum bound).
inline constexpr double kFp32Eps = 1.0 / 8388608.0;

// Bit patterns equal (NaN payloads and the sign of zero included).
bool BitEqual(float a, float b);

// Default FP32 bound: |got - ref| <= 1e-5 * max(1, |ref|).
double RelBound(float ref);

// Sum bound for reductions: n * 2^-23 * sum |terms|.
double SumBound(size_t n, double sum_abs_terms);

// Softmax (SPEC.md §3, §5 sum-bound family), per element of a row of n terms
// with reference value `ref`: |got - ref| <= |ref| (n + 6) 2^-23 + 2^-147.
// Derivation (u = 2^-24): each exp within 2 ULP (4u relative) in the
// numerator and again inside the sum; the FP32 sum of n positive terms
// within (n - 1) u (bounded by n 2^-23 as SPEC scales sums); the reciprocal
// of the sum (a division, or an approximation refined by a Newton step,
// about 2u) and the product, 3u; the reference's rounding, u: in all
// (n + 11) u <= (2n + 12) u. Denormal results (exp below 2^-126) add at most
// 2.5 denormal ULP: 2^-147.
double SoftmaxBound(size_t n, float ref);

// Distance in units in the last place between two finite floats of any sign.
int64_t UlpDistance(float a, float b);

// Bounds stated in ULP "or" absolute (SPEC.md §3 unary): true if
// UlpDistance(got, want) <= max_ulp or |got - want| <= max_abs. NaN matches
// only NaN; an infinity matches only itself.
bool WithinUlpOrAbs(float got, float want, int64_t max_ulp, double max_abs);

// BF16 result: got must equal Fp32ToBf16(ref) or a BF16 neighbour of it.
bool WithinOneBf16Ulp(uint16_t got, float ref_fp32);

// First-order error propagation for bounds of composite formulas (lrn,
// normalize): `v` is the exact value (evaluated in double) and `e` a bound on
// |kernel - reference| for that intermediate. Every FP32 operation adds one
// rounding of each implementation, 2^-23 |v| for the pair (plus 2^-148 for
// denormal results); sums add SumBound(n, sum |terms|), functions their ULP
// bounds (kernel and reference together). Any infinite or NaN input gives
// e = +Inf (no bound).
struct ErrVal {
  double v = 0;
  double e = 0;
};
// A value both implementations read identically (an input element).
inline ErrVal Exact(double v) { return ErrVal{v, 0.0}; }
ErrVal ErrAdd(ErrVal a, ErrVal b);
ErrVal ErrSub(ErrVal a, ErrVal b);
ErrVal ErrMul(ErrVal a, ErrVal b);
ErrVal ErrDiv(ErrVal a, ErrVal b);
ErrVal ErrSqrt(ErrVal a);
// The sum of `terms` in any order: their errors plus SumBound(n, sum |v|).
ErrVal ErrSum(absl::Span<const ErrVal> terms);
// ErrSum one term at a time, without a vector of terms: Result() is ErrSum of
// the terms added so far, in that order.
class ErrSumAcc {
 public:
  void Add(ErrVal t) {
    v_ += t.v;
    e_ += t.e;
    abs_sum_ += std::fabs(t.v);
    ++n_;
  }
  ErrVal Result() const;

 private:
  double v_ = 0, e_ = 0, abs_sum_ = 0;
  size_t n_ = 0;
};
// exp(a) / log(a) whose two implementations are within `ulps` ULP (together)
// of the exact function.
ErrVal ErrExp(ErrVal a, double ulps);
ErrVal ErrLog(ErrVal a, double ulps);

// The first element that violates a bound, described for a failure message.
struct Mismatch {
  size_t index = 0;
  double got = 0;
  double want = 0;
  double bound = 0;
  std::string note;  // optional context, e.g. the input that produced `got`
  std::string ToString() const;
};

// Bit-exact comparison.
std::optional<Mismatch> CompareBitExact(absl::Span<const float> got, absl::Span<const float> want);
std::optional<Mismatch> CompareBitExact(absl::Span<const uint16_t> got,
                                        absl::Span<const uint16_t> want);

// Bit-exact except that any NaN matches any NaN (ops that are bit-exact "for
// non-NaN inputs": a NaN's payload may differ, the sign of zero may not).
std::optional<Mismatch> CompareBitExactOrNan(absl::Span<const float> got,
                                             absl::Span<const float> want);

// |got[i] - want[i]| <= bound[i]; NaN matches NaN only.
std::optional<Mismatch> CompareWithin(absl::Span<const float> got, absl::Span<const float> want,
                                      absl::Span<const double> bound);

// CompareWithin for bounds from ErrVal: an element whose bound is +Inf
// (no bound exists) accepts any result; otherwise NaN must match NaN, an
// infinity itself, and |got - want| <= bound.
std::optional<Mismatch> CompareWithinBounds(absl::Span<const float> got,
                                            absl::Span<const float> want,
                                            absl::Span<const double> bound);

// Every BF16 result within one BF16 ULP of its FP32 reference
// (WithinOneBf16Ulp); NaN matches NaN.
std::optional<Mismatch> CompareWithinOneBf16Ulp(absl::Span<const uint16_t> got,
                                                absl::Span<const float> want);

// For reports (synbench): how close to failing a result is, as the worst
// element's error over its SPEC bound. 0: every element exact; <= 1: within
// the bound; +Inf: a mismatch no bound allows (beyond a zero bound, NaN for a
// number, a wrong infinity). Elements with an infinite bound count 0.
double BoundFraction(absl::Span<const float> got, absl::Span<const float> want,
                     absl::Span<const double> bound);
// The same for the one-BF16-ULP bound: the largest distance, in BF16 ULP,
// from the reference rounded to BF16.
double Bf16UlpFraction(absl::Span<const uint16_t> got, absl::Span<const float> want);
// The same for a bit-exact contract: 0 if `mismatch` is empty, else +Inf.
inline double ExactFraction(const std::optional<Mismatch>& mismatch) {
  return mismatch ? HUGE_VAL : 0.0;
}

// conv16b (SPEC.md §4): bound on |out - ref| of a convolution sum before the
// activation, K * 2^-22 * sum |src * w| + 1e-6, K = kernelY*kernelX*srcC/group.
double Conv16bSumBound(size_t k, double sum_abs_products);
// One BF16 ULP at |x| (the spacing of BF16 values there; 2^-133 for denormals).
double Bf16Ulp(double x);
// An activation's own error: 4 FP32 ULP of x or 1e-6, whichever is larger.
double ActivationErrorBound(double x);

}  // namespace testing
}  // namespace synops

#endif  // SYNOPS_TESTING_TOLERANCE_H_
