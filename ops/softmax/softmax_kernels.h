// Kernel tables of softmax. Kernels receive validated arguments with
// outer, count and inner all non-zero; dst is src or disjoint from it.
#ifndef SYNOPS_OPS_SOFTMAX_SOFTMAX_KERNELS_H_
#define SYNOPS_OPS_SOFTMAX_SOFTMAX_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dispatch.h"

namespace synops {

using Softmax32fFn = void (*)(const float* src, size_t outer, size_t count, size_t inner,
                              float* dst);
using Softmax16bFn = void (*)(const uint16_t* src, size_t outer, size_t count, size_t inner,
                              uint16_t* dst);

// ref, then Highway's sse41/avx2/avx512 (x86) or neon (aarch64).
const KernelTable<Softmax32fFn>& Softmax32fKernels();
const KernelTable<Softmax16bFn>& Softmax16bKernels();

namespace softmax_internal {
// The plain loops of SPEC.md with exp, sums and the division in double:
// within half an FP32 ULP (plus double rounding) of the exact softmax of the
// FP32 differences x_c - max.
void Softmax32fRef(const float* src, size_t outer, size_t count, size_t inner, float* dst);
// Softmax32fRef on the widened inputs, rounded with Fp32ToBf16.
void Softmax16bRef(const uint16_t* src, size_t outer, size_t count, size_t inner, uint16_t* dst);
std::vector<Kernel<Softmax32fFn>> Softmax32fHwyKernels();
std::vector<Kernel<Softmax16bFn>> Softmax16bHwyKernels();
}  // namespace softmax_internal

}  // namespace synops

#endif  // SYNOPS_OPS_SOFTMAX_SOFTMAX_KERNELS_H_
