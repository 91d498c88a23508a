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

std::vector<float> EdgeFloats(size_t n, uint32_t seed, bool with_nan) {
  using Limits = std::numeric_limits<float>;
  const float kEdge[] = {0.0f,   -0.0f,           Limits::infinity(),    -Limits::infinity(),
                         3e38f,  -3e38f,          1e20f,                 -1e20f,
                         1e-40f, -1e-40f,         Limits::denorm_min(),  -Limits::denorm_min(),
                         1.0f,   Limits::min(),   -Limits::min(),        -1.0f,
                         Limits::quiet_NaN()};
  const int num_edge = with_nan ? 17 : 16;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
  std::uniform_int_distribution<int> pick(0, 4 * num_edge - 1);
  std::vector<float> v(n);
  for (float& x : v) {
    const int k = pick(rng);
    x = k < num_edge ? kEdge[k] : uniform(rng);
  }
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
