#include "ops/softmax/softmax.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "bf16/bf16.h"
#include "gtest/gtest.h"
#include "ops/softmax/softmax_check.h"
#include "ops/softmax/softmax_kernels.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using ::synops::testing::GuardedBuffer;

constexpr float kInf = std::numeric_limits<float>::infinity();

struct Shape {
  size_t outer, count, inner;
  size_t size() const { return outer * count * inner; }
  std::string ToString() const {
    return "outer" + std::to_string(outer) + ",count" + std::to_string(count) + ",inner" +
           std::to_string(inner);
  }
};

// Tails of every vector width (count on rows, inner on columns), several
// outer sizes (count 2 and 3 process a vector of rows at a time).
std::vector<Shape> Shapes() {
  std::vector<Shape> shapes;
  for (size_t count : testing::TailSizes()) {
    if (count == 0) continue;
    shapes.push_back({3, count, 1});
  }
  for (size_t count : {1000, 1001, 1023}) shapes.push_back({2, count, 1});
  // AVX-512 takes 16 rows of 17..64 elements at a time (count % 16 < 4: the
  // trailing elements gathered), the remaining rows one by one.
  for (size_t count : {17, 19, 20, 32, 35, 48, 49, 51, 52, 64, 65}) {
    for (size_t outer : {15, 16, 17, 33, 47}) shapes.push_back({outer, count, 1});
  }
  for (size_t count : {1, 2, 3}) {
    for (size_t outer : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 100}) {
      shapes.push_back({outer, count, 1});
    }
  }
  // AVX-512 keeps up to 16 rows of a column block in registers
  // (StridedInRegisters, blocks of two vectors, then one, then a partial
  // one): counts on both sides of that limit.
  for (size_t inner : {2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 63, 64, 65, 100, 129}) {
    for (size_t count : {1, 2, 3, 4, 8, 9, 10, 16, 17, 33}) shapes.push_back({2, count, inner});
  }
  return shapes;
}

std::vector<float> Ref32(const std::vector<float>& src, const Shape& s) {
  std::vector<float> want(src.size());
  softmax_internal::Softmax32fRef(src.data(), s.outer, s.count, s.inner, want.data());
  return want;
}

// FP32 reference of the widened BF16 input (the value BF16 results are
// compared with, SPEC §5).
std::vector<float> Ref16(const std::vector<uint16_t>& src, const Shape& s) {
  std::vector<float> wide(src.size());
  for (size_t i = 0; i < src.size(); ++i) wide[i] = Bf16ToFp32(src[i]);
  return Ref32(wide, s);
}

class Softmax32fKernel : public ::testing::TestWithParam<std::string> {
 protected:
  // Runs the kernel out of place (guarded) and in place; both must be within
  // the SPEC bound of the reference.
  void Check(const Softmax32fFn fn, const std::vector<float>& src, const Shape& s,
             const std::string& what) {
    const std::vector<float> want = Ref32(src, s);
    const std::vector<double> bound = softmax_check::Bounds(want, s.count);
    GuardedBuffer<float> got(src.size());
    fn(src.data(), s.outer, s.count, s.inner, got.data());
    ASSERT_TRUE(got.GuardsIntact()) << what << " " << s.ToString();
    auto mismatch = testing::CompareWithin(got.span(), want, bound);
    ASSERT_FALSE(mismatch) << what << " " << s.ToString() << ": " << mismatch->ToString();
    std::vector<float> in_place = src;
    fn(in_place.data(), s.outer, s.count, s.inner, in_place.data());
    mismatch = testing::CompareWithin(in_place, want, bound);
    ASSERT_FALSE(mismatch) << what << " in place " << s.ToString() << ": "
                           << mismatch->ToString();
  }
};

TEST_P(Softmax32fKernel, MatchesReferenceOnAllTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Softmax32fKernels(), GetParam());
  uint32_t seed = 1;
  for (const Shape& s : Shapes()) {
    const auto src = testing::RandomFloats(s.size(), -10.0f, 10.0f, seed++);
    Check(kernel->fn, src, s, "uniform");
    if (HasFatalFailure()) return;
  }
}

