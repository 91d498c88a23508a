// Kernel table of tiled_scale. Kernels receive validated arguments (valid
// format, no zero dimension, non-null pointers, dst equal to or disjoint from src).
#ifndef SYNOPS_OPS_TILED_SCALE_TILED_SCALE_KERNELS_H_
#define SYNOPS_OPS_TILED_SCALE_TILED_SCALE_KERNELS_H_

#include <cstddef>
#include <vector>

#include "core/dispatch.h"
#include "core/streaming.h"
#include "core/types.h"

namespace synops {

using TiledScale2D32fFn = void (*)(const float* src, size_t channels, size_t height, size_t width,
                                   TensorFormat format, const float* ver, const float* hor,
                                   float* dst);

// Highway's avx512/avx2/sse41 (x86) or neon (aarch64), then ref.
const KernelTable<TiledScale2D32fFn>& TiledScale2D32fKernels();

namespace tiled_scale_internal {


void TiledScale2D32fRef(const float* src, size_t channels, size_t height, size_t width,
                        TensorFormat format, const float* ver, const float* hor, float* dst);
std::vector<Kernel<TiledScale2D32fFn>> TiledScale2D32fHwyKernels();

}  // namespace tiled_scale_internal
}  // namespace synops

#endif  // SYNOPS_OPS_TILED_SCALE_TILED_SCALE_KERNELS_H_
