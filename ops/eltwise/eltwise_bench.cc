// Every eltwise kernel with L1-, L2-, L3- and DRAM-sized arrays (16 KiB,
// 64 KiB, 16 MiB, 64 MiB per input and for dst), next to BM_Copy of one such array.
//
// Bytes processed = bytes read + bytes written = (count + 1) * size * 4; BM_Copy
// counts its one array read plus its one array written the same way, so
// "Eltwise/.../L2_64KiB" over "BM_Copy/L2_64KiB" in bytes/s is the fraction of
// copy bandwidth the kernel reaches with arrays of the same size. Buffers are
// 64-byte aligned, as frameworks allocate tensors (the kernels also align
// their stores themselves).
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "ops/eltwise/eltwise_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

struct Size {
  const char* label;
  size_t bytes;  // per array
};

const Size kSizes[] = {
    {"L1_16KiB", testing::kL1Bytes},
    {"L2_64KiB", testing::kL2Bytes},
    {"L3_16MiB", size_t{16} << 20},  // 4M floats: beyond L2, within a server's L3
    {"DRAM_64MiB", testing::kDramBytes},
};

struct Case {
  EltwiseOp op;
  size_t count;
};

// count 2 is the common case (residual adds, gating); 5 exercises the blocked
// path (more inputs than one register pass folds).
const Case kCases[] = {
    {EltwiseOp::kSum, 2}, {EltwiseOp::kProduct, 2}, {EltwiseOp::kMax, 2},
    {EltwiseOp::kMin, 2}, {EltwiseOp::kSum, 5},
};

void RegisterAll() {
  for (const Size& s : kSizes) {
    testing::RegisterCopyBaseline(s.label, s.bytes);
    for (const Case& c : kCases) {
      for (const auto& k : EltwiseKernels().all()) {
        const std::string name = std::string("Eltwise/") + k.name + "/" + EltwiseOpName(c.op) +
                                 "/count" + std::to_string(c.count) + "/" + s.label;
        benchmark::RegisterBenchmark(name.c_str(), [k, c, s](benchmark::State& state) {
          if (!testing::SkipUnlessSupported(state, k.isa)) return;
          const size_t size = s.bytes / sizeof(float);
          std::vector<testing::AlignedFloats> inputs;
          std::vector<const float*> ptrs;
          for (size_t i = 0; i < c.count; ++i) {
            inputs.emplace_back(size);
            for (size_t j = 0; j < size; ++j) {
              inputs[i][j] = 1.0f + 1e-3f * static_cast<float>((i + j) & 63);
            }
            ptrs.push_back(inputs[i].data());
          }
          const std::vector<float> weight(c.count, 0.5f);
          testing::AlignedFloats dst(size);
          for (auto _ : state) {
            k.fn(ptrs.data(), weight.data(), c.count, size, c.op, dst.data());
            benchmark::DoNotOptimize(dst.data());
            benchmark::ClobberMemory();
          }
          state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                                  static_cast<int64_t>((c.count + 1) * s.bytes));
        });
      }
    }
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
