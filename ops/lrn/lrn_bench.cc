// Every lrn kernel, both formats, half = 2, on 64..512 channels x 56x56 and
// 7x7 positions, and half = 5 on 64 channels x 28x28 (issue 14's case), next
// to BM_Copy of one tensor of the same size.
//
// Bytes processed = src read + dst written = 2 * C * H * W * 4, as BM_Copy
// counts them, so bytes/s over BM_Copy's is the fraction of copy bandwidth.
// The reference runs on the same shapes: time(ref) / time(kernel) is the
// speed-up.
#include <string>

#include "benchmark/benchmark.h"
#include "core/types.h"
#include "ops/lrn/lrn_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

struct Shape {
  size_t c, s;
  const char* hw;
  size_t half = 2;
};

const Shape kShapes[] = {
    {64, 56 * 56, "56x56"}, {128, 56 * 56, "56x56"}, {256, 56 * 56, "56x56"},
    {512, 56 * 56, "56x56"}, {64, 7 * 7, "7x7"},     {128, 7 * 7, "7x7"},
    {256, 7 * 7, "7x7"},     {512, 7 * 7, "7x7"},    {64, 28 * 28, "28x28", 5},
};

void RegisterAll() {
  for (const Shape& sh : kShapes) {
    const size_t n = sh.c * sh.s;
    const std::string label = "c" + std::to_string(sh.c) + "_" + sh.hw;
    testing::RegisterCopyBaseline(label, n * sizeof(float));
    for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
      for (const auto& k : LrnKernels().all()) {
        const std::string name = std::string("Lrn/") + k.name + "/" + FormatName(f) + "/half" +
                                 std::to_string(sh.half) + "/" + label;
        benchmark::RegisterBenchmark(name.c_str(), [k, f, sh, n](benchmark::State& state) {
          if (!testing::SkipUnlessSupported(state, k.isa)) return;
          testing::AlignedFloats src(n), dst(n);
          for (size_t i = 0; i < n; ++i) src[i] = static_cast<float>(i % 61) * 0.25f - 7.0f;
          const float coef[3] = {1.0f, 2e-5f, -0.75f};
          for (auto _ : state) {
            k.fn(src.data(), sh.half, sh.c, sh.s, coef, dst.data(), f);
            benchmark::DoNotOptimize(dst.data());
            benchmark::ClobberMemory();
          }
          state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                                  static_cast<int64_t>(2 * n * sizeof(float)));
        });
      }
    }
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
