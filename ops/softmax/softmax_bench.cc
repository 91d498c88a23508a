// Every softmax kernel on the shapes of typical networks (classifier rows,
// attention-like rows, detection heads with 2 and 3 classes, a strided
// layout), next to BM_Copy of the same size and BM_Exp, the bound of the
// exps alone: the FP32 kernels' exp (core/hwy_math-inl.h's
// ExpNonPositive) of as many elements, from and to a 16 KiB buffer in L1,
// per vector width (a bound for the kernels that take an exp per element:
// all but count 2, which takes one per row). Bytes = bytes read + written
// (BM_Exp: as many as the FP32 softmax). Compare kernels by time: "ref" is
// in the same binary.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "ops/softmax/softmax_bench.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <algorithm>
#include <string>
#include <vector>

#include "core/hwy_math-inl.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
#if HWY_TARGET != HWY_SCALAR
namespace hn = hwy::HWY_NAMESPACE;

// dst[i] = e^(src[i] - 8) for the n (a multiple of the vector) elements.
void ExpBound(const float* HWY_RESTRICT src, size_t n, float* HWY_RESTRICT dst) {
  const hn::ScalableTag<float> d;
  const auto eight = hn::Set(d, 8.0f);
  for (size_t i = 0; i < n; i += hn::Lanes(d)) {
    hn::StoreU(hmath::ExpNonPositive<false>(d, hn::Sub(hn::LoadU(d, src + i), eight)), d, dst + i);
  }
}
#endif  // HWY_TARGET != HWY_SCALAR
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "benchmark/benchmark.h"
#include "bf16/bf16.h"
#include "core/hwy_kernels.h"
#include "ops/softmax/softmax_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

using ExpBoundFn = void (*)(const float*, size_t, float*);
const Kernel<ExpBoundFn> kExpBound[] = {SYNOPS_HWY_KERNELS(ExpBound)};

// Every shape runs as FP32 and as BF16: Softmax16b's time on a shape is
// compared with Softmax32f's (issue 14: at most 1.1x, though BF16 moves half
// the bytes). 64x8x3136 (6.4 MiB as FP32) is inner > 1 beyond L2, compared
// with BM_Copy of its bytes; 2x8x512 is the same kernel on a slab in the
// L1 (src and dst 32 KiB as FP32), its compute rate: 64x8x3136 has 196
// times its elements.
struct Shape {
  size_t outer, count, inner;
  std::string Label() const {
    return std::to_string(outer) + "x" + std::to_string(count) + "x" + std::to_string(inner);
  }
  size_t size() const { return outer * count * inner; }
};

const Shape kShapes[] = {
    {1000, 1000, 1}, {392, 49, 1},  {21825, 2, 1}, {13666, 3, 1},
    {50, 10, 100},   {64, 8, 3136}, {2, 8, 512},
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

// BM_Exp/<isa>/<shape>: shape.size() exps in passes over kChunk floats.
constexpr size_t kChunk = 4096;

void RegisterExpBound(const Shape& shape) {
  for (const auto& k : kExpBound) {
    benchmark::RegisterBenchmark(
        ("BM_Exp/" + std::string(k.name) + "/" + shape.Label()).c_str(),
        [k, shape](benchmark::State& state) {
          if (!testing::SkipUnlessSupported(state, k.isa)) return;
          testing::AlignedFloats src(kChunk), dst(kChunk);
          for (size_t i = 0; i < kChunk; ++i) src[i] = Value(i);
          const size_t n = shape.size();
          for (auto _ : state) {
            for (size_t done = 0; done < n; done += kChunk) {
              // Whole vectors (16 lanes at most): at most 15 exps more than n.
              k.fn(src.data(), (std::min(kChunk, n - done) + 15) / 16 * 16, dst.data());
            }
            benchmark::DoNotOptimize(dst.data());
            benchmark::ClobberMemory();
          }
          state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * n * sizeof(float)));
        });
  }
}

void RegisterAll() {
  for (const Shape& shape : kShapes) {
    testing::RegisterCopyBaseline(shape.Label(), shape.size() * sizeof(float));
    RegisterExpBound(shape);
    testing::RegisterCopyBaseline("bf16_" + shape.Label(), shape.size() * sizeof(uint16_t));
    Register<float>(shape, "Softmax32f", Softmax32fKernels());
    Register<uint16_t>(shape, "Softmax16b", Softmax16bKernels());
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
#endif  // HWY_ONCE
