#include "fuzz/harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

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
  const int special_per_1024 = Integral<int>(0, 64);
  std::mt19937_64 rng = Rng();
  std::uniform_real_distribution<float> uniform(lo, hi);
  std::uniform_int_distribution<int> per1024(0, 1023);
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
  const int num_special = specials ? 11 : 4;
  std::uniform_int_distribution<int> pick(0, num_special - 1);
  std::vector<float> v(n);
  for (float& x : v) {
    x = per1024(rng) < special_per_1024 ? kSpecial[pick(rng)] : uniform(rng);
  }
  return v;
}

void Fail(const std::string& problem, const std::string& kernel, const std::string& detail) {
  std::fprintf(stderr,
               "synops fuzz mismatch: kernel %s: %s\n"
               "reproduce: ./bazelw run //tools:synbench -- --mode=check '%s'\n",
               kernel.c_str(), detail.c_str(), problem.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace fuzz
}  // namespace synops
