#include "ops/channel_sum/channel_sum.h"

#include <cmath>
#include <string>
#include <vector>

#include "bf16/bf16.h"
#include "core/cpu.h"
#include "gtest/gtest.h"
#include "ops/channel_sum/channel_sum_check.h"
#include "ops/channel_sum/channel_sum_kernels.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using ::synops::testing::GuardedBuffer;

size_t At(TensorFormat f, size_t c, size_t s, size_t channels, size_t spatial) {
  return f == TensorFormat::kNchw ? c * spatial + s : s * channels + c;
}

// Up to 300: NHWC takes up to four blocks of 2 * lanes channels at a time
// (128 with AVX-512), then two, then one, then the rest.
const size_t kChannels[] = {1,  2,  3,  4,  7,  8,  9,   15,  16,  17,  31,
                            32, 33, 63, 64, 65, 100, 128, 129, 200, 255, 300};
// NCHW rows below 1024 positions are summed 16 (AVX-512) or 8 (AVX2) at a time;
// 18, 49 and 50 end in tails of 1 or 2 elements of the AVX2 and SSE4.1 loads
// (gathered across rows).
const size_t kSpatial[] = {0,  1,  2,  3,  7,  8,  9,  15,  16,  17,   18,   31,
                           32, 33, 49, 50, 63, 64, 65, 127, 129, 1000, 1023, 1024};
const TensorFormat kFormats[] = {TensorFormat::kNchw, TensorFormat::kNhwc};

class ChannelSumKernel : public ::testing::TestWithParam<std::string> {};

// Every kernel vs the reference at the SPEC sum bound, over every tail.
TEST_P(ChannelSumKernel, MatchesReferenceOnAllTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(ChannelSum16bKernels(), GetParam());
  for (TensorFormat f : kFormats) {
    for (size_t channels : kChannels) {
      for (size_t spatial : kSpatial) {
        const uint32_t seed = static_cast<uint32_t>(channels * 1000 + spatial);
        const auto src = testing::RandomBf16(channels * spatial, -100.0f, 100.0f, seed);
        std::vector<float> want(channels);
        channel_sum_internal::ChannelSum16bRef(src.data(), channels, spatial, f, want.data());
        GuardedBuffer<float> got(channels);
        kernel->fn(src.data(), channels, spatial, f, got.data());
        ASSERT_TRUE(got.GuardsIntact()) << FormatName(f) << " c=" << channels << " s=" << spatial;
        const std::vector<double> bound =
            channel_sum_check::Bounds(src.data(), channels, spatial, f);
        const auto mismatch = testing::CompareWithin(got.span(), want, bound);
        ASSERT_FALSE(mismatch) << FormatName(f) << " c=" << channels << " s=" << spatial << ": "
                               << mismatch->ToString();
      }
    }
  }
}

// Integer-valued inputs: every partial sum is exact, so every kernel is exact.
TEST_P(ChannelSumKernel, ExactOnIntegers) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(ChannelSum16bKernels(), GetParam());
  for (TensorFormat f : kFormats) {
    for (size_t spatial : {3000, 49}) {
      const size_t channels = 37;
      const auto ints = testing::RandomIntFloats(channels * spatial, -64, 64, 7);
      std::vector<uint16_t> src(ints.size());
      for (size_t i = 0; i < ints.size(); ++i) src[i] = Fp32ToBf16(ints[i]);
      std::vector<double> exact(channels, 0.0);
      for (size_t c = 0; c < channels; ++c) {
        for (size_t s = 0; s < spatial; ++s) exact[c] += ints[At(f, c, s, channels, spatial)];
      }
      std::vector<float> got(channels);
      kernel->fn(src.data(), channels, spatial, f, got.data());
      for (size_t c = 0; c < channels; ++c) {
        ASSERT_EQ(got[c], exact[c]) << FormatName(f) << " s=" << spatial << " c=" << c;
      }
    }
  }
}

// Extreme magnitudes: large values that cancel, tiny denormal-range BF16
// values; spatial 49 and 7 are short NCHW rows, 16 at a time on AVX-512
// (19 channels = 16 + 3).
TEST_P(ChannelSumKernel, EdgeValues) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(ChannelSum16bKernels(), GetParam());
  for (TensorFormat f : kFormats) {
    for (size_t spatial : {77, 49, 7}) {
      const size_t channels = 19;
      std::vector<uint16_t> src(channels * spatial);
      for (size_t i = 0; i < src.size(); ++i) {
        const float mags[] = {1e30f, -1e30f, 1e-39f, -0.0f, 3.0f, 1e-20f};
        src[i] = Fp32ToBf16(mags[(i * 7) % 6]);
      }
      std::vector<float> want(channels), got(channels);
      channel_sum_internal::ChannelSum16bRef(src.data(), channels, spatial, f, want.data());
      kernel->fn(src.data(), channels, spatial, f, got.data());
      const std::vector<double> bound = channel_sum_check::Bounds(src.data(), channels, spatial, f);
      const auto mismatch = testing::CompareWithin(got, want, bound);
      ASSERT_FALSE(mismatch) << FormatName(f) << " s=" << spatial << ": " << mismatch->ToString();
    }
  }
}

