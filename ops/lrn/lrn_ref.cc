// Reference: the loops of SPEC.md, FP32, pow(b, e) = exp(log(b) * e).
#include <cmath>

#include "ops/lrn/lrn_kernels.h"

namespace synops {
namespace lrn_internal {

void LrnRef(const float* src, size_t half, size_t channels, size_t spatial, const float* k,
            float* dst, TensorFormat format) {
  const size_t cs = format == TensorFormat::kNchw ? spatial : 1;  // channel stride
  const size_t ss = format == TensorFormat::kNchw ? 1 : channels;  // spatial stride
  for (size_t c = 0; c < channels; ++c) {
    size_t lo, hi;
    Window(c, half, channels, &lo, &hi);
    for (size_t s = 0; s < spatial; ++s) {
      float sum = 0.0f;
      for (size_t i = lo; i <= hi; ++i) {
        const float x = src[i * cs + s * ss];
        sum += x * x;
      }
      const float b = k[0] + k[1] * sum;
      dst[c * cs + s * ss] = src[c * cs + s * ss] * std::exp(std::log(b) * k[2]);
    }
  }
}

}  // namespace lrn_internal
}  // namespace synops
