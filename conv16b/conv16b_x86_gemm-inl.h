// The register-tiled GEMM row of conv16b_kernels.h, templated on how a pair of
// BF16 products is accumulated (vdpbf16ps, or widening to FP32 and two FMAs).
// Included by the per-ISA files, each compiled with its own -m flags.
#include <immintrin.h>

#include <cstring>

#include "conv16b/conv16b_kernels.h"

namespace synops {
namespace conv16b_internal {
namespace x86_gemm {
// Internal linkage: each kernel file compiles these with its own ISA flags,
// and one file's copy must never stand in for another's (SIGILL on a CPU
// without the wider ISA).
namespace {

// Tile of M pixels x NV blocks of 16 output channels; all accumulators stay
// in registers (12 x 2 = 24 of the 32 zmm registers).
template <class Dot, int M, int NV>
void Tile(const GemmRowArgs& a, const uint16_t* src, const uint16_t* weight, size_t block_stride,
          float* out, size_t ld) {
  // Every loop over M and NV is unrolled so acc stays in registers (GCC
  // keeps the array in memory otherwise).
  __m512 acc[M][NV];
#pragma GCC unroll 12
  for (int m = 0; m < M; ++m)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[m][v] = _mm512_setzero_ps();
  const size_t ky_end = a.ky_end < a.kernel_y ? a.ky_end : a.kernel_y;
  for (size_t ky = a.ky_begin; ky < ky_end; ++ky) {
    for (size_t kx = 0; kx < a.kernel_x; ++kx) {
      const uint16_t* s = src + ky * a.ky_stride + kx * a.kx_stride;
      const uint16_t* w = weight + (ky * a.kernel_x + kx) * a.pairs * 32;
      for (size_t p = 0; p < a.pairs; ++p, s += 2, w += 32) {
        typename Dot::W wv[NV];
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v) wv[v] = Dot::LoadW(w + v * block_stride);
#pragma GCC unroll 12
        for (int m = 0; m < M; ++m) {
          const typename Dot::S sv = Dot::Broadcast(s + m * a.pixel_stride);
#pragma GCC unroll 2
          for (int v = 0; v < NV; ++v) acc[m][v] = Dot::Accumulate(acc[m][v], sv, wv[v]);
        }
      }
    }
  }
#pragma GCC unroll 12
  for (int m = 0; m < M; ++m)
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) _mm512_storeu_ps(out + m * ld + v * 16, acc[m][v]);
}

constexpr int kTileM = 12;

template <class Dot>
void GemmRow(const GemmRowArgs& a) {
  using TileFn = void (*)(const GemmRowArgs&, const uint16_t*, const uint16_t*, size_t, float*,
                          size_t);
#define SYNOPS_TILES(NV)                                                                   \
  {                                                                                        \
    nullptr, Tile<Dot, 1, NV>, Tile<Dot, 2, NV>, Tile<Dot, 3, NV>, Tile<Dot, 4, NV>,       \
        Tile<Dot, 5, NV>, Tile<Dot, 6, NV>, Tile<Dot, 7, NV>, Tile<Dot, 8, NV>,            \
        Tile<Dot, 9, NV>, Tile<Dot, 10, NV>, Tile<Dot, 11, NV>, Tile<Dot, 12, NV>          \
  }
  static const TileFn kTiles[2][kTileM + 1] = {SYNOPS_TILES(1), SYNOPS_TILES(2)};
#undef SYNOPS_TILES
  const size_t block_stride = a.kernel_y * a.kernel_x * a.pairs * 32;
  const size_t ld = a.nblocks * 16;
  // Tiles of balanced widths (14 pixels: 7 + 7, not 12 + 2; 28: 10 + 9 + 9,
  // not 12 + 12 + 4): a narrow tile has too few accumulators to cover the
  // latency of vdpbf16ps (or of the FMA pair).
  const size_t tiles = (a.width + kTileM - 1) / kTileM;
  const size_t base = tiles != 0 ? a.width / tiles : 0, extra = tiles != 0 ? a.width % tiles : 0;
  for (size_t nb = 0; nb < a.nblocks; nb += 2) {
    const int nv = a.nblocks - nb >= 2 ? 2 : 1;
    for (size_t t = 0, x = 0; t < tiles; ++t) {
      const size_t m = base + (t < extra ? 1 : 0);
      kTiles[nv - 1][m](a, a.src + x * a.pixel_stride, a.weight + nb * block_stride,
                        block_stride, a.out + x * ld + nb * 16, ld);
      x += m;
    }
  }
}

// The compute-peak loops of the benchmark: `step` on 24 independent
// accumulators per iteration, more than latency x throughput on current
// cores (a 12-accumulator VDPBF16PS loop was latency-bound on Zen 5: 412
// GFLOP/s where 24 gave 445 and oneDNN reached 459), fully unrolled so
// they live in registers (GCC otherwise keeps the array in memory and the
// loop measures store forwarding). Returns the steps run.
template <class Step>
inline uint64_t PeakLoop(uint64_t iterations, Step step) {
  constexpr int kAcc = 24;  // + the step's two operands: 26 of the 32 registers
  __m512 acc[kAcc];
  for (int j = 0; j < kAcc; ++j) acc[j] = _mm512_set1_ps(static_cast<float>(j));
  for (uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 24
    for (int j = 0; j < kAcc; ++j) acc[j] = step(acc[j]);
  }
  __m512 sum = acc[0];
  for (int j = 1; j < kAcc; ++j) sum = _mm512_add_ps(sum, acc[j]);
  volatile float sink = _mm512_reduce_add_ps(sum);
  (void)sink;
  return iterations * kAcc;
}

inline int32_t LoadPair(const uint16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

}  // namespace
}  // namespace x86_gemm
}  // namespace conv16b_internal
}  // namespace synops
