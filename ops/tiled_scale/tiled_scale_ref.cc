// Reference: the loops of the seed documentation. Each element is read
// before it is written, so dst == src works.
#include "ops/tiled_scale/tiled_scale_kernels.h"

namespace synops {
namespace tiled_scale_internal {

void TiledScale2D32fRef(const float* src, size_t channels, size_t height, size_t width,
                        TensorFormat format, const float* ver, const float* hor, float* dst) {
  if (format == TensorFormat::kNchw) {
    for (size_t c = 0; c < channels; ++c) {
      for (size_t y = 0; y < height; ++y) {
        for (size_t x = 0; x < width; ++x) {
          const size_t i = (c * height + y) * width + x;
          dst[i] = src[i] * ver[c * width + x] * hor[c * height + y];
        }
      }
    }
  } else {
    for (size_t y = 0; y < height; ++y) {
      for (size_t x = 0; x < width; ++x) {
        for (size_t c = 0; c < channels; ++c) {
          const size_t i = (y * width + x) * channels + c;
          dst[i] = src[i] * ver[x * channels + c] * hor[y * channels + c];
        }
      }
    }
  }
}

}  // namespace tiled_scale_internal
}  // namespace synops
