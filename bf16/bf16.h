// FP32 <-> BF16 conversion and the BF16 weight packings (SPEC.md §2).
#ifndef SYNOPS_BF16_BF16_H_
#define SYNOPS_BF16_BF16_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"

namespace synops {

// Round to nearest, ties to even, on the bit pattern; overflow gives ±Inf,
// denormals round like any value, NaN becomes a quiet NaN of the same sign.
inline uint16_t Fp32ToBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

// Exact.
inline float Bf16ToFp32(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float x;
  std::memcpy(&x, &u, sizeof(x));
  return x;
}

// Bulk conversions of `size` elements, bit-exact with the scalar functions.
// `src` and `dst` must not overlap.
absl::Status Fp32ToBf16(const float* src, size_t size, uint16_t* dst);
absl::Status Bf16ToFp32(const uint16_t* src, size_t size, float* dst);

// 1xW transpose (Arm Compute Library's NEGEMMTranspose1xWKernel): `src` is a
// height x width row-major matrix of `element_size`-byte elements (1, 2 or 4).
// dst[(x / w) * (height * w) + y * w + k] = src[y * width + x + k] for x a
// multiple of w, k < w; positions with x + k >= width are zero. `w` = 0 means
// the 128-bit default 16 / element_size. `dst` holds
// Transpose1xWSize(...) bytes and must not overlap `src`.
absl::Status Transpose1xW(const void* src, size_t height, size_t width, size_t element_size,
                          size_t w, void* dst);
// Output size in bytes (0 for invalid arguments).
size_t Transpose1xWSize(size_t height, size_t width, size_t element_size, size_t w);

// Pair-interleaved (VNNI-2) packing of a k x n row-major BF16 matrix for
// vdpbf16ps / tdpbf16ps / bfdot: layout [ceil(n/w)][ceil(k/2)][w][2],
// dst[((nb * ceil(k/2) + kp) * w + j) * 2 + t] = src[(2*kp + t) * n + nb*w + j],
// zero where 2*kp + t >= k or nb*w + j >= n. `w` >= 1. `dst` holds
// PackPairInterleavedSize(k, n, w) elements and must not overlap `src`.
absl::Status PackPairInterleaved(const uint16_t* src, size_t k, size_t n, size_t w,
                                 uint16_t* dst);
// Output size in elements (0 for invalid arguments).
size_t PackPairInterleavedSize(size_t k, size_t n, size_t w);

}  // namespace synops

#endif  // SYNOPS_BF16_BF16_H_
