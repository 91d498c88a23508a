#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "bf16/bf16.h"
#include "bf16/bf16_kernels.h"
#include "gtest/gtest.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using ::synops::testing::GuardedBuffer;
using ::synops::testing::KernelNames;
using ::synops::testing::TailSizes;

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

// An oracle written independently of the bit formula: picks the nearer of the
// two BF16 neighbours by distance in double, ties to the even one.
uint16_t OracleFp32ToBf16(uint32_t u) {
  const uint32_t sign = u & 0x80000000u;
  const uint32_t mag = u & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // NaN
  const uint32_t t = mag >> 16;
  if ((mag & 0xFFFFu) == 0) return static_cast<uint16_t>(u >> 16);  // exactly representable
  const double x = FromBits(mag);
  const double lo = FromBits(t << 16);
  const double hi = (t + 1 == 0x7F80u) ? std::ldexp(1.0, 128) : FromBits((t + 1) << 16);
  uint32_t pick;
  if (x - lo < hi - x) {
    pick = t;
  } else if (hi - x < x - lo) {
    pick = t + 1;
  } else {
    pick = (t & 1) ? t + 1 : t;
  }
  return static_cast<uint16_t>((sign >> 16) | pick);
}

TEST(Bf16Scalar, KnownValues) {
  struct Case {
    uint32_t in;
    uint16_t out;
  } cases[] = {
      {0x3F800000u, 0x3F80},  // 1.0
      {0x3F808000u, 0x3F80},  // tie, even stays
      {0x3F818000u, 0x3F82},  // tie, odd rounds up
      {0x3F808001u, 0x3F81},  // above the tie
      {0x80000000u, 0x8000},  // -0
      {0x7F7FFFFFu, 0x7F80},  // FLT_MAX overflows to +Inf
      {0xFF7FFFFFu, 0xFF80},  // -FLT_MAX to -Inf
      {0x7F800000u, 0x7F80},  // +Inf
      {0x7FC00001u, 0x7FC0},  // quiet NaN
      {0x7F800001u, 0x7FC0},  // signalling NaN is quieted
      {0xFF812345u, 0xFFC1},  // sign and top payload kept
      {0x00008000u, 0x0000},  // denormal tie to even (0)
      {0x00018000u, 0x0002},  // denormal tie to even (2)
      {0x00000001u, 0x0000},  // smallest denormal
      {0x007FFFFFu, 0x0080},  // largest denormal rounds up to the smallest normal
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Fp32ToBf16(FromBits(c.in)), c.out) << std::hex << c.in;
    EXPECT_EQ(OracleFp32ToBf16(c.in), c.out) << std::hex << c.in;
  }
}

// ---- Exhaustive FP32 -> BF16: every kernel, all 2^32 inputs (natively). ----

constexpr uint32_t kChunks = 16;           // 2^28 inputs each
constexpr uint32_t kBatch = 1u << 16;      // inputs per kernel call
constexpr uint32_t kBatchesPerChunk = (1u << 28) / kBatch;

bool UnderQemu() { return std::getenv("SYNOPS_UNDER_QEMU") != nullptr; }

class Fp32ToBf16Exhaustive
    : public ::testing::TestWithParam<std::tuple<std::string, uint32_t>> {};

TEST_P(Fp32ToBf16Exhaustive, BitExact) {
  const auto& [name, chunk] = GetParam();
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Fp32ToBf16Kernels(), name);
  const bool is_ref = kernel->isa == Isa::kRef;
  // Under qemu: a strided sample of 1/16 of the batches (2^28 inputs per
  // kernel), rotating the offset so every low-16-bit pattern is covered.
  const bool strided = UnderQemu();
  std::vector<float> in(kBatch);
  std::vector<uint16_t> out(kBatch), want(kBatch);
  uint64_t checked = 0;
  for (uint32_t b = chunk * kBatchesPerChunk; b < (chunk + 1) * kBatchesPerChunk; ++b) {
    if (strided && (b % 16) != ((b / 16) % 16)) continue;
    const uint32_t base = b * kBatch;
    for (uint32_t i = 0; i < kBatch; ++i) in[i] = FromBits(base + i);
    kernel->fn(in.data(), kBatch, out.data());
    if (is_ref) {
      for (uint32_t i = 0; i < kBatch; ++i) want[i] = OracleFp32ToBf16(base + i);
    } else {
      bf16_internal::Fp32ToBf16Ref(in.data(), kBatch, want.data());
    }
    if (std::memcmp(out.data(), want.data(), kBatch * sizeof(uint16_t)) != 0) {
      for (uint32_t i = 0; i < kBatch; ++i) {
        ASSERT_EQ(out[i], want[i]) << name << " input 0x" << std::hex << base + i;
      }
    }
    checked += kBatch;
  }
  EXPECT_EQ(checked, strided ? (1u << 24) : (1u << 28));
}

