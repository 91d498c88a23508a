// Every channel_sum kernel at L1-, L2-, L3- and DRAM-sized inputs and a 7x7 layer
// (512 channels, 49 KiB), both formats, next to BM_Copy and BM_ReadOnly of
// the same input size, and BM_WidenSum: the ALU work an exact sum of the same
// bytes needs, the bound in the cache (a quarter of the read rate with
// AVX-512 on Sapphire Rapids). Bytes = bytes read + bytes written.
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "benchmark/benchmark.h"
#include "core/cpu.h"
#include "core/types.h"
#include "ops/channel_sum/channel_sum_kernels.h"
#include "testing/bench_util.h"

namespace synops {
namespace {

struct Shape {
  const char* label;
  size_t channels, spatial;
};

#if defined(__x86_64__)
// The ALU bound of an exact FP32 sum of BF16 data: every element must be
// moved into the upper half of a 32-bit lane (a shift for the even elements
// of a 32-bit word, a mask for the odd ones) and added, so two ALU ops per
// vector of 32-bit lanes; the odd halves are added as x * 1 + sum by the FMA
// units (exact too: on a Zen 5 core they are two more pipes than the
// adders', 1.43x the speed of two adds). This loop does only that over `words` 32-bit words
// (a multiple of the unroll), with enough independent sums to be throughput-
// bound; a kernel reading from the cache cannot beat it with these
// instructions. (vdpbf16ps against ones would fuse the two ops but flushes
// denormal inputs and outputs, which SPEC's bound does not allow.)
__attribute__((target("avx512f"))) float WidenSum512(const uint32_t* p, size_t words) {
  const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 e[4] = {}, o[4] = {};
  for (size_t i = 0; i < words; i += 64) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const __m512i w = _mm512_load_si512(p + i + 16 * k);
      e[k] = _mm512_add_ps(e[k], _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xFFFF, w, 16)));
      o[k] = _mm512_fmadd_ps(_mm512_castsi512_ps(_mm512_and_si512(w, high)), one, o[k]);
    }
  }
  const __m512 t =
      _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(e[0], e[1]), _mm512_add_ps(e[2], e[3])),
                    _mm512_add_ps(_mm512_add_ps(o[0], o[1]), _mm512_add_ps(o[2], o[3])));
  float lanes[16];  // (GCC 12 warns on _mm512_reduce_add_ps's undefined vectors)
  _mm512_storeu_ps(lanes, t);
  float sum = 0.0f;
  for (float lane : lanes) sum += lane;
  return sum;
}

__attribute__((target("avx2,fma"))) float WidenSum256(const uint32_t* p, size_t words) {
  const __m256i high = _mm256_set1_epi32(static_cast<int>(0xFFFF0000u));
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 e[4] = {}, o[4] = {};
  for (size_t i = 0; i < words; i += 32) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k) {
      const __m256i w = _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 8 * k));
      e[k] = _mm256_add_ps(e[k], _mm256_castsi256_ps(_mm256_slli_epi32(w, 16)));
      o[k] = _mm256_fmadd_ps(_mm256_castsi256_ps(_mm256_and_si256(w, high)), one, o[k]);
    }
  }
  __m256 t = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(e[0], e[1]), _mm256_add_ps(e[2], e[3])),
                           _mm256_add_ps(_mm256_add_ps(o[0], o[1]), _mm256_add_ps(o[2], o[3])));
  float lanes[8];
  _mm256_storeu_ps(lanes, t);
  float sum = 0.0f;
  for (float lane : lanes) sum += lane;
  return sum;
}

// BM_WidenSum/<isa>/<label>: that loop over `bytes` (rounded down to its
// unroll), at each vector width the CPU has; bytes processed = bytes read.
void RegisterWidenSumBound(const std::string& label, size_t bytes) {
  const struct {
    const char* name;
    Isa isa;
    float (*fn)(const uint32_t*, size_t);
    size_t unroll_words;
  } kLoops[] = {{"avx512", Isa::kAvx512, WidenSum512, 64}, {"avx2", Isa::kAvx2, WidenSum256, 32}};
  for (const auto& loop : kLoops) {
    const size_t words = bytes / 4 / loop.unroll_words * loop.unroll_words;
    benchmark::RegisterBenchmark(
        ("BM_WidenSum/" + std::string(loop.name) + "/" + label).c_str(),
        [loop, words](benchmark::State& state) {
          if (!testing::SkipUnlessSupported(state, loop.isa)) return;
          testing::AlignedFloats src(words);
          std::memset(src.data(), 0x3F, words * 4);
          const auto* p = reinterpret_cast<const uint32_t*>(src.data());
          for (auto _ : state) benchmark::DoNotOptimize(loop.fn(p, words));
          state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * words * 4));
        });
  }
}
#else
void RegisterWidenSumBound(const std::string &, size_t) {}
#endif

const Shape kShapes[] = {
    {"L1", 64, 128},       // 16 KiB
    {"L2", 256, 128},      // 64 KiB
    {"7x7", 512, 49},      // 49 KiB
    {"L3", 512, 4096},     // 4 MiB: beyond any L2, in an L3
    {"DRAM", 512, 65536},  // 64 MiB
};

void RegisterAll() {
  for (const Shape& shape : kShapes) {
    const size_t src_bytes = shape.channels * shape.spatial * 2;
    testing::RegisterCopyBaseline(shape.label, src_bytes);
    testing::RegisterReadOnlyBaseline(shape.label, src_bytes);
    // (Beyond the caches the read is the bound.)
    if (std::string(shape.label) != "DRAM") RegisterWidenSumBound(shape.label, src_bytes);
    for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
      for (const auto& k : ChannelSum16bKernels().all()) {
        const std::string name = std::string("ChannelSum16b/") + k.name + "/" + FormatName(f) +
                                 "/" + shape.label + "/c" + std::to_string(shape.channels) + "_s" +
                                 std::to_string(shape.spatial);
        benchmark::RegisterBenchmark(name.c_str(), [k, f, shape](benchmark::State& state) {
          if (!testing::SkipUnlessSupported(state, k.isa)) return;
          const size_t n = shape.channels * shape.spatial;
          // 64-byte aligned, as frameworks allocate tensors (std::vector's
          // 16-byte alignment split every 64-byte load in two: 512 channels
          // x 7x7 NHWC ran 1.9x slower on some placements).
          testing::AlignedFloats storage((n + 1) / 2);
          auto* src = reinterpret_cast<uint16_t*>(storage.data());
          for (size_t i = 0; i < n; ++i) src[i] = static_cast<uint16_t>(0x3F80 + (i & 63));
          testing::AlignedFloats sum(shape.channels);
          for (auto _ : state) {
            k.fn(src, shape.channels, shape.spatial, f, sum.data());
            benchmark::DoNotOptimize(sum.data());
            benchmark::ClobberMemory();
          }
          state.SetBytesProcessed(static_cast<int64_t>(state.iterations() *
                                                       (n * 2 + shape.channels * 4)));
        });
      }
    }
  }
}

const int kRegistered = (RegisterAll(), 0);

}  // namespace
}  // namespace synops
