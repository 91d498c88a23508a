// The AVX-512 pieces of the output epilogue shared by the x86 kernel files
// (each compiled with at least AVX-512 F/BW/VL/DQ): SPEC rounding to BF16 and
// the activations that are a few FP32 operations.
#ifndef SYNOPS_CONV16B_CONV16B_X86_EPILOGUE_INL_H_
#define SYNOPS_CONV16B_CONV16B_X86_EPILOGUE_INL_H_

#include <immintrin.h>

#include <cstddef>

#include "conv16b/conv16b.h"

namespace synops {
namespace conv16b_internal {
namespace {

// Fp32ToBf16 of SPEC.md §2 on 16 lanes: round to nearest even on the bit
// pattern, NaN -> quiet NaN of the same sign. Bit-exact with the scalar one.
inline __m256i ToBf16(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
  const __m512i rounded =
      _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7FFF)), lsb), 16);
  const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  const __m512i quiet = _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x0040));
  return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rounded, quiet));
}

// The activations whose SPEC formula is a few FP32 operations, in the same
// order as Activate<A> (so results are identical), on 16 channels.
template <Activation A>
inline __m512 ActivateV(__m512 v, const float* p, size_t c, __mmask16 mask) {
  const __m512 zero = _mm512_setzero_ps();
  if constexpr (A == Activation::kIdentity) {
    return v;
  } else if constexpr (A == Activation::kRelu) {
    return _mm512_max_ps(zero, v);
  } else if constexpr (A == Activation::kLeakyRelu) {
    return _mm512_add_ps(_mm512_max_ps(zero, v), _mm512_mul_ps(_mm512_set1_ps(p[0]), _mm512_min_ps(zero, v)));
  } else if constexpr (A == Activation::kRestrictRange) {
    return _mm512_min_ps(_mm512_max_ps(_mm512_set1_ps(p[0]), v), _mm512_set1_ps(p[1]));
  } else if constexpr (A == Activation::kPrelu) {
    const __m512 slope = _mm512_maskz_loadu_ps(mask, p + c);
    return _mm512_add_ps(_mm512_max_ps(zero, v), _mm512_mul_ps(slope, _mm512_min_ps(zero, v)));
  } else if constexpr (A == Activation::kHswish) {
    const __m512 shift = _mm512_set1_ps(p[0]);
    const __m512 t = _mm512_max_ps(_mm512_add_ps(_mm512_min_ps(v, shift), shift), zero);
    return _mm512_mul_ps(_mm512_mul_ps(t, _mm512_set1_ps(p[1])), v);
  } else {
    static_assert(A == Activation::kHardSigmoid, "activation");
    const __m512 t = _mm512_add_ps(_mm512_mul_ps(v, _mm512_set1_ps(p[0])), _mm512_set1_ps(p[1]));
    return _mm512_max_ps(zero, _mm512_min_ps(t, _mm512_set1_ps(1.0f)));
  }
}

}  // namespace
}  // namespace conv16b_internal
}  // namespace synops

#endif  // SYNOPS_CONV16B_CONV16B_X86_EPILOGUE_INL_H_
