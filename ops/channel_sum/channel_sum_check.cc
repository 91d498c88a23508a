#include "ops/channel_sum/channel_sum_check.h"

#include <cmath>

#include "bf16/bf16.h"
#include "testing/tolerance.h"

namespace synops {
namespace channel_sum_check {

std::vector<double> Bounds(const uint16_t* src, size_t channels, size_t spatial,
                           TensorFormat format) {
  std::vector<double> bound(channels, 0.0);
  for (size_t c = 0; c < channels; ++c) {
    double sum_abs = 0;
    for (size_t s = 0; s < spatial; ++s) {
      const size_t i = format == TensorFormat::kNchw ? c * spatial + s : s * channels + c;
      sum_abs += std::fabs(Bf16ToFp32(src[i]));
    }
    bound[c] = testing::SumBound(spatial, sum_abs);
  }
  return bound;
}

}  // namespace channel_sum_check
}  // namespace synops
