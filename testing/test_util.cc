#include "testing/test_util.h"

#include "bf16/bf16.h"

namespace synops {
namespace testing {

std::vector<float> RandomFloats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

std::vector<uint16_t> RandomBf16(size_t n, float lo, float hi, uint32_t seed) {
  std::vector<float> f = RandomFloats(n, lo, hi, seed);
  std::vector<uint16_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = Fp32ToBf16(f[i]);
  return v;
}

std::vector<float> RandomIntFloats(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(dist(rng));
  return v;
}

std::vector<size_t> TailSizes(size_t max_vector) {
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 2 * max_vector + 1; ++n) sizes.push_back(n);
  for (size_t n : {255, 256, 257, 1000, 1023, 4099}) sizes.push_back(n);
  return sizes;
}

}  // namespace testing
}  // namespace synops
