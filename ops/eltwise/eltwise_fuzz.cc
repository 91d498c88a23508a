// Differential fuzzer: random operation, input count, size, in-place choice
// and data (special values included); every supported kernel against the
// reference at SPEC tolerance.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/harness.h"
#include "ops/eltwise/eltwise.h"
#include "ops/eltwise/eltwise_check.h"
#include "ops/eltwise/eltwise_kernels.h"
#include "testing/tolerance.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synops;  // NOLINT
  fuzz::DataProvider in(data, size);
  const EltwiseOp op = static_cast<EltwiseOp>(in.Pick(4));
  const size_t count = in.Integral<size_t>(2, 12);
  // Mostly small problems (fast, every tail); rarely up to the size cap (all
  // inputs together).
  const bool large = in.Large();
  const size_t n = in.Integral<size_t>(0, large ? fuzz::kMaxTensorBytes / sizeof(float) / count : 300);
  // -1: separate dst; otherwise dst is src[in_place].
  const int in_place = in.Integral<int>(-1, static_cast<int>(count) - 1);
  // The same array passed twice (inputs may alias each other).
  const size_t dup = in.Integral<size_t>(0, count - 1);
  const float scale = in.FloatIn(0.5f, 4.0f);

  std::vector<std::vector<float>> inputs(count);
  for (auto& v : inputs) v = in.Floats(n, -scale, scale, /*specials=*/true);
  std::vector<float> weight = in.Floats(count, -2.0f, 2.0f, /*specials=*/false);
  std::vector<const float*> ptrs;
  for (auto& v : inputs) ptrs.push_back(v.data());
  if (dup > 0) ptrs[dup] = ptrs[dup - 1];

  std::vector<float> want(n);
  eltwise_internal::EltwiseRef(ptrs.data(), weight.data(), count, n, op, want.data());
  const std::string problem = absl::StrCat("eltwise:", EltwiseOpName(op), ",count", count, ",n", n,
                                           in_place >= 0 ? absl::StrCat(",inplace", in_place) : "");
  std::vector<float> got(n);
  for (const auto& k : EltwiseKernels().all()) {
    if (!CpuSupports(k.isa)) continue;
    if (in_place < 0) {
      k.fn(ptrs.data(), weight.data(), count, n, op, got.data());
    } else {
      // dst = src[in_place]: run on copies so every kernel sees the same inputs.
      std::vector<std::vector<float>> copies = inputs;
      std::vector<const float*> cp(count);
      for (size_t i = 0; i < count; ++i) {
        for (size_t j = 0; j < count; ++j) {
          if (ptrs[i] == inputs[j].data()) cp[i] = copies[j].data();
        }
      }
      float* dst = const_cast<float*>(cp[in_place]);
      k.fn(cp.data(), weight.data(), count, n, op, dst);
      got.assign(dst, dst + n);
    }
    if (auto m = synops::eltwise_check::Check(op, got, want))
      fuzz::Fail(problem, k.name, m->ToString());
  }
  // The public entry point accepts the problem (and agrees with the reference).
  if (!EltwiseLayerForward(ptrs.data(), weight.data(), count, n, op, got.data()).ok()) {
    fuzz::Fail(problem, "api", "rejected a valid problem");
  }
  if (auto m = synops::eltwise_check::Check(op, got, want))
    fuzz::Fail(problem, "api", m->ToString());
  return 0;
}
