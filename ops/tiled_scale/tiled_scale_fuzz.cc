// Differential fuzzer: random shape, format, dst alignment, in-place choice
// and data (special values included); every supported kernel against the
// reference, bit-exact (any NaN matches any NaN).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/harness.h"
#include "ops/tiled_scale/tiled_scale.h"
#include "ops/tiled_scale/tiled_scale_kernels.h"
#include "testing/tolerance.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synops;  // NOLINT
  fuzz::DataProvider in(data, size);
  const TensorFormat format = in.Bool() ? TensorFormat::kNhwc : TensorFormat::kNchw;
  const bool in_place = in.Bool();
  const size_t misalign = in.Integral<size_t>(0, 15);
  // Mostly small dimensions (every tail); rarely as large as the cap allows.
  const bool large = in.Large();
  const size_t max_n = (large ? fuzz::kMaxTensorBytes : fuzz::kSmallTensorBytes) / sizeof(float);
  const size_t c = in.Integral<size_t>(1, large ? 2000 : 70);
  const size_t h = in.Integral<size_t>(1, std::max<size_t>(1, std::min<size_t>(large ? 2000 : 40, max_n / c)));
  const size_t w = in.Integral<size_t>(1, std::max<size_t>(1, std::min<size_t>(large ? 2000 : 70, max_n / (c * h))));
  const size_t n = c * h * w;
  const float scale = in.FloatIn(0.5f, 8.0f);
  const std::vector<float> src = in.Floats(n, -scale, scale, /*specials=*/true);
  const std::vector<float> ver = in.Floats(c * w, -2.0f, 2.0f, /*specials=*/true);
  const std::vector<float> hor = in.Floats(c * h, -2.0f, 2.0f, /*specials=*/true);

  std::vector<float> want(n);
  tiled_scale_internal::TiledScale2D32fRef(src.data(), c, h, w, format, ver.data(), hor.data(),
                                           want.data());
  const std::string problem = absl::StrCat("tiled_scale:c", c, ",h", h, ",w", w, ",",
                                           FormatName(format), in_place ? ",inplace" : "");
  std::vector<float> buf(n + misalign);
  float* dst = buf.data() + misalign;
  for (const auto& k : TiledScale2D32fKernels().all()) {
    if (!CpuSupports(k.isa)) continue;
    const float* s = src.data();
    if (in_place) {
      std::copy(src.begin(), src.end(), dst);
      s = dst;
    }
    k.fn(s, c, h, w, format, ver.data(), hor.data(), dst);
    if (auto m = testing::CompareBitExactOrNan(absl::MakeConstSpan(dst, n), want)) {
      fuzz::Fail(problem, k.name, m->ToString());
    }
  }
  // The public entry point accepts the problem and agrees with the reference.
  if (!TiledScale2D32f(src.data(), c, h, w, format, ver.data(), hor.data(), dst).ok()) {
    fuzz::Fail(problem, "api", "rejected a valid problem");
  }
  if (auto m = testing::CompareBitExactOrNan(absl::MakeConstSpan(dst, n), want)) {
    fuzz::Fail(problem, "api", m->ToString());
  }
  return 0;
}
