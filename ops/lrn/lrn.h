// Local response normalization across channels (SPEC.md §3 lrn; the Simd
// Library's SimdSynetLrnLayerCrossChannels).
#ifndef SYNOPS_OPS_LRN_LRN_H_
#define SYNOPS_OPS_LRN_LRN_H_

#include <cstddef>

#include "absl/status/status.h"
#include "core/types.h"

namespace synops {

// dst[c, s] = src[c, s] * pow(k[0] + k[1] * sum_i src[i, s]^2, k[2]) with i
// running over the channel window [c - half, c + half] clipped to
// [0, channels), and pow(b, e) = exp(log(b) * e), for a `channels` x `spatial`
// tensor in NCHW (src[c*spatial + s]) or NHWC (src[s*channels + c]) format.
// Any `half` is valid (a window wider than the tensor is clipped). `k` points
// to three floats: offset, scale, exponent. The parameter order is the seed's
// (format last).
//
// Errors (InvalidArgument, nothing written): null `src`, `k` or `dst` for a
// non-empty tensor, a format other than kNchw/kNhwc, a byte size that
// overflows, `dst` overlapping `src` or `k` (in place is not supported).
absl::Status LrnLayerCrossChannels(const float* src, size_t half, size_t channels,
                                   size_t spatial, const float* k, float* dst,
                                   TensorFormat format);

}  // namespace synops

#endif  // SYNOPS_OPS_LRN_LRN_H_
