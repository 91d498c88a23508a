// AVX512-BF16 conversion (compiled with -mavx512bf16; x86 only).
//
// vcvtneps2bf16 rounds to nearest even and quiets NaNs exactly as SPEC.md
// §2 says, but it flushes denormal inputs to ±0. Lanes with a zero exponent
// are therefore recomputed with the integer rounding, which is exact there.
#include <immintrin.h>

#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"

namespace synops {
namespace bf16_internal {
namespace {

inline __m256i Convert16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m256i hw = (__m256i)_mm512_cvtneps_pbh(v);
  const __mmask16 tiny =
      _mm512_testn_epi32_mask(u, _mm512_set1_epi32(0x7F800000));  // exponent == 0
  if (tiny == 0) return hw;
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  const __m512i rounded = _mm512_srli_epi32(
      _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb), 16);
  return _mm256_mask_blend_epi16(tiny, hw, _mm512_cvtepi32_epi16(rounded));
}

}  // namespace

void Fp32ToBf16Avx512Bf16(const float* src, size_t size, uint16_t* dst) {
  size_t i = 0;
  for (; i + 32 <= size; i += 32) {
    const __m256i a = Convert16(_mm512_loadu_ps(src + i));
    const __m256i b = Convert16(_mm512_loadu_ps(src + i + 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 16), b);
  }
  for (; i < size; i += 16) {
    const size_t left = size - i < 16 ? size - i : 16;
    const __mmask16 mask = static_cast<__mmask16>((1u << left) - 1u);
    const __m256i r = Convert16(_mm512_maskz_loadu_ps(mask, src + i));
    _mm256_mask_storeu_epi16(dst + i, mask, r);
  }
}

}  // namespace bf16_internal
}  // namespace synops
