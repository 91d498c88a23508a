// Reference: the loops of SPEC.md. The difference x - max is taken in FP32
// (as every kernel does, so all see the same arguments); exp, the sum and the
// division are in double, so each result is the correctly rounded softmax of
// those differences up to double rounding.
#include <cmath>
#include <vector>

#include "bf16/bf16.h"
#include "ops/softmax/softmax_kernels.h"

namespace synops {
namespace softmax_internal {

void Softmax32fRef(const float* src, size_t outer, size_t count, size_t inner, float* dst) {
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      const size_t base = o * count * inner + i;
      float max = src[base];
      for (size_t c = 1; c < count; ++c) max = std::fmax(max, src[base + c * inner]);
      double sum = 0.0;
      for (size_t c = 0; c < count; ++c) {
        const float d = src[base + c * inner] - max;
        sum += std::exp(static_cast<double>(d));
      }
      // In place: each element is read before its own store, after the sum.
      for (size_t c = 0; c < count; ++c) {
        const float d = src[base + c * inner] - max;
        dst[base + c * inner] = static_cast<float>(std::exp(static_cast<double>(d)) / sum);
      }
    }
  }
}

void Softmax16bRef(const uint16_t* src, size_t outer, size_t count, size_t inner, uint16_t* dst) {
  const size_t n = outer * count * inner;
  std::vector<float> buf(n);
  for (size_t j = 0; j < n; ++j) buf[j] = Bf16ToFp32(src[j]);
  Softmax32fRef(buf.data(), outer, count, inner, buf.data());
  for (size_t j = 0; j < n; ++j) dst[j] = Fp32ToBf16(buf[j]);
}

}  // namespace softmax_internal
}  // namespace synops
