// Multiplies a 3D FP32 tensor by two tiled 2D scale tensors (SPEC.md §3
// tiled_scale; the Simd Library's SimdSynetTiledScale2D32f).
#ifndef SYNOPS_OPS_TILED_SCALE_TILED_SCALE_H_
#define SYNOPS_OPS_TILED_SCALE_TILED_SCALE_H_

#include <cstddef>

#include "absl/status/status.h"
#include "core/types.h"

namespace synops {

// NCHW: dst[(c*H + y)*W + x] = src[(c*H + y)*W + x] * ver[c*W + x] * hor[c*H + y]
// NHWC: dst[(y*W + x)*C + c] = src[(y*W + x)*C + c] * ver[x*C + c] * hor[y*C + c]
// for C = channels, H = height, W = width; the two products are rounded in
// that order (no FMA), so every implementation is bit-exact for non-NaN data.
// dst == src (in place) is allowed.
//
// Errors (InvalidArgument, nothing written): a format other than kNchw/kNhwc;
// for a non-empty tensor, a null src, ver, hor or dst; a byte size that
// overflows; dst partially overlapping src; dst overlapping ver or hor.
// An empty tensor (a zero dimension) does nothing.
absl::Status TiledScale2D32f(const float* src, size_t channels, size_t height, size_t width,
                             TensorFormat format, const float* ver, const float* hor, float* dst);

}  // namespace synops

#endif  // SYNOPS_OPS_TILED_SCALE_TILED_SCALE_H_
