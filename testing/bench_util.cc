#include "testing/bench_util.h"

#include <cstring>
#include <string>
#include <vector>

namespace synops {
namespace testing {

void RegisterCopyBaseline(const std::string& label, size_t bytes) {
  benchmark::RegisterBenchmark(("BM_Copy/" + label).c_str(), [bytes](benchmark::State& state) {
    std::vector<char> src(bytes, 1), dst(bytes, 0);
    for (auto _ : state) {
      std::memcpy(dst.data(), src.data(), bytes);
      benchmark::DoNotOptimize(dst.data());
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 *
                            static_cast<int64_t>(bytes));
  });
}

bool SkipUnlessSupported(benchmark::State& state, Isa isa) {
  if (CpuSupports(isa)) return true;
  state.SkipWithError((std::string("CPU lacks ") + IsaName(isa)).c_str());
  return false;
}

}  // namespace testing
}  // namespace synops