// The cache sizes choose the NHWC row chunks (down to 16 rows) or rows in
// memory order (beyond half the L2; with 8- and 16-lane vectors one at a
// time beyond the last level, here the 4 KiB L2, for rows of 8 vectors or
// more: 200 and 300 channels, and 64 on AVX2): every choice within the
// bound.
TEST_P(ChannelSumKernel, AnyCacheSizesWithinBound) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(ChannelSum16bKernels(), GetParam());
  const CacheSizes tiny = {size_t{1} << 10, size_t{4} << 10, 0};
  const CacheSizes huge = {size_t{1} << 30, size_t{1} << 30, 0};
  for (const CacheSizes* sizes : {&tiny, &huge}) {
    SetCacheSizesForTesting(sizes);
    for (TensorFormat f : kFormats) {
      for (size_t channels : {64, 200, 300}) {
        for (size_t spatial : {1, 49, 130, 1000}) {
          const auto src = testing::RandomBf16(channels * spatial, -100.0f, 100.0f, 11);
          std::vector<float> want(channels);
          channel_sum_internal::ChannelSum16bRef(src.data(), channels, spatial, f, want.data());
          GuardedBuffer<float> got(channels);
          kernel->fn(src.data(), channels, spatial, f, got.data());
          EXPECT_TRUE(got.GuardsIntact());
          const auto mismatch = testing::CompareWithin(
              got.span(), want, channel_sum_check::Bounds(src.data(), channels, spatial, f));
          EXPECT_FALSE(mismatch) << FormatName(f) << " c=" << channels << " s=" << spatial
                                 << " l1d=" << sizes->l1d << ": " << mismatch->ToString();
        }
      }
    }
  }
  SetCacheSizesForTesting(nullptr);
}

INSTANTIATE_TEST_SUITE_P(Kernels, ChannelSumKernel,
                         ::testing::ValuesIn(testing::KernelNames(ChannelSum16bKernels())),
                         testing::KernelNamePrinter());

// The reference against a double-precision oracle, at the SPEC bound.
TEST(ChannelSumRef, MatchesDoubleOracle) {
  for (TensorFormat f : kFormats) {
    const size_t channels = 23, spatial = 4097;
    const auto src = testing::RandomBf16(channels * spatial, -1e3f, 1e3f, 3);
    std::vector<float> got(channels);
    channel_sum_internal::ChannelSum16bRef(src.data(), channels, spatial, f, got.data());
    const std::vector<double> bound = channel_sum_check::Bounds(src.data(), channels, spatial, f);
    for (size_t c = 0; c < channels; ++c) {
      double exact = 0;
      for (size_t s = 0; s < spatial; ++s) exact += Bf16ToFp32(src[At(f, c, s, channels, spatial)]);
      ASSERT_LE(std::fabs(got[c] - exact), bound[c]) << c;
    }
  }
}

TEST(ChannelSumApi, UsesBestKernelAndHandlesZeroSizes) {
  const auto src = testing::RandomBf16(5 * 9, -1, 1, 1);
  std::vector<float> got(5), want(5);
  ASSERT_TRUE(ChannelSum16b(src.data(), 5, 9, TensorFormat::kNhwc, got.data()).ok());
  channel_sum_internal::ChannelSum16bRef(src.data(), 5, 9, TensorFormat::kNhwc, want.data());
  for (int c = 0; c < 5; ++c) EXPECT_NEAR(got[c], want[c], 1e-5);

  GuardedBuffer<float> zeros(4);
  ASSERT_TRUE(ChannelSum16b(nullptr, 4, 0, TensorFormat::kNchw, zeros.data()).ok());
  for (size_t c = 0; c < 4; ++c) EXPECT_EQ(zeros.data()[c], 0.0f);
  EXPECT_TRUE(ChannelSum16b(nullptr, 0, 100, TensorFormat::kNchw, nullptr).ok());
}

TEST(ChannelSumApi, RejectsBadInputAndWritesNothing) {
  std::vector<uint16_t> src(64, 0x3F80);
  GuardedBuffer<float> sum(8);
  const auto kBad = absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(ChannelSum16b(nullptr, 8, 8, TensorFormat::kNchw, sum.data()).code(), kBad);
  EXPECT_EQ(ChannelSum16b(src.data(), 8, 8, TensorFormat::kNchw, nullptr).code(), kBad);
  EXPECT_EQ(ChannelSum16b(src.data(), 8, 8, TensorFormat::kUnknown, sum.data()).code(), kBad);
  EXPECT_EQ(ChannelSum16b(src.data(), 8, 8, static_cast<TensorFormat>(2), sum.data()).code(), kBad);
  EXPECT_EQ(ChannelSum16b(src.data(), size_t{1} << 32, size_t{1} << 32, TensorFormat::kNchw,
                          sum.data()).code(),
            kBad);
  EXPECT_EQ(ChannelSum16b(src.data(), size_t{1} << 62, 1, TensorFormat::kNchw, sum.data()).code(),
            kBad);
  // sum overlapping src.
  EXPECT_EQ(ChannelSum16b(src.data(), 8, 8, TensorFormat::kNchw,
                          reinterpret_cast<float*>(src.data() + 8)).code(),
            kBad);
  EXPECT_TRUE(sum.Untouched());
  const absl::Status s = ChannelSum16b(src.data(), 8, 8, TensorFormat::kUnknown, sum.data());
  EXPECT_NE(s.message().find("format"), absl::string_view::npos) << s;
}

TEST(ChannelSumApi, MaxIsaCap) { testing::ExpectCapSelects(ChannelSum16bKernels()); }

}  // namespace
}  // namespace synops
