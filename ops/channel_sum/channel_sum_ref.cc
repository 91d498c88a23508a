// Reference: the loops of the seed documentation, FP32 accumulation.
#include "bf16/bf16.h"
#include "ops/channel_sum/channel_sum_kernels.h"

namespace synops {
namespace channel_sum_internal {

void ChannelSum16bRef(const uint16_t* src, size_t channels, size_t spatial, TensorFormat format,
                      float* sum) {
  if (format == TensorFormat::kNchw) {
    for (size_t c = 0; c < channels; ++c) {
      float s = 0.0f;
      for (size_t i = 0; i < spatial; ++i) s += Bf16ToFp32(src[c * spatial + i]);
      sum[c] = s;
    }
  } else {
    for (size_t c = 0; c < channels; ++c) sum[c] = 0.0f;
    for (size_t i = 0; i < spatial; ++i) {
      for (size_t c = 0; c < channels; ++c) sum[c] += Bf16ToFp32(src[i * channels + c]);
    }
  }
}

}  // namespace channel_sum_internal
}  // namespace synops
