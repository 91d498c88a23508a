// Sums the channels of a small BF16 tensor with synops and checks the result.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "bf16/bf16.h"
#include "ops/channel_sum/channel_sum.h"

int main() {
  const size_t channels = 3, spatial = 5;
  std::vector<uint16_t> src(channels * spatial);
  for (size_t c = 0; c < channels; ++c) {
    for (size_t s = 0; s < spatial; ++s) src[c * spatial + s] = synops::Fp32ToBf16(float(c + 1));
  }
  std::vector<float> sum(channels);
  const absl::Status status =
      synops::ChannelSum16b(src.data(), channels, spatial, synops::TensorFormat::kNchw, sum.data());
  if (!status.ok()) {
    std::fprintf(stderr, "ChannelSum16b failed: %s\n", status.ToString().c_str());
    return 1;
  }
  for (size_t c = 0; c < channels; ++c) {
    std::printf("sum[%zu] = %g\n", c, sum[c]);
    if (sum[c] != float((c + 1) * spatial)) return 1;
  }
  // Errors come back as absl::Status, nothing is written.
  const absl::Status bad = synops::ChannelSum16b(src.data(), channels, spatial,
                                                 synops::TensorFormat::kUnknown, sum.data());
  std::printf("bad format -> %s\n", bad.ToString().c_str());
  return bad.ok() ? 1 : 0;
}
