#include "fuzz/harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "core/cpu.h"

namespace synops {
namespace fuzz {

float DataProvider::AnyFloat() {
  const uint32_t bits = Integral<uint32_t>(0, ~uint32_t{0});
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

float DataProvider::FloatIn(float lo, float hi) {
  const uint32_t v = Integral<uint32_t>(0, 1u << 24);
  return lo + (hi - lo) * (static_cast<float>(v) / static_cast<float>(1u << 24));
}

std::vector<float> DataProvider::Floats(size_t n, float lo, float hi, bool specials) {
  const uint32_t special_per_1024 = Integral<uint32_t>(0, 64);
  fuzz::Rng rng = Rng();
  const float kSpecial[] = {0.0f,
                            -0.0f,
                            lo,
                            hi,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::denorm_min(),
                            -1e-40f,
                            3e38f,
                            -3e38f};
  const uint32_t num_special = specials ? 11 : 4;
  std::vector<float> v(n);
  for (float& x : v) {
    const uint64_t r = rng();
    // Low 10 bits: special or not; the next bits: which special, else the value.
    if ((r & 1023) < special_per_1024) {
      x = kSpecial[((r >> 10) & 0xFFFF) * num_special >> 16];
    } else {
      const float u = static_cast<float>(r >> 40) * 0x1p-24f;
      const float y = lo + (hi - lo) * u;
      x = y < hi ? y : hi;
    }
  }
  return v;
}

namespace {
// The caches SmallCaches set, for Fail ("" while none are overridden).
std::string& OverriddenCaches() {
  static std::string text;
  return text;
}
}  // namespace

SmallCaches::SmallCaches(DataProvider& in) {
  if (in.Pick(3) != 0) return;
  const CacheSizes sizes = {size_t{1} << in.Integral<int>(10, 16),
                            size_t{1} << in.Integral<int>(10, 16), 0};
  SetCacheSizesForTesting(&sizes);
  OverriddenCaches() = "l1d " + std::to_string(sizes.l1d) + " bytes, l2 " +
                       std::to_string(sizes.l2) + " bytes";
  active_ = true;
}

SmallCaches::~SmallCaches() {
  if (!active_) return;
  SetCacheSizesForTesting(nullptr);
  OverriddenCaches().clear();
}

void Fail(const std::string& problem, const std::string& kernel, const std::string& detail) {
  std::fprintf(stderr,
               "synops fuzz mismatch: kernel %s: %s\n"
               "reproduce: ./bazelw run //tools:synbench -- --mode=check '%s'\n",
               kernel.c_str(), detail.c_str(), problem.c_str());
  if (!OverriddenCaches().empty()) {
    std::fprintf(stderr,
                 "caches: the detected ones were overridden (%s); synbench uses the real "
                 "ones, so replay the input\n",
                 OverriddenCaches().c_str());
  }
  std::fflush(stderr);
  std::abort();
}

}  // namespace fuzz
}  // namespace synops
