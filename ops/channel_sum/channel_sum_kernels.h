// Kernel table of channel_sum. Kernels receive validated arguments.
#ifndef SYNOPS_OPS_CHANNEL_SUM_CHANNEL_SUM_KERNELS_H_
#define SYNOPS_OPS_CHANNEL_SUM_CHANNEL_SUM_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dispatch.h"
#include "core/types.h"

namespace synops {

using ChannelSum16bFn = void (*)(const uint16_t* src, size_t channels, size_t spatial,
                                 TensorFormat format, float* sum);

// ref, then Highway's sse41/avx2/avx512 (x86) or neon (aarch64).
const KernelTable<ChannelSum16bFn>& ChannelSum16bKernels();

namespace channel_sum_internal {
void ChannelSum16bRef(const uint16_t* src, size_t channels, size_t spatial, TensorFormat format,
                      float* sum);
std::vector<Kernel<ChannelSum16bFn>> ChannelSum16bHwyKernels();
}  // namespace channel_sum_internal

}  // namespace synops

#endif  // SYNOPS_OPS_CHANNEL_SUM_CHANNEL_SUM_KERNELS_H_
