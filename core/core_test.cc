#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "core/cpu.h"
#include "core/dispatch.h"
#include "core/status.h"
#include "core/streaming.h"
#include "gtest/gtest.h"

namespace synops {
namespace {

TEST(Status, CheckPointerAllowsNullOnlyForEmpty) {
  EXPECT_TRUE(CheckPointer(nullptr, 0, "src").ok());
  const absl::Status s = CheckPointer(nullptr, 4, "src");
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("src"), absl::string_view::npos) << s;
}

TEST(Status, CheckFormat) {
  EXPECT_TRUE(CheckFormat(TensorFormat::kNchw).ok());
  EXPECT_TRUE(CheckFormat(TensorFormat::kNhwc).ok());
  EXPECT_FALSE(CheckFormat(TensorFormat::kUnknown).ok());
  EXPECT_FALSE(CheckFormat(static_cast<TensorFormat>(2)).ok());
}

TEST(Status, CheckedBytesDetectsOverflow) {
  size_t bytes = 7;
  ASSERT_TRUE(CheckedBytes({3, 5, sizeof(float)}, "x", &bytes).ok());
  EXPECT_EQ(bytes, 60u);
  ASSERT_TRUE(CheckedBytes({0, std::numeric_limits<size_t>::max(), 4}, "x", &bytes).ok());
  EXPECT_EQ(bytes, 0u);
  const size_t big = size_t{1} << 62;
  EXPECT_FALSE(CheckedBytes({big, sizeof(float)}, "x", &bytes).ok());  // elements fit, bytes don't
  EXPECT_FALSE(CheckedBytes({big, 2}, "x", &bytes).ok());              // over PTRDIFF_MAX
  EXPECT_FALSE(CheckedBytes({size_t{1} << 32, size_t{1} << 32}, "x", &bytes).ok());
}

TEST(Status, Overlap) {
  std::vector<char> buf(100);
  char* p = buf.data();
  EXPECT_TRUE(CheckDisjoint(p, 10, "dst", p + 10, 10, "src").ok());
  EXPECT_FALSE(CheckDisjoint(p, 11, "dst", p + 10, 10, "src").ok());
  EXPECT_FALSE(CheckDisjoint(p, 10, "dst", p, 10, "src").ok());
  EXPECT_TRUE(CheckDisjoint(p, 0, "dst", p, 10, "src").ok());
  EXPECT_TRUE(CheckSameOrDisjoint(p, 10, "dst", p, 10, "src").ok());
  EXPECT_FALSE(CheckSameOrDisjoint(p, 10, "dst", p + 1, 10, "src").ok());
  EXPECT_FALSE(CheckSameOrDisjoint(p, 10, "dst", p, 12, "src").ok());
}

TEST(Isa, NamesRoundTrip) {
  for (Isa isa : {Isa::kRef, Isa::kSse41, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Bf16,
                  Isa::kAmxBf16, Isa::kNeon, Isa::kNeonBf16}) {
    ASSERT_EQ(ParseIsa(IsaName(isa)), isa);
  }
  EXPECT_FALSE(ParseIsa("avx1024").has_value());
}

TEST(Cpu, FeaturesAreConsistent) {
  const CpuFeatures& f = GetCpuFeatures();
  std::printf("cpu features: %s\n", CpuFeaturesString().c_str());
  EXPECT_TRUE(CpuSupports(Isa::kRef));
  EXPECT_TRUE(!f.avx512bf16 || (f.avx512f && f.avx512bw));
  EXPECT_TRUE(!f.amx_bf16 || f.amx_tile);
  EXPECT_TRUE(!f.neon_bf16 || f.neon);
#if defined(__x86_64__)
  EXPECT_TRUE(f.sse41) << "every x86-64 CPU this project targets has SSE4.1";
  EXPECT_FALSE(f.neon);
#elif defined(__aarch64__)
  EXPECT_TRUE(f.neon);
  EXPECT_FALSE(f.avx2);
#endif
}

using Fn = int (*)();
int RefFn() { return 0; }
int Sse41Fn() { return 1; }
int Avx512Fn() { return 3; }
int NeonFn() { return 10; }

TEST(Cpu, CacheSizesAreDetected) {
  const CacheSizes c = GetCacheSizes();
  EXPECT_GE(c.l1d, size_t{8} << 10);
  EXPECT_LE(c.l1d, size_t{4} << 20);
  EXPECT_GE(c.l2, c.l1d);
  if (c.l3 != 0) EXPECT_GE(c.l3, c.l2);
#if defined(__x86_64__) && defined(__linux__)
  // CPUID and the kernel's view agree where sysfs has one.
  std::FILE* f = std::fopen("/sys/devices/system/cpu/cpu0/cache/index2/size", "r");
  if (f == nullptr) GTEST_SKIP() << "no sysfs cache information to compare with";
  char buf[32] = {};
  const bool read = std::fgets(buf, sizeof(buf), f) != nullptr;
  std::fclose(f);
  ASSERT_TRUE(read);
  char* end = nullptr;
  size_t kib = std::strtoul(buf, &end, 10);
  if (*end == 'M') kib <<= 10;
  EXPECT_EQ(c.l2, kib << 10) << "sysfs index2: " << buf;
#endif
}

// The extended leaves as an AMD EPYC (Zen 5) guest answered them (its
// 0x8000001D was empty), and an Intel CPU's (0x80000005 reserved, EDX of
// 0x80000006 reserved).
TEST(Cpu, CacheSizesFromExtendedLeaves) {
  const uint32_t ecx5 = 0x300C0140u;  // 48 KiB, 12-way, 1 line per tag, 64-byte lines
  const uint32_t ecx6 = 0x04006140u;  // 1024 KiB, ..., 64-byte lines
  const uint32_t edx6 = 0x0FE09140u;  // 1016 x 512 KiB (the package), ..., 64-byte lines
  const CacheSizes amd = CacheSizesFromExtendedLeaves(ecx5, ecx6, edx6, true);
  EXPECT_EQ(amd.l1d, size_t{48} << 10);
  EXPECT_EQ(amd.l2, size_t{1} << 20);
  EXPECT_EQ(amd.l3, kDefaultCacheSizes.l3);  // at most the default
  // An L3 below the default as it is (4 MiB), none as none.
  EXPECT_EQ(CacheSizesFromExtendedLeaves(ecx5, ecx6, 0x00209140u, true).l3, size_t{4} << 20);
  EXPECT_EQ(CacheSizesFromExtendedLeaves(ecx5, ecx6, 0, true).l3, 0u);
  const CacheSizes intel = CacheSizesFromExtendedLeaves(0, 0x08006040u, edx6, false);
  EXPECT_EQ(intel.l1d, 0u);
  EXPECT_EQ(intel.l2, size_t{2} << 20);
  EXPECT_EQ(intel.l3, 0u);
}

// The thresholds follow the caches: a core with 1 MiB of L2 and one with
// 2 MiB each get their own choice.
TEST(Cpu, StreamingThresholdsFollowTheCaches) {
  const CacheSizes zen5 = {size_t{48} << 10, size_t{1} << 20, size_t{32} << 20, true};
  const CacheSizes spr = {size_t{48} << 10, size_t{2} << 20, size_t{105} << 20, false};
  constexpr size_t kMiB = size_t{1} << 20;
  SetCacheSizesForTesting(&zen5);
  EXPECT_EQ(GetCacheSizes().l2, size_t{1} << 20);
  EXPECT_EQ(RereadStreamingMinBytes(), size_t{512} << 10);
  EXPECT_EQ(StreamingStoreMinBytes(), size_t{8} << 20);
  // A second pass streams beyond half the L2 unless src + dst fit an L3
  // that beats streaming.
  EXPECT_FALSE(SecondPassStreams(kMiB / 4, kMiB / 4));
  EXPECT_FALSE(SecondPassStreams(3 * kMiB, 3 * kMiB));
  EXPECT_FALSE(SecondPassStreams(16 * kMiB, 16 * kMiB));
  EXPECT_TRUE(SecondPassStreams(16 * kMiB, 16 * kMiB + 1));
  SetCacheSizesForTesting(&spr);
  EXPECT_EQ(RereadStreamingMinBytes(), size_t{1} << 20);
  EXPECT_EQ(StreamingStoreMinBytes(), size_t{16} << 20);
  EXPECT_FALSE(SecondPassStreams(kMiB / 2, kMiB / 2));
  EXPECT_TRUE(SecondPassStreams(kMiB, kMiB));
  EXPECT_TRUE(SecondPassStreams(3 * kMiB, 3 * kMiB));
  SetCacheSizesForTesting(nullptr);
  EXPECT_EQ(StreamingStoreMinBytes(), 8 * GetCacheSizes().l2);
}

TEST(Dispatch, TableSortsBestFirstAndHonoursCap) {
  const KernelTable<Fn> table({{"ref", Isa::kRef, RefFn},
                               {"neon", Isa::kNeon, NeonFn},
                               {"sse41", Isa::kSse41, Sse41Fn},
                               {"avx512", Isa::kAvx512, Avx512Fn}});
  ASSERT_EQ(table.all().size(), 4u);
  EXPECT_STREQ(table.all().back().name, "ref");
  EXPECT_EQ(table.Find("sse41")->fn(), 1);
  EXPECT_EQ(table.Find("nope"), nullptr);

  SetMaxIsa(Isa::kRef);
  EXPECT_STREQ(table.Best().name, "ref");
  SetMaxIsa(std::nullopt);
  const char* best = table.Best().name;
  if (CpuSupports(Isa::kAvx512)) {
    EXPECT_STREQ(best, "avx512");
  }
  if (CpuSupports(Isa::kNeon)) {
    EXPECT_STREQ(best, "neon");
  }
  if (CpuSupports(Isa::kAvx512)) {
    SetMaxIsa(Isa::kAvx2);
    EXPECT_STREQ(table.Best().name, "sse41");
    SetMaxIsa(Isa::kNeonBf16);  // a cap for the other architecture: no effect
    EXPECT_STREQ(table.Best().name, "avx512");
  }
  SetMaxIsa(std::nullopt);
}

TEST(Dispatch, AllowedNeverExceedsCpu) {
  SetMaxIsa(std::nullopt);
  for (Isa isa : {Isa::kSse41, Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Bf16, Isa::kAmxBf16,
                  Isa::kNeon, Isa::kNeonBf16}) {
    if (!CpuSupports(isa)) {
      EXPECT_FALSE(IsaAllowed(isa)) << IsaName(isa);
    }
  }
}

}  // namespace
}  // namespace synops
