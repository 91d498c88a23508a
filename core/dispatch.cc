#include "core/dispatch.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "core/cpu.h"

namespace synops {
namespace {

struct IsaInfo {
  Isa isa;
  const char* name;
  bool x86;  // architecture family (ref belongs to both)
  int rank;
};

constexpr IsaInfo kIsas[] = {
    {Isa::kRef, "ref", true, 0},          {Isa::kSse41, "sse41", true, 1},
    {Isa::kAvx2, "avx2", true, 2},        {Isa::kAvx512, "avx512", true, 3},
    {Isa::kAvx512Bf16, "avx512bf16", true, 4}, {Isa::kAmxBf16, "amx_bf16", true, 5},
    {Isa::kNeon, "neon", false, 1},       {Isa::kNeonBf16, "neon_bf16", false, 2},
};

const IsaInfo& Info(Isa isa) { return kIsas[static_cast<int>(isa)]; }

std::atomic<int> g_generation{0};
std::mutex g_cap_mutex;
bool g_cap_initialized = false;
std::optional<Isa> g_cap;

void InitCapLocked() {
  if (g_cap_initialized) return;
  g_cap_initialized = true;
  const char* env = std::getenv("SYNOPS_MAX_ISA");
  if (env == nullptr || *env == '\0') return;
  g_cap = ParseIsa(env);
  if (!g_cap) {
    std::fprintf(stderr,
                 "synops: ignoring SYNOPS_MAX_ISA=%s (expected ref, sse41, avx2, avx512, "
                 "avx512bf16, amx_bf16, neon or neon_bf16)\n",
                 env);
  }
}

}  // namespace

const char* IsaName(Isa isa) { return Info(isa).name; }

std::optional<Isa> ParseIsa(absl::string_view name) {
  for (const IsaInfo& info : kIsas) {
    if (name == info.name) return info.isa;
  }
  return std::nullopt;
}

int IsaRank(Isa isa) { return Info(isa).rank; }

bool CpuSupports(Isa isa) {
  const CpuFeatures& f = GetCpuFeatures();
  const bool avx512 = f.avx2 && f.avx512f && f.avx512bw && f.avx512dq && f.avx512vl;
  switch (isa) {
    case Isa::kRef:
      return true;
    case Isa::kSse41:
      return f.sse41;
    case Isa::kAvx2:
      return f.sse41 && f.avx2;
    case Isa::kAvx512:
      return avx512;
    case Isa::kAvx512Bf16:
      return avx512 && f.avx512bf16;
    case Isa::kAmxBf16:
      return avx512 && f.avx512bf16 && f.amx_tile && f.amx_bf16;
    case Isa::kNeon:
      return f.neon;
    case Isa::kNeonBf16:
      return f.neon_bf16;
  }
  return false;
}

std::optional<Isa> MaxIsa() {
  std::lock_guard<std::mutex> lock(g_cap_mutex);
  InitCapLocked();
  return g_cap;
}

void SetMaxIsa(std::optional<Isa> cap) {
  std::lock_guard<std::mutex> lock(g_cap_mutex);
  g_cap_initialized = true;
  g_cap = cap;
  g_generation.fetch_add(1, std::memory_order_acq_rel);
}

int DispatchGeneration() { return g_generation.load(std::memory_order_acquire) & 0x7FFFFF; }

bool IsaAllowed(Isa isa) {
  if (!CpuSupports(isa)) return false;
  const std::optional<Isa> cap = MaxIsa();
  if (!cap || isa == Isa::kRef) return true;
  if (*cap == Isa::kRef) return false;
  if (Info(*cap).x86 != Info(isa).x86) return true;  // a cap for the other architecture
  return Info(isa).rank <= Info(*cap).rank;
}

}  // namespace synops
