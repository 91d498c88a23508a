// Every tiled_scale kernel, both formats, on L1-, L2- and DRAM-sized tensors
// (16 KiB, 64 KiB, 64 MiB) and two common CNN shapes, next to BM_Copy of one
// tensor of the same size.
//
// Bytes processed = bytes read + bytes written = (2*C*H*W + C*W + C*H) * 4
// (src, dst, ver, hor); BM_Copy counts its source read plus its destination
// written the same way, so the bytes/s of "TiledScale/.../L2_64KiB/..." over
// "BM_Copy/L2_64KiB" is the fraction of copy bandwidth reached. (ver and hor
// add 6% to the bytes of the 16x16 planes, 0.4% at DRAM size.) Buffers are
// 64-byte aligned, as frameworks allocate tensors.
#include <string>

#include "benchmark/benchmark.h"
#include "core/types.h"
#include "ops/tiled_scale/tiled_scale_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

struct Shape {
  const char* label;
  size_t c, h, w;
};

const Shape kShapes[] = {
    {"L1_16KiB", 16, 16, 16},
    {"L2_64KiB", 64, 16, 16},
    {"DRAM_64MiB", 256, 256, 256},
    {"c64h56w56_784KiB", 64, 56, 56},
    {"c512h7w7_98KiB", 512, 7, 7},
};

void RegisterAll() {
  for (const Shape& s : kShapes) {
    const size_t n = s.c * s.h * s.w;
    testing::RegisterCopyBaseline(s.label, n * sizeof(float));
    for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
      for (const auto& k : TiledScale2D32fKernels().all()) {
        const std::string name = std::string("TiledScale/") + k.name + "/" + FormatName(f) + "/" +
                                 s.label + "/c" + std::to_string(s.c) + "_h" +
                                 std::to_string(s.h) + "_w" + std::to_string(s.w);
        benchmark::RegisterBenchmark(name.c_str(), [k, f, s, n](benchmark::State& state) {
          if (!testing::SkipUnlessSupported(state, k.isa)) return;
          testing::AlignedFloats src(n), ver(s.c * s.w), hor(s.c * s.h), dst(n);
          for (size_t i = 0; i < n; ++i) src[i] = 1.0f + 1e-3f * static_cast<float>(i & 63);
          for (size_t i = 0; i < ver.size(); ++i) ver[i] = 0.5f + 1e-3f * static_cast<float>(i & 31);
          for (size_t i = 0; i < hor.size(); ++i) hor[i] = 2.0f - 1e-3f * static_cast<float>(i & 31);
          for (auto _ : state) {
            k.fn(src.data(), s.c, s.h, s.w, f, ver.data(), hor.data(), dst.data());
            benchmark::DoNotOptimize(dst.data());
            benchmark::ClobberMemory();
          }
          state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                                  static_cast<int64_t>((2 * n + ver.size() + hor.size()) * 4));
        });
      }
    }
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
