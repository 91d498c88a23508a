// Kernel table of lrn. Kernels receive validated arguments (channels > 0).
#ifndef SYNOPS_OPS_LRN_LRN_KERNELS_H_
#define SYNOPS_OPS_LRN_LRN_KERNELS_H_

#include <cstddef>
#include <vector>

#include "core/dispatch.h"
#include "core/types.h"

namespace synops {

using LrnFn = void (*)(const float* src, size_t half, size_t channels, size_t spatial,
                       const float* k, float* dst, TensorFormat format);

// ref, then Highway's sse41/avx2/avx512 (x86) or neon (aarch64).
const KernelTable<LrnFn>& LrnKernels();

namespace lrn_internal {
void LrnRef(const float* src, size_t half, size_t channels, size_t spatial, const float* k,
            float* dst, TensorFormat format);
std::vector<Kernel<LrnFn>> LrnHwyKernels();

// The clipped window [*lo, *hi] of channel c (no overflow for any half).
inline void Window(size_t c, size_t half, size_t channels, size_t* lo, size_t* hi) {
  *lo = c > half ? c - half : 0;
  *hi = half >= channels - 1 - c ? channels - 1 : c + half;
}
}  // namespace lrn_internal

}  // namespace synops

#endif  // SYNOPS_OPS_LRN_LRN_KERNELS_H_
