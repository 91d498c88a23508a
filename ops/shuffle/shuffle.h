// Channel shuffle of two FP32 tensors (SPEC.md §3 shuffle; the Simd
// Library's SimdSynetShuffleLayerForward).
#ifndef SYNOPS_OPS_SHUFFLE_SHUFFLE_H_
#define SYNOPS_OPS_SHUFFLE_SHUFFLE_H_

#include <cstddef>

#include "absl/status/status.h"
#include "core/types.h"

namespace synops {

// With C = (channels0 + channels1) / 2 and every tensor `spatial` positions
// in `format` (NCHW: channel planes; NHWC: pixels of channels):
// * type 0 (split): let S be src0's channels0 channels followed by src1's
//   channels1 channels; dst0 channel k = S[2k], dst1 channel k = S[2k+1],
//   k < C (dst0 and dst1 have C channels).
// * type 1 (interleave): src0 and src1 have C channels each; let
//   T[2k] = src0[k], T[2k+1] = src1[k]; dst0 = T[0, channels0),
//   dst1 = T[channels0, channels0 + channels1).
// A copy: bit-exact in every implementation.
//
// Errors (InvalidArgument, nothing written): `type` other than 0 or 1; a
// format other than kNchw/kNhwc; odd channels0 or channels1; for non-empty
// tensors, a null src0, src1, dst0 or dst1; a byte size that overflows; an
// output overlapping an input or the other output. An empty problem (spatial
// or both channel counts 0) does nothing.
absl::Status ShuffleLayerForward(const float* src0, const float* src1, size_t channels0,
                                 size_t channels1, size_t spatial, float* dst0, float* dst1,
                                 TensorFormat format, int type);

}  // namespace synops

#endif  // SYNOPS_OPS_SHUFFLE_SHUFFLE_H_
