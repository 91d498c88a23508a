// Google Benchmark helpers: the copy-bandwidth baseline every op benchmark
// reports next to its kernels, and kernel registration over a table.
#ifndef SYNOPS_TESTING_BENCH_UTIL_H_
#define SYNOPS_TESTING_BENCH_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "core/dispatch.h"

namespace synops {
namespace testing {

// Registers BM_Copy/<label>: memcpy of `bytes` bytes from one 64-byte
// aligned buffer to another. Bytes processed = bytes read + bytes written
// (2 * bytes), the same accounting op benchmarks use, so ratios read as
// "% of copy bandwidth".
void RegisterCopyBaseline(const std::string& label, size_t bytes);
// Registers BM_Memset/<label>: memset of `bytes` bytes (64-byte aligned);
// bytes processed = bytes written. The bound of ops that only write.
void RegisterMemsetBaseline(const std::string& label, size_t bytes);

// Registers BM_ReadOnly/<label>: reads `bytes` bytes (64-byte aligned) once
// with the widest vector loads the CPU has (AVX-512, AVX2, SSE2 on x86) and
// nothing else (the load ports are the only bound); bytes processed = bytes
// read. The bound
// of ops that read much and write little (channel_sum): a scalar read loop
// would be no bound at L1 and L2 sizes.
void RegisterReadOnlyBaseline(const std::string& label, size_t bytes);

// Registers BM_ReadThenCopy/<label>: the read of BM_ReadOnly, then memcpy
// of the same `bytes` to another buffer; bytes processed = bytes read by
// the copy + bytes written, as BM_Copy counts them. The bound of ops that
// must read all of their input before their first output and then read it
// again (normalize V4, NCHW V1 and V2): beyond the L1d, the copy evicts
// what the read brought in and the next read comes from L2.
void RegisterReadThenCopyBaseline(const std::string& label, size_t bytes);

// Sizes, in bytes per array, of the three standard working sets.
inline constexpr size_t kL1Bytes = 16 << 10;
inline constexpr size_t kL2Bytes = 64 << 10;
inline constexpr size_t kDramBytes = 64 << 20;

// `n` floats, 64-byte aligned and zeroed, as frameworks allocate tensors
// (std::vector's 16-byte alignment makes every AVX-512 store of a kernel
// that does not realign straddle two cache lines).
class AlignedFloats {
 public:
  explicit AlignedFloats(size_t n);
  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  size_t size() const { return n_; }
  float& operator[](size_t i) { return data_.get()[i]; }
  const float& operator[](size_t i) const { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(float* p) const;
  };
  size_t n_;
  std::unique_ptr<float, Free> data_;
};

// Skips the benchmark (visibly, as an error row) if the CPU cannot run `isa`.
// Returns false if skipped.
bool SkipUnlessSupported(benchmark::State& state, Isa isa);

// Registers `name`: a compute-peak loop (`peak` runs `iterations` and
// returns their FLOPs) with a FLOPS counter, skipped without `isa`. Kernel
// benchmarks report their FLOPS next to it, in the same binary and run.
void RegisterPeak(const char* name, Isa isa, uint64_t (*peak)(uint64_t), uint64_t iterations);

}  // namespace testing
}  // namespace synops

#endif  // SYNOPS_TESTING_BENCH_UTIL_H_
