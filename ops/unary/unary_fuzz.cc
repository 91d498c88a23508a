// Differential fuzzer: random op, size and data (uniform values in a range
// the input picks, special values, raw bit patterns); every supported kernel
// must meet SPEC.md's contract: the reference's bits for the bit-exact ops,
// the ULP/absolute bound against the double-precision function otherwise.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/harness.h"
#include "ops/unary/unary.h"
#include "ops/unary/unary_accuracy.h"
#include "ops/unary/unary_kernels.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace synops;  // NOLINT
  fuzz::DataProvider in(data, size);
  const UnaryOp op = static_cast<UnaryOp>(in.Pick(kNumUnaryOps));
  // Mostly short arrays (every tail); rarely up to the size cap.
  const size_t n = in.Integral<size_t>(0, in.Large() ? fuzz::kMaxTensorBytes / sizeof(float) : 300);
  const bool in_place = in.Bool();
  std::vector<float> src;
  switch (in.Pick(3)) {
    case 0: {  // uniform in ±2^e, with specials
      const float scale = std::ldexp(1.0f, in.Integral<int>(-20, 20));
      src = in.Floats(n, -scale, scale, /*specials=*/true);
      break;
    }
    case 1: {  // raw bit patterns
      fuzz::Rng rng = in.Rng();
      src.resize(n);
      for (float& x : src) {
        const uint32_t bits = static_cast<uint32_t>(rng());
        std::memcpy(&x, &bits, sizeof(x));
      }
      break;
    }
    default:  // values taken straight from the input, repeated
      src.resize(n);
      for (size_t i = 0; i < n; ++i) src[i] = in.remaining() > 0 ? in.AnyFloat() : src[i % 64];
  }

  std::vector<float> ref(n), got(n);
  unary_internal::UnaryOperation32fRef(src.data(), n, op, ref.data());
  const std::string problem = absl::StrCat("unary:", UnaryOpName(op), ",n", n);
  for (const auto& k : UnaryOperation32fKernels().all()) {
    if (!CpuSupports(k.isa)) continue;
    if (in_place) {
      got = src;
      k.fn(got.data(), n, op, got.data());
    } else {
      k.fn(src.data(), n, op, got.data());
    }
    if (auto m = unary_internal::CheckUnary(op, src, got, ref)) {
      fuzz::Fail(problem, k.name, m->ToString());
    }
  }
  if (!UnaryOperation32f(src.data(), n, op, got.data()).ok()) {
    fuzz::Fail(problem, "api", "rejected a valid problem");
  }
  return 0;
}
