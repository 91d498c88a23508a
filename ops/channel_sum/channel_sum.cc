#include "ops/channel_sum/channel_sum.h"

#include "core/status.h"
#include "ops/channel_sum/channel_sum_kernels.h"

namespace synops {

const KernelTable<ChannelSum16bFn>& ChannelSum16bKernels() {
  static const KernelTable<ChannelSum16bFn> table(
      channel_sum_internal::ChannelSum16bHwyKernels(),
      {{"ref", Isa::kRef, channel_sum_internal::ChannelSum16bRef}});
  return table;
}

absl::Status ChannelSum16b(const uint16_t* src, size_t channels, size_t spatial,
                           TensorFormat format, float* sum) {
  size_t src_bytes, sum_bytes;
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({channels, spatial, sizeof(uint16_t)}, "channels*spatial",
                                      &src_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckedBytes({channels, sizeof(float)}, "channels", &sum_bytes));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(src, src_bytes, "src"));
  SYNOPS_RETURN_IF_ERROR(CheckPointer(sum, sum_bytes, "sum"));
  SYNOPS_RETURN_IF_ERROR(CheckFormat(format));
  SYNOPS_RETURN_IF_ERROR(CheckDisjoint(sum, sum_bytes, "sum", src, src_bytes, "src"));
  if (channels != 0) ChannelSum16bKernels().Best().fn(src, channels, spatial, format, sum);
  return absl::OkStatus();
}

}  // namespace synops
