// The accuracy contract of eltwise (SPEC.md §5 and eltwise.h), for its tests,
// fuzzer and synbench: Product bit-exact except for NaN payloads; Max and Min
// bit-exact, NaN included (eltwise.h fixes which operand they return); Sum
// within 1e-5 * max(1, |ref|).
#ifndef SYNOPS_OPS_ELTWISE_ELTWISE_CHECK_H_
#define SYNOPS_OPS_ELTWISE_ELTWISE_CHECK_H_

#include <optional>

#include "absl/types/span.h"
#include "ops/eltwise/eltwise.h"
#include "testing/tolerance.h"

namespace synops {
namespace eltwise_check {

// The first element of `got` that breaks the contract of `op`.
std::optional<testing::Mismatch> Check(EltwiseOp op, absl::Span<const float> got,
                                       absl::Span<const float> want);

// The worst error as a fraction of the bound (testing::BoundFraction).
double BoundFraction(EltwiseOp op, absl::Span<const float> got, absl::Span<const float> want);

}  // namespace eltwise_check
}  // namespace synops

#endif  // SYNOPS_OPS_ELTWISE_ELTWISE_CHECK_H_
