// Reference kernels: the plain loops of SPEC.md §2.
#include <cstring>

#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"

namespace synops {
namespace bf16_internal {

void Fp32ToBf16Ref(const float* src, size_t size, uint16_t* dst) {
  for (size_t i = 0; i < size; ++i) dst[i] = Fp32ToBf16(src[i]);
}

void Bf16ToFp32Ref(const uint16_t* src, size_t size, float* dst) {
  for (size_t i = 0; i < size; ++i) dst[i] = Bf16ToFp32(src[i]);
}

void Transpose1xWRef(const uint8_t* src, size_t height, size_t width, size_t element_size,
                     size_t w, uint8_t* dst) {
  const size_t blocks = (width + w - 1) / w;
  for (size_t xb = 0; xb < blocks; ++xb) {
    for (size_t y = 0; y < height; ++y) {
      for (size_t k = 0; k < w; ++k) {
        const size_t x = xb * w + k;
        uint8_t* out = dst + ((xb * height + y) * w + k) * element_size;
        if (x < width) {
          std::memcpy(out, src + (y * width + x) * element_size, element_size);
        } else {
          std::memset(out, 0, element_size);
        }
      }
    }
  }
}

void PackPairInterleavedRef(const uint16_t* src, size_t k, size_t n, size_t w, uint16_t* dst) {
  const size_t blocks = (n + w - 1) / w;
  const size_t pairs = (k + 1) / 2;
  for (size_t nb = 0; nb < blocks; ++nb) {
    for (size_t kp = 0; kp < pairs; ++kp) {
      for (size_t j = 0; j < w; ++j) {
        for (size_t t = 0; t < 2; ++t) {
          const size_t row = 2 * kp + t;
          const size_t col = nb * w + j;
          dst[((nb * pairs + kp) * w + j) * 2 + t] = row < k && col < n ? src[row * n + col] : 0;
        }
      }
    }
  }
}

}  // namespace bf16_internal
}  // namespace synops
