// The tile emulator against its scalar model, the SDM's and the probed NaN
// rules, and on a CPU with AMX-BF16 against the hardware (MatchesTheHardware).
#include "core/amx_emu/amx_emu.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <random>
#include <thread>
#include <vector>

#include "core/amx_emu/amx_hw_program.h"
#include "core/cpu.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace synops {
namespace amx_emu {
namespace {

#if defined(__x86_64__)

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

class AmxEmu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!GetCpuFeatures().avx512f) GTEST_SKIP() << "the tile emulator needs AVX-512F, which this CPU lacks";
  }
  void TearDown() override { Release(); }
};

using AmxEmuDeathTest = AmxEmu;

TileConfig Config(std::initializer_list<std::pair<int, int>> shapes) {
  TileConfig c;
  c.palette = 1;
  int t = 0;
  for (auto [rows, colsb] : shapes) {
    c.rows[t] = static_cast<uint8_t>(rows);
    c.colsb[t] = static_cast<uint16_t>(colsb);
    ++t;
  }
  return c;
}

TEST_F(AmxEmuDeathTest, BadConfigurationsFault) {
  TileConfig c = Config({{16, 64}});
  c.palette = 2;
  EXPECT_DEATH(LoadConfig(&c), "palette");
  c = Config({{16, 64}});
  c.reserved[3] = 1;
  EXPECT_DEATH(LoadConfig(&c), "reserved");
  c = Config({{17, 64}});
  EXPECT_DEATH(LoadConfig(&c), "rows above");
  c = Config({{16, 68}});
  EXPECT_DEATH(LoadConfig(&c), "column bytes above");
  c = Config({{16, 64}});
  c.rows[8] = 1;
  c.colsb[8] = 4;
  EXPECT_DEATH(LoadConfig(&c), "tiles 8..15");
}

TEST_F(AmxEmuDeathTest, TilesBeforeConfigurationFault) {
  alignas(64) uint8_t buf[1024] = {};
  Release();
  EXPECT_DEATH(Zero(0), "not configured");
  EXPECT_DEATH(Load(0, buf, 64), "not configured");
  EXPECT_DEATH(Store(0, buf, 64), "not configured");
  EXPECT_DEATH(DpBf16ps(0, 1, 2), "not configured");
  const TileConfig c = Config({{16, 64}, {16, 64}, {16, 64}});
  LoadConfig(&c);
  EXPECT_DEATH(Load(8, buf, 64), "tiles 0..7");
  EXPECT_DEATH(Load(3, buf, 64), "0 rows");  // tile 3 is not in the shape
  // A palette-0 configuration is TILERELEASE.
  TileConfig zero;
  LoadConfig(&zero);
  EXPECT_DEATH(Zero(0), "not configured");
}

TEST_F(AmxEmuDeathTest, DpBf16psShapesFault) {
  // dst 4 x 8 floats, src1 4 rows x 3 pairs, src2 3 rows x 8 pairs: valid.
  TileConfig c = Config({{4, 32}, {4, 12}, {3, 32}, {5, 12}, {3, 16}, {4, 30}, {3, 30}});
  LoadConfig(&c);
  DpBf16ps(0, 1, 2);
  EXPECT_DEATH(DpBf16ps(0, 3, 2), "tsrcdest.rows != tsrc1.rows");
  EXPECT_DEATH(DpBf16ps(0, 1, 4), "tsrcdest.colsb != tsrc2.colsb");
  EXPECT_DEATH(DpBf16ps(0, 1, 3), "tsrc1.colsb / 4 != tsrc2.rows");
  EXPECT_DEATH(DpBf16ps(5, 1, 6), "multiple of 4");
  EXPECT_DEATH(DpBf16ps(0, 0, 2), "three different tiles");
  EXPECT_DEATH(DpBf16ps(0, 1, 1), "three different tiles");
}

