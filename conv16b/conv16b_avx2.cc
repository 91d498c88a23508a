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
  static constexpr int kTileNV = 2;
  static constexpr bool kRowWrap = true;  // x86_f32::HasRowWrap
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
  static T Sub(T a, T b) { return _mm256_sub_ps(a, b); }
  static T Div(T a, T b) { return _mm256_div_ps(a, b); }
  static T NegMulAdd(T a, T b, T c) { return _mm256_fnmadd_ps(a, b, c); }
  static T Greater(T a, T b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
  static T Unordered(T a, T b) { return _mm256_cmp_ps(a, b, _CMP_UNORD_Q); }
  static T Blend(T mask, T a, T b) { return _mm256_blendv_ps(a, b, mask); }  // mask ? b : a
  // q * 2^n, n held in the low bits of t (ExpClamped's rounding constant).
  static T AddToExponent(T q, T t) {
    return _mm256_castsi256_ps(_mm256_add_epi32(
        _mm256_castps_si256(q), _mm256_slli_epi32(_mm256_castps_si256(t), 23)));
  }
  // Fp32ToBf16 of SPEC.md §2 on 8 lanes (as x86_f32::Bf16Lanes), each
  // BF16 in the low half of its 32-bit lane.
  static __m256i Bf16Lanes(T v) { return QuietNan(v, Bf16LanesNotNan(v)); }
  // Bf16Lanes for lanes that hold no NaN: the rounding alone.
  static __m256i Bf16LanesNotNan(T v) { return _mm256_srli_epi32(RoundedUpper(v), 16); }
  // The rounding to nearest even in the upper half of each lane: v's bits +
  // 0x7FFF + the lowest kept bit.
  static __m256i RoundedUpper(T v) {
    const __m256i u = _mm256_castps_si256(v);
    const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    return _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7FFF)), lsb);
  }
  // `lanes` with v's NaN lanes replaced by the quiet NaN of their sign.
  static __m256i QuietNan(T v, __m256i lanes) {
    const __m256i quiet =
        _mm256_or_si256(_mm256_srli_epi32(_mm256_castps_si256(v), 16), _mm256_set1_epi32(0x0040));
    const __m256 nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
    return _mm256_blendv_epi8(lanes, quiet, _mm256_castps_si256(nan));
  }
  // 8 BF16 values as FP32: one 128-bit broadcast load and one byte shuffle
  // (values 0-3 from the low lane's copy, 4-7 from the high lane's, each to
  // the upper half of its 32-bit lane); no shift on the FMA ports.
  static T WidenBf16(const uint16_t* p) {
    const __m256i h =
        _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    const __m256i to_upper =
        _mm256_setr_epi8(-1, -1, 0, 1, -1, -1, 2, 3, -1, -1, 4, 5, -1, -1, 6, 7,  //
                         -1, -1, 8, 9, -1, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, 15);
    return _mm256_castsi256_ps(_mm256_shuffle_epi8(h, to_upper));
  }
  // The even/odd split of 16 BF16 channels (x86_f32::HasEvenOdd).
  static constexpr bool kEvenOdd = true;
  static constexpr int kEvenOddM = 5;
  static T SplitMulAdd(T x, T w, T acc) { return MulAdd(x, w, acc); }
  // The empty asm keeps the loaded vector in a register: GCC would fold
  // the load into the AND a second time, and two loads per vector pair
  // made the load ports the limit (Zen 5, a standalone 5-pixel 3x3 tile:
  // 3.9 FMAs per ns with the second load, 5.0 without; 6.1 from registers).
  static T LoadPairs(const uint16_t* p) {
    T v = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    asm("" : "+x"(v));
    return v;
  }
  static T EvenOf(T v) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_castps_si256(v), 16)); }
  static T OddOf(T v) { return _mm256_and_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(-65536))); }
  // Channels 0-7 and 8-15 from the even channels (0, 2, .., 14) and the
  // odd ones: [0-3 | 8-11] and [4-7 | 12-15] within the 128-bit halves,
  // then the halves exchanged.
  static void Interleave(T even, T odd, T* lo, T* hi) {
    const T a = _mm256_unpacklo_ps(even, odd), b = _mm256_unpackhi_ps(even, odd);
    *lo = _mm256_permute2f128_ps(a, b, 0x20);
    *hi = _mm256_permute2f128_ps(a, b, 0x31);
  }
  static void Deinterleave(T lo, T hi, T* even, T* odd) {
    // [0 2 8 10 | 4 6 12 14] -> 64-bit elements 0, 2, 1, 3.
    *even = _mm256_castpd_ps(_mm256_permute4x64_pd(
        _mm256_castps_pd(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0))), 0xD8));
    *odd = _mm256_castpd_ps(_mm256_permute4x64_pd(
        _mm256_castps_pd(_mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1))), 0xD8));
  }
  // 16 channels from their even and odd ones, as BF16: each rounded value
  // back in its half of the 32-bit lane (the inverse of LoadPairs).
  static void StoreBf16EvenOdd(uint16_t* p, T even, T odd) {
    const bool nan = _mm256_movemask_ps(_mm256_cmp_ps(even, odd, _CMP_UNORD_Q)) != 0;
    const __m256i e = nan ? Bf16Lanes(even) : Bf16LanesNotNan(even);
    const __m256i o = nan ? Bf16Lanes(odd) : Bf16LanesNotNan(odd);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_or_si256(e, _mm256_slli_epi32(o, 16)));
  }
  // ReLU and Fp32ToBf16 of sums not yet activated (x86_f32::HasReluPack):
  // the rounded bits shifted arithmetically, so a negative value is a
  // negative lane, which packus's unsigned saturation makes +0, instead of
  // a max per vector: x > 0 ? x : +0 as ref::direct's std::max(0.0f, x);
  // NaN kept (quieted, as Bf16Lanes). On Sapphire Rapids the 3x3 depthwise
  // tiles' FMAs and their epilogue's vector work share ports 0, 1 and 5,
  // and each epilogue op costs.
  static constexpr bool kReluPack = true;
  static __m256i Bf16LanesRelu(T v) { return QuietNan(v, Bf16LanesReluNotNan(v)); }
  static __m256i Bf16LanesReluNotNan(T v) { return _mm256_srai_epi32(RoundedUpper(v), 16); }
  // v0 and v1 as BF16 (kRelu: with ReLU, as above), packed within 128-bit
  // lanes: [v0 0..3 v1 0..3 | v0 4..7 v1 4..7]. NaN is rare: one compare
  // finds it in either vector, and only then do the lanes pay for the
  // quieting blend.
  template <bool kRelu = false>
  __attribute__((always_inline)) static __m256i PackBf16(T v0, T v1) {
    const bool nan = _mm256_movemask_ps(_mm256_cmp_ps(v0, v1, _CMP_UNORD_Q)) != 0;
    if constexpr (kRelu) {
      return nan ? _mm256_packus_epi32(Bf16LanesRelu(v0), Bf16LanesRelu(v1))
                 : _mm256_packus_epi32(Bf16LanesReluNotNan(v0), Bf16LanesReluNotNan(v1));
    }
    return nan ? _mm256_packus_epi32(Bf16Lanes(v0), Bf16Lanes(v1))
               : _mm256_packus_epi32(Bf16LanesNotNan(v0), Bf16LanesNotNan(v1));
  }
  static void StoreBf16Relu(uint16_t* p, T v) { StoreBf16<true>(p, v); }
  static void StoreBf16SplitRelu(uint16_t* p0, uint16_t* p1, T v0, T v1) {
    StoreBf16Split<true>(p0, p1, v0, v1);
  }
  // Fp32ToBf16 kept as FP32 (the BF16 value's bits in the upper half).
  static T RoundBf16(T v) { return _mm256_castsi256_ps(_mm256_slli_epi32(Bf16Lanes(v), 16)); }
  // RoundBf16 of lanes that hold no NaN: the rounding and a mask, no
  // shift there and back (x86_f32::RoundRow).
  static T RoundBf16NotNan(T v) {
    return _mm256_castsi256_ps(
        _mm256_and_si256(RoundedUpper(v), _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))));
  }
  static bool AnyNan(T a, T b) { return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_UNORD_Q)) != 0; }
  template <bool kRelu = false>
  static void StoreBf16(uint16_t* p, T v) {
    const __m256i packed = _mm256_permute4x64_epi64(PackBf16<kRelu>(v, v), 0x08);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
  }
  // v0 at p0 and v1 at p1, one pack and one permute for both.
  template <bool kRelu = false>
  static void StoreBf16Split(uint16_t* p0, uint16_t* p1, T v0, T v1) {
    const __m256i r = _mm256_permute4x64_epi64(PackBf16<kRelu>(v0, v1), 0xD8);  // [v0 | v1]
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p0), _mm256_castsi256_si128(r));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p1), _mm256_extracti128_si256(r, 1));
  }
  // r[i] (pixel i, 8 channels) -> r[k] (channel k, 8 pixels): 24 shuffles.
  static void Transpose8x8(T* r) {
    const T t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const T t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const T t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const T t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const T u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    const T u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    const T u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    const T u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
    r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
    r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
    r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
    r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
  }
  // 16 values, one pack and one permute: [a0..3 b0..3 | a4..7 b4..7] ->
  // [a0..7 b0..7]. Out of line, as GCC left it before PackBf16 existed:
  // inlined into the 6 x 2 GEMM tile it made the 3x3 stem 5% slower. One
  // call per tile instead (its accumulators copied to the stack, the
  // rounding constants set once) was 1.01-1.03x the time on the 1x1 layers
  // and the stems (Zen 5, best of 6 alternating rounds): not kept. Nor
  // was the pack and permute itself the cost: without them (the rounded
  // halves ORed into 32-bit words, what weights packed in even/odd channel
  // order would allow; the probe stored the channels out of order), 1x1
  // 64->256 56x56 took 0.98x and then 1.05x the time in two runs of 6 and 8
  // alternating rounds (Zen 5).
  template <bool kRelu = false>
  __attribute__((noinline)) static void StoreBf16x2(uint16_t* p, T v0, T v1) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p),
                        _mm256_permute4x64_epi64(PackBf16<kRelu>(v0, v1), 0xD8));
  }
  static void StoreBf16x2Relu(uint16_t* p, T v0, T v1) { StoreBf16x2<true>(p, v0, v1); }
};

}  // namespace

SYNOPS_CONV16B_X86_F32_KERNELS(Avx2, Avx2)

}  // namespace conv16b_internal
}  // namespace synops
