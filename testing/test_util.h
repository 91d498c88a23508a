// GoogleTest helpers shared by every op's tests.
#ifndef SYNOPS_TESTING_TEST_UTIL_H_
#define SYNOPS_TESTING_TEST_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
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

}  // namespace testing
}  // namespace synops

#endif  // SYNOPS_TESTING_TEST_UTIL_H_