TEST_F(AmxEmu, ConfigurationRoundTripsAndReleaseClearsIt) {
  TileConfig c = Config({{16, 64}, {3, 12}, {1, 4}});
  LoadConfig(&c);
  TileConfig out = Config({{1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 4}});
  StoreConfig(&out);
  EXPECT_EQ(std::memcmp(&out, &c, sizeof(c)), 0);
  Release();
  StoreConfig(&out);
  const TileConfig zero;
  EXPECT_EQ(std::memcmp(&out, &zero, sizeof(zero)), 0);
}

// Partial shapes: rows x colsb bytes move, nothing else; a configuration
// zeroes every tile; start_row skips the first rows once.
TEST_F(AmxEmu, PartialLoadAndStore) {
  std::vector<uint8_t> src(16 * 100), dst(16 * 80, 0xEE);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 7 + 1);
  TileConfig c = Config({{3, 12}, {16, 64}});
  LoadConfig(&c);
  Load(0, src.data(), 100);
  Store(0, dst.data(), 80);
  for (int r = 0; r < 16; ++r) {
    for (int b = 0; b < 80; ++b) {
      const uint8_t want = r < 3 && b < 12 ? src[r * 100 + b] : 0xEE;
      ASSERT_EQ(dst[r * 80 + b], want) << r << " " << b;
    }
  }
  // Tile 1 was zeroed by LDTILECFG; TILEZERO zeroes a loaded tile.
  std::vector<uint8_t> full(16 * 64, 0xEE);
  Store(1, full.data(), 64);
  for (uint8_t v : full) ASSERT_EQ(v, 0);
  Load(1, src.data(), 100);
  Zero(1);
  std::fill(full.begin(), full.end(), 0xEE);
  Store(1, full.data(), 64);
  for (uint8_t v : full) ASSERT_EQ(v, 0);
  // start_row = 2: rows 0 and 1 keep their (zero) contents, and the next
  // instruction starts at row 0 again.
  c.start_row = 2;
  LoadConfig(&c);
  Load(0, src.data(), 100);
  std::fill(dst.begin(), dst.end(), 0xEE);
  Store(0, dst.data(), 80);
  for (int r = 0; r < 3; ++r) {
    for (int b = 0; b < 12; ++b) ASSERT_EQ(dst[r * 80 + b], r < 2 ? 0 : src[r * 100 + b]) << r << " " << b;
  }
}

