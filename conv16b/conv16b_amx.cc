// AMX-BF16 image kernel (compiled with -mamx-tile -mamx-bf16; x86 only).
//
// Register blocking of 32 pixels x 32 output channels: four C tiles (16
// pixels x 16 channels, FP32), two A tiles (16 pixels x 32 input channels of
// one tap, BF16, row stride = the pixel stride), two B tiles (16 channel
// pairs x 16 output channels x 2: the pair-interleaved weights, row stride
// 64 bytes). The caller configures the tiles around its calls (BeginTiles,
// EndTiles: once per Forward, not per call); every block is full
// (32 or 16 pixels): row ends either read into the caller's slack or move
// the last block back over already computed pixels (which are recomputed
// bit-identically). The weights are the operand streamed once per block
// (from L2), so they are loaded with the streaming hint (tileloaddt1): it
// keeps them from evicting the source block, which every weight block
// reuses from L1 (+10% on 3x3 layers, +18% on 1x1 at 14x14).
//
// Built twice from this source: with the AMX instructions (namespace
// amx_bf16) and, with SYNOPS_AMX_EMULATE defined (//conv16b:amx_emu, tests
// only), against core/amx_emu's bit-exact tile emulator (namespace amx_emu),
// so the AMX algorithms are tested on every x86-64 CPU with AVX-512.
#if defined(SYNOPS_AMX_EMULATE)
#include "core/amx_emu/amx_emu_intrin.h"
#define SYNOPS_AMX_NAMESPACE amx_emu
#else
#include <immintrin.h>
#define SYNOPS_AMX_NAMESPACE amx_bf16
#endif

#include <algorithm>
#include <cstring>

#include "conv16b/conv16b_kernels.h"

namespace synops {
namespace conv16b_internal {
namespace SYNOPS_AMX_NAMESPACE {
namespace {

struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

// Tiles 0-3: C, 4, 5: A, 6, 7: B; all 16 rows x 64 bytes.
void LoadConfig() {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  // GCC 12's _tile_loadconfig declares only the first 8 bytes of the
  // configuration as read; make every store to it visible first.
  __asm__ volatile("" : : "r"(&cfg) : "memory");
  _tile_loadconfig(&cfg);
}

struct Block {
  const AmxImageArgs& a;
  size_t stride_bytes;  // A tile row stride
  size_t block_stride;  // elements between weight blocks

  // 32 pixels (kWide: C0-C3) or 16 (C0, C1) x the channels of weight
  // blocks nb, nb + 1 (if two): pixels 0-15 from s0, 16-31 from s1 (each
  // 16 at pixel stride a.pixel_stride). The tile work only, the sums stay
  // in C0-C3 until Store.
  template <bool kWide>
  void Pixels(const uint16_t* s0, const uint16_t* s1, const uint16_t* w0, bool two) const {
    const uint16_t* w1 = w0 + block_stride;
    _tile_zero(0);
    _tile_zero(1);
    if (kWide) {
      _tile_zero(2);
      _tile_zero(3);
    }
    for (size_t t = 0; t < a.ntaps; ++t) {
      const size_t off = a.taps[t];
      const size_t wt = t * a.chunks * 512;
      for (size_t k = 0; k < a.chunks; ++k) {
        _tile_loadd(4, s0 + off + 32 * k, stride_bytes);
        _tile_stream_loadd(6, w0 + wt + 512 * k, 64);
        _tile_dpbf16ps(0, 4, 6);
        if (kWide) {
          _tile_loadd(5, s1 + off + 32 * k, stride_bytes);
          _tile_dpbf16ps(2, 5, 6);
        }
        if (two) {
          _tile_stream_loadd(7, w1 + wt + 512 * k, 64);
          _tile_dpbf16ps(1, 4, 7);
          if (kWide) _tile_dpbf16ps(3, 5, 7);
        }
      }
    }
  }

