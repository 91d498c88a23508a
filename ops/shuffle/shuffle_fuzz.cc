// Differential fuzzer: random channel counts, spatial size, format, type,
// output alignment and data (arbitrary bit patterns: a copy keeps every bit);
// every supported kernel against the reference, bit-exact.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/harness.h"
#include "ops/shuffle/shuffle.h"
#include "ops/shuffle/shuffle_kernels.h"
#include "testing/tolerance.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synops;  // NOLINT
  fuzz::DataProvider in(data, size);
  const TensorFormat format = in.Bool() ? TensorFormat::kNhwc : TensorFormat::kNchw;
  const int type = in.Pick(2);
  const size_t misalign0 = in.Integral<size_t>(0, 15), misalign1 = in.Integral<size_t>(0, 15);
  const size_t c0 = 2 * in.Integral<size_t>(0, 150), c1 = 2 * in.Integral<size_t>(0, 150);
  const size_t largest = std::max(c0, c1) + 1;  // channels of the largest tensor, at most
  // Mostly small problems (every tail); rarely up to the size cap.
  const bool large = in.Large();
  const size_t max_spatial = in.MaxTensorBytes() / sizeof(float) / largest;
  const size_t spatial = in.Integral<size_t>(0, large ? max_spatial : std::min<size_t>(max_spatial, 40));
  const size_t half = (c0 + c1) / 2;
  const size_t in0 = type == 0 ? c0 : half, in1 = type == 0 ? c1 : half;
  const size_t out0 = type == 0 ? half : c0, out1 = type == 0 ? half : c1;
  fuzz::Rng rng = in.Rng();
  auto bits = [&rng](size_t n) {
    std::vector<float> v(n);
    for (float& x : v) {
      const uint32_t b = static_cast<uint32_t>(rng());
      std::memcpy(&x, &b, sizeof(x));
    }
    return v;
  };
  const std::vector<float> src0 = bits(in0 * spatial), src1 = bits(in1 * spatial);
  std::vector<float> want0(out0 * spatial), want1(out1 * spatial);
  shuffle_internal::ShuffleRef(src0.data(), src1.data(), c0, c1, spatial, want0.data(),
                               want1.data(), format, type);
  const std::string problem =
      absl::StrCat("shuffle:", type == 0 ? "split" : "interleave", ",ca", c0, ",cb", c1, ",s",
                   spatial, ",", FormatName(format));
  std::vector<float> buf0(want0.size() + misalign0), buf1(want1.size() + misalign1);
  float* dst0 = buf0.data() + misalign0;
  float* dst1 = buf1.data() + misalign1;
  for (const auto& k : ShuffleKernels().all()) {
    if (!CpuSupports(k.isa)) continue;
    if (spatial == 0 || half == 0) continue;  // kernels get non-empty problems only
    k.fn(src0.data(), src1.data(), c0, c1, spatial, dst0, dst1, format, type);
    if (auto m = testing::CompareBitExact(absl::MakeConstSpan(dst0, want0.size()), want0)) {
      fuzz::Fail(problem, k.name, "dst0 " + m->ToString());
    }
    if (auto m = testing::CompareBitExact(absl::MakeConstSpan(dst1, want1.size()), want1)) {
      fuzz::Fail(problem, k.name, "dst1 " + m->ToString());
    }
  }
  // The public entry point accepts the problem and agrees with the reference.
  if (!ShuffleLayerForward(src0.data(), src1.data(), c0, c1, spatial, dst0, dst1, format, type)
           .ok()) {
    fuzz::Fail(problem, "api", "rejected a valid problem");
  }
  if (testing::CompareBitExact(absl::MakeConstSpan(dst0, want0.size()), want0) ||
      testing::CompareBitExact(absl::MakeConstSpan(dst1, want1.size()), want1)) {
    fuzz::Fail(problem, "api", "differs from the reference");
  }
  return 0;
}