TEST_F(AmxEmu, FmaDazFtzValues) {
  const float kMin = FLT_MIN;  // 2^-126
  EXPECT_EQ(FmaDazFtz(1.0f, 1.0f, 1.0f), 2.0f);
  EXPECT_EQ(FmaDazFtz(3.0f, 0.5f, -1.0f), 0.5f);
  // DAZ: denormal inputs read as zeros of their sign.
  EXPECT_EQ(Bits(FmaDazFtz(1e-40f, 1e30f, 0.0f)), Bits(0.0f));
  EXPECT_EQ(Bits(FmaDazFtz(-1e-40f, 1e30f, -0.0f)), Bits(-0.0f));
  EXPECT_EQ(Bits(FmaDazFtz(0.0f, 0.0f, 1e-40f)), Bits(0.0f));
  EXPECT_EQ(FmaDazFtz(2.0f, 3.0f, 1e-40f), 6.0f);
  // FTZ: denormal results flush to zeros of their sign; FLT_MIN stays.
  EXPECT_EQ(Bits(FmaDazFtz(0x1p-100f, 0x1p-30f, 0.0f)), Bits(0.0f));
  EXPECT_EQ(Bits(FmaDazFtz(-0x1p-100f, 0x1p-30f, 0.0f)), Bits(-0.0f));
  EXPECT_EQ(FmaDazFtz(0x1p-63f, 0x1p-63f, 0.0f), kMin);
  EXPECT_EQ(FmaDazFtz(0x1p-63f, -0x1p-63f, 0.0f), -kMin);
  // Tininess after rounding. With u = 2^-152, the FP32 grid just below
  // FLT_MIN (24 bits, unbounded exponent) is 4u apart. FLT_MIN - 3u rounds
  // to FLT_MIN - 4u there: tiny, so zero, although rounding to the
  // denormal grid (8u apart) gives FLT_MIN.
  EXPECT_EQ(std::fma(-0x1.8p-75f, 0x1p-76f, kMin), kMin);  // the plain FMA
  EXPECT_EQ(Bits(FmaDazFtz(-0x1.8p-75f, 0x1p-76f, kMin)), Bits(0.0f));
  EXPECT_EQ(Bits(FmaDazFtz(0x1.8p-75f, 0x1p-76f, -kMin)), Bits(-0.0f));
  // FLT_MIN - 2u is the tie between FLT_MIN - 4u (odd) and FLT_MIN (even):
  // FLT_MIN, not tiny. FLT_MIN - u rounds to FLT_MIN too.
  EXPECT_EQ(FmaDazFtz(-0x1p-75f, 0x1p-76f, kMin), kMin);
  EXPECT_EQ(FmaDazFtz(-0x1p-76f, 0x1p-76f, kMin), kMin);
  EXPECT_EQ(FmaDazFtz(0x1p-76f, 0x1p-76f, -kMin), -kMin);
  // Just above FLT_MIN: the exact result, a normal number.
  EXPECT_EQ(FmaDazFtz(0x1p-75f, 0x1p-74f, kMin), kMin + 0x1p-149f);
  // Overflow, infinities, NaN.
  EXPECT_EQ(FmaDazFtz(0x1p127f, 4.0f, 0.0f), INFINITY);
  EXPECT_EQ(FmaDazFtz(-INFINITY, 2.0f, 1.0f), -INFINITY);
  EXPECT_EQ(Bits(FmaDazFtz(INFINITY, 0.0f, 1.0f)), 0xFFC00000u);
  EXPECT_EQ(Bits(FmaDazFtz(INFINITY, 1.0f, -INFINITY)), 0xFFC00000u);
  EXPECT_EQ(Bits(FmaDazFtz(FromBits(0x7F800001u), 1.0f, 1.0f)), 0x7FC00001u);  // quieted
  EXPECT_EQ(Bits(FmaDazFtz(1.0f, FromBits(0xFF812345u), FromBits(0x7FC00002u))), 0xFFC12345u);
  EXPECT_EQ(Bits(FmaDazFtz(1.0f, 1.0f, FromBits(0x7FC00002u))), 0x7FC00002u);
}

// The caller's MXCSR (rounding, FTZ, DAZ, flags) neither changes the
// results nor is changed.
TEST_F(AmxEmu, IgnoresAndKeepsMxcsr) {
  const float want = FmaDazFtz(1.0f, 0x1p-30f, 1.0f);  // 1 + 2^-30 rounds to 1 (nearest)
  EXPECT_EQ(want, 1.0f);
  const unsigned saved = _mm_getcsr();
  const unsigned odd = (saved & ~0xE07Fu) | 0x4000u /* round up */ | 0x8040u /* FTZ, DAZ */;
  _mm_setcsr(odd);
  const float got = FmaDazFtz(1.0f, 0x1p-30f, 1.0f);
  const float tiny = FmaDazFtz(-0x1p-76f, 0x1p-76f, FLT_MIN);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  EXPECT_EQ(got, want);
  EXPECT_EQ(tiny, FLT_MIN);
  EXPECT_EQ(after, odd);
}

// Random BF16 and FP32 values from a per-program mix, so that some programs
// are ordinary, some live near FLT_MIN (where DAZ, FTZ and tininess
// decide), and some carry a few denormals, zeros, infinities, NaNs or huge
// values (any of which, too often, would make every output NaN or Inf).
struct Mix {
  int special;  // per 1024: denormal, ±0, ±Inf, NaN, near overflow
  int tiny;     // per 1024: products near 2^-126
};

