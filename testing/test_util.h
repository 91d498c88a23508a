// GoogleTest helpers shared by every op's tests.
#ifndef SYNOPS_TESTING_TEST_UTIL_H_
#define SYNOPS_TESTING_TEST_UTIL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "core/dispatch.h"
#include "gtest/gtest.h"
#include "testing/tolerance.h"

namespace synops {
namespace testing {

// Deterministic random data; the seed is part of every test's name or loop.
std::vector<float> RandomFloats(size_t n, float lo, float hi, uint32_t seed);
std::vector<uint16_t> RandomBf16(size_t n, float lo, float hi, uint32_t seed);
// Integer-valued floats in [lo, hi]: sums of these are exact in FP32.
std::vector<float> RandomIntFloats(size_t n, int lo, int hi, uint32_t seed);

// `n` floats, uniform in [-10, 10] mixed (about one in four) with edge values:
// ±0, ±Inf, ±3e38, ±1e20, ±FLT_MIN, denormals (±1e-40, ±denorm_min), ±1 and,
// if `with_nan`, NaN. Deterministic in `seed`.
std::vector<float> EdgeFloats(size_t n, uint32_t seed, bool with_nan = false);

// Sizes that hit every tail of vectors up to 64 elements (XNNPACK-style):
// 0..(2*64+1), then some larger odd and even sizes.
std::vector<size_t> TailSizes(size_t max_vector = 64);

// An output array with guard elements before and after, all pre-filled with
// a signalling pattern (NaN for float). Check() verifies the guards survived.
template <typename T>
class GuardedBuffer {
 public:
  static constexpr size_t kGuard = 64;

  explicit GuardedBuffer(size_t n) : n_(n), storage_(n + 2 * kGuard) {
    T pattern = Pattern();
    for (T& v : storage_) v = pattern;
  }
  T* data() { return storage_.data() + kGuard; }
  const T* data() const { return storage_.data() + kGuard; }
  size_t size() const { return n_; }
  absl::Span<const T> span() const { return absl::MakeConstSpan(data(), n_); }
  std::vector<T> ToVector() const { return std::vector<T>(data(), data() + n_); }

  // True if the guard elements are untouched.
  bool GuardsIntact() const {
    const T pattern = Pattern();
    for (size_t i = 0; i < kGuard; ++i) {
      if (!SameBits(storage_[i], pattern) || !SameBits(storage_[kGuard + n_ + i], pattern)) {
        return false;
      }
    }
    return true;
  }
  // True if every element still holds the pre-fill pattern (nothing written).
  bool Untouched() const {
    const T pattern = Pattern();
    for (const T& v : storage_) {
      if (!SameBits(v, pattern)) return false;
    }
    return true;
  }

 private:
  static T Pattern() {
    if constexpr (std::is_same_v<T, float>) {
      uint32_t bits = 0x7FBADBAD;  // a NaN no kernel produces by accident
      float f;
      std::memcpy(&f, &bits, sizeof(f));
      return f;
    } else {
      return static_cast<T>(0xBADBADBADBADBADBull);
    }
  }
  static bool SameBits(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

  size_t n_;
  std::vector<T> storage_;
};

// Names of every kernel in a table, for INSTANTIATE_TEST_SUITE_P.
template <typename Fn>
std::vector<std::string> KernelNames(const KernelTable<Fn>& table) {
  std::vector<std::string> names;
  for (const auto& k : table.all()) names.push_back(k.name);
  return names;
}

// The kernel of `table` named `name`; GTEST_SKIPs (visibly) if this CPU cannot
// run it. Use inside a test body or SetUp:  auto* k = SYNOPS_KERNEL_OR_SKIP(t, n);
#define SYNOPS_KERNEL_OR_SKIP(table, kernel_name)                                    \
  ({                                                                                 \
    const auto* synops_k_ = (table).Find(kernel_name);                               \
    if (synops_k_ == nullptr) {                                                      \
      ADD_FAILURE() << "no kernel named " << (kernel_name);                          \
      return;                                                                        \
    }                                                                                \
    if (!::synops::CpuSupports(synops_k_->isa)) {                                    \
      GTEST_SKIP() << "kernel " << synops_k_->name << " needs "                      \
                   << ::synops::IsaName(synops_k_->isa) << ", which this CPU lacks"; \
    }                                                                                \
    synops_k_;                                                                       \
  })

// Test-name printer for string parameters (kernel names).
struct KernelNamePrinter {
  std::string operator()(const ::testing::TestParamInfo<std::string>& info) const {
    return info.param;
  }
};

// The SYNOPS_MAX_ISA contract of one kernel table, shared by every op's
// tests: capped at `ref` the table selects the reference; capped at each tier
// it holds, the best kernel at or below that tier the CPU runs; uncapped, the
// best kernel the CPU runs (the first of all() it supports). The table must
// hold a kernel for every Highway tier of this build's architecture (sse41,
// avx2, avx512 on x86-64; neon on aarch64) and for each of `also` that belongs
// to this architecture. Restores the cap the test started with.
template <typename Fn>
void ExpectCapSelects(const KernelTable<Fn>& table, std::initializer_list<Isa> also = {}) {
#if defined(__x86_64__)
  const std::vector<Isa> native = {Isa::kSse41, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Bf16,
                                   Isa::kAmxBf16};
  std::vector<Isa> required = {Isa::kSse41, Isa::kAvx2, Isa::kAvx512};
#elif defined(__aarch64__)
  const std::vector<Isa> native = {Isa::kNeon, Isa::kNeonBf16};
  std::vector<Isa> required = {Isa::kNeon};
#else
  const std::vector<Isa> native;
  std::vector<Isa> required;
#endif
  required.push_back(Isa::kRef);
  for (Isa isa : also) {
    if (std::find(native.begin(), native.end(), isa) != native.end()) required.push_back(isa);
  }
  for (Isa isa : required) {
    bool found = false;
    for (const Kernel<Fn>& k : table.all()) found = found || k.isa == isa;
    EXPECT_TRUE(found) << "no " << IsaName(isa) << " kernel in the table";
  }
  const std::optional<Isa> saved = MaxIsa();
  auto best_within = [&](std::optional<Isa> cap) -> const char* {
    for (const Kernel<Fn>& k : table.all()) {
      if (CpuSupports(k.isa) && (!cap || IsaRank(k.isa) <= IsaRank(*cap))) return k.name;
    }
    return "(none)";
  };
  SetMaxIsa(Isa::kRef);
  EXPECT_STREQ(table.Best().name, "ref");
  for (const Kernel<Fn>& k : table.all()) {
    SetMaxIsa(k.isa);
    EXPECT_STREQ(table.Best().name, best_within(k.isa)) << "SYNOPS_MAX_ISA=" << IsaName(k.isa);
  }
  SetMaxIsa(std::nullopt);
  EXPECT_STREQ(table.Best().name, best_within(std::nullopt)) << "uncapped";
  SetMaxIsa(saved);
}

}  // namespace testing
}  // namespace synops

#endif  // SYNOPS_TESTING_TEST_UTIL_H_
