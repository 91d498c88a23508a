// Softmax along one axis (SPEC.md §3 softmax; the Simd Library's
// SimdSynetSoftmax32f and SimdSynetSoftmax16b).
#ifndef SYNOPS_OPS_SOFTMAX_SOFTMAX_H_
#define SYNOPS_OPS_SOFTMAX_SOFTMAX_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace synops {

// For a tensor of shape outer x count x inner, softmax along `count`:
// dst[(o*count + c)*inner + i] = exp(x_c - max_c x) / sum_c exp(x_c - max_c x)
// with x_c = src[(o*count + c)*inner + i]. Very negative inputs (e.g. [-1000,
// 0]) give exact zeros or denormals, never NaN; rows containing NaN or +Inf,
// and rows of only -Inf, give unspecified values. Accuracy: SPEC.md §5 (see
// testing::SoftmaxBound).
//
// dst == src (the same pointer and extent) computes in place. Errors
// (InvalidArgument, nothing written): null `src` or `dst` for a non-empty
// tensor, outer*count*inner bytes overflowing, `dst` partially overlapping
// `src`. A zero size does nothing.
absl::Status Softmax32f(const float* src, size_t outer, size_t count, size_t inner, float* dst);

// The same on BF16 data: inputs are widened to FP32 (exactly), the math is
// FP32 and each result is rounded with Fp32ToBf16 (SPEC.md §2).
absl::Status Softmax16b(const uint16_t* src, size_t outer, size_t count, size_t inner,
                        uint16_t* dst);

}  // namespace synops

#endif  // SYNOPS_OPS_SOFTMAX_SOFTMAX_H_