Mix RandomMix(std::mt19937& rng) {
  static constexpr Mix kMixes[] = {{0, 0}, {0, 1024}, {0, 600}, {8, 0}, {8, 600}, {60, 300}, {300, 300}};
  return kMixes[rng() % (sizeof(kMixes) / sizeof(kMixes[0]))];
}

uint16_t RandomBf16(std::mt19937& rng, const Mix& mix) {
  const uint32_t r = rng();
  const uint16_t sign = (r & 1) << 15;
  const uint16_t mant = (r >> 1) & 0x7F;
  const int pick = static_cast<int>((r >> 8) % 1024);
  if (pick < mix.special) {
    switch ((r >> 18) % 5) {
      case 0:
        return sign | mant;  // denormal (or zero)
      case 1:
        return sign;  // ±0
      case 2:
        return sign | 0x7F80;  // ±Inf
      case 3:
        return sign | 0x7F80 | (mant | 1);  // NaN, quiet or signaling
      default:
        return sign | static_cast<uint16_t>((250 + (r >> 21) % 5) << 7) | mant;  // near overflow
    }
  }
  if (pick < mix.special + mix.tiny) {
    return sign | static_cast<uint16_t>((60 + (r >> 21) % 8) << 7) | mant;  // products near 2^-126
  }
  return sign | static_cast<uint16_t>((120 + (r >> 21) % 15) << 7) | mant;  // ordinary
}

uint32_t RandomFp32(std::mt19937& rng, const Mix& mix) {
  const uint32_t r = rng();
  if (static_cast<int>(r % 1024) < mix.special) {
    return r & 1 ? (r & 0x807FFFFFu) : static_cast<uint32_t>(RandomBf16(rng, {1024, 0})) << 16;
  }
  if (static_cast<int>(r % 1024) < mix.special + mix.tiny) {
    return (r & 0x807FFFFFu) | static_cast<uint32_t>(1 + (r >> 23) % 3) << 23;  // just above FLT_MIN
  }
  return (r & 0x807FFFFFu) | static_cast<uint32_t>(110 + (r >> 23) % 30) << 23;
}

// Random tile programs: the vectorized TDPBF16PS of the emulator against the
// scalar model, bit for bit, over every shape with partial rows, columns
// and k, accumulating twice into the same destination.
TEST_F(AmxEmu, DpBf16psMatchesTheScalarModel) {
  std::mt19937 rng(42);
  for (int iter = 0; iter < 600; ++iter) {
    const int rows = 1 + rng() % 16, k = 1 + rng() % 16, n = 1 + rng() % 16;
    std::vector<uint32_t> a(16 * 16), b(16 * 16), a2(16 * 16);
    std::vector<float> c(16 * 16), want(16 * 16);
    const Mix mix = RandomMix(rng);
    for (auto* v : {&a, &b, &a2}) {
      for (auto& x : *v) x = RandomBf16(rng, mix) | static_cast<uint32_t>(RandomBf16(rng, mix)) << 16;
    }
    for (auto& x : c) x = FromBits(RandomFp32(rng, mix));
    want = c;
    const TileConfig cfg = Config({{rows, 4 * n}, {rows, 4 * k}, {k, 4 * n}, {rows, 4 * k}});
    std::vector<float> got = c;
    RunOnEmulator(cfg, got.data(), a.data(), b.data(), a2.data());
    DpBf16psModel(want.data(), 16, a.data(), 16, b.data(), 16, rows, k, n);
    DpBf16psModel(want.data(), 16, a2.data(), 16, b.data(), 16, rows, k, n);
    for (int m = 0; m < 16; ++m) {
      for (int j = 0; j < 16; ++j) {
        // Outside the shape dst is untouched: want still holds c there.
        const uint32_t w = Bits(want[m * 16 + j]);
        ASSERT_EQ(Bits(got[m * 16 + j]), w) << "iteration " << iter << " rows " << rows << " k " << k << " n "
                                            << n << " at " << m << "," << j;
      }
    }
  }
}

