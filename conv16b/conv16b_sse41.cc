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
  static constexpr int kTileM = 5;  // 10 accumulators + 2 weights + broadcast + product
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
  static void StoreBf16(uint16_t* p, T v) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(p), x86_f32::ToBf16x4(v));
  }
};

}  // namespace

void GemmRowF32Sse41(const GemmRowF32Args& args) { x86_f32::GemmRow<Sse41>(args); }

void DepthwiseRowF32Sse41(const GemmRowF32Args& args) { x86_f32::DepthwiseRow<Sse41>(args); }

void StoreRowSse41(const Geometry& g, const Epilogue& e, const float* sums, size_t ld, size_t n,
                   size_t oy, size_t c0, size_t nc, uint8_t* dst) {
  x86_f32::StoreRow<Sse41>(g, e, sums, ld, n, oy, c0, nc, dst);
}

void PlanarRowToF32Sse41(const void* src, bool f32, size_t plane, size_t channels, size_t width,
                        float* out) {
  x86_f32::PlanarRowToF32(src, f32, plane, channels, width, out);
}

uint64_t PeakSse41(uint64_t iterations) { return x86_f32::Peak<Sse41>(iterations); }

}  // namespace conv16b_internal
}  // namespace synops