  // C0-C3 of the last Pixels into out[32][32].
  static void Store(bool wide, bool two, float* out) {
    _tile_stored(0, out, 128);
    if (wide) _tile_stored(2, out + 16 * 32, 128);
    if (two) {
      _tile_stored(1, out + 16, 128);
      if (wide) _tile_stored(3, out + 16 * 32 + 16, 128);
    }
  }
};

// A block whose sums are in memory and whose epilogue has not run yet:
// npix pixels from m of row r, or (pair) of rows r and r + 1, the second
// row's from pixel 16 of the block.
struct Pending {
  bool valid = false;
  size_t r, m, npix, nb;
  bool pair = false;
};

}  // namespace

void BeginTiles() { LoadConfig(); }
void EndTiles() { _tile_release(); }

void GemmImage(const AmxImageArgs& a) {
  alignas(64) float out[2][32 * 32];
  const Block b{a, a.pixel_stride * sizeof(uint16_t), a.ntaps * a.chunks * 512};
  // Each block's epilogue runs after the next block's tile work is issued
  // (the sums alternate between two buffers), so the vector epilogue
  // overlaps the tile multiplies instead of waiting between blocks:
  // +3-10% on most layers (1x1 256->256 56x56 1160 -> 1270 GFLOP/s), -5%
  // on 1x1 256->64 56x56 (not understood; stopping the deferral at pixel
  // block ends was worse there).
  Pending pending;
  int cur = 0;
  auto flush = [&]() {
    if (pending.valid) {
      const size_t nc = a.nblocks - pending.nb >= 2 ? 32 : 16;
      a.store(a.ctx, out[cur ^ 1], pending.r, pending.m, pending.npix, pending.nb, nc);
      if (pending.pair) {
        a.store(a.ctx, out[cur ^ 1] + 16 * 32, pending.r + 1, pending.m, pending.npix,
                pending.nb, nc);
      }
    }
  };
  // Blocks of 32 pixels (16 for a short row without overread) outer, so the
  // source block stays in L1 while every 32-channel weight block uses it.
  // pair: npix <= 16 pixels of rows r and r + 1 as one 32-pixel block.
  auto all_channels = [&](size_t r, size_t m, size_t npix, bool wide, bool pair = false) {
    const uint16_t* s = a.src + r * a.row_stride + m * a.pixel_stride;
    const uint16_t* s1 = pair ? s + a.row_stride : s + 16 * a.pixel_stride;
    for (size_t nb = 0; nb < a.nblocks; nb += 2) {
      const bool two = a.nblocks - nb >= 2;
      const uint16_t* w = a.weight + nb * b.block_stride;
      if (wide) {
        b.Pixels<true>(s, s1, w, two);
      } else {
        b.Pixels<false>(s, s1, w, two);
      }
      flush();
      Block::Store(wide, two, out[cur]);
      pending = {true, r, m, npix, nb, pair};
      cur ^= 1;
    }
  };
  for (size_t r = 0; r < a.rows; ++r) {
    // Rows of at most 16 pixels read with overread (strided layers on
    // small maps: 3x3 s2 over 28x28 has rows of 14) run in pairs, each
    // row's pixels in one A tile, so every B tile load feeds four
    // multiplies instead of two. Sapphire Rapids, synbench best of 5
    // alternating, us: 3x3 s2 256->256 28x28 217 -> 176, 512->512 14x14
    // 475 -> 401, 128->256 28x28 82.7 -> 80.8 (NCHW 110 -> 93).
    if (a.overread && a.pixels <= 16 && r + 1 < a.rows) {
      all_channels(r, 0, a.pixels, true, true);
      ++r;
      continue;
    }
    size_t m = 0;
    for (; m + 32 <= a.pixels; m += 32) all_channels(r, m, 32, true);
    const size_t left = a.pixels - m;
    if (left == 0) continue;
    if (a.overread) {
      all_channels(r, m, left, left > 16);
    } else if (a.pixels >= 32) {
      // The last block moved back over computed pixels: 16 of them when
      // that covers the rest (1x1 at 14x14: 196 = 6 x 32 + 4).
      if (left <= 16) {
        all_channels(r, a.pixels - 16, 16, false);
      } else {
        all_channels(r, a.pixels - 32, 32, true);
      }
    } else {
      // 16 <= pixels < 32: the first 16, then the last 16.
      all_channels(r, 0, 16, false);
      all_channels(r, a.pixels - 16, 16, false);
    }
  }
  flush();
}

void GemmImageNchw(const AmxNchwArgs& a) {
  alignas(64) float out[32 * 32];
  const size_t src_stride = a.pair_stride * sizeof(uint16_t);
  const size_t ob_stride = a.ntaps * a.chunks * 512;
  // Pixel blocks outer: the source block is reused from L1 by every block
  // of 32 output channels.
  for (size_t m = 0; m < a.pixels; m += 32) {
    const size_t npix = std::min<size_t>(32, a.pixels - m);
    const bool wide = npix > 16;
    for (size_t ob = 0; ob < a.oblocks; ob += 2) {
      const bool two = a.oblocks - ob >= 2;
      const uint16_t* w0 = a.weight + ob * ob_stride;
      const uint16_t* w1 = w0 + ob_stride;
      _tile_zero(0);
      _tile_zero(1);
      _tile_zero(2);
      _tile_zero(3);
      for (size_t t = 0; t < a.ntaps; ++t) {
        const uint16_t* s0 = a.src + 2 * (m + a.taps[t]);
        const size_t wt = t * a.chunks * 512;
        for (size_t k = 0; k < a.chunks; ++k) {
          // B: 16 pairs x 16 pixels; A: 16 output channels x 16 pairs.
          const uint16_t* s = s0 + 16 * k * a.pair_stride;
          _tile_loadd(6, s, src_stride);
          _tile_loadd(4, w0 + wt + 512 * k, 64);
          _tile_dpbf16ps(0, 4, 6);
          if (wide) {
            _tile_loadd(7, s + 32, src_stride);
            _tile_dpbf16ps(1, 4, 7);
          }
          if (two) {
            _tile_loadd(5, w1 + wt + 512 * k, 64);
            _tile_dpbf16ps(2, 5, 6);
            if (wide) _tile_dpbf16ps(3, 5, 7);
          }
        }
      }
      _tile_stored(0, out, 128);
      if (wide) _tile_stored(1, out + 16, 128);
      if (two) {
        _tile_stored(2, out + 16 * 32, 128);
        if (wide) _tile_stored(3, out + 16 * 32 + 16, 128);
      }
      a.store(a.ctx, out, m, npix, ob, two ? 32 : 16);
    }
  }
}

#if !defined(SYNOPS_AMX_EMULATE)
uint64_t PeakLoads(uint64_t iterations, const uint16_t* a, const uint16_t* b, size_t b_chunks) {
  LoadConfig();
  const uint16_t* b1 = b + b_chunks * 512;
  uint64_t steps = 0;
  alignas(64) float c[4][16 * 16];
  for (uint64_t i = 0; i < iterations; ++i) {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    // 32 pixels x 32 channels of a 1x1 convolution with b_chunks * 32 input
    // channels: A rows 64 bytes apart (one 32-channel chunk per row), the
    // same loads and order as the kernel's Pixels<true>.
    for (size_t k = 0; k < b_chunks; ++k, ++steps) {
      _tile_loadd(4, a + 32 * (k % 8), 64 * 8);
      _tile_stream_loadd(6, b + 512 * k, 64);
      _tile_dpbf16ps(0, 4, 6);
      _tile_loadd(5, a + 16 * 256 + 32 * (k % 8), 64 * 8);
      _tile_dpbf16ps(2, 5, 6);
      _tile_stream_loadd(7, b1 + 512 * k, 64);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, c[0], 64);
    _tile_stored(1, c[1], 64);
    _tile_stored(2, c[2], 64);
    _tile_stored(3, c[3], 64);
  }
  volatile float sink = c[0][0] + c[3][255];
  (void)sink;
  _tile_release();
  return steps * 4 * 16 * 16 * 32 * 2;
}

uint64_t Peak(uint64_t iterations) {
  LoadConfig();
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
#endif

}  // namespace SYNOPS_AMX_NAMESPACE
}  // namespace conv16b_internal
}  // namespace synops
