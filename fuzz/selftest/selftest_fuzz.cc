// Self-test of the fuzzing machinery (fuzz/harness.h and the campaign runner).
//
// Fuzzes DataProvider against its documented contract: integers stay in
// [lo, hi], floats in their range or among the documented special values, an
// exhausted provider returns minimums, and the same bytes always describe the
// same problem (a saved crash must reproduce).
//
// Planted crash: with SYNOPS_FUZZ_SELFTEST_PLANT=1 in the environment, an
// input whose first bytes decode to a magic value reaches Fail(), so a libFuzzer
// run must find it within seconds. Without the variable the planted branch is
// never taken, so campaigns and the replay test stay green.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "fuzz/harness.h"

namespace {

using synops::fuzz::DataProvider;

#define SELFTEST_CHECK(cond)                                                       \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "selftest: DataProvider contract broken: %s (%s:%d)\n", \
                   #cond, __FILE__, __LINE__);                                     \
      std::abort();                                                                \
    }                                                                              \
  } while (0)

bool Planted() {
  static const bool planted = [] {
    const char* v = std::getenv("SYNOPS_FUZZ_SELFTEST_PLANT");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return planted;
}

template <typename T>
void CheckIntegral(DataProvider& p) {
  T a = p.Integral<T>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  T b = p.Integral<T>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  if (b < a) std::swap(a, b);
  const T v = p.Integral<T>(a, b);
  SELFTEST_CHECK(a <= v && v <= b);
}

bool IsDocumentedSpecial(float x, bool specials) {
  if (x == 0.0f) return true;  // ±0 are always allowed.
  if (!specials) return false;
  return std::isinf(x) || std::isnan(x) || x == std::numeric_limits<float>::denorm_min() ||
         x == -1e-40f || x == 3e38f || x == -3e38f;
}

std::vector<float> FloatsOf(const uint8_t* data, size_t size, size_t skip, size_t n, float lo,
                            float hi, bool specials) {
  DataProvider p(data + skip, size - skip);
  return p.Floats(n, lo, hi, specials);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DataProvider p(data, size);

  // The planted crash: two comparisons libFuzzer's cmp tracing solves quickly.
  if (p.Integral<uint32_t>(0, ~uint32_t{0}) == 0x5EEDF00Du && p.Pick(8) == 7 && Planted()) {
    synops::fuzz::Fail("selftest:planted", "selftest", "planted crash reached");
  }

  CheckIntegral<uint8_t>(p);
  CheckIntegral<int>(p);
  CheckIntegral<int64_t>(p);
  CheckIntegral<uint64_t>(p);
  const int n_pick = p.Integral<int>(1, 100);
  const int pick = p.Pick(n_pick);
  SELFTEST_CHECK(0 <= pick && pick < n_pick);

  // Ranges within the magnitude fuzzers use (hi - lo must not overflow).
  float lo = static_cast<float>(p.Integral<int>(-1000000, 1000000)) / 64.0f;
  float hi = lo + static_cast<float>(p.Integral<int>(1, 1000000)) / 64.0f;
  const float f = p.FloatIn(lo, hi);
  SELFTEST_CHECK(lo <= f && f <= hi);
  const float any = p.AnyFloat();
  (void)any;

  // Bulk data: size, range, and determinism (the same bytes, the same floats).
  const size_t n = p.Integral<size_t>(0, 4096);
  const bool specials = p.Bool();
  const size_t skip = size - p.remaining();
  const std::vector<float> v = p.Floats(n, lo, hi, specials);
  SELFTEST_CHECK(v.size() == n);
  for (float x : v) SELFTEST_CHECK((lo <= x && x <= hi) || IsDocumentedSpecial(x, specials));
  const std::vector<float> again = FloatsOf(data, size, skip, n, lo, hi, specials);
  SELFTEST_CHECK(again.size() == v.size());
  SELFTEST_CHECK(v.empty() || std::memcmp(again.data(), v.data(), v.size() * sizeof(float)) == 0);

  // Exhausted: every read returns its minimum.
  while (p.remaining() > 0) p.Integral<uint64_t>(0, ~uint64_t{0});
  SELFTEST_CHECK(p.Integral<int>(-7, 9) == -7);
  SELFTEST_CHECK(!p.Bool());
  SELFTEST_CHECK(p.Pick(5) == 0);
  SELFTEST_CHECK(p.FloatIn(-2.0f, 3.0f) == -2.0f);
  return 0;
}
