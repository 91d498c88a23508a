// SPEC.md's accuracy contract of softmax, for its tests, fuzzer and synbench:
// FP32 results within testing::SoftmaxBound of the reference; BF16 results
// within one BF16 ULP of the FP32 reference of the widened input
// (testing::CompareWithinOneBf16Ulp).
#ifndef SYNOPS_OPS_SOFTMAX_SOFTMAX_CHECK_H_
#define SYNOPS_OPS_SOFTMAX_SOFTMAX_CHECK_H_

#include <cstddef>
#include <vector>

#include "absl/types/span.h"

namespace synops {
namespace softmax_check {

// Per element: testing::SoftmaxBound(count, want[i]) (compare with
// testing::CompareWithin).
std::vector<double> Bounds(absl::Span<const float> want, size_t count);

}  // namespace softmax_check
}  // namespace synops

#endif  // SYNOPS_OPS_SOFTMAX_SOFTMAX_CHECK_H_
