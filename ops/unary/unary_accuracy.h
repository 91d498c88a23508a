// The accuracy contract of SPEC.md §3 unary, for tests, the fuzzer and
// synbench: which ops are bit-exact, and whether an approximate result is
// within its bound of the double-precision <cmath> function.
#ifndef SYNOPS_OPS_UNARY_UNARY_ACCURACY_H_
#define SYNOPS_OPS_UNARY_UNARY_ACCURACY_H_

#include <optional>
#include <string>

#include "absl/types/span.h"
#include "ops/unary/unary.h"
#include "testing/tolerance.h"

namespace synops {
namespace unary_internal {

// Abs, Ceil, Floor, Neg, Not, Rcp, Round, Sign, Sqrt, Zero: every kernel
// equals the reference bit for bit.
bool IsBitExact(UnaryOp op);

// The exact function in double (approximate ops only), e.g. std::erf.
double Exact(UnaryOp op, double x);

// The SPEC bound of an approximate op at input x, against Exact rounded to
// float: 4 ULP or 1e-7 (Cos, Sin for |x| <= 39000; Erf, Tanh), 2 ULP (Exp on
// [-87.3, 88.7], +Inf or that above, 0, a denormal or that below), 4 ULP
// (Log, x > 0; -Inf at ±0, NaN below), 2 ULP (Rsqrt, x > 0; +Inf at +0).
// A NaN input must give NaN. Inputs the SPEC leaves open (|x| > 39000 for
// Cos/Sin, x < 0 for Rsqrt) accept anything.
bool WithinSpec(UnaryOp op, float x, float got);

// How close `got` is to breaking the contract, for reports: 0 exact or a
// special value as SPEC requires; otherwise the error over the bound, in ULP
// (ULP / allowed ULP) or, where the bound also allows an absolute error, the
// smaller of that and |error| / allowed error; +Inf if WithinSpec fails.
double SpecFraction(UnaryOp op, float x, float got);
// The worst SpecFraction over `got` (bit-exact ops: 0, or +Inf on a mismatch
// with `ref`).
double SpecFraction(UnaryOp op, absl::Span<const float> src, absl::Span<const float> got,
                    absl::Span<const float> ref);

// The first element of `got` (computed from `src`) that breaks the contract:
// bit-exact ops against `ref`, the others via WithinSpec.
std::optional<testing::Mismatch> CheckUnary(UnaryOp op, absl::Span<const float> src,
                                            absl::Span<const float> got,
                                            absl::Span<const float> ref);

}  // namespace unary_internal
}  // namespace synops

#endif  // SYNOPS_OPS_UNARY_UNARY_ACCURACY_H_