TEST_P(Softmax32fKernel, WideRangesAndDenormalResults) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Softmax32fKernels(), GetParam());
  // Differences down to -200: exps in the denormal range and below.
  for (const Shape& s : {Shape{5, 2, 1}, Shape{7, 3, 1}, Shape{4, 37, 1}, Shape{33, 49, 1},
                         Shape{17, 51, 1}, Shape{3, 300, 1},
                         Shape{3, 7, 19}, Shape{2, 5, 64}}) {
    for (float range : {50.0f, 100.0f, 200.0f, 1e4f}) {
      const auto src = testing::RandomFloats(s.size(), -range, range, 11);
      Check(kernel->fn, src, s, "range " + std::to_string(range));
      if (HasFatalFailure()) return;
    }
  }
}

// The original library's extreme cases and friends: finite probabilities.
TEST_P(Softmax32fKernel, ExtremeValues) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Softmax32fKernels(), GetParam());
  const std::vector<std::vector<float>> rows = {
      {-1000.0f, 0.0f},
      {0.0f, -1000.0f},
      {0.0f, 80.0f},
      {80.0f, 0.0f, -1000.0f},
      {-87.0f, 0.0f, -88.0f, -100.0f, -103.0f, -104.0f, -105.0f, -149.0f},
      {3e38f, -3e38f, 0.0f},
      {-3e38f, -3e38f, -3e38f, -1e38f},
      {1e-40f, -1e-40f, 0.0f, 1e-45f},
      {-kInf, 0.0f},
      {1.0f, -kInf, 2.0f},
      {-kInf, -kInf, -kInf, 5.0f, -kInf},
  };
  // Rows of 49 (16 rows at a time on AVX-512): the maximum in the trailing
  // element or in a full vector, next to -1000 and -Inf.
  std::vector<std::vector<float>> long_rows(2, std::vector<float>(49, -1000.0f));
  long_rows[0][48] = 0.0f;
  long_rows[1][3] = 5.0f;
  long_rows[1][48] = -kInf;
  for (const auto& row : long_rows) {
    std::vector<float> src;
    for (size_t o = 0; o < 17; ++o) src.insert(src.end(), row.begin(), row.end());
    Check(kernel->fn, src, Shape{17, row.size(), 1}, "extreme");
    if (HasFatalFailure()) return;
  }
  for (const auto& row : rows) {
    // The row as inner == 1 (repeated over outer), and transposed as a
    // count x inner slab with every column equal to the row.
    for (size_t outer : {1, 17}) {
      std::vector<float> src;
      for (size_t o = 0; o < outer; ++o) src.insert(src.end(), row.begin(), row.end());
      Check(kernel->fn, src, Shape{outer, row.size(), 1}, "extreme");
      if (HasFatalFailure()) return;
    }
    for (size_t inner : {3, 16, 21}) {
      std::vector<float> src;
      for (float v : row) src.insert(src.end(), inner, v);
      Check(kernel->fn, src, Shape{2 / 2, row.size(), inner}, "extreme strided");
      if (HasFatalFailure()) return;
    }
  }
  // [-1000, 0] gives exactly [0, 1]; [0, 80] gives [e^-80, 1 - tiny].
  std::vector<float> got(2);
  const float a[] = {-1000.0f, 0.0f};
  kernel->fn(a, 1, 2, 1, got.data());
  EXPECT_EQ(got[0], 0.0f);
  EXPECT_EQ(got[1], 1.0f);
  const float b[] = {0.0f, 80.0f};
  kernel->fn(b, 1, 2, 1, got.data());
  EXPECT_TRUE(std::isfinite(got[0]) && got[0] > 0.0f);
  EXPECT_NEAR(got[0], std::exp(-80.0), 1e-6 * std::exp(-80.0));
  EXPECT_EQ(got[1], 1.0f);
}

