// Conversion and packing throughput of every bf16 kernel, next to BM_Copy.
// Bytes processed = bytes read + bytes written.
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

using testing::SkipUnlessSupported;

struct Size {
  const char* label;
  size_t elements;  // FP32 elements (the larger side)
};

const Size kSizes[] = {{"L1", testing::kL1Bytes / 4},
                       {"L2", testing::kL2Bytes / 4},
                       {"DRAM", testing::kDramBytes / 4}};

void RegisterAll() {
  for (const Size& size : kSizes) {
    const size_t n = size.elements;
    testing::RegisterCopyBaseline(size.label, n * 6 / 2);  // same bytes as a conversion
    for (const auto& k : Fp32ToBf16Kernels().all()) {
      benchmark::RegisterBenchmark(
          (std::string("Fp32ToBf16/") + k.name + "/" + size.label).c_str(),
          [k, n](benchmark::State& state) {
            if (!SkipUnlessSupported(state, k.isa)) return;
            std::vector<float> src(n, 1.5f);
            std::vector<uint16_t> dst(n);
            for (auto _ : state) {
              k.fn(src.data(), n, dst.data());
              benchmark::ClobberMemory();
            }
            state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * 6));
          });
    }
    for (const auto& k : Bf16ToFp32Kernels().all()) {
      benchmark::RegisterBenchmark(
          (std::string("Bf16ToFp32/") + k.name + "/" + size.label).c_str(),
          [k, n](benchmark::State& state) {
            if (!SkipUnlessSupported(state, k.isa)) return;
            std::vector<uint16_t> src(n, 0x3F80);
            std::vector<float> dst(n);
            for (auto _ : state) {
              k.fn(src.data(), n, dst.data());
              benchmark::ClobberMemory();
            }
            state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * 6));
          });
    }
  }
  // Packings on a weight-sized matrix: 1152 x 256 BF16 (3x3x128 -> 256).
  const size_t rows = 1152, cols = 256;
  for (const auto& k : Transpose1xWKernels().all()) {
    benchmark::RegisterBenchmark(
        (std::string("Transpose1xW/") + k.name + "/1152x256_e2_w8").c_str(),
        [k](benchmark::State& state) {
          if (!SkipUnlessSupported(state, k.isa)) return;
          std::vector<uint8_t> src(rows * cols * 2, 1);
          std::vector<uint8_t> dst(Transpose1xWSize(rows, cols, 2, 8));
          for (auto _ : state) {
            k.fn(src.data(), rows, cols, 2, 8, dst.data());
            benchmark::ClobberMemory();
          }
          state.SetBytesProcessed(
              static_cast<int64_t>(state.iterations() * (src.size() + dst.size())));
        });
  }
  for (const auto& k : PackPairInterleavedKernels().all()) {
    benchmark::RegisterBenchmark(
        (std::string("PackPairInterleaved/") + k.name + "/1152x256_w16").c_str(),
        [k](benchmark::State& state) {
          if (!SkipUnlessSupported(state, k.isa)) return;
          std::vector<uint16_t> src(rows * cols, 1);
          std::vector<uint16_t> dst(PackPairInterleavedSize(rows, cols, 16));
          for (auto _ : state) {
            k.fn(src.data(), rows, cols, 16, dst.data());
            benchmark::ClobberMemory();
          }
          state.SetBytesProcessed(
              static_cast<int64_t>(state.iterations() * 2 * (src.size() + dst.size())));
        });
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
