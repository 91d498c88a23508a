// A bit-exact software model of the AMX palette-1 tile state and of the
// AMX-TILE and AMX-BF16 instructions synops uses, so the AMX kernels are
// built and tested on every x86-64 CPU with AVX-512F, not only on CPUs with
// AMX (tests, fuzzers and synbench only; never linked into an op library).
//
// Semantics follow the Intel 64 and IA-32 Architectures Software Developer's
// Manual (SDM), Vol. 2, the pseudo-code of LDTILECFG, STTILECFG,
// TILERELEASE, TILEZERO, TILELOADD/TILELOADDT1, TILESTORED and TDPBF16PS,
// and Vol. 1, 3.2.1 / Chapter 18 (Intel AMX) for the tile state. Each rule
// cites its source beside the code in amx_emu.cc.
//
// What the SDM leaves open is named there too: the payload of a NaN result
// (this model follows the priorities probed on a Sapphire Rapids core: the
// destination's NaN, then the even sum's, then the odd's, a product's before
// its accumulator's, quieted; the x86 default NaN for Inf * 0 and Inf - Inf).
// amx_emu_test's MatchesTheHardware compares the model with the hardware on
// random tile programs on a CPU with AMX-BF16.
//
// A fault (#GP / #UD in the SDM: a bad configuration, a tile used before
// LDTILECFG, shapes TDPBF16PS rejects) prints the rule and aborts: on the
// hardware the process would get SIGILL or SIGSEGV.
//
// The state is per thread (thread_local), like the tile registers.
#ifndef SYNOPS_CORE_AMX_EMU_AMX_EMU_H_
#define SYNOPS_CORE_AMX_EMU_AMX_EMU_H_

#include <cstddef>
#include <cstdint>

namespace synops {
namespace amx_emu {

constexpr int kTiles = 8;         // palette 1: max_names
constexpr int kMaxRows = 16;      // palette 1: max_rows
constexpr int kBytesPerRow = 64;  // palette 1: bytes_per_row

// The 64-byte memory operand of LDTILECFG / STTILECFG (SDM Vol. 1, Figure
// 3-x "the TILECFG memory layout": palette_id, start_row, 14 reserved bytes,
// colsb[16] as 16-bit words, rows[16] as bytes, all of it 64 bytes).
struct alignas(64) TileConfig {
  uint8_t palette = 0;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64, "LDTILECFG reads 64 bytes");

// The instructions. Tile numbers are 0..7; base/stride as the SIB operand.
void LoadConfig(const void* config);  // LDTILECFG
void StoreConfig(void* config);       // STTILECFG
void Release();                       // TILERELEASE
void Zero(int tile);                  // TILEZERO
void Load(int tile, const void* base, size_t stride);  // TILELOADD(T1)
void Store(int tile, void* base, size_t stride);       // TILESTORED
void DpBf16ps(int dst, int src1, int src2);            // TDPBF16PS

// The arithmetic of one TDPBF16PS step, exposed for tests: the FP32
// a * b + c rounded once to nearest-even, with denormal inputs read as
// zero (DAZ) and a result that is tiny after rounding flushed to a zero of
// its sign (FTZ), whatever MXCSR says. TDPBF16PS's adds are
// FmaDazFtz(x, 1, y).
float FmaDazFtz(float a, float b, float c);

// TDPBF16PS on plain arrays, one scalar FmaDazFtz at a time: the model the
// vectorized DpBf16ps is tested against. dst is rows x (colsb/4) floats,
// src1 rows x (k pairs), src2 k rows x (colsb/4) pairs, row strides in
// elements (uint32_t pairs of BF16 for the sources).
void DpBf16psModel(float* dst, size_t dst_stride, const uint32_t* src1, size_t src1_stride,
                   const uint32_t* src2, size_t src2_stride, int rows, int k, int n);

}  // namespace amx_emu
}  // namespace synops

#endif  // SYNOPS_CORE_AMX_EMU_AMX_EMU_H_
