// AVX2 + FMA kernels: the FP32 GEMM row (BF16 values widened to FP32, exact)
// and its epilogue (conv16b_x86_f32-inl.h) on 8-lane vectors.
#include <immintrin.h>

#include "conv16b/conv16b_kernels.h"
#include "conv16b/conv16b_x86_f32-inl.h"

namespace synops {
namespace conv16b_internal {
namespace {

struct Avx2 {
  using T = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kTileM = 6;  // 12 accumulators + 2 weights + 1 broadcast
  static constexpr bool kFused = true;
  static T Zero() { return _mm256_setzero_ps(); }
  static T Set1(float v) { return _mm256_set1_ps(v); }
  static T Load(const float* p) { return _mm256_load_ps(p); }
  static T LoadU(const float* p) { return _mm256_loadu_ps(p); }
  static void Store(float* p, T v) { _mm256_storeu_ps(p, v); }
  static void StoreU(float* p, T v) { _mm256_storeu_ps(p, v); }
  static T Broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static T MulAdd(T a, T b, T c) { return _mm256_fmadd_ps(a, b, c); }
  static T Add(T a, T b) { return _mm256_add_ps(a, b); }
  static T Mul(T a, T b) { return _mm256_mul_ps(a, b); }
  static T Max(T a, T b) { return _mm256_max_ps(a, b); }
  static T Min(T a, T b) { return _mm256_min_ps(a, b); }
  // Fp32ToBf16 of SPEC.md §2 on 8 lanes (as x86_f32::ToBf16x4).
  static void StoreBf16(uint16_t* p, T v) {
    const __m256i u = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    const __m256i rounded =
        _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb), 16);
    const __m256i quiet = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x0040));
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    const __m256i r = _mm256_blendv_epi8(rounded, quiet, nan);
    // packus works within 128-bit lanes: [r0..3 r0..3 | r4..7 r4..7].
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
  }
};

}  // namespace

SYNOPS_CONV16B_X86_F32_KERNELS(Avx2, Avx2)

}  // namespace conv16b_internal
}  // namespace synops
