// Highway kernels of the bf16 package: one source compiled for SSE4, AVX2 and
// AVX-512 on x86 and for NEON on aarch64 (see core/hwy_kernels.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bf16/bf16_hwy.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must follow foreach_target.h.
#include <cstring>

#include "bf16/bf16.h"
#include "bf16/bf16_hwy-inl.h"
#include "bf16/bf16_kernels.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace synops {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;
#if HWY_TARGET != HWY_SCALAR  // Highway's fallback target is compiled but never listed.

// Converts one full vector at src[i] (SPEC.md §2 rounding, on the bits).
template <class DF>
HWY_INLINE void ConvertVector(DF df, const float* HWY_RESTRICT src, uint16_t* HWY_RESTRICT dst) {
  StoreBf16(df, hn::LoadU(df, src), dst);
}

void Fp32ToBf16Hwy(const float* src, size_t size, uint16_t* dst) {
  const hn::ScalableTag<float> df;
  const size_t lanes = hn::Lanes(df);
  if (size < lanes) {
    for (size_t i = 0; i < size; ++i) dst[i] = Fp32ToBf16(src[i]);
    return;
  }
  size_t i = 0;
  // Two vectors at a time (StoreBf16x2: on AVX-512 one permute packs both,
  // and no NaN blend where neither holds a NaN).
  for (; i + 2 * lanes <= size; i += 2 * lanes) {
    StoreBf16x2(df, hn::LoadU(df, src + i), hn::LoadU(df, src + i + lanes), dst + i);
  }
  for (; i + lanes <= size; i += lanes) ConvertVector(df, src + i, dst + i);
  // The last partial vector: redo the final `lanes` elements (same results).
  if (i < size) ConvertVector(df, src + size - lanes, dst + size - lanes);
}

template <class DU>
HWY_INLINE void WidenVector(DU du, const uint16_t* HWY_RESTRICT src, float* HWY_RESTRICT dst) {
  const hn::RebindToFloat<DU> df;
  hn::StoreU(LoadBf16(df, src), df, dst);
}

void Bf16ToFp32Hwy(const uint16_t* src, size_t size, float* dst) {
  const hn::ScalableTag<uint32_t> du;
  const size_t lanes = hn::Lanes(du);
  if (size < lanes) {
    for (size_t i = 0; i < size; ++i) dst[i] = Bf16ToFp32(src[i]);
    return;
  }
  size_t i = 0;
  for (; i + lanes <= size; i += lanes) WidenVector(du, src + i, dst + i);
  if (i < size) WidenVector(du, src + size - lanes, dst + size - lanes);
}

// Copies `bytes` (a multiple of 16) with 16-byte vectors.
HWY_INLINE void CopyBlocks16(const uint8_t* HWY_RESTRICT src, size_t bytes,
                             uint8_t* HWY_RESTRICT dst) {
  const hn::FixedTag<uint8_t, 16> d;
  for (size_t i = 0; i < bytes; i += 16) hn::StoreU(hn::LoadU(d, src + i), d, dst + i);
}

void Transpose1xWHwy(const uint8_t* src, size_t height, size_t width, size_t element_size,
                     size_t w, uint8_t* dst) {
  const size_t block_bytes = w * element_size;
  const size_t full_blocks = width / w;
  const size_t tail = width - full_blocks * w;  // elements in the last, partial block
  const size_t row_bytes = width * element_size;
  const size_t block_stride = height * block_bytes;
  if (full_blocks == 0 && tail == 0) return;  // empty output (dst may be null)
  for (size_t y = 0; y < height; ++y) {
    const uint8_t* in = src + y * row_bytes;
    uint8_t* out = dst + y * block_bytes;
    if (block_bytes % 16 == 0) {
      for (size_t xb = 0; xb < full_blocks; ++xb) {
        CopyBlocks16(in + xb * block_bytes, block_bytes, out + xb * block_stride);
      }
    } else {
      for (size_t xb = 0; xb < full_blocks; ++xb) {
        std::memcpy(out + xb * block_stride, in + xb * block_bytes, block_bytes);
      }
    }
    if (tail != 0) {
      uint8_t* last = out + full_blocks * block_stride;
      std::memcpy(last, in + full_blocks * block_bytes, tail * element_size);
      std::memset(last + tail * element_size, 0, block_bytes - tail * element_size);
    }
  }
}

void PackPairInterleavedHwy(const uint16_t* src, size_t k, size_t n, size_t w, uint16_t* dst) {
  const hn::FixedTag<uint16_t, 8> d;
  const size_t blocks = (n + w - 1) / w;
  const size_t pairs = (k + 1) / 2;
  for (size_t kp = 0; kp < pairs; ++kp) {
    const uint16_t* row0 = src + 2 * kp * n;
    const bool has_row1 = 2 * kp + 1 < k;
    const uint16_t* row1 = row0 + n;
    for (size_t nb = 0; nb < blocks; ++nb) {
      uint16_t* out = dst + (nb * pairs + kp) * w * 2;
      const size_t col0 = nb * w;
      const size_t valid = n - col0 < w ? n - col0 : w;
      size_t j = 0;
      for (; j + 8 <= valid; j += 8) {
        const auto a = hn::LoadU(d, row0 + col0 + j);
        const auto b = has_row1 ? hn::LoadU(d, row1 + col0 + j) : hn::Zero(d);
        hn::StoreU(hn::InterleaveLower(d, a, b), d, out + 2 * j);
        hn::StoreU(hn::InterleaveUpper(d, a, b), d, out + 2 * j + 8);
      }
      for (; j < valid; ++j) {
        out[2 * j] = row0[col0 + j];
        out[2 * j + 1] = has_row1 ? row1[col0 + j] : 0;
      }
      std::memset(out + 2 * valid, 0, (w - valid) * 2 * sizeof(uint16_t));
    }
  }
}

#endif  // HWY_TARGET != HWY_SCALAR
// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace HWY_NAMESPACE
}  // namespace synops
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "core/hwy_kernels.h"

namespace synops {
namespace bf16_internal {

std::vector<Kernel<Fp32ToBf16Fn>> Fp32ToBf16HwyKernels() {
  return {SYNOPS_HWY_KERNELS(Fp32ToBf16Hwy)};
}
std::vector<Kernel<Bf16ToFp32Fn>> Bf16ToFp32HwyKernels() {
  return {SYNOPS_HWY_KERNELS(Bf16ToFp32Hwy)};
}
std::vector<Kernel<Transpose1xWFn>> Transpose1xWHwyKernels() {
  return {SYNOPS_HWY_KERNELS(Transpose1xWHwy)};
}
std::vector<Kernel<PackPairInterleavedFn>> PackPairInterleavedHwyKernels() {
  return {SYNOPS_HWY_KERNELS(PackPairInterleavedHwy)};
}

}  // namespace bf16_internal
}  // namespace synops
#endif  // HWY_ONCE
