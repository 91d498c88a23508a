// Differential fuzzer: random shape (inner == 1 or strided, counts 1..3 and
// around vector widths), FP32 or BF16 data with wide ranges, -Inf entries
// (never a whole row), in place or not; every supported kernel against the
// reference at the SPEC bound (testing::SoftmaxBound, one BF16 ULP).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bf16/bf16.h"
#include "fuzz/harness.h"
#include "ops/softmax/softmax.h"
#include "ops/softmax/softmax_check.h"
#include "ops/softmax/softmax_kernels.h"
#include "testing/tolerance.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synops;  // NOLINT
  fuzz::DataProvider in(data, size);
  const bool bf16 = in.Bool();
  const bool in_place = in.Bool();
  // Mostly small tensors (every tail); rarely up to the size cap.
  const size_t max_n = in.MaxTensorBytes() / 4;
  const size_t count = in.Bool() ? in.Integral<size_t>(1, 4) : in.Integral<size_t>(1, 300);
  const size_t inner =
      in.Bool() ? 1 : in.Integral<size_t>(1, std::max<size_t>(1, std::min<size_t>(70, max_n / count)));
  const size_t max_outer = std::max<size_t>(1, max_n / (count * inner));
  const size_t outer = in.Integral<size_t>(1, std::min<size_t>(max_outer, in.Bool() ? 2000 : 40));
  const size_t n = outer * count * inner;
  const float range = std::ldexp(1.0f, in.Integral<int>(-20, 12));
  std::vector<float> src = in.Floats(n, -range, range, /*specials=*/false);
  // Some -Inf entries, but keep column c = 0 finite so that no row is all -Inf.
  const int neg_inf_per_mille = in.Integral<int>(0, 3) == 0 ? in.Integral<int>(0, 500) : 0;
  auto rng = in.Rng();
  for (size_t j = 0; j < n; ++j) {
    const size_t c = (j / inner) % count;
    if (c != 0 && static_cast<int>(rng() % 1000) < neg_inf_per_mille) src[j] = -HUGE_VALF;
  }
  const std::string problem = absl::StrCat("softmax:outer", outer, ",count", count, ",inner",
                                           inner, bf16 ? ",bf16" : "");
  if (!bf16) {
    std::vector<float> want(n);
    softmax_internal::Softmax32fRef(src.data(), outer, count, inner, want.data());
    const std::vector<double> bound = softmax_check::Bounds(want, count);
    std::vector<float> got(n);
    for (const auto& k : Softmax32fKernels().all()) {
      if (!CpuSupports(k.isa)) continue;
      if (in_place) {
        got = src;
        k.fn(got.data(), outer, count, inner, got.data());
      } else {
        k.fn(src.data(), outer, count, inner, got.data());
      }
      if (auto m = testing::CompareWithin(got, want, bound)) {
        fuzz::Fail(problem, k.name, m->ToString());
      }
    }
    if (!Softmax32f(src.data(), outer, count, inner, got.data()).ok()) {
      fuzz::Fail(problem, "api", "rejected a valid problem");
    }
  } else {
    std::vector<uint16_t> src16(n);
    for (size_t j = 0; j < n; ++j) src16[j] = Fp32ToBf16(src[j]);
    std::vector<float> wide(n), want(n);
    for (size_t j = 0; j < n; ++j) wide[j] = Bf16ToFp32(src16[j]);
    softmax_internal::Softmax32fRef(wide.data(), outer, count, inner, want.data());
    std::vector<uint16_t> got(n);
    for (const auto& k : Softmax16bKernels().all()) {
      if (!CpuSupports(k.isa)) continue;
      if (in_place) {
        got = src16;
        k.fn(got.data(), outer, count, inner, got.data());
      } else {
        k.fn(src16.data(), outer, count, inner, got.data());
      }
      if (auto m = testing::CompareWithinOneBf16Ulp(got, want)) {
        fuzz::Fail(problem, k.name, m->ToString());
      }
    }
    if (!Softmax16b(src16.data(), outer, count, inner, got.data()).ok()) {
      fuzz::Fail(problem, "api", "rejected a valid problem");
    }
  }
  return 0;
}
