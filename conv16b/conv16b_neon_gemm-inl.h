// The NEON GEMM row of conv16b_kernels.h, templated on how a pair of BF16
// products is accumulated (BFDOT, or widening to FP32 and two FMAs). Tiles
// of up to 4 pixels x 16 output channels (16 accumulators). Included by the
// per-ISA files, each compiled with its own -march.
#include <arm_neon.h>

#include <cstring>

#include "conv16b/conv16b_kernels.h"

namespace synops {
namespace conv16b_internal {
namespace neon_gemm {
// Internal linkage: each kernel file compiles these with its own ISA flags,
// and one file's copy must never stand in for another's (SIGILL on a CPU
// without the wider ISA).
namespace {

inline uint32_t LoadPair(const uint16_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

template <class Dot, int M>
void Tile(const GemmRowArgs& a, const uint16_t* src, const uint16_t* weight, float* out,
          size_t ld) {
  // Every loop over M and q is unrolled so acc stays in registers (GCC
  // keeps the array in memory otherwise).
  float32x4_t acc[M][4];
#pragma GCC unroll 8
  for (int m = 0; m < M; ++m)
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) acc[m][q] = vdupq_n_f32(0.0f);
  const size_t ky_end = a.ky_end < a.kernel_y ? a.ky_end : a.kernel_y;
  for (size_t ky = a.ky_begin; ky < ky_end; ++ky) {
    for (size_t kx = 0; kx < a.kernel_x; ++kx) {
      const uint16_t* s = src + ky * a.ky_stride + kx * a.kx_stride;
      const uint16_t* w = weight + (ky * a.kernel_x + kx) * a.pairs * 32;
      for (size_t p = 0; p < a.pairs; ++p, s += 2, w += 32) {
        const typename Dot::W wv = Dot::LoadW(w);
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m) {
          const typename Dot::S sv = Dot::Broadcast(LoadPair(s + m * a.pixel_stride));
#pragma GCC unroll 4
          for (int q = 0; q < 4; ++q) acc[m][q] = Dot::Accumulate(acc[m][q], sv, wv, q);
        }
      }
    }
  }
#pragma GCC unroll 8
  for (int m = 0; m < M; ++m)
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) vst1q_f32(out + m * ld + q * 4, acc[m][q]);
}

template <class Dot>
void GemmRow(const GemmRowArgs& a) {
  using TileFn = void (*)(const GemmRowArgs&, const uint16_t*, const uint16_t*, float*, size_t);
  static const TileFn kTiles[5] = {nullptr, Tile<Dot, 1>, Tile<Dot, 2>, Tile<Dot, 3>,
                                   Tile<Dot, 4>};
  const size_t block_stride = a.kernel_y * a.kernel_x * a.pairs * 32;
  const size_t ld = a.nblocks * 16;
  for (size_t nb = 0; nb < a.nblocks; ++nb) {
    for (size_t x = 0; x < a.width; x += 4) {
      const size_t m = a.width - x < 4 ? a.width - x : 4;
      kTiles[m](a, a.src + x * a.pixel_stride, a.weight + nb * block_stride,
                a.out + x * ld + nb * 16, ld);
    }
  }
}

}  // namespace
}  // namespace neon_gemm
}  // namespace conv16b_internal
}  // namespace synops