// The SDM's order: the even and odd products accumulate apart, from zero,
// and only their sum meets the destination. 2^24 + 1 + 1 differs by order.
TEST_F(AmxEmu, DpBf16psCombinesEvenAndOddOnceAtTheEnd) {
  const TileConfig cfg = Config({{1, 4}, {1, 8}, {2, 4}});
  LoadConfig(&cfg);
  // a = [1, 1 | 1, 1], b = [1, 1 | 1, 1]: t0 = 2, t1 = 2; C = 2^24 + 4.
  alignas(64) uint32_t a[16] = {0x3F803F80u, 0x3F803F80u}, b[32] = {0x3F803F80u};
  b[16] = 0x3F803F80u;
  alignas(64) float c[16] = {0x1p24f};
  Load(0, c, 64);
  Load(1, a, 64);
  Load(2, b, 64);
  DpBf16ps(0, 1, 2);
  Store(0, c, 64);
  // Adding each product into C in turn would leave 2^24 (ties to even).
  EXPECT_EQ(c[0], 0x1p24f + 4.0f);
  // Denormal destination: read as zero.
  c[0] = 1e-40f;
  Load(0, c, 64);
  DpBf16ps(0, 1, 2);
  Store(0, c, 64);
  EXPECT_EQ(c[0], 4.0f);
}

// Which NaN a result carries: the rules probed one lane at a time on a
// Sapphire Rapids core (AMX-BF16); the expected bits are that core's. On a
// CPU with AMX, MatchesTheHardware checks the same on random programs.
TEST_F(AmxEmu, NanPriorityAsOnTheHardware) {
  // One output lane; k BF16 pairs: a[kk] = (odd << 16) | even.
  const auto run = [](uint32_t c, std::vector<uint32_t> a, std::vector<uint32_t> b) {
    const int k = static_cast<int>(a.size());
    const TileConfig cfg = Config({{1, 4}, {1, 4 * k}, {k, 4}});
    LoadConfig(&cfg);
    alignas(64) uint32_t ta[16] = {}, tb[16 * 16] = {}, tc[16] = {c};
    for (int kk = 0; kk < k; ++kk) {
      ta[kk] = a[kk];
      tb[16 * kk] = b[kk];
    }
    Load(0, tc, 64);
    Load(1, ta, 64);
    Load(2, tb, 64);
    DpBf16ps(0, 1, 2);
    Store(0, tc, 64);
    Release();
    return tc[0];
  };
  const uint32_t one = 0x3F80, inf = 0x7F80, ninf = 0xFF80, qa = 0x7FC1, qb = 0x7FC2;
  const uint32_t c_nan = 0x7FC00005u;
  // The destination's NaN before the products' (and an sNaN quieted).
  EXPECT_EQ(run(c_nan, {qa}, {one}), c_nan);
  EXPECT_EQ(run(c_nan, {qa << 16}, {one << 16}), c_nan);
  EXPECT_EQ(run(0x7F800005u, {one}, {one}), c_nan);
  EXPECT_EQ(run(c_nan, {inf}, {0}), c_nan);
  // In a product a's NaN before b's; a signaling BF16 NaN quieted.
  EXPECT_EQ(run(0, {qa}, {qb}), 0x7FC10000u);
  EXPECT_EQ(run(0, {qb}, {qa}), 0x7FC20000u);
  EXPECT_EQ(run(0, {0x7F81}, {one}), 0x7FC10000u);
  EXPECT_EQ(run(0, {0xFFC3}, {one}), 0xFFC30000u);
  // The even sum's NaN before the odd sum's, a default NaN included.
  EXPECT_EQ(run(0, {qa | qb << 16}, {one | one << 16}), 0x7FC10000u);
  EXPECT_EQ(run(0, {qb | qa << 16}, {one | one << 16}), 0x7FC20000u);
  EXPECT_EQ(run(0, {inf | qa << 16}, {0 | one << 16}), 0xFFC00000u);
  // A later k's product NaN before the accumulated one; an accumulated NaN
  // before a later Inf * 0.
  EXPECT_EQ(run(0, {qa, qb}, {one, one}), 0x7FC20000u);
  EXPECT_EQ(run(0, {qa, inf}, {one, 0}), 0x7FC10000u);
  // Inf * 0 and Inf - Inf: the default NaN.
  EXPECT_EQ(run(0, {inf}, {0}), 0xFFC00000u);
  EXPECT_EQ(run(0, {inf | ninf << 16}, {one | one << 16}), 0xFFC00000u);
  EXPECT_EQ(run(0xFF800000u, {inf}, {one}), 0xFFC00000u);
}