std::vector<std::tuple<std::string, uint32_t>> ExhaustiveParams() {
  std::vector<std::tuple<std::string, uint32_t>> params;
  for (const std::string& name : KernelNames(Fp32ToBf16Kernels())) {
    for (uint32_t c = 0; c < kChunks; ++c) params.emplace_back(name, c);
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(
    AllInputs, Fp32ToBf16Exhaustive, ::testing::ValuesIn(ExhaustiveParams()),
    [](const ::testing::TestParamInfo<std::tuple<std::string, uint32_t>>& info) {
      return std::get<0>(info.param) + "_chunk" + std::to_string(std::get<1>(info.param));
    });

// ---- Per-kernel tests: tails, guards, BF16 -> FP32 exhaustively. ----

class Fp32ToBf16Kernel : public ::testing::TestWithParam<std::string> {};

TEST_P(Fp32ToBf16Kernel, TailsAndGuards) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Fp32ToBf16Kernels(), GetParam());
  for (size_t n : TailSizes()) {
    std::vector<float> src = testing::RandomFloats(n, -1e4f, 1e4f, static_cast<uint32_t>(n));
    for (size_t i = 0; i < n; i += 7) src[i] = FromBits(0x3F808000u + (i % 2) * 0x10000u);  // ties
    if (n > 3) src[3] = std::numeric_limits<float>::quiet_NaN();
    GuardedBuffer<uint16_t> dst(n);
    kernel->fn(src.data(), n, dst.data());
    ASSERT_TRUE(dst.GuardsIntact()) << "n=" << n;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(dst.data()[i], Fp32ToBf16(src[i])) << "n=" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Fp32ToBf16Kernel,
                         ::testing::ValuesIn(KernelNames(Fp32ToBf16Kernels())),
                         testing::KernelNamePrinter());

class Bf16ToFp32Kernel : public ::testing::TestWithParam<std::string> {};

TEST_P(Bf16ToFp32Kernel, AllInputsAndTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Bf16ToFp32Kernels(), GetParam());
  std::vector<uint16_t> all(1 << 16);
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = static_cast<uint16_t>(i);
  std::vector<float> out(all.size());
  kernel->fn(all.data(), all.size(), out.data());
  for (uint32_t i = 0; i < all.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &out[i], sizeof(bits));
    ASSERT_EQ(bits, i << 16) << std::hex << i;
  }
  for (size_t n : TailSizes()) {
    GuardedBuffer<float> dst(n);
    kernel->fn(all.data() + 1000, n, dst.data());
    ASSERT_TRUE(dst.GuardsIntact()) << "n=" << n;
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(dst.data()[i], Bf16ToFp32(all[1000 + i]));
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Bf16ToFp32Kernel,
                         ::testing::ValuesIn(KernelNames(Bf16ToFp32Kernels())),
                         testing::KernelNamePrinter());

// ---- Packings. ----

// SPEC.md §2 formula, written out independently of the kernels.
std::vector<uint8_t> ExpectedTranspose(const std::vector<uint8_t>& in, size_t height, size_t width,
                                       size_t e, size_t w) {
  const size_t blocks = (width + w - 1) / w;
  std::vector<uint8_t> out(blocks * height * w * e, 0);
  for (size_t y = 0; y < height; ++y) {
    for (size_t x = 0; x < width; ++x) {
      const size_t at = ((x / w) * (height * w) + y * w + x % w) * e;
      std::memcpy(&out[at], &in[(y * width + x) * e], e);
    }
  }
  return out;
}

