#include "testing/bench_util.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace synops {
namespace testing {

void RegisterCopyBaseline(const std::string& label, size_t bytes) {
  benchmark::RegisterBenchmark(("BM_Copy/" + label).c_str(), [bytes](benchmark::State& state) {
    // 64-byte aligned like the kernels' buffers (AlignedFloats).
    AlignedFloats src((bytes + 3) / 4), dst((bytes + 3) / 4);
    std::memset(src.data(), 1, bytes);
    for (auto _ : state) {
      std::memcpy(dst.data(), src.data(), bytes);
      benchmark::DoNotOptimize(dst.data());
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 *
                            static_cast<int64_t>(bytes));
  });
}

void RegisterMemsetBaseline(const std::string& label, size_t bytes) {
  benchmark::RegisterBenchmark(("BM_Memset/" + label).c_str(), [bytes](benchmark::State& state) {
    AlignedFloats dst((bytes + 3) / 4);
    for (auto _ : state) {
      std::memset(dst.data(), 0, bytes);
      benchmark::DoNotOptimize(dst.data());
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  });
}

AlignedFloats::AlignedFloats(size_t n)
    : n_(n),
      data_(static_cast<float*>(std::aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64 + 64))) {
  std::memset(data_.get(), 0, n * sizeof(float));
}

void AlignedFloats::Free::operator()(float* p) const { std::free(p); }

bool SkipUnlessSupported(benchmark::State& state, Isa isa) {
  if (CpuSupports(isa)) return true;
  state.SkipWithError((std::string("CPU lacks ") + IsaName(isa)).c_str());
  return false;
}

}  // namespace testing
}  // namespace synops
