// Kernel table of eltwise. Kernels receive validated arguments (count >= 2,
// size >= 1, type in range, non-null pointers, dst equal to or disjoint from
// every src).
#ifndef SYNOPS_OPS_ELTWISE_ELTWISE_KERNELS_H_
#define SYNOPS_OPS_ELTWISE_ELTWISE_KERNELS_H_

#include <cstddef>
#include <vector>

#include "core/dispatch.h"
#include "core/streaming.h"
#include "ops/eltwise/eltwise.h"

namespace synops {

using EltwiseFn = void (*)(const float* const* src, const float* weight, size_t count, size_t size,
                           EltwiseOp type, float* dst);

// Highway's avx512/avx2/sse41 (x86) or neon (aarch64), then ref.
const KernelTable<EltwiseFn>& EltwiseKernels();

namespace eltwise_internal {

// The scalar Max/Min of the contract: the second operand unless the first is
// greater (smaller).
inline float MaxOf(float a, float b) { return a > b ? a : b; }
inline float MinOf(float a, float b) { return a < b ? a : b; }


void EltwiseRef(const float* const* src, const float* weight, size_t count, size_t size,
                EltwiseOp type, float* dst);
std::vector<Kernel<EltwiseFn>> EltwiseHwyKernels();

}  // namespace eltwise_internal
}  // namespace synops

#endif  // SYNOPS_OPS_ELTWISE_ELTWISE_KERNELS_H_
