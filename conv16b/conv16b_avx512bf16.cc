// AVX512-BF16 GEMM row: vdpbf16ps on pair-interleaved weights (compiled with
// -mavx512bf16; x86 only).
#include "conv16b/conv16b_x86_gemm-inl.h"

namespace synops {
namespace conv16b_internal {
namespace {

struct Bf16Dot {
  struct W {
    __m512bh v;
  };
  struct S {
    __m512bh v;
  };
  static W LoadW(const uint16_t* p) { return {(__m512bh)_mm512_loadu_si512(p)}; }
  static S Broadcast(const uint16_t* p) {
    return {(__m512bh)_mm512_set1_epi32(x86_gemm::LoadPair(p))};
  }
  static __m512 Accumulate(__m512 acc, S s, W w) { return _mm512_dpbf16_ps(acc, w.v, s.v); }
};

}  // namespace

void GemmRowAvx512Bf16(const GemmRowArgs& args) { x86_gemm::GemmRow<Bf16Dot>(args); }

uint64_t PeakAvx512Bf16(uint64_t iterations) {
  __m512 acc[12];
  for (int j = 0; j < 12; ++j) acc[j] = _mm512_set1_ps(static_cast<float>(j));
  const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3F80), b = (__m512bh)_mm512_set1_epi16(0x3A83);
  for (uint64_t i = 0; i < iterations; ++i) {
    // Fully unrolled so the 12 accumulators live in registers (GCC otherwise
    // keeps the array in memory and the loop measures store forwarding).
#pragma GCC unroll 12
    for (int j = 0; j < 12; ++j) acc[j] = _mm512_dpbf16_ps(acc[j], a, b);
  }
  __m512 sum = acc[0];
  for (int j = 1; j < 12; ++j) sum = _mm512_add_ps(sum, acc[j]);
  volatile float sink = _mm512_reduce_add_ps(sum);
  (void)sink;
  return iterations * 12 * 32 * 2;
}

}  // namespace conv16b_internal
}  // namespace synops