TEST_P(Softmax32fKernel, IdenticalValuesGiveUniformRows) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Softmax32fKernels(), GetParam());
  for (const Shape& s : {Shape{9, 2, 1}, Shape{9, 3, 1}, Shape{5, 4, 1}, Shape{3, 49, 1},
                         Shape{2, 1000, 1}, Shape{2, 10, 37}}) {
    for (float v : {0.0f, -5.5f, 1e30f, -1e30f}) {
      const std::vector<float> src(s.size(), v);
      Check(kernel->fn, src, s, "identical " + std::to_string(v));
      if (HasFatalFailure()) return;
      std::vector<float> got(s.size());
      kernel->fn(src.data(), s.outer, s.count, s.inner, got.data());
      const double p = 1.0 / s.count;
      for (float g : got) ASSERT_NEAR(g, p, testing::SoftmaxBound(s.count, p)) << s.ToString();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Softmax32fKernel,
                         ::testing::ValuesIn(testing::KernelNames(Softmax32fKernels())),
                         testing::KernelNamePrinter());

class Softmax16bKernel : public ::testing::TestWithParam<std::string> {
 protected:
  void Check(const Softmax16bFn fn, const std::vector<uint16_t>& src, const Shape& s,
             const std::string& what) {
    const std::vector<float> want = Ref16(src, s);
    GuardedBuffer<uint16_t> got(src.size());
    fn(src.data(), s.outer, s.count, s.inner, got.data());
    ASSERT_TRUE(got.GuardsIntact()) << what << " " << s.ToString();
    std::vector<uint16_t> in_place = src;
    fn(in_place.data(), s.outer, s.count, s.inner, in_place.data());
    const auto m = testing::CompareWithinOneBf16Ulp(got.span(), want);
    ASSERT_FALSE(m) << what << " " << s.ToString() << ": " << m->ToString();
    ASSERT_FALSE(testing::CompareBitExact(in_place, got.ToVector()))
        << what << " in place " << s.ToString();
  }
};

TEST_P(Softmax16bKernel, MatchesReferenceOnAllTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Softmax16bKernels(), GetParam());
  uint32_t seed = 1;
  for (const Shape& s : Shapes()) {
    const auto src = testing::RandomBf16(s.size(), -10.0f, 10.0f, seed++);
    Check(kernel->fn, src, s, "uniform");
    if (HasFatalFailure()) return;
  }
}

// SPEC allows one BF16 ULP; the kernels' shortcuts for BF16 (coarse exp,
// rcp14) stay 30x below half an ULP, so almost every result is the FP32
// result rounded (a shortcut near half an ULP would differ in ~1/2 of them).
TEST_P(Softmax16bKernel, AlmostAlwaysTheRoundedFp32Result) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Softmax16bKernels(), GetParam());
  size_t total = 0, differ = 0;
  uint32_t seed = 100;
  for (const Shape& s : {Shape{4096, 2, 1}, Shape{4096, 3, 1}, Shape{512, 49, 1},
                         Shape{8, 1000, 1}, Shape{16, 10, 100}, Shape{4, 8, 333}}) {
    const auto src = testing::RandomBf16(s.size(), -8.0f, 8.0f, seed++);
    const std::vector<float> want = Ref16(src, s);
    std::vector<uint16_t> got(src.size());
    kernel->fn(src.data(), s.outer, s.count, s.inner, got.data());
    for (size_t i = 0; i < got.size(); ++i) differ += got[i] != Fp32ToBf16(want[i]);
    total += got.size();
  }
  EXPECT_LE(differ, total / 100) << differ << " of " << total << " differ";
}

