// The tile emulator (see amx_emu.h). "SDM" is the Intel 64 and IA-32
// Architectures Software Developer's Manual, Vol. 2, the instruction pages
// named in each comment; "Vol. 1" is its Chapter 18 (Intel AMX).
#include "core/amx_emu/amx_emu.h"

#include <immintrin.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace synops {
namespace amx_emu {
namespace {

// The architectural state (Vol. 1, 18.2): TILECFG and the 8 tile
// registers of palette 1, each 16 rows of 64 bytes. Per thread: every
// thread has its own tile registers (they are XSAVE state components 17
// and 18, switched with the thread).
struct State {
  bool configured = false;  // TILES_CONFIGURED
  TileConfig cfg;
  alignas(64) uint8_t tile[kTiles][kMaxRows][kBytesPerRow];
};
thread_local State g_state;

[[noreturn]] void Fault(const char* instruction, const char* rule) {
  std::fprintf(stderr, "amx_emu: %s faults: %s\n", instruction, rule);
  std::abort();
}

State& Configured(const char* instruction) {
  State& s = g_state;
  // Every tile instruction but LDTILECFG, STTILECFG and TILERELEASE: #UD if
  // TILES_CONFIGURED == 0 (SDM, "Exceptions" of each instruction).
  if (!s.configured) Fault(instruction, "tiles are not configured (TILES_CONFIGURED == 0)");
  return s;
}

void CheckTile(const State& s, int t, const char* instruction) {
  if (t < 0 || t >= kTiles) Fault(instruction, "palette 1 has tiles 0..7");
  // A tile the configuration leaves empty (0 rows or 0 column bytes) is
  // never used by synops; the emulator rejects it rather than guess.
  if (s.cfg.rows[t] == 0 || s.cfg.colsb[t] == 0) Fault(instruction, "tile has 0 rows or 0 column bytes");
}

// write_row_and_zero and zero_upper_rows of the SDM pseudo-code: bytes past
// colsb in a written row, and rows past the configured rows, become zero.
void ZeroUpperRows(uint8_t (*tile)[kBytesPerRow], int from_row) {
  for (int r = from_row; r < kMaxRows; ++r) std::memset(tile[r], 0, kBytesPerRow);
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// "Input denormals are always treated as zero" (SDM, TDPBF16PS,
// Description): a zero exponent field reads as a zero of the same sign.
uint32_t DazBits(uint32_t u) { return (u & 0x7F800000u) == 0 ? (u & 0x80000000u) : u; }
float Daz(float f) { return FromBits(DazBits(Bits(f))); }

// MXCSR for the emulator's own arithmetic: round to nearest-even, FTZ and
// DAZ off (the model applies them itself), every exception masked. The
// caller's MXCSR, flags included, is restored on exit: TDPBF16PS "MXCSR is
// not consulted nor updated" (SDM, TDPBF16PS, Description).
class MxcsrScope {
 public:
  MxcsrScope() : saved_(_mm_getcsr()) { _mm_setcsr(0x1F80); }
  ~MxcsrScope() { _mm_setcsr(saved_); }

 private:
  unsigned saved_;
};

// FmaDazFtz under MxcsrScope. The SDM's pseudo-code step is
// "FP32 FMA with DAZ=FTZ=1, RNE rounding" (TDPBF16PS, Operation).
//  * DAZ on a, b, c.
//  * NaN: the first NaN of a, b, c, quieted, and the x86 default NaN
//    0xFFC00000 for Inf * 0 and Inf - Inf (Vol. 1, 4.8.3.7 "QNaN Floating-
//    Point Indefinite"). The SDM does not say which NaN a TDPBF16PS result
//    carries; probed on a Sapphire Rapids core (AMX-BF16), one lane at a
//    time: in a product a's NaN before b's, a product's NaN before the
//    accumulator's (a later k's before an earlier one's), the even sum's
//    before the odd's, and the destination's NaN before the row's sum. So
//    DpBf16ps calls this with (a, b, acc), (even, 1, odd) and (dst, 1, sum);
//    AmxEmu.MatchesTheHardware checks it on random programs.
//  * FTZ: x86 detects tininess after rounding (as SoftFloat's 8086-SSE
//    model does): a result whose value, rounded to 24 bits with an
//    unbounded exponent, is below 2^-126 in magnitude is flushed to a zero
//    of its sign. The plain fma below rounds to the denormal grid instead,
//    so a result at most FLT_MIN in magnitude is recomputed scaled by 2^64,
//    where nothing underflows: a nonzero a * b + c this small needs
//    |a * b| and |c| below 2^-79 (their lowest bits must reach 2^-126, and
//    one cancels the other), so the scaled operands are exact.
float FmaDazFtzInScope(float a, float b, float c) {
  a = Daz(a);
  b = Daz(b);
  c = Daz(c);
  for (float x : {a, b, c}) {
    if (std::isnan(x)) return FromBits(Bits(x) | 0x00400000u);
  }
  const float r = std::fma(a, b, c);
  if (std::isnan(r)) return FromBits(0xFFC00000u);
  const uint32_t u = Bits(r) & 0x7FFFFFFFu;
  if (u == 0 || u > 0x00800000u) return r;
  const float scaled = std::fma(a * 0x1p64f, b, c * 0x1p64f);
  if (std::fabs(scaled) < 0x1p-62f) return std::copysign(0.0f, scaled);
  return scaled * 0x1p-64f;
}

// 16 lanes of FmaDazFtzInScope: a, b, c already DAZ'd, c never denormal.
// The vector FMA is exact where the result is normal, infinite or zero;
// the lanes whose result is a NaN (payload rules above) or at most FLT_MIN
// in magnitude (tininess) are redone by the scalar model.
__m512 Fma16(__m512 a, __m512 b, __m512 c) {
  __m512 r = _mm512_fmadd_ps(a, b, c);
  const __m512i mag = _mm512_and_si512(_mm512_castps_si512(r), _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 tiny =
      _mm512_cmplt_epu32_mask(_mm512_sub_epi32(mag, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x00800000));
  const __mmask16 nan = _mm512_cmpgt_epu32_mask(mag, _mm512_set1_epi32(0x7F800000));
  __mmask16 fix = tiny | nan;
  if (fix != 0) {
    alignas(64) float ra[16], aa[16], ba[16], ca[16];
    _mm512_store_ps(ra, r);
    _mm512_store_ps(aa, a);
    _mm512_store_ps(ba, b);
    _mm512_store_ps(ca, c);
    for (; fix != 0; fix &= fix - 1) {
      const int i = __builtin_ctz(fix);
      ra[i] = FmaDazFtzInScope(aa[i], ba[i], ca[i]);
    }
    r = _mm512_load_ps(ra);
  }
  return r;
}

__m512 Daz16(__m512i v) {
  const __mmask16 denormal = _mm512_testn_epi32_mask(v, _mm512_set1_epi32(0x7F800000));
  return _mm512_castsi512_ps(_mm512_mask_and_epi32(v, denormal, v, _mm512_set1_epi32(0x80000000)));
}

}  // namespace

float FmaDazFtz(float a, float b, float c) {
  MxcsrScope scope;
  return FmaDazFtzInScope(a, b, c);
}

// LDTILECFG (SDM): palette 0 returns to the init state; a palette above 1,
// a nonzero reserved byte (bytes 2..15), rows above 16 or column bytes
// above 64 for tiles 0..7, or any nonzero shape for tiles 8..15 is #GP.
// A valid configuration zeroes every tile and sets TILES_CONFIGURED.
void LoadConfig(const void* config) {
  TileConfig c;
  std::memcpy(&c, config, sizeof(c));
  if (c.palette == 0) {
    Release();
    return;
  }
  if (c.palette > 1) Fault("LDTILECFG", "palette above 1 (the only palette synops knows)");
  for (uint8_t b : c.reserved) {
    if (b != 0) Fault("LDTILECFG", "reserved bytes 2..15 must be zero");
  }
  for (int t = 0; t < 16; ++t) {
    if (t < kTiles) {
      if (c.rows[t] > kMaxRows) Fault("LDTILECFG", "rows above palette 1's max_rows (16)");
      if (c.colsb[t] > kBytesPerRow) Fault("LDTILECFG", "column bytes above palette 1's bytes_per_row (64)");
    } else if (c.rows[t] != 0 || c.colsb[t] != 0) {
      Fault("LDTILECFG", "tiles 8..15 do not exist in palette 1; their shape must be zero");
    }
  }
  State& s = g_state;
  s.cfg = c;
  std::memset(s.tile, 0, sizeof(s.tile));
  s.configured = true;
}

// STTILECFG (SDM): 64 zero bytes if TILES_CONFIGURED == 0, else TILECFG.
void StoreConfig(void* config) {
  const State& s = g_state;
  if (!s.configured) {
    std::memset(config, 0, sizeof(TileConfig));
  } else {
    std::memcpy(config, &s.cfg, sizeof(TileConfig));
  }
}

// TILERELEASE (SDM): the init state, tiles zero and TILES_CONFIGURED == 0.
void Release() {
  State& s = g_state;
  s.configured = false;
  s.cfg = TileConfig();
  std::memset(s.tile, 0, sizeof(s.tile));
}

// TILEZERO (SDM): every row of the palette (max_rows x bytes_per_row) zero.
void Zero(int tile) {
  State& s = Configured("TILEZERO");
  if (tile < 0 || tile >= kTiles) Fault("TILEZERO", "palette 1 has tiles 0..7");
  std::memset(s.tile[tile], 0, sizeof(s.tile[tile]));
  s.cfg.start_row = 0;  // zero_tilecfg_start()
}

// TILELOADD / TILELOADDT1 (SDM): rows start_row..rows-1 read colsb bytes
// at base + row * stride (write_row_and_zero), the rows above the shape
// are zeroed (zero_upper_rows), start_row is reset. The T1 hint changes
// nothing architectural.
void Load(int tile, const void* base, size_t stride) {
  State& s = Configured("TILELOADD");
  CheckTile(s, tile, "TILELOADD");
  const int rows = s.cfg.rows[tile], colsb = s.cfg.colsb[tile];
  for (int r = s.cfg.start_row; r < rows; ++r) {
    std::memcpy(s.tile[tile][r], static_cast<const uint8_t*>(base) + r * stride, colsb);
    std::memset(s.tile[tile][r] + colsb, 0, kBytesPerRow - colsb);
  }
  ZeroUpperRows(s.tile[tile], rows);
  s.cfg.start_row = 0;
}

// TILESTORED (SDM): rows start_row..rows-1, colsb bytes each.
void Store(int tile, void* base, size_t stride) {
  State& s = Configured("TILESTORED");
  CheckTile(s, tile, "TILESTORED");
  const int rows = s.cfg.rows[tile], colsb = s.cfg.colsb[tile];
  for (int r = s.cfg.start_row; r < rows; ++r) {
    std::memcpy(static_cast<uint8_t*>(base) + r * stride, s.tile[tile][r], colsb);
  }
  s.cfg.start_row = 0;
}

// TDPBF16PS tsrcdest, tsrc1, tsrc2 (SDM, Operation):
//   for m in 0 ... tsrcdest.rows-1:
//     temp1[0 ... 2 * elements_dest - 1] := 0
//     for k in 0 ... elements_src1-1:
//       for n in 0 ... elements_dest-1:
//         // FP32 FMA with DAZ=FTZ=1, RNE rounding, MXCSR ignored
//         temp1[2n+0] += make_fp32(tsrc1.row[m].bf16[2k+0]) * make_fp32(tsrc2.row[k].bf16[2n+0])
//         temp1[2n+1] += make_fp32(tsrc1.row[m].bf16[2k+1]) * make_fp32(tsrc2.row[k].bf16[2n+1])
//     for n in 0 ... elements_dest-1:
//       // DAZ=FTZ=1, RNE rounding, MXCSR ignored
//       tmpf32 := temp1[2n+0] + temp1[2n+1]
//       tsrcdest.row[m].fp32[n] := tsrcdest.row[m].fp32[n] + tmpf32
//     write_row_and_zero(tsrcdest, m, tmp, tsrcdest.colsb)
//   zero_upper_rows(tsrcdest, tsrcdest.rows)
//   zero_tilecfg_start()
// make_fp32 puts the BF16 in the upper half of an FP32. Exceptions (#UD):
// column bytes not a multiple of 4, tsrcdest.rows != tsrc1.rows,
// tsrc1.colsb / 4 != tsrc2.rows, tsrcdest.colsb != tsrc2.colsb, operands
// not three distinct tiles. The two final adds are the model's combine
// step; the order (even + odd, then destination + that) is the SDM's.
void DpBf16ps(int dst, int src1, int src2) {
  State& s = Configured("TDPBF16PS");
  for (int t : {dst, src1, src2}) CheckTile(s, t, "TDPBF16PS");
  if (dst == src1 || dst == src2 || src1 == src2) Fault("TDPBF16PS", "operands must be three different tiles");
  const TileConfig& c = s.cfg;
  if (c.colsb[dst] % 4 || c.colsb[src1] % 4 || c.colsb[src2] % 4) {
    Fault("TDPBF16PS", "column bytes must be a multiple of 4");
  }
  if (c.rows[dst] != c.rows[src1]) Fault("TDPBF16PS", "tsrcdest.rows != tsrc1.rows");
  if (c.colsb[src1] / 4 != c.rows[src2]) Fault("TDPBF16PS", "tsrc1.colsb / 4 != tsrc2.rows");
  if (c.colsb[dst] != c.colsb[src2]) Fault("TDPBF16PS", "tsrcdest.colsb != tsrc2.colsb");
  const int rows = c.rows[dst], k = c.colsb[src1] / 4, n = c.colsb[dst] / 4;
  const __mmask16 nmask = static_cast<__mmask16>((1u << n) - 1);
  MxcsrScope scope;
  // tsrc2 split into its even and odd BF16 halves as FP32, DAZ'd.
  __m512 even[kMaxRows], odd[kMaxRows];
  for (int kk = 0; kk < k; ++kk) {
    const __m512i v = _mm512_maskz_loadu_epi32(nmask, s.tile[src2][kk]);
    even[kk] = Daz16(_mm512_slli_epi32(v, 16));
    odd[kk] = Daz16(_mm512_and_si512(v, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
  }
  const __m512 one = _mm512_set1_ps(1.0f);
  for (int m = 0; m < rows; ++m) {
    __m512 t0 = _mm512_setzero_ps(), t1 = _mm512_setzero_ps();
    for (int kk = 0; kk < k; ++kk) {
      uint32_t pair;
      std::memcpy(&pair, s.tile[src1][m] + 4 * kk, 4);
      t0 = Fma16(_mm512_set1_ps(FromBits(DazBits(pair << 16))), even[kk], t0);
      t1 = Fma16(_mm512_set1_ps(FromBits(DazBits(pair & 0xFFFF0000u))), odd[kk], t1);
    }
    const __m512 sum = Fma16(t0, one, t1);  // temp1[2n+0] + temp1[2n+1]
    float* row = reinterpret_cast<float*>(s.tile[dst][m]);
    const __m512 old = Daz16(_mm512_maskz_loadu_epi32(nmask, row));
    // tsrcdest + tmpf32: the destination as the first operand, so its NaN
    // has priority over the sum's, as on the hardware (see FmaDazFtzInScope).
    _mm512_store_ps(row, _mm512_maskz_mov_ps(nmask, Fma16(old, one, sum)));
  }
  ZeroUpperRows(s.tile[dst], rows);
  s.cfg.start_row = 0;
}

void DpBf16psModel(float* dst, size_t dst_stride, const uint32_t* src1, size_t src1_stride,
                   const uint32_t* src2, size_t src2_stride, int rows, int k, int n) {
  for (int m = 0; m < rows; ++m) {
    for (int j = 0; j < n; ++j) {
      float t0 = 0.0f, t1 = 0.0f;
      for (int kk = 0; kk < k; ++kk) {
        const uint32_t a = src1[m * src1_stride + kk], b = src2[kk * src2_stride + j];
        t0 = FmaDazFtz(FromBits(a << 16), FromBits(b << 16), t0);
        t1 = FmaDazFtz(FromBits(a & 0xFFFF0000u), FromBits(b & 0xFFFF0000u), t1);
      }
      float& d = dst[m * dst_stride + j];
      d = FmaDazFtz(d, 1.0f, FmaDazFtz(t0, 1.0f, t1));
    }
  }
}

}  // namespace amx_emu
}  // namespace synops
