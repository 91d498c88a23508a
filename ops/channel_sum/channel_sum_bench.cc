// Every channel_sum kernel at L1-, L2- and DRAM-sized inputs and a 7x7 layer
// (512 channels, 49 KiB), both formats, next to BM_Copy and BM_ReadOnly of
// the same input size. Bytes = bytes read + bytes written; the kernel's time
// over BM_ReadOnly's is how close it is to its bound (issue 14: >= 80% of the
// read at <= 64 KiB).
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/types.h"
#include "ops/channel_sum/channel_sum_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

struct Shape {
  const char* label;
  size_t channels, spatial;
};

const Shape kShapes[] = {
    {"L1", 64, 128},       // 16 KiB
    {"L2", 256, 128},      // 64 KiB
    {"7x7", 512, 49},      // 49 KiB
    {"DRAM", 512, 65536},  // 64 MiB
};

void RegisterAll() {
  for (const Shape& shape : kShapes) {
    const size_t src_bytes = shape.channels * shape.spatial * 2;
    testing::RegisterCopyBaseline(shape.label, src_bytes);
    testing::RegisterReadOnlyBaseline(shape.label, src_bytes);
    for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
      for (const auto& k : ChannelSum16bKernels().all()) {
        const std::string name = std::string("ChannelSum16b/") + k.name + "/" + FormatName(f) +
                                 "/" + shape.label + "/c" + std::to_string(shape.channels) + "_s" +
                                 std::to_string(shape.spatial);
        benchmark::RegisterBenchmark(name.c_str(), [k, f, shape](benchmark::State& state) {
          if (!testing::SkipUnlessSupported(state, k.isa)) return;
          const size_t n = shape.channels * shape.spatial;
          std::vector<uint16_t> src(n);
          for (size_t i = 0; i < n; ++i) src[i] = static_cast<uint16_t>(0x3F80 + (i & 63));
          std::vector<float> sum(shape.channels);
          for (auto _ : state) {
            k.fn(src.data(), shape.channels, shape.spatial, f, sum.data());
            benchmark::DoNotOptimize(sum.data());
            benchmark::ClobberMemory();
          }
          state.SetBytesProcessed(static_cast<int64_t>(state.iterations() *
                                                       (n * 2 + shape.channels * 4)));
        });
      }
    }
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
