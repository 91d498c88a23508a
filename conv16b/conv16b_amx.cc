// AMX-BF16 GEMM row (compiled with -mamx-tile -mamx-bf16; x86 only).
//
// Register blocking of 32 pixels x 32 output channels: four C tiles (16
// pixels x 16 channels, FP32), two A tiles (16 pixels x 32 input channels of
// one tap, BF16, row stride = the pixel stride), two B tiles (16 channel
// pairs x 16 output channels x 2: the pair-interleaved weights, row stride 64
// bytes). Requires pairs % 16 == 0 (icg % 32 == 0, the selection rule); the
// last width % 16 pixels use C and A tiles with fewer rows.
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

// Tiles 0-3: C (FP32 sums, 16 pixels x 16 channels), 4, 5: A (16 pixels x
// 32 input channels), 6, 7: B (16 pairs x 16 channels x 2). `rows` = 16, or
// the pixel tail (C and A tiles with fewer rows).
void LoadConfig(size_t rows) {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = static_cast<uint8_t>(t >= 6 ? 16 : rows);
  }
  // GCC 12's _tile_loadconfig declares only the first 8 bytes of the
  // configuration as read; make every store to it visible first.
  __asm__ volatile("" : : "r"(&cfg) : "memory");
  _tile_loadconfig(&cfg);
}

struct Row {
  const GemmRowArgs& a;
  size_t ld, src_stride;
  const uint16_t *w0, *w1;
  size_t col;  // first output channel of the block pair in `out`
  bool two;    // a second block of 16 output channels

  // 32 pixels from x: C0, C1 (first 16 pixels), C2, C3 (next 16).
  void Pixels32(size_t x) const {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    const uint16_t* s0 = a.src + x * a.pixel_stride;
    const uint16_t* s1 = s0 + 16 * a.pixel_stride;
    for (size_t ky = 0; ky < a.kernel_y; ++ky) {
      for (size_t kx = 0; kx < a.kernel_x; ++kx) {
        const size_t off = ky * a.ky_stride + kx * a.kx_stride;
        const size_t tap = (ky * a.kernel_x + kx) * a.pairs * 32;
        for (size_t p = 0; p < a.pairs; p += 16) {
          _tile_loadd(4, s0 + off + 2 * p, src_stride);
          _tile_loadd(5, s1 + off + 2 * p, src_stride);
          _tile_loadd(6, w0 + tap + p * 32, 64);
          _tile_dpbf16ps(0, 4, 6);
          _tile_dpbf16ps(2, 5, 6);
          if (two) {
            _tile_loadd(7, w1 + tap + p * 32, 64);
            _tile_dpbf16ps(1, 4, 7);
            _tile_dpbf16ps(3, 5, 7);
          }
        }
      }
    }
    float* out = a.out + x * ld + col;
    _tile_stored(0, out, ld * sizeof(float));
    _tile_stored(2, out + 16 * ld, ld * sizeof(float));
    if (two) {
      _tile_stored(1, out + 16, ld * sizeof(float));
      _tile_stored(3, out + 16 * ld + 16, ld * sizeof(float));
    }
  }

  // The configured number of pixels (16 or the tail) from x: C0, C1.
  void Pixels16(size_t x) const {
    _tile_zero(0);
    _tile_zero(1);
    const uint16_t* s0 = a.src + x * a.pixel_stride;
    for (size_t ky = 0; ky < a.kernel_y; ++ky) {
      for (size_t kx = 0; kx < a.kernel_x; ++kx) {
        const size_t off = ky * a.ky_stride + kx * a.kx_stride;
        const size_t tap = (ky * a.kernel_x + kx) * a.pairs * 32;
        for (size_t p = 0; p < a.pairs; p += 16) {
          _tile_loadd(4, s0 + off + 2 * p, src_stride);
          _tile_loadd(6, w0 + tap + p * 32, 64);
          _tile_dpbf16ps(0, 4, 6);
          if (two) {
            _tile_loadd(7, w1 + tap + p * 32, 64);
            _tile_dpbf16ps(1, 4, 7);
          }
        }
      }
    }
    float* out = a.out + x * ld + col;
    _tile_stored(0, out, ld * sizeof(float));
    if (two) _tile_stored(1, out + 16, ld * sizeof(float));
  }
};

}  // namespace

void GemmRowAmxBf16(const GemmRowArgs& a) {
  const size_t block_stride = a.kernel_y * a.kernel_x * a.pairs * 32;
  const size_t ld = a.nblocks * 16;
  const size_t full = a.width / 16 * 16, tail = a.width - full;
  auto row = [&](size_t nb) {
    const uint16_t* w0 = a.weight + nb * block_stride;
    return Row{a, ld, a.pixel_stride * sizeof(uint16_t), w0, w0 + block_stride, nb * 16,
               a.nblocks - nb >= 2};
  };
  if (full != 0) {
    LoadConfig(16);
    for (size_t nb = 0; nb < a.nblocks; nb += 2) {
      const Row r = row(nb);
      size_t x = 0;
      for (; x + 32 <= full; x += 32) r.Pixels32(x);
      if (x < full) r.Pixels16(x);
    }
  }
  if (tail != 0) {
    LoadConfig(tail);
    for (size_t nb = 0; nb < a.nblocks; nb += 2) row(nb).Pixels16(full);
  }
  _tile_release();
}

uint64_t PeakAmxBf16(uint64_t iterations) {
  LoadConfig(16);
  alignas(64) static uint16_t a[16 * 32], b[16 * 32];
  alignas(64) float c[16 * 16];
  for (int i = 0; i < 16 * 32; ++i) a[i] = b[i] = 0x3C00;
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, a, 64);
  _tile_loadd(5, a, 64);
  _tile_loadd(6, b, 64);
  _tile_loadd(7, b, 64);
  for (uint64_t i = 0; i < iterations; ++i) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, c, 64);
  volatile float sink = c[0];
  (void)sink;
  _tile_release();
  return iterations * 4 * 16 * 16 * 32 * 2;
}

}  // namespace conv16b_internal
}  // namespace synops
