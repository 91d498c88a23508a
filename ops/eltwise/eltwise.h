// Element-wise product, weighted sum, maximum or minimum of several FP32
// arrays (SPEC.md §3 eltwise; the Simd Library's SimdSynetEltwiseLayerForward).
#ifndef SYNOPS_OPS_ELTWISE_ELTWISE_H_
#define SYNOPS_OPS_ELTWISE_ELTWISE_H_

#include <cstddef>

#include "absl/status/status.h"

namespace synops {

// The operation; values as in the original SimdSynetEltwiseOperationType.
enum class EltwiseOp : int {
  kProduct = 0,
  kSum = 1,
  kMax = 2,
  kMin = 3,
};

// "product", "sum", "max", "min" ("unknown" otherwise).
const char* EltwiseOpName(EltwiseOp op);

// For every j < size, in the seed's evaluation order:
//   Product: dst[j] = (...((src[0][j] * src[1][j]) * src[2][j]) ...) * src[count-1][j]
//   Sum:     dst[j] = (...((src[0][j]*weight[0] + src[1][j]*weight[1])
//                          + src[2][j]*weight[2]) ...) + src[count-1][j]*weight[count-1]
//   Max:     dst[j] = Max(...Max(Max(src[0][j], src[1][j]), src[2][j]) ..., src[count-1][j])
//   Min:     likewise with Min,
// where Max(a, b) = a > b ? a : b and Min(a, b) = a < b ? a : b (the Simd
// Library's Max/Min, which are x86's maxps/minps): when neither operand is
// greater (equal values such as +0 and -0, or a NaN) the SECOND operand, the
// newer input, is the result. Product, Max and Min are bit-exact in every
// implementation; Sum may be contracted to FMA (within 1e-5 * max(1, |ref|)).
//
// `src` holds `count` pointers to arrays of `size` floats. dst may be any of
// them exactly (in place); every element of every input is read before the
// element of dst at the same index is written.
//
// Errors (InvalidArgument, nothing written): `type` out of range; count < 2;
// for size > 0: null `src`, `dst` or any `src[i]`, null `weight` for kSum;
// a byte size that overflows; dst partially overlapping any src[i]; dst
// overlapping `weight` or the pointer array `src`. size == 0 does nothing.
absl::Status EltwiseLayerForward(const float* const* src, const float* weight, size_t count,
                                 size_t size, EltwiseOp type, float* dst);

}  // namespace synops

#endif  // SYNOPS_OPS_ELTWISE_ELTWISE_H_
