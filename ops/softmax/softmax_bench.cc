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

struct Shape {
  size_t outer, count, inner;
  bool bf16;
  std::string Label() const {
    return std::to_string(outer) + "x" + std::to_string(count) + "x" + std::to_string(inner);
  }
  size_t size() const { return outer * count * inner; }
};

const Shape kShapes[] = {
    {1000, 1000, 1, false}, {392, 49, 1, false},  {21825, 2, 1, false}, {13666, 3, 1, false},
    {50, 10, 100, false},   {1000, 1000, 1, true},
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
    const size_t element = shape.bf16 ? 2 : 4;
    testing::RegisterCopyBaseline((shape.bf16 ? "bf16_" : "") + shape.Label(),
                                  shape.size() * element);
    if (shape.bf16) {
      Register<uint16_t>(shape, "Softmax16b", Softmax16bKernels());
    } else {
      Register<float>(shape, "Softmax32f", Softmax32fKernels());
    }
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