TEST_P(Softmax16bKernel, ExtremeValues) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(Softmax16bKernels(), GetParam());
  const std::vector<std::vector<float>> rows = {
      {-1000.0f, 0.0f},       {0.0f, 80.0f},         {80.0f, 0.0f, -1000.0f},
      {-kInf, 0.0f},          {1.0f, -kInf, 2.0f},   {-87.0f, 0.0f, -88.0f, -100.0f, -104.0f},
      {7.0f, 7.0f, 7.0f, 7.0f, 7.0f},
  };
  for (const auto& row : rows) {
    for (size_t outer : {1, 19}) {
      std::vector<uint16_t> src;
      for (size_t o = 0; o < outer; ++o) {
        for (float v : row) src.push_back(Fp32ToBf16(v));
      }
      Check(kernel->fn, src, Shape{outer, row.size(), 1}, "extreme");
      if (HasFatalFailure()) return;
    }
    std::vector<uint16_t> src;
    for (float v : row) src.insert(src.end(), 21, Fp32ToBf16(v));
    Check(kernel->fn, src, Shape{1, row.size(), 21}, "extreme strided");
    if (HasFatalFailure()) return;
  }
  const uint16_t a[] = {Fp32ToBf16(-1000.0f), 0};
  uint16_t got[2];
  kernel->fn(a, 1, 2, 1, got);
  EXPECT_EQ(got[0], 0);
  EXPECT_EQ(got[1], 0x3F80);
}

INSTANTIATE_TEST_SUITE_P(Kernels, Softmax16bKernel,
                         ::testing::ValuesIn(testing::KernelNames(Softmax16bKernels())),
                         testing::KernelNamePrinter());

// The reference against an independent long-double evaluation of the SPEC
// formula on the FP32 differences.
TEST(SoftmaxRef, MatchesLongDoubleOracle) {
  const Shape s{3, 257, 5};
  const auto src = testing::RandomFloats(s.size(), -30.0f, 30.0f, 5);
  const auto got = Ref32(src, s);
  for (size_t o = 0; o < s.outer; ++o) {
    for (size_t i = 0; i < s.inner; ++i) {
      const size_t base = o * s.count * s.inner + i;
      float max = -kInf;
      for (size_t c = 0; c < s.count; ++c) max = std::max(max, src[base + c * s.inner]);
      long double sum = 0;
      for (size_t c = 0; c < s.count; ++c) sum += std::exp((long double)(src[base + c * s.inner] - max));
      for (size_t c = 0; c < s.count; ++c) {
        const long double p = std::exp((long double)(src[base + c * s.inner] - max)) / sum;
        const size_t j = base + c * s.inner;
        ASSERT_LE(std::fabs((long double)got[j] - p), 0x1p-24 * p + 0x1p-150) << j;
      }
    }
  }
}

TEST(SoftmaxApi, UsesBestKernelAndHandlesZeroSizes) {
  const Shape s{4, 13, 3};
  const auto src = testing::RandomFloats(s.size(), -4, 4, 9);
  std::vector<float> got(s.size());
  ASSERT_TRUE(Softmax32f(src.data(), s.outer, s.count, s.inner, got.data()).ok());
  const auto want = Ref32(src, s);
  EXPECT_FALSE(testing::CompareWithin(got, want, softmax_check::Bounds(want, s.count)));

  const auto src16 = testing::RandomBf16(s.size(), -4, 4, 9);
  std::vector<uint16_t> got16(s.size());
  ASSERT_TRUE(Softmax16b(src16.data(), s.outer, s.count, s.inner, got16.data()).ok());
  const auto want16 = Ref16(src16, s);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_TRUE(testing::WithinOneBf16Ulp(got16[i], want16[i]));

  EXPECT_TRUE(Softmax32f(nullptr, 0, 10, 10, nullptr).ok());
  EXPECT_TRUE(Softmax32f(nullptr, 10, 0, 10, nullptr).ok());
  EXPECT_TRUE(Softmax32f(nullptr, 10, 10, 0, nullptr).ok());
  EXPECT_TRUE(Softmax16b(nullptr, 0, 10, 10, nullptr).ok());
  GuardedBuffer<float> untouched(4);
  EXPECT_TRUE(Softmax32f(src.data(), 4, 0, 1, untouched.data()).ok());
  EXPECT_TRUE(untouched.Untouched());
}