// Tile registers are per thread.
TEST_F(AmxEmu, StateIsPerThread) {
  const TileConfig mine = Config({{2, 8}});
  LoadConfig(&mine);
  alignas(64) uint32_t v[32];
  for (uint32_t i = 0; i < 32; ++i) v[i] = i + 1;
  Load(0, v, 64);
  TileConfig other_saw;
  std::thread([&] {
    StoreConfig(&other_saw);
    const TileConfig theirs = Config({{16, 64}});
    LoadConfig(&theirs);
    Zero(0);
  }).join();
  const TileConfig zero;
  EXPECT_EQ(std::memcmp(&other_saw, &zero, sizeof(zero)), 0);
  TileConfig now;
  StoreConfig(&now);
  EXPECT_EQ(std::memcmp(&now, &mine, sizeof(mine)), 0);
  alignas(64) uint32_t out[32] = {};
  Store(0, out, 64);
  EXPECT_EQ(out[1], 2u);
  EXPECT_EQ(out[17], 18u);
  EXPECT_EQ(out[2], 0u);
}

// On a CPU with AMX-BF16: random tile programs (partial rows, columns and
// k; denormals, ±0, ±Inf, NaN, huge and tiny values) through the hardware
// and the emulator give identical bits, unwritten bytes included.
TEST_F(AmxEmu, MatchesTheHardware) {
  if (!GetCpuFeatures().amx_bf16) {
    GTEST_SKIP() << "needs AMX-BF16 (and the OS's tile data permission), which this CPU lacks: "
                 << CpuFeaturesString();
  }
  std::mt19937 rng(7);
  for (int iter = 0; iter < 3000; ++iter) {
    const int rows = 1 + rng() % 16, k = 1 + rng() % 16, n = 1 + rng() % 16;
    alignas(64) uint32_t a[256], b[256], a2[256];
    alignas(64) float c[256];
    const Mix mix = RandomMix(rng);
    for (auto* v : {a, b, a2}) {
      for (int i = 0; i < 256; ++i) v[i] = RandomBf16(rng, mix) | static_cast<uint32_t>(RandomBf16(rng, mix)) << 16;
    }
    for (float& x : c) x = FromBits(RandomFp32(rng, mix));
    alignas(64) float hw[256], emu[256];
    std::memcpy(hw, c, sizeof(c));
    std::memcpy(emu, c, sizeof(c));
    const TileConfig cfg = Config({{rows, 4 * n}, {rows, 4 * k}, {k, 4 * n}, {rows, 4 * k}});
    RunOnHardware(cfg, hw, a, b, a2);
    RunOnEmulator(cfg, emu, a, b, a2);
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(Bits(emu[i]), Bits(hw[i]))
          << "iteration " << iter << " rows " << rows << " k " << k << " n " << n << " at " << i / 16 << ","
          << i % 16 << ": emulator " << emu[i] << ", hardware " << hw[i];
    }
  }
}

#else

TEST(AmxEmu, X86Only) { GTEST_SKIP() << "AMX is x86 only"; }

#endif

}  // namespace
}  // namespace amx_emu
}  // namespace synops
