// Every unary kernel x every op at L1-, L2- and DRAM-sized arrays (bytes per
// array), next to BM_Copy of the same size; bytes = read + written. Plus
// 16K-element runs of the transcendental ops, reported in elements/s.
//
// Under qemu (SYNOPS_UNDER_QEMU) the DRAM size is left out: the smoke test
// only checks that every benchmark runs.
#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "ops/unary/unary.h"
#include "ops/unary/unary_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

// Inputs in the range where the op is usually applied (and defined).
std::vector<float> Inputs(UnaryOp op, size_t n) {
  float lo = -10.0f, hi = 10.0f;
  if (op == UnaryOp::kLog || op == UnaryOp::kSqrt || op == UnaryOp::kRsqrt) lo = 1e-3f, hi = 1e3f;
  if (op == UnaryOp::kSin || op == UnaryOp::kCos) lo = -100.0f, hi = 100.0f;
  if (op == UnaryOp::kExp) lo = -80.0f, hi = 80.0f;
  std::vector<float> v(n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float& x : v) x = dist(rng);
  return v;
}

void Register(const std::string& name, const Kernel<UnaryOperation32fFn>& k, UnaryOp op, size_t n,
              bool bytes) {
  benchmark::RegisterBenchmark(name.c_str(), [k, op, n, bytes](benchmark::State& state) {
    if (!testing::SkipUnlessSupported(state, k.isa)) return;
    // 64-byte aligned like the BM_Copy and BM_Memset baselines (and the
    // other op benchmarks): glibc's memset behind Zero ran at 89-95% of
    // BM_Memset on std::vector's 16-byte aligned storage.
    const std::vector<float> inputs = Inputs(op, n);
    testing::AlignedFloats src(n), dst(n);
    std::copy(inputs.begin(), inputs.end(), src.data());
    for (auto _ : state) {
      k.fn(src.data(), n, op, dst.data());
      benchmark::DoNotOptimize(dst.data());
      benchmark::ClobberMemory();
    }
    const int64_t items = static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n);
    state.SetItemsProcessed(items);
    if (bytes) state.SetBytesProcessed(items * 8);
  });
}

bool IsTranscendental(UnaryOp op) {
  switch (op) {
    case UnaryOp::kCos:
    case UnaryOp::kErf:
    case UnaryOp::kExp:
    case UnaryOp::kLog:
    case UnaryOp::kSin:
    case UnaryOp::kTanh:
      return true;
    default:
      return false;
  }
}

void RegisterAll() {
  struct Size {
    const char* label;
    size_t bytes;
  };
  std::vector<Size> sizes = {{"L1", testing::kL1Bytes}, {"L2", testing::kL2Bytes}};
  if (std::getenv("SYNOPS_UNDER_QEMU") == nullptr) sizes.push_back({"DRAM", testing::kDramBytes});
  for (const Size& size : sizes) {
    testing::RegisterCopyBaseline(size.label, size.bytes);
    testing::RegisterMemsetBaseline(size.label, size.bytes);
    const size_t n = size.bytes / sizeof(float);
    for (int i = 0; i < kNumUnaryOps; ++i) {
      const UnaryOp op = static_cast<UnaryOp>(i);
      for (const auto& k : UnaryOperation32fKernels().all()) {
        Register(std::string("Unary/") + UnaryOpName(op) + "/" + k.name + "/" + size.label + "/n" +
                     std::to_string(n),
                 k, op, n, /*bytes=*/true);
      }
    }
  }
  for (int i = 0; i < kNumUnaryOps; ++i) {
    const UnaryOp op = static_cast<UnaryOp>(i);
    if (!IsTranscendental(op)) continue;
    for (const auto& k : UnaryOperation32fKernels().all()) {
      Register(std::string("UnaryElems/") + UnaryOpName(op) + "/" + k.name + "/n16384", k, op,
               16384, /*bytes=*/false);
    }
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
