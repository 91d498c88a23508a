#include "core/cpu.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
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
    f.bf16_dot_half_rate = f.avx512bf16 && Bit(l7.edx, 22);
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

#if defined(__x86_64__)

// "AuthenticAMD" / "HygonGenuine": ebx "Auth" / "Hygo".
bool AmdCacheLeaves(const Regs& vendor) {
  return vendor.ebx == 0x68747541u || vendor.ebx == 0x6F677948u;
}

// CPUID's deterministic cache parameters (leaf 4 on Intel, 0x8000001D on
// AMD and Hygon: the same layout), subleaf by subleaf until type 0.
CacheSizes DeterministicCaches(const Regs& vendor) {
  CacheSizes c;
  unsigned leaf = 4;
  if (AmdCacheLeaves(vendor)) {
    if (Cpuid(0x80000000u, 0).eax < 0x8000001Du) return c;
    leaf = 0x8000001Du;
  } else if (vendor.eax < 4) {
    return c;
  }
  for (unsigned sub = 0; sub < 16; ++sub) {
    const Regs r = Cpuid(leaf, sub);
    const unsigned type = r.eax & 31;  // 1 data, 2 instruction, 3 unified
    if (type == 0) break;
    if (type == 2) continue;
    const unsigned level = (r.eax >> 5) & 7;
    const size_t ways = ((r.ebx >> 22) & 0x3FF) + 1;
    const size_t partitions = ((r.ebx >> 12) & 0x3FF) + 1;
    const size_t line = (r.ebx & 0xFFF) + 1;
    const size_t sets = static_cast<size_t>(r.ecx) + 1;
    const size_t bytes = ways * partitions * line * sets;
    if (level == 1) c.l1d = bytes;
    if (level == 2) c.l2 = bytes;
    if (level == 3) c.l3 = bytes;
  }
  return c;
}

// DeterministicCaches, with the extended leaves' sizes of the levels it
// found none of (an AMD EPYC guest answered 0x8000001D with type 0 at
// subleaf 0 and 0x80000005/6 with 48 KiB, 1 MiB and 508 MiB).
CacheSizes DetectCaches() {
  const Regs vendor = Cpuid(0, 0);
  CacheSizes c = DeterministicCaches(vendor);
  if ((c.l1d == 0 || c.l2 == 0 || c.l3 == 0) && Cpuid(0x80000000u, 0).eax >= 0x80000006u) {
    const Regs r6 = Cpuid(0x80000006u, 0);
    const CacheSizes e = CacheSizesFromExtendedLeaves(Cpuid(0x80000005u, 0).ecx, r6.ecx, r6.edx,
                                                      AmdCacheLeaves(vendor));
    if (c.l1d == 0) c.l1d = e.l1d;
    if (c.l2 == 0) c.l2 = e.l2;
    if (c.l3 == 0) c.l3 = e.l3;
  }
  c.l3_beats_streaming = AmdCacheLeaves(vendor) && c.l3 != 0;
  return c;
}

#else

// sysfs: index<i>/{level,type,size} with sizes such as "1024K".
CacheSizes DetectCaches() {
  CacheSizes c;
  for (int i = 0; i < 8; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    auto read = [&](const char* name) -> std::string {
      std::FILE* f = std::fopen((dir + name).c_str(), "r");
      if (f == nullptr) return "";
      char buf[64] = {};
      const bool ok = std::fgets(buf, sizeof(buf), f) != nullptr;
      std::fclose(f);
      return ok ? std::string(buf) : "";
    };
    const std::string level = read("level"), type = read("type"), size = read("size");
    if (level.empty()) break;
    if (type.rfind("Instruction", 0) == 0 || size.empty()) continue;
    size_t bytes = 0, k = 0;
    while (k < size.size() && size[k] >= '0' && size[k] <= '9')
      bytes = bytes * 10 + (size[k++] - '0');
    if (k < size.size() && size[k] == 'K') bytes <<= 10;
    if (k < size.size() && size[k] == 'M') bytes <<= 20;
    if (level[0] == '1') c.l1d = bytes;
    if (level[0] == '2') c.l2 = bytes;
    if (level[0] == '3') c.l3 = bytes;
  }
  return c;
}

#endif

const CacheSizes& DetectedCaches() {
  static const CacheSizes sizes = [] {
    CacheSizes c = DetectCaches();
    if (c.l1d == 0) c.l1d = kDefaultCacheSizes.l1d;
    if (c.l2 == 0) c.l2 = kDefaultCacheSizes.l2;
    return c;  // l3 stays 0 if there is none
  }();
  return sizes;
}

std::atomic<const CacheSizes*> g_cache_override{nullptr};

}  // namespace

CacheSizes CacheSizesFromExtendedLeaves(uint32_t ecx5, uint32_t ecx6, uint32_t edx6, bool amd) {
  CacheSizes c;
  c.l2 = static_cast<size_t>(ecx6 >> 16) << 10;
  if (amd) {
    c.l1d = static_cast<size_t>(ecx5 >> 24) << 10;
    c.l3 = std::min(static_cast<size_t>(edx6 >> 18) << 19, kDefaultCacheSizes.l3);
  }
  return c;
}

CacheSizes GetCacheSizes() {
  const CacheSizes* o = g_cache_override.load(std::memory_order_acquire);
  return o != nullptr ? *o : DetectedCaches();
}

void SetCacheSizesForTesting(const CacheSizes* sizes) {
  static CacheSizes storage[2];  // alternate, so a reader never sees a torn update
  static int next = 0;
  if (sizes == nullptr) {
    g_cache_override.store(nullptr, std::memory_order_release);
    return;
  }
  storage[next] = *sizes;
  g_cache_override.store(&storage[next], std::memory_order_release);
  next ^= 1;
}

std::string CacheSizesString() {
  const CacheSizes c = GetCacheSizes();
  return "l1d " + std::to_string(c.l1d >> 10) + " KiB, l2 " + std::to_string(c.l2 >> 10) +
         " KiB, l3 " + std::to_string(c.l3 >> 10) + " KiB" +
         (c.l3_beats_streaming ? " (beats streaming stores)" : "");
}

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
