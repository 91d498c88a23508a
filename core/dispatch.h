// Kernel tables and ISA dispatch.
//
// Every op lists its kernels (name, required ISA, function) in a KernelTable.
// Public entry points call Best(): the best kernel the CPU supports within the
// SYNOPS_MAX_ISA cap, cached until the cap changes. Tests, benchmarks and
// fuzzers iterate over all() instead.
#ifndef SYNOPS_CORE_DISPATCH_H_
#define SYNOPS_CORE_DISPATCH_H_

#include <algorithm>
#include <atomic>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace synops {

// Instruction-set tiers, in the order of the kernel names used everywhere.
enum class Isa : int {
  kRef = 0,
  kSse41,
  kAvx2,
  kAvx512,      // AVX-512 F/BW/DQ/VL
  kAvx512Bf16,  // + AVX512_BF16
  kAmxBf16,     // + AMX-TILE, AMX-BF16
  kNeon,
  kNeonBf16,    // Armv8.6 BF16
};

// "ref", "sse41", "avx2", "avx512", "avx512bf16", "amx_bf16", "neon", "neon_bf16".
const char* IsaName(Isa isa);
std::optional<Isa> ParseIsa(absl::string_view name);

// True if the running CPU (and OS) can execute code of this tier.
bool CpuSupports(Isa isa);

// The cap from SYNOPS_MAX_ISA (read once), or the one set for tests; nullopt
// means no cap. A cap names a tier of one architecture: on the other
// architecture it does not apply. An unknown name is reported on stderr once
// and ignored.
std::optional<Isa> MaxIsa();
void SetMaxIsa(std::optional<Isa> cap);

// Supported by the CPU and within the cap.
bool IsaAllowed(Isa isa);

// Changes whenever the cap changes; cached dispatch decisions compare it.
int DispatchGeneration();

template <typename Fn>
struct Kernel {
  const char* name;
  Isa isa;
  Fn fn;
};

// Ranks tiers within an architecture (ref = 0); higher is preferred.
int IsaRank(Isa isa);

template <typename Fn>
class KernelTable {
 public:
  // `kernels` in any order; must contain a kRef kernel.
  explicit KernelTable(std::vector<Kernel<Fn>> kernels) : kernels_(std::move(kernels)) { Sort(); }

  // The one way ops build their tables: the kernels a Highway translation unit
  // compiled (SYNOPS_HWY_KERNELS) plus the hand-written ones, the ref kernel
  // among them, e.g. `table(OpHwyKernels(), {{"ref", Isa::kRef, OpRef}})`.
  KernelTable(std::vector<Kernel<Fn>> kernels, std::initializer_list<Kernel<Fn>> more)
      : kernels_(std::move(kernels)) {
    kernels_.insert(kernels_.end(), more.begin(), more.end());
    Sort();
  }

  // Every kernel compiled into this binary, best first, ref last.
  absl::Span<const Kernel<Fn>> all() const { return kernels_; }

  // The kernel with this name, or nullptr.
  const Kernel<Fn>* Find(absl::string_view name) const {
    for (const Kernel<Fn>& k : kernels_) {
      if (name == k.name) return &k;
    }
    return nullptr;
  }

  // Best allowed kernel (see IsaAllowed); ref if nothing else is.
  const Kernel<Fn>& Best() const {
    const int generation = DispatchGeneration();
    const int cached = cache_.load(std::memory_order_acquire);
    if ((cached >> 8) == generation) return kernels_[cached & 0xFF];
    size_t index = kernels_.size() - 1;
    for (size_t i = 0; i < kernels_.size(); ++i) {
      if (IsaAllowed(kernels_[i].isa)) {
        index = i;
        break;
      }
    }
    cache_.store((generation << 8) | static_cast<int>(index), std::memory_order_release);
    return kernels_[index];
  }

 private:
  void Sort() {
    std::stable_sort(
        kernels_.begin(), kernels_.end(),
        [](const Kernel<Fn>& a, const Kernel<Fn>& b) { return IsaRank(a.isa) > IsaRank(b.isa); });
  }

  std::vector<Kernel<Fn>> kernels_;
  mutable std::atomic<int> cache_{-256};  // generation -1: nothing cached
};

}  // namespace synops

#endif  // SYNOPS_CORE_DISPATCH_H_
