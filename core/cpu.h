// CPU feature detection, done once per process.
#ifndef SYNOPS_CORE_CPU_H_
#define SYNOPS_CORE_CPU_H_

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
  // aarch64 (all false elsewhere).
  bool neon = false;
  bool neon_bf16 = false;  // HWCAP2_BF16: BFCVT, BFDOT, BFMMLA.
};

// Features of the running CPU. Thread-safe; detection runs on first use.
const CpuFeatures& GetCpuFeatures();

// One line naming the detected features, for logs and synbench.
std::string CpuFeaturesString();

}  // namespace synops

#endif  // SYNOPS_CORE_CPU_H_
