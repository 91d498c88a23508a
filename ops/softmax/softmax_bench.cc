// Every softmax kernel on the shapes of typical networks (classifier rows,
// attention-like rows, detection heads with 2 and 3 classes, a strided
// layout), next to BM_Copy of the same size. Bytes = bytes read + written.
// Compare kernels by time: "ref" is in the same binary.
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "bf16/bf16.h"
#include "ops/softmax/softmax_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

// Every shape runs as FP32 and as BF16: Softmax16b's time on a shape is
// compared with Softmax32f's (issue 14: at most 1.1x, though BF16 moves half
// the bytes). 64x8x3136 (6.4 MiB as FP32) is inner > 1 beyond L2, compared
// with BM_Copy of its bytes.
struct Shape {
  size_t outer, count, inner;
  std::string Label() const {
    return std::to_string(outer) + "x" + std::to_string(count) + "x" + std::to_string(inner);
  }
  size_t size() const { return outer * count * inner; }
};

const Shape kShapes[] = {
    {1000, 1000, 1}, {392, 49, 1}, {21825, 2, 1}, {13666, 3, 1}, {50, 10, 100}, {64, 8, 3136},
};

// Deterministic inputs in [-8, 8).
float Value(size_t i) { return static_cast<float>((i * 2654435761u) % 4096) / 256.0f - 8.0f; }

template <typename T, typename Fn>
void Register(const Shape& shape, const char* op, const KernelTable<Fn>& table) {
  for (const auto& k : table.all()) {
    const std::string name = std::string(op) + "/" + k.name + "/" + shape.Label();
    benchmark::RegisterBenchmark(name.c_str(), [k, shape](benchmark::State& state) {
      if (!testing::SkipUnlessSupported(state, k.isa)) return;
      const size_t n = shape.size();
      // 64-byte aligned, as frameworks allocate tensors.
      testing::AlignedFloats src_storage(n), dst_storage(n);
      T* src = reinterpret_cast<T*>(src_storage.data());
      T* dst = reinterpret_cast<T*>(dst_storage.data());
      for (size_t i = 0; i < n; ++i) {
        if constexpr (sizeof(T) == 2) {
          src[i] = Fp32ToBf16(Value(i));
        } else {
          src[i] = Value(i);
        }
      }
      for (auto _ : state) {
        k.fn(src, shape.outer, shape.count, shape.inner, dst);
        benchmark::DoNotOptimize(dst);
        benchmark::ClobberMemory();
      }
      state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n * sizeof(T)));
    });
  }
}

void RegisterAll() {
  for (const Shape& shape : kShapes) {
    testing::RegisterCopyBaseline(shape.Label(), shape.size() * sizeof(float));
    testing::RegisterCopyBaseline("bf16_" + shape.Label(), shape.size() * sizeof(uint16_t));
    Register<float>(shape, "Softmax32f", Softmax32fKernels());
    Register<uint16_t>(shape, "Softmax16b", Softmax16bKernels());
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
