// Differential fuzzer: random shape, format and BF16 data; every supported
// kernel against the reference at the SPEC sum bound.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bf16/bf16.h"
#include "fuzz/harness.h"
#include "ops/channel_sum/channel_sum.h"
#include "ops/channel_sum/channel_sum_check.h"
#include "ops/channel_sum/channel_sum_kernels.h"
#include "testing/tolerance.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synops;  // NOLINT
  fuzz::DataProvider in(data, size);
  const TensorFormat format = in.Bool() ? TensorFormat::kNhwc : TensorFormat::kNchw;
  const size_t channels = in.Integral<size_t>(1, 600);
  // Mostly small problems (fast, every tail); rarely up to the size cap.
  const bool large = in.Large();
  const size_t max_bytes = large ? fuzz::kMaxTensorBytes : fuzz::kSmallTensorBytes;
  const size_t max_spatial = std::max<size_t>(1, max_bytes / 2 / channels);
  const size_t spatial = in.Integral<size_t>(0, large ? max_spatial : std::min<size_t>(max_spatial, 70));
  const float scale = std::ldexp(1.0f, in.Integral<int>(-130, 100));
  const std::vector<float> values = in.Floats(channels * spatial, -scale, scale, /*specials=*/false);
  std::vector<uint16_t> src(values.size());
  for (size_t i = 0; i < src.size(); ++i) src[i] = Fp32ToBf16(values[i]);

  std::vector<float> want(channels);
  channel_sum_internal::ChannelSum16bRef(src.data(), channels, spatial, format, want.data());
  const std::vector<double> bound =
      channel_sum_check::Bounds(src.data(), channels, spatial, format);
  const std::string problem = absl::StrCat("channel_sum:c", channels, ",s", spatial, ",",
                                           FormatName(format));
  std::vector<float> got(channels);
  for (const auto& k : ChannelSum16bKernels().all()) {
    if (!CpuSupports(k.isa)) continue;
    k.fn(src.data(), channels, spatial, format, got.data());
    if (auto m = testing::CompareWithin(got, want, bound)) fuzz::Fail(problem, k.name, m->ToString());
  }
  // The public entry point agrees with the kernel it dispatches to.
  if (!ChannelSum16b(src.data(), channels, spatial, format, got.data()).ok()) {
    fuzz::Fail(problem, "api", "rejected a valid problem");
  }
  return 0;
}
