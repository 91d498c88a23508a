// Differential fuzzer: random shape, half (windows wider than the tensor
// included), coefficients, format, dst alignment and data (special values
// included); every supported kernel against the reference within the
// propagated sum bound (lrn_accuracy.h).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/harness.h"
#include "ops/lrn/lrn.h"
#include "ops/lrn/lrn_accuracy.h"
#include "ops/lrn/lrn_kernels.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synops;  // NOLINT
  fuzz::DataProvider in(data, size);
  const TensorFormat format = in.Bool() ? TensorFormat::kNhwc : TensorFormat::kNchw;
  const size_t misalign = in.Integral<size_t>(0, 15);
  const bool large = in.Large();
  const size_t c = in.Integral<size_t>(1, large ? 600 : 70);
  // Large problems a quarter of the usual cap (16K elements, still four times
  // the kernels' largest block): the reference and the bound cost O(window)
  // exp/log-checked terms per element, and the large inputs took all of the
  // fuzzer's time.
  const size_t max_s = (large ? fuzz::kMaxTensorBytes / 4 : fuzz::kSmallTensorBytes) / 4 / c;
  const size_t s = in.Integral<size_t>(1, std::max<size_t>(1, std::min<size_t>(large ? 4000 : 100, max_s)));
  size_t half = in.Integral<size_t>(0, 9);
  if (in.Integral<int>(0, 9) == 0) half = std::numeric_limits<size_t>::max() - in.Integral<size_t>(0, 3);
  // Small windows bound the reference's cost on large tensors.
  if (large && half > 3) half = 3;
  const float k[3] = {in.FloatIn(0.0f, 4.0f), in.FloatIn(0.0f, 1.0f), in.FloatIn(-4.0f, 4.0f)};
  const float range = in.FloatIn(0.5f, 100.0f);
  const std::vector<float> src = in.Floats(c * s, -range, range, /*specials=*/true);
  const size_t n = c * s;

  std::vector<float> want(n);
  lrn_internal::LrnRef(src.data(), half, c, s, k, want.data(), format);
  const auto bounds = lrn_internal::LrnBounds(src.data(), half, c, s, k, format);
  const std::string problem =
      absl::StrCat("lrn:c", c, ",s", s, ",half", half, ",", FormatName(format), " k=", k[0], ",",
                   k[1], ",", k[2]);
  std::vector<float> buf(n + misalign);
  float* dst = buf.data() + misalign;
  for (const auto& kern : LrnKernels().all()) {
    if (!CpuSupports(kern.isa)) continue;
    kern.fn(src.data(), half, c, s, k, dst, format);
    if (auto m = lrn_internal::CheckLrn(absl::MakeConstSpan(dst, n), want, bounds)) {
      fuzz::Fail(problem, kern.name, m->ToString());
    }
  }
  if (!LrnLayerCrossChannels(src.data(), half, c, s, k, dst, format).ok()) {
    fuzz::Fail(problem, "api", "rejected a valid problem");
  }
  if (auto m = lrn_internal::CheckLrn(absl::MakeConstSpan(dst, n), want, bounds)) {
    fuzz::Fail(problem, "api", m->ToString());
  }
  return 0;
}
