// Normalization layers (SPEC.md §3 normalize; the Simd Library's
// SimdSynetNormalizeLayerForward, V2, V3, V4 and 16bV2).
//
// Every function takes a `batch` x `channels` x `spatial` tensor in NCHW
// (src[(b*channels + c)*spatial + s]) or NHWC (src[(b*spatial + s)*channels + c])
// format, per-channel `scale` (and `shift`) arrays of `channels` floats, `eps`
// pointing to one float, an optional scratch `buf` and `dst`. `dst == src`
// (exactly the same array) computes in place. Sums are accumulated in FP32 in
// any order (SPEC.md §5 bounds the difference from the reference).
//
// `buf`: nullptr, or scratch the function may use instead of allocating.
// Only NormalizeLayerForwardV4 uses it: `channels` floats (the seed's size),
// which must not overlap any other argument. The other functions work in
// fixed-size stack blocks and never touch `buf` (they accept it so that seed
// code ports unchanged; the seed's sizes, `spatial` or `channels` floats,
// are always enough).
//
// Errors (InvalidArgument, nothing written): a null `src`, `dst`, `scale`,
// `shift` or `eps` for a non-empty tensor, a format other than kNchw/kNhwc, a
// byte size that overflows, `dst` partially overlapping `src`, `dst`
// overlapping `scale`, `shift` or `eps`, and (V4) a given `buf` overlapping
// any other argument.
#ifndef SYNOPS_OPS_NORMALIZE_NORMALIZE_H_
#define SYNOPS_OPS_NORMALIZE_NORMALIZE_H_

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "core/types.h"

namespace synops {

// V1, L2 normalization: k = 1 / sqrt(eps + sum x^2), dst = x * scale[c] * k,
// the sum running over every channel and position of a batch item if
// `across_spatial`, else over the channels of each position.
absl::Status NormalizeLayerForward(const float* src, size_t batch, size_t channels,
                                   size_t spatial, const float* scale, const float* eps,
                                   bool across_spatial, TensorFormat format, float* buf,
                                   float* dst);

// V2, layer norm over the channels of each position: mean = sum_c x / C,
// d = x - mean, dst = d / sqrt(sum_c d^2 / C + eps) * scale[c] + shift[c].
absl::Status NormalizeLayerForwardV2(const float* src, size_t batch, size_t channels,
                                     size_t spatial, const float* scale, const float* shift,
                                     const float* eps, TensorFormat format, float* buf,
                                     float* dst);

// V3, instance norm: V2 with the sums over the positions of each channel
// (divided by `spatial`).
absl::Status NormalizeLayerForwardV3(const float* src, size_t batch, size_t channels,
                                     size_t spatial, const float* scale, const float* shift,
                                     const float* eps, TensorFormat format, float* buf,
                                     float* dst);

// V4, global response norm: n_c = sqrt(sum_s x[c,s]^2),
// norm = 1 / (sum_c n_c / C + eps), dst = x * (1 + scale[c] * n_c * norm) + shift[c].
absl::Status NormalizeLayerForwardV4(const float* src, size_t batch, size_t channels,
                                     size_t spatial, const float* scale, const float* shift,
                                     const float* eps, TensorFormat format, float* buf,
                                     float* dst);

// V2 on BF16 src and dst (FP32 scale, shift, eps and math; the result is
// rounded with Fp32ToBf16). NCHW and NHWC (the seed allows only NHWC).
absl::Status NormalizeLayerForward16bV2(const uint16_t* src, size_t batch, size_t channels,
                                        size_t spatial, const float* scale, const float* shift,
                                        const float* eps, TensorFormat format, float* buf,
                                        uint16_t* dst);

}  // namespace synops

#endif  // SYNOPS_OPS_NORMALIZE_NORMALIZE_H_
