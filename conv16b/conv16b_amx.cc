// AMX-BF16 GEMM row (compiled with -mamx-tile -mamx-bf16; x86 only).
//
// Tiles: C0, C1 (16 pixels x 16 output channels, FP32), A (16 pixels x 32
// input channels of one tap, BF16, row stride = the pixel stride), B0, B1
// (16 channel pairs x 16 output channels x 2: the pair-interleaved weights,
// row stride 64 bytes). Requires pairs % 16 == 0 (icg % 32 == 0, the
// selection rule); the last width % 16 pixels use tiles of fewer rows.
#include <immintrin.h>

#include <cstring>

#include "conv16b/conv16b_gemm.h"

namespace synops {
namespace conv16b_internal {
namespace {

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Tiles 0-4 as above; 5, 6 (C) and 7 (A) have `tail` rows for the last
// width % 16 pixels (0: unused).
void LoadConfig(size_t tail) {
  TileConfig cfg;
  for (int t = 0; t < 5; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  if (tail != 0) {
    for (int t = 5; t < 8; ++t) {
      cfg.colsb[t] = 64;
      cfg.rows[t] = static_cast<uint8_t>(tail);
    }
  }
  // GCC 12's _tile_loadconfig declares only the first 8 bytes of the
  // configuration as read; make every store to it visible first.
  __asm__ volatile("" : : "r"(&cfg) : "memory");
  _tile_loadconfig(&cfg);
}

// C tiles c0, c1 += A tile `at` (rows from src) x B0, B1 over every tap.
#define SYNOPS_AMX_ACCUMULATE(c0, c1, at)                                         \
  for (size_t ky = 0; ky < a.kernel_y; ++ky) {                                    \
    for (size_t kx = 0; kx < a.kernel_x; ++kx) {                                  \
      const uint16_t* s = s0 + ky * a.ky_stride + kx * a.kx_stride;               \
      const size_t tap = (ky * a.kernel_x + kx) * a.pairs * 32;                   \
      for (size_t p = 0; p < a.pairs; p += 16) {                                  \
        _tile_loadd(at, s + 2 * p, src_stride);                                   \
        _tile_loadd(3, w0 + tap + p * 32, 64);                                    \
        _tile_dpbf16ps(c0, at, 3);                                                \
        if (two) {                                                                \
          _tile_loadd(4, w1 + tap + p * 32, 64);                                  \
          _tile_dpbf16ps(c1, at, 4);                                              \
        }                                                                         \
      }                                                                           \
    }                                                                             \
  }

}  // namespace

void GemmRowAmxBf16(const GemmRowArgs& a) {
  const size_t full = a.width / 16 * 16, tail = a.width - full;
  LoadConfig(tail);
  const size_t block_stride = a.kernel_y * a.kernel_x * a.pairs * 32;
  const size_t ld = a.nblocks * 16;
  const size_t src_stride = a.pixel_stride * sizeof(uint16_t);
  for (size_t nb = 0; nb < a.nblocks; nb += 2) {
    const bool two = a.nblocks - nb >= 2;
    const uint16_t* w0 = a.weight + nb * block_stride;
    const uint16_t* w1 = w0 + block_stride;
    for (size_t x = 0; x < full; x += 16) {
      _tile_zero(0);
      _tile_zero(1);
      const uint16_t* s0 = a.src + x * a.pixel_stride;
      SYNOPS_AMX_ACCUMULATE(0, 1, 2)
      float* out = a.out + x * ld + nb * 16;
      _tile_stored(0, out, ld * sizeof(float));
      if (two) _tile_stored(1, out + 16, ld * sizeof(float));
    }
    if (tail != 0) {
      _tile_zero(5);
      _tile_zero(6);
      const uint16_t* s0 = a.src + full * a.pixel_stride;
      SYNOPS_AMX_ACCUMULATE(5, 6, 7)
      float* out = a.out + full * ld + nb * 16;
      _tile_stored(5, out, ld * sizeof(float));
      if (two) _tile_stored(6, out + 16, ld * sizeof(float));
    }
  }
  _tile_release();
}
#undef SYNOPS_AMX_ACCUMULATE

uint64_t PeakAmxBf16(uint64_t iterations) {
  LoadConfig(0);
  alignas(64) static uint16_t a[16 * 32], b[16 * 32];
  alignas(64) float c[16 * 16];
  for (int i = 0; i < 16 * 32; ++i) a[i] = b[i] = 0x3C00;
  _tile_zero(0);
  _tile_zero(1);
  _tile_loadd(2, a, 64);
  _tile_loadd(3, b, 64);
  _tile_loadd(4, b, 64);
  for (uint64_t i = 0; i < iterations; ++i) {
    _tile_dpbf16ps(0, 2, 3);
    _tile_dpbf16ps(1, 2, 4);
  }
  _tile_stored(0, c, 64);
  volatile float sink = c[0];
  (void)sink;
  _tile_release();
  return iterations * 2 * 16 * 16 * 32 * 2;
}

}  // namespace conv16b_internal
}  // namespace synops