class Transpose1xWKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(Transpose1xWKernel, AclGridAndTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Transpose1xWKernels(), GetParam());
  std::vector<std::pair<size_t, size_t>> shapes;  // (height, width)
  for (size_t h = 8; h <= 13; ++h) {
    for (size_t wd = 7; wd <= 13; ++wd) shapes.emplace_back(h, wd);
  }
  for (size_t wd = 1; wd < 32; ++wd) shapes.emplace_back(3, wd);  // tails smaller than W
  shapes.emplace_back(1, 1);
  shapes.emplace_back(0, 5);
  shapes.emplace_back(5, 0);
  shapes.emplace_back(17, 100);
  for (size_t e : {1, 2, 4}) {
    for (size_t w : {16 / e, size_t{1}, size_t{3}, 32 / e, 64 / e}) {
      for (auto [h, wd] : shapes) {
        std::vector<uint8_t> in(h * wd * e);
        for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 131 + 7);
        const std::vector<uint8_t> want = ExpectedTranspose(in, h, wd, e, w);
        ASSERT_EQ(want.size(), Transpose1xWSize(h, wd, e, w));
        GuardedBuffer<uint8_t> out(want.size());
        kernel->fn(in.data(), h, wd, e, w, out.data());
        ASSERT_TRUE(out.GuardsIntact());
        ASSERT_EQ(out.ToVector(), want) << "e=" << e << " w=" << w << " h=" << h << " width=" << wd;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Transpose1xWKernel,
                         ::testing::ValuesIn(KernelNames(Transpose1xWKernels())),
                         testing::KernelNamePrinter());

std::vector<uint16_t> ExpectedPairs(const std::vector<uint16_t>& in, size_t k, size_t n,
                                    size_t w) {
  const size_t blocks = (n + w - 1) / w, pairs = (k + 1) / 2;
  std::vector<uint16_t> out(blocks * pairs * w * 2, 0);
  for (size_t r = 0; r < k; ++r) {
    for (size_t c = 0; c < n; ++c) {
      out[(((c / w) * pairs + r / 2) * w + c % w) * 2 + r % 2] = in[r * n + c];
    }
  }
  return out;
}

class PackPairInterleavedKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(PackPairInterleavedKernel, GridAndTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(PackPairInterleavedKernels(), GetParam());
  for (size_t w : {4, 8, 16, 32, 5}) {
    for (size_t k = 0; k <= 13; ++k) {
      for (size_t n : {1, 3, 7, 8, 9, 12, 13, 16, 17, 31, 33, 64}) {
        std::vector<uint16_t> in(k * n);
        for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint16_t>(i * 2654435761u >> 7);
        const std::vector<uint16_t> want = ExpectedPairs(in, k, n, w);
        ASSERT_EQ(want.size(), PackPairInterleavedSize(k, n, w));
        GuardedBuffer<uint16_t> out(want.size());
        kernel->fn(in.data(), k, n, w, out.data());
        ASSERT_TRUE(out.GuardsIntact());
        ASSERT_EQ(out.ToVector(), want) << "k=" << k << " n=" << n << " w=" << w;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, PackPairInterleavedKernel,
                         ::testing::ValuesIn(KernelNames(PackPairInterleavedKernels())),
                         testing::KernelNamePrinter());

// ---- Public API: validation, dispatch. ----

TEST(Bf16Api, ConvertsWithBestKernel) {
  std::vector<float> src = testing::RandomFloats(1000, -3, 3, 1);
  std::vector<uint16_t> h(1000);
  ASSERT_TRUE(Fp32ToBf16(src.data(), src.size(), h.data()).ok());
  std::vector<float> back(1000);
  ASSERT_TRUE(Bf16ToFp32(h.data(), h.size(), back.data()).ok());
  for (size_t i = 0; i < src.size(); ++i) {
    ASSERT_EQ(h[i], Fp32ToBf16(src[i]));
    ASSERT_EQ(back[i], Bf16ToFp32(h[i]));
  }
  EXPECT_TRUE(Fp32ToBf16(nullptr, 0, nullptr).ok());
}

TEST(Bf16Api, RejectsBadInputAndWritesNothing) {
  std::vector<float> src(64, 1.0f);
  GuardedBuffer<uint16_t> dst(64);
  EXPECT_EQ(Fp32ToBf16(nullptr, 64, dst.data()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Fp32ToBf16(src.data(), 64, nullptr).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Fp32ToBf16(src.data(), size_t{1} << 62, dst.data()).code(),
            absl::StatusCode::kInvalidArgument);
  // dst inside src.
  EXPECT_EQ(Fp32ToBf16(src.data(), 64, reinterpret_cast<uint16_t*>(src.data() + 8)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(dst.Untouched());

  GuardedBuffer<float> fdst(64);
  std::vector<uint16_t> hsrc(64, 0x3F80);
  EXPECT_EQ(Bf16ToFp32(nullptr, 64, fdst.data()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Bf16ToFp32(hsrc.data(), 64, nullptr).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(fdst.Untouched());

  std::vector<uint8_t> in(64);
  GuardedBuffer<uint8_t> out(256);
  EXPECT_EQ(Transpose1xW(in.data(), 4, 4, 3, 0, out.data()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Transpose1xW(nullptr, 4, 4, 4, 0, out.data()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Transpose1xW(in.data(), 4, 4, 4, 0, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Transpose1xW(in.data(), 4, 4, 4, 0, in.data() + 4).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Transpose1xW(in.data(), size_t{1} << 40, size_t{1} << 40, 4, 0, out.data()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Transpose1xW(in.data(), 1, SIZE_MAX, 1, 0, out.data()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Transpose1xWSize(4, 4, 3, 0), 0u);
  EXPECT_TRUE(out.Untouched());
  EXPECT_TRUE(Transpose1xW(in.data(), 4, 4, 4, 0, out.data()).ok());  // 4x4 FP32, W = 4
  EXPECT_TRUE(out.GuardsIntact());

  std::vector<uint16_t> m(64);
  GuardedBuffer<uint16_t> packed(256);
  EXPECT_EQ(PackPairInterleaved(m.data(), 4, 4, 0, packed.data()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PackPairInterleaved(nullptr, 4, 4, 4, packed.data()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PackPairInterleaved(m.data(), 4, 4, 4, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PackPairInterleaved(m.data(), 4, 4, 4, m.data() + 2).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PackPairInterleaved(m.data(), 4, SIZE_MAX - 1, 4, packed.data()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(packed.Untouched());
}

TEST(Bf16Api, MaxIsaCap) {
  testing::ExpectCapSelects(Fp32ToBf16Kernels(), {Isa::kAvx512Bf16, Isa::kNeonBf16});
  testing::ExpectCapSelects(Bf16ToFp32Kernels());
  testing::ExpectCapSelects(Transpose1xWKernels());
  testing::ExpectCapSelects(PackPairInterleavedKernels());
}

}  // namespace
}  // namespace synops
