// SSE4.1 kernels, the floor of the x86 ladder: the FP32 GEMM row and its
// epilogue (conv16b_x86_f32-inl.h) on 4-lane vectors. No FMA: multiply then
// add, which rounds like FMA here (a product of two BF16 values is exact).
#include <immintrin.h>

#include "conv16b/conv16b_kernels.h"
#include "conv16b/conv16b_x86_f32-inl.h"

namespace synops {
namespace conv16b_internal {
namespace {

struct Sse41 {
  using T = __m128;
  static constexpr int kLanes = 4;
  static constexpr int kTileM = 2;  // 8 accumulators + 4 weights + broadcast + product
  static constexpr int kTileNV = 4;
  static constexpr bool kRowWrap = true;  // x86_f32::HasRowWrap
  static constexpr bool kFused = false;
  static T Zero() { return _mm_setzero_ps(); }
  static T Set1(float v) { return _mm_set1_ps(v); }
  static T Load(const float* p) { return _mm_load_ps(p); }
  static T LoadU(const float* p) { return _mm_loadu_ps(p); }
  static void Store(float* p, T v) { _mm_storeu_ps(p, v); }
  static void StoreU(float* p, T v) { _mm_storeu_ps(p, v); }
  static T Broadcast(const float* p) { return _mm_load1_ps(p); }
  static T MulAdd(T a, T b, T c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static T Add(T a, T b) { return _mm_add_ps(a, b); }
  static T Mul(T a, T b) { return _mm_mul_ps(a, b); }
  static T Max(T a, T b) { return _mm_max_ps(a, b); }
  static T Min(T a, T b) { return _mm_min_ps(a, b); }
  static T Sub(T a, T b) { return _mm_sub_ps(a, b); }
  static T Div(T a, T b) { return _mm_div_ps(a, b); }
  static T NegMulAdd(T a, T b, T c) { return _mm_sub_ps(c, _mm_mul_ps(a, b)); }
  static T Greater(T a, T b) { return _mm_cmpgt_ps(a, b); }
  static T Unordered(T a, T b) { return _mm_cmpunord_ps(a, b); }
  static T Blend(T mask, T a, T b) { return _mm_blendv_ps(a, b, mask); }  // mask ? b : a
  // q * 2^n, n held in the low bits of t (ExpClamped's rounding constant).
  static T AddToExponent(T q, T t) {
    return _mm_castsi128_ps(
        _mm_add_epi32(_mm_castps_si128(q), _mm_slli_epi32(_mm_castps_si128(t), 23)));
  }
  // The even/odd split of 8 BF16 channels (x86_f32::HasEvenOdd).
  static constexpr bool kEvenOdd = true;
  static constexpr int kEvenOddM = 5;
  static T SplitMulAdd(T x, T w, T acc) { return MulAdd(x, w, acc); }
  static T LoadPairs(const uint16_t* p) {
    return _mm_castsi128_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static T EvenOf(T v) { return _mm_castsi128_ps(_mm_slli_epi32(_mm_castps_si128(v), 16)); }
  static T OddOf(T v) { return _mm_and_ps(v, _mm_castsi128_ps(_mm_set1_epi32(-65536))); }
  static void Interleave(T even, T odd, T* lo, T* hi) {
    *lo = _mm_unpacklo_ps(even, odd);
    *hi = _mm_unpackhi_ps(even, odd);
  }
  static void Deinterleave(T lo, T hi, T* even, T* odd) {
    *even = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    *odd = _mm_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
  }
  static void StoreBf16EvenOdd(uint16_t* p, T even, T odd) {
    const bool nan = _mm_movemask_ps(_mm_cmpunord_ps(even, odd)) != 0;
    const __m128i e = nan ? x86_f32::Bf16Lanes(even) : x86_f32::Bf16LanesNotNan(even);
    const __m128i o = nan ? x86_f32::Bf16Lanes(odd) : x86_f32::Bf16LanesNotNan(odd);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_or_si128(e, _mm_slli_epi32(o, 16)));
  }
  // Fp32ToBf16 kept as FP32 (the BF16 value's bits in the upper half).
  static T RoundBf16(T v) { return x86_f32::RoundToBf16x4(v); }
  // 4 BF16 values as FP32.
  static T WidenBf16(const uint16_t* p) {
    const __m128i h = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    return _mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), h));
  }
  // The *Relu stores: ReLU applied by the pack (x86_f32::Bf16Lanes<true>,
  // x86_f32::HasReluPack).
  static constexpr bool kReluPack = true;
  static void StoreBf16(uint16_t* p, T v) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), x86_f32::ToBf16x4(v));
  }
  static void StoreBf16Relu(uint16_t* p, T v) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), x86_f32::ToBf16x4<true>(v));
  }
  template <bool kRelu = false>
  static void StoreBf16Split(uint16_t* p0, uint16_t* p1, T v0, T v1) {
    const __m128i r = x86_f32::PackBf16x8<kRelu>(v0, v1);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p0), r);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p1), _mm_unpackhi_epi64(r, r));
  }
  static void StoreBf16SplitRelu(uint16_t* p0, uint16_t* p1, T v0, T v1) {
    StoreBf16Split<true>(p0, p1, v0, v1);
  }
  template <bool kRelu = false>
  static void StoreBf16x2(uint16_t* p, T v0, T v1) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x86_f32::PackBf16x8<kRelu>(v0, v1));
  }
  static void StoreBf16x2Relu(uint16_t* p, T v0, T v1) { StoreBf16x2<true>(p, v0, v1); }
};

}  // namespace

SYNOPS_CONV16B_X86_F32_KERNELS(Sse41, Sse41)

}  // namespace conv16b_internal
}  // namespace synops
