// Kernel table of shuffle. Kernels receive validated arguments (valid format
// and type, even channel counts, spatial >= 1, non-null pointers for
// non-empty tensors, outputs disjoint from inputs and from each other).
#ifndef SYNOPS_OPS_SHUFFLE_SHUFFLE_KERNELS_H_
#define SYNOPS_OPS_SHUFFLE_SHUFFLE_KERNELS_H_

#include <cstddef>
#include <vector>

#include "core/dispatch.h"
#include "core/streaming.h"
#include "core/types.h"

namespace synops {

using ShuffleFn = void (*)(const float* src0, const float* src1, size_t channels0,
                           size_t channels1, size_t spatial, float* dst0, float* dst1,
                           TensorFormat format, int type);

// Highway's avx512/avx2/sse41 (x86) or neon (aarch64), then ref.
const KernelTable<ShuffleFn>& ShuffleKernels();

namespace shuffle_internal {


void ShuffleRef(const float* src0, const float* src1, size_t channels0, size_t channels1,
                size_t spatial, float* dst0, float* dst1, TensorFormat format, int type);
std::vector<Kernel<ShuffleFn>> ShuffleHwyKernels();

}  // namespace shuffle_internal
}  // namespace synops

#endif  // SYNOPS_OPS_SHUFFLE_SHUFFLE_KERNELS_H_
