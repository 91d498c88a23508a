// Every shuffle kernel, both formats, both types, with L1-, L2- and
// DRAM-sized tensors (16 KiB, 64 KiB, 64 MiB for each of src0, src1, dst0,
// dst1: channels0 == channels1), plus ShuffleNet-like shapes, next to BM_Copy
// of one such tensor.
//
// Bytes processed = bytes read + bytes written = 4 * tensor bytes (two inputs
// read, two outputs written); BM_Copy counts its one tensor read plus one
// written the same way, so "Shuffle/.../L2_64KiB/..." over "BM_Copy/L2_64KiB"
// in bytes/s is the fraction of copy bandwidth reached. Buffers are 64-byte
// aligned, as frameworks allocate tensors.
#include <string>

#include "benchmark/benchmark.h"
#include "core/types.h"
#include "ops/shuffle/shuffle_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

struct Shape {
  const char* label;
  size_t channels;  // channels0 == channels1
  size_t spatial;
};

const Shape kShapes[] = {
    {"L1_16KiB", 16, 256},
    {"L2_64KiB", 64, 256},
    {"DRAM_64MiB", 256, 65536},
    {"c116s784_363KiB", 116, 784},  // ShuffleNet v2 stage 2 (58 channels per branch x2), 28x28
};

void RegisterAll() {
  for (const Shape& s : kShapes) {
    const size_t n = s.channels * s.spatial;  // floats per tensor
    testing::RegisterCopyBaseline(s.label, n * sizeof(float));
    for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
      for (int type : {0, 1}) {
        for (const auto& k : ShuffleKernels().all()) {
          const std::string name = std::string("Shuffle/") + k.name + "/" +
                                   (type == 0 ? "split" : "interleave") + "/" + FormatName(f) +
                                   "/" + s.label + "/c" + std::to_string(s.channels) + "x2_s" +
                                   std::to_string(s.spatial);
          benchmark::RegisterBenchmark(name.c_str(), [k, f, type, s, n](benchmark::State& state) {
            if (!testing::SkipUnlessSupported(state, k.isa)) return;
            testing::AlignedFloats src0(n), src1(n), dst0(n), dst1(n);
            for (size_t i = 0; i < n; ++i) {
              src0[i] = static_cast<float>(i & 1023);
              src1[i] = -static_cast<float>(i & 1023);
            }
            for (auto _ : state) {
              k.fn(src0.data(), src1.data(), s.channels, s.channels, s.spatial, dst0.data(),
                   dst1.data(), f, type);
              benchmark::DoNotOptimize(dst0.data());
              benchmark::DoNotOptimize(dst1.data());
              benchmark::ClobberMemory();
            }
            state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                                    static_cast<int64_t>(4 * n * sizeof(float)));
          });
        }
      }
    }
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
