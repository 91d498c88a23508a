// Kernel table of unary. Kernels receive validated arguments; dst may equal
// src (in place) but never partially overlaps it.
#ifndef SYNOPS_OPS_UNARY_UNARY_KERNELS_H_
#define SYNOPS_OPS_UNARY_UNARY_KERNELS_H_

#include <cstddef>
#include <vector>

#include "core/dispatch.h"
#include "ops/unary/unary.h"

namespace synops {

using UnaryOperation32fFn = void (*)(const float* src, size_t size, UnaryOp type, float* dst);

// Highway's avx512/avx2/sse41 (x86) or neon (aarch64), then ref.
const KernelTable<UnaryOperation32fFn>& UnaryOperation32fKernels();

namespace unary_internal {
void UnaryOperation32fRef(const float* src, size_t size, UnaryOp type, float* dst);
std::vector<Kernel<UnaryOperation32fFn>> UnaryOperation32fHwyKernels();
}  // namespace unary_internal

}  // namespace synops

#endif  // SYNOPS_OPS_UNARY_UNARY_KERNELS_H_
