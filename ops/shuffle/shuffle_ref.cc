// Reference: SPEC.md's definition, one element at a time.
#include "ops/shuffle/shuffle_kernels.h"

namespace synops {
namespace shuffle_internal {
namespace {

// Element (channel c, position s) of a `channels` x `spatial` tensor.
size_t At(TensorFormat format, size_t c, size_t s, size_t channels, size_t spatial) {
  return format == TensorFormat::kNchw ? c * spatial + s : s * channels + c;
}

}  // namespace

void ShuffleRef(const float* src0, const float* src1, size_t channels0, size_t channels1,
                size_t spatial, float* dst0, float* dst1, TensorFormat format, int type) {
  const size_t c = (channels0 + channels1) / 2;
  for (size_t s = 0; s < spatial; ++s) {
    if (type == 0) {
      // S[j]: src0 channel j for j < channels0, else src1 channel j - channels0.
      auto S = [&](size_t j) {
        return j < channels0 ? src0[At(format, j, s, channels0, spatial)]
                             : src1[At(format, j - channels0, s, channels1, spatial)];
      };
      for (size_t k = 0; k < c; ++k) {
        dst0[At(format, k, s, c, spatial)] = S(2 * k);
        dst1[At(format, k, s, c, spatial)] = S(2 * k + 1);
      }
    } else {
      // T[2k] = src0 channel k, T[2k+1] = src1 channel k.
      // Indexing each pointer, not (j % 2 == 0 ? src0 : src1)[at]: GCC
      // 12.2 with -fsanitize=undefined -O2 miscompiles that form (the odd
      // channels all read src1's first element of the pixel), which failed
      // every shuffle test under --config=ubsan.
      auto T = [&](size_t j) {
        const size_t at = At(format, j / 2, s, c, spatial);
        return j % 2 == 0 ? src0[at] : src1[at];
      };
      for (size_t j = 0; j < channels0; ++j) dst0[At(format, j, s, channels0, spatial)] = T(j);
      for (size_t j = 0; j < channels1; ++j) {
        dst1[At(format, j, s, channels1, spatial)] = T(channels0 + j);
      }
    }
  }
}

}  // namespace shuffle_internal
}  // namespace synops
