#include "core/amx_emu/amx_hw_program.h"

#include <immintrin.h>

namespace synops {
namespace amx_emu {

void RunOnHardware(const TileConfig& config, float* c, const void* a, const void* b, const void* a2) {
  // GCC 12's _tile_loadconfig declares only the first 8 bytes as read.
  __asm__ volatile("" : : "r"(&config) : "memory");
  _tile_loadconfig(&config);
  _tile_loadd(0, c, 64);
  _tile_loadd(1, a, 64);
  _tile_stream_loadd(2, b, 64);
  _tile_loadd(3, a2, 64);
  _tile_dpbf16ps(0, 1, 2);
  _tile_dpbf16ps(0, 3, 2);
  _tile_stored(0, c, 64);
  _tile_release();
}

void RunOnEmulator(const TileConfig& config, float* c, const void* a, const void* b, const void* a2) {
  LoadConfig(&config);
  Load(0, c, 64);
  Load(1, a, 64);
  Load(2, b, 64);
  Load(3, a2, 64);
  DpBf16ps(0, 1, 2);
  DpBf16ps(0, 3, 2);
  Store(0, c, 64);
  Release();
}

}  // namespace amx_emu
}  // namespace synops
