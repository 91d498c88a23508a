#include "core/cpu.h"

#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#elif defined(__aarch64__)
#include <sys/auxv.h>
#endif

namespace synops {
namespace {

#if defined(__x86_64__)

struct Regs {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

Regs Cpuid(unsigned leaf, unsigned subleaf) {
  Regs r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

bool Bit(unsigned reg, int bit) { return (reg >> bit) & 1u; }

unsigned long long Xgetbv0() {
  unsigned eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}

// Linux: AMX tile data is off until the process asks for it.
bool RequestAmxPermission() {
  constexpr long kArchReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

CpuFeatures Detect() {
  CpuFeatures f;
  const unsigned max_leaf = Cpuid(0, 0).eax;
  if (max_leaf < 1) return f;
  const Regs l1 = Cpuid(1, 0);
  f.sse41 = Bit(l1.ecx, 19);
  const bool osxsave = Bit(l1.ecx, 27);
  const bool avx = Bit(l1.ecx, 28);
  const bool f16c = Bit(l1.ecx, 29);
  f.fma = Bit(l1.ecx, 12);
  if (!osxsave || max_leaf < 7) return f;
  const unsigned long long xcr0 = Xgetbv0();
  const bool os_avx = (xcr0 & 0x6) == 0x6;           // XMM, YMM
  const bool os_avx512 = (xcr0 & 0xE6) == 0xE6;      // + opmask, ZMM_Hi256, Hi16_ZMM
  const bool os_amx = (xcr0 & 0x60000) == 0x60000;   // XTILECFG, XTILEDATA
  const Regs l7 = Cpuid(7, 0);
  const Regs l7s1 = Cpuid(7, 1);
  const Regs ext = Cpuid(0x80000001u, 0);
  const bool bmi1 = Bit(l7.ebx, 3), bmi2 = Bit(l7.ebx, 8), lzcnt = Bit(ext.ecx, 5);
  if (!os_avx || !avx) {
    f.fma = false;
    return f;
  }
  f.avx2 = Bit(l7.ebx, 5) && f.fma && bmi1 && bmi2 && f16c && lzcnt;
  if (os_avx512) {
    f.avx512f = Bit(l7.ebx, 16);
    f.avx512dq = Bit(l7.ebx, 17);
    f.avx512bw = Bit(l7.ebx, 30);
    f.avx512vl = Bit(l7.ebx, 31);
    f.avx512bf16 = Bit(l7s1.eax, 5) && f.avx512f && f.avx512bw && f.avx512vl;
  }
  if (os_amx && Bit(l7.edx, 24) && RequestAmxPermission()) {
    f.amx_tile = true;
    f.amx_bf16 = Bit(l7.edx, 22);
  }
  return f;
}

#elif defined(__aarch64__)

CpuFeatures Detect() {
  CpuFeatures f;
  constexpr unsigned long kHwcapAsimd = 1ul << 1;
  constexpr unsigned long kHwcap2Bf16 = 1ul << 14;
  const unsigned long hwcap = getauxval(AT_HWCAP);
  const unsigned long hwcap2 = getauxval(AT_HWCAP2);
  f.neon = (hwcap & kHwcapAsimd) != 0;
  f.neon_bf16 = f.neon && (hwcap2 & kHwcap2Bf16) != 0;
  return f;
}

#else

CpuFeatures Detect() { return CpuFeatures(); }

#endif

}  // namespace

const CpuFeatures& GetCpuFeatures() {
  static const CpuFeatures features = Detect();
  return features;
}

std::string CpuFeaturesString() {
  const CpuFeatures& f = GetCpuFeatures();
  std::string s;
  auto add = [&s](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += ' ';
    s += name;
  };
  add(f.sse41, "sse4.1");
  add(f.avx2, "avx2");
  add(f.fma, "fma");
  add(f.avx512f, "avx512f");
  add(f.avx512bw, "avx512bw");
  add(f.avx512dq, "avx512dq");
  add(f.avx512vl, "avx512vl");
  add(f.avx512bf16, "avx512bf16");
  add(f.amx_tile, "amx-tile");
  add(f.amx_bf16, "amx-bf16");
  add(f.neon, "neon");
  add(f.neon_bf16, "bf16");
  return s.empty() ? "none" : s;
}

}  // namespace synops
