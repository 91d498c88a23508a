#include "testing/bench_util.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "core/cpu.h"

namespace synops {
namespace testing {
namespace {

// XOR of every 64-bit word of [p, p + bytes), bytes a multiple of 8.
uint64_t ReadScalar(const uint64_t* p, size_t bytes) {
  uint64_t x[8] = {};
  size_t i = 0;
  for (; i + 8 <= bytes / 8; i += 8) {
    for (size_t j = 0; j < 8; ++j) x[j] ^= p[i + j];
  }
  for (; i < bytes / 8; ++i) x[0] ^= p[i];
  return x[0] ^ x[1] ^ x[2] ^ x[3] ^ x[4] ^ x[5] ^ x[6] ^ x[7];
}

#if defined(__x86_64__)
// Loads every vector of [p, p + bytes) into a register and discards it: the
// loop uses the load ports only (XOR-ing the loads would make the vector ALU
// ports the bound at L1 sizes, below what the loads can do). Eight loads per
// step, then the rest word by word.
#define SYNOPS_READ_LOOP(isa, width, load, reg)                                        \
  __attribute__((target(isa))) uint64_t Read_##width(const uint64_t* p, size_t bytes) { \
    const char* c = reinterpret_cast<const char*>(p);                                 \
    const size_t step = 8 * (width / 8);                                              \
    size_t i = 0;                                                                     \
    for (; i + step <= bytes; i += step) {                                            \
      asm volatile(load " 0*" #width "/8(%0), %%" reg "0\n\t"                        \
                   load " 1*" #width "/8(%0), %%" reg "1\n\t"                        \
                   load " 2*" #width "/8(%0), %%" reg "2\n\t"                        \
                   load " 3*" #width "/8(%0), %%" reg "3\n\t"                        \
                   load " 4*" #width "/8(%0), %%" reg "4\n\t"                        \
                   load " 5*" #width "/8(%0), %%" reg "5\n\t"                        \
                   load " 6*" #width "/8(%0), %%" reg "6\n\t"                        \
                   load " 7*" #width "/8(%0), %%" reg "7"                             \
                   :                                                                  \
                   : "r"(c + i)                                                       \
                   : reg "0", reg "1", reg "2", reg "3", reg "4", reg "5", reg "6",   \
                     reg "7", "memory");                                              \
    }                                                                                 \
    /* The asm dirtied the upper halves behind the compiler's back: without */       \
    /* vzeroupper the SSE code that follows pays a transition on every op. */         \
    if (width > 128) asm volatile("vzeroupper");                                      \
    return ReadScalar(reinterpret_cast<const uint64_t*>(c + i), bytes - i);           \
  }
SYNOPS_READ_LOOP("avx512f", 512, "vmovdqa64", "zmm")
SYNOPS_READ_LOOP("avx2", 256, "vmovdqa", "ymm")
SYNOPS_READ_LOOP("sse2", 128, "movdqa", "xmm")
#undef SYNOPS_READ_LOOP
#endif

uint64_t (*WidestRead())(const uint64_t*, size_t) {
#if defined(__x86_64__)
  const CpuFeatures& f = GetCpuFeatures();
  if (f.avx512f) return Read_512;
  if (f.avx2) return Read_256;
  return Read_128;
#else
  return ReadScalar;
#endif
}

}  // namespace

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

void RegisterReadOnlyBaseline(const std::string& label, size_t bytes) {
  benchmark::RegisterBenchmark(("BM_ReadOnly/" + label).c_str(), [bytes](benchmark::State& state) {
    AlignedFloats src((bytes + 7) / 4);
    std::memset(src.data(), 1, bytes);
    const auto read = WidestRead();
    for (auto _ : state) {
      benchmark::DoNotOptimize(read(reinterpret_cast<const uint64_t*>(src.data()), bytes / 8 * 8));
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  });
}

void RegisterReadThenCopyBaseline(const std::string& label, size_t bytes) {
  const auto run = [bytes](benchmark::State& state) {
    AlignedFloats src((bytes + 7) / 4), dst((bytes + 7) / 4);
    std::memset(src.data(), 1, bytes);
    const auto read = WidestRead();
    for (auto _ : state) {
      benchmark::DoNotOptimize(read(reinterpret_cast<const uint64_t*>(src.data()), bytes / 8 * 8));
      std::memcpy(dst.data(), src.data(), bytes);
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 *
                            static_cast<int64_t>(bytes));
  };
  benchmark::RegisterBenchmark(("BM_ReadThenCopy/" + label).c_str(), run);
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

void RegisterPeak(const char* name, Isa isa, uint64_t (*peak)(uint64_t), uint64_t iterations) {
  benchmark::RegisterBenchmark(name, [=](benchmark::State& state) {
    if (!SkipUnlessSupported(state, isa)) return;
    double flops = 0;
    for (auto _ : state) flops += static_cast<double>(peak(iterations));
    state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsRate);
  });
}

}  // namespace testing
}  // namespace synops
