// Per-channel sums of a BF16 tensor (SPEC.md §3 channel_sum; the Simd
// Library's SimdSynetChannelSum16b).
#ifndef SYNOPS_OPS_CHANNEL_SUM_CHANNEL_SUM_H_
#define SYNOPS_OPS_CHANNEL_SUM_CHANNEL_SUM_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "core/types.h"

namespace synops {

// sum[c] = sum over s of Bf16ToFp32(src[c, s]), accumulated in FP32, for a
// `channels` x `spatial` tensor in NCHW (src[c*spatial + s]) or NHWC
// (src[s*channels + c]) format. spatial == 0 gives sum[c] = 0.
//
// Errors (InvalidArgument, nothing written): null `src` or `sum` for a
// non-empty tensor, a format other than kNchw/kNhwc, a byte size that
// overflows, `sum` overlapping `src`.
absl::Status ChannelSum16b(const uint16_t* src, size_t channels, size_t spatial,
                           TensorFormat format, float* sum);

}  // namespace synops

#endif  // SYNOPS_OPS_CHANNEL_SUM_CHANNEL_SUM_H_
