// CPU feature detection, done once per process.
#ifndef SYNOPS_CORE_CPU_H_
#define SYNOPS_CORE_CPU_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace synops {

struct CpuFeatures {
  // x86 (all false elsewhere). AVX-512 and AMX bits are set only if the OS
  // saves the register state (XGETBV) and, for AMX, granted the tile data
  // permission (arch_prctl ARCH_REQ_XCOMP_PERM).
  bool sse41 = false;
  bool avx2 = false;  // AVX2 + FMA + BMI1/2 + F16C + LZCNT: Highway's AVX2 target.
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512bf16 = false;
  bool amx_tile = false;
  bool amx_bf16 = false;
  // vdpbf16ps does half the FLOPs per cycle of FMA: Intel cores with
  // AMX-BF16 (CPUID 7.0 EDX[22], whether or not the OS grants the tiles;
  // Sapphire Rapids: conv16b_bench's Peak/avx512bf16/vdpbf16ps 115 against
  // Peak/avx512/fma 226 GFLOP/s). False without AVX512-BF16 and where it
  // runs at the FMA's instruction rate (Zen 4/5: twice its FLOPs).
  bool bf16_dot_half_rate = false;
  // aarch64 (all false elsewhere).
  bool neon = false;
  bool neon_bf16 = false;  // HWCAP2_BF16: BFCVT, BFDOT, BFMMLA.
};

// Features of the running CPU. Thread-safe; detection runs on first use.
const CpuFeatures& GetCpuFeatures();

// One line naming the detected features, for logs and synbench.
std::string CpuFeaturesString();

// Data cache sizes in bytes, of the core running (L3: the whole cache that
// core shares). Size thresholds (streaming stores, two-pass choices) derive
// from these, never from constants tuned on one CPU (core/streaming.h).
struct CacheSizes {
  size_t l1d = 0;
  size_t l2 = 0;
  size_t l3 = 0;  // 0: none
  // Cached stores into the L3 run faster than non-temporal stores to
  // memory (AMD: each core reaches its CCD's L3 at near-L2 rates). AMD Zen
  // 5 core, normalize_bench, 6.4 MiB: BM_Copy 99 us, BM_CopyStream 157;
  // Intel (one Emerald Rapids core, its L3 shared over the mesh) the
  // reverse: BM_Copy 619-660 us, BM_CopyStream 500-545.
  bool l3_beats_streaming = false;
};

// Detected once: CPUID leaf 4 (Intel) or 0x8000001D (AMD) on x86, where a
// hypervisor leaves those empty the extended leaves 0x80000005/6
// (CacheSizesFromExtendedLeaves), sysfs (/sys/devices/system/cpu/cpu0/cache)
// elsewhere; an L1d or L2 not found takes kDefaultCacheSizes' value (an L3
// not found stays 0); l3_beats_streaming on AMD and Hygon CPUs with an L3.
// Or the sizes set by SetCacheSizesForTesting.
CacheSizes GetCacheSizes();
// The sizes of CPUID 0x80000005 and 0x80000006: the L1d of 0x80000005
// ECX[31:24] (KiB, AMD only; reserved on Intel), the L2 of 0x80000006
// ECX[31:16] (KiB) and, AMD only, the L3 of 0x80000006 EDX[31:18] (512 KiB
// units) at most kDefaultCacheSizes.l3; zero where a field is zero. An AMD
// EPYC (Zen 5) guest reported the whole package's L3 there (508 MiB), not
// the 32 MiB its core shares, but an L3 all the same: cached stores of 6.4
// MiB ran 1.3x faster than streaming ones there (normalize_bench BM_Copy
// 60-62 us, BM_CopyStream 79-80), so its kernels take the L3 paths up to
// the default's 8 MiB instead of streaming from half the L2.
CacheSizes CacheSizesFromExtendedLeaves(uint32_t ecx5, uint32_t ecx6, uint32_t edx6, bool amd);
inline constexpr CacheSizes kDefaultCacheSizes = {size_t{32} << 10, size_t{1} << 20,
                                                  size_t{8} << 20};
// Tests: makes GetCacheSizes return `sizes` (nullptr: the detected sizes again).
void SetCacheSizesForTesting(const CacheSizes* sizes);
// The same as "l1d 32 KiB, l2 1024 KiB, l3 32768 KiB" (+ " (beats streaming
// stores)" where l3_beats_streaming), for logs and synbench.
std::string CacheSizesString();

}  // namespace synops

#endif  // SYNOPS_CORE_CPU_H_