TEST(SoftmaxApi, RejectsBadInputAndWritesNothing) {
  const auto kBad = absl::StatusCode::kInvalidArgument;
  std::vector<float> src(64, 1.0f);
  GuardedBuffer<float> dst(64);
  EXPECT_EQ(Softmax32f(nullptr, 4, 4, 4, dst.data()).code(), kBad);
  EXPECT_EQ(Softmax32f(src.data(), 4, 4, 4, nullptr).code(), kBad);
  // Element count fits size_t but bytes do not; element count overflows.
  EXPECT_EQ(Softmax32f(src.data(), size_t{1} << 62, 1, 1, dst.data()).code(), kBad);
  EXPECT_EQ(Softmax32f(src.data(), size_t{1} << 32, size_t{1} << 32, 1, dst.data()).code(), kBad);
  EXPECT_EQ(Softmax32f(src.data(), 1, size_t{1} << 40, size_t{1} << 40, dst.data()).code(), kBad);
  EXPECT_TRUE(dst.Untouched());
  // Partial overlap, either direction.
  std::vector<float> buf(80, 1.0f);
  EXPECT_EQ(Softmax32f(buf.data(), 4, 4, 4, buf.data() + 1).code(), kBad);
  EXPECT_EQ(Softmax32f(buf.data() + 8, 4, 4, 4, buf.data()).code(), kBad);
  for (float v : buf) EXPECT_EQ(v, 1.0f);
  const absl::Status s = Softmax32f(src.data(), 4, 4, 4, nullptr);
  EXPECT_NE(s.message().find("dst"), absl::string_view::npos) << s;

  std::vector<uint16_t> src16(64, 0x3F80), buf16(80, 0x3F80);
  GuardedBuffer<uint16_t> dst16(64);
  EXPECT_EQ(Softmax16b(nullptr, 4, 4, 4, dst16.data()).code(), kBad);
  EXPECT_EQ(Softmax16b(src16.data(), 4, 4, 4, nullptr).code(), kBad);
  EXPECT_EQ(Softmax16b(src16.data(), size_t{1} << 63, 1, 1, dst16.data()).code(), kBad);
  EXPECT_EQ(Softmax16b(src16.data(), size_t{1} << 32, size_t{1} << 32, 1, dst16.data()).code(),
            kBad);
  EXPECT_EQ(Softmax16b(buf16.data(), 4, 4, 4, buf16.data() + 3).code(), kBad);
  EXPECT_EQ(Softmax16b(buf16.data() + 5, 4, 4, 4, buf16.data()).code(), kBad);
  EXPECT_TRUE(dst16.Untouched());
  for (uint16_t v : buf16) EXPECT_EQ(v, 0x3F80);
}

TEST(SoftmaxApi, InPlaceThroughTheApi) {
  const Shape s{21825, 2, 1};
  auto data = testing::RandomFloats(s.size(), -8, 8, 3);
  const auto want = Ref32(data, s);
  ASSERT_TRUE(Softmax32f(data.data(), s.outer, s.count, s.inner, data.data()).ok());
  EXPECT_FALSE(testing::CompareWithin(data, want, softmax_check::Bounds(want, s.count)));
}

TEST(SoftmaxApi, MaxIsaCap) {
  testing::ExpectCapSelects(Softmax32fKernels());
  testing::ExpectCapSelects(Softmax16bKernels());
  // Capped at ref, the API runs the reference: bit-identical results.
  const std::optional<Isa> saved = MaxIsa();
  SetMaxIsa(Isa::kRef);
  const Shape s{3, 17, 2};
  const auto src = testing::RandomFloats(s.size(), -4, 4, 2);
  std::vector<float> got(s.size());
  ASSERT_TRUE(Softmax32f(src.data(), s.outer, s.count, s.inner, got.data()).ok());
  EXPECT_FALSE(testing::CompareBitExact(got, Ref32(src, s)));
  SetMaxIsa(saved);
}

}  // namespace
}  // namespace synops
