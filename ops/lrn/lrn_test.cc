#include "ops/lrn/lrn.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/lrn/lrn_accuracy.h"
#include "ops/lrn/lrn_kernels.h"
#include "testing/layout.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using ::synops::testing::GuardedBuffer;

const TensorFormat kFormats[] = {TensorFormat::kNchw, TensorFormat::kNhwc};
constexpr size_t kHuge = std::numeric_limits<size_t>::max();
// Typical AlexNet/GoogLeNet coefficients: k = 1, alpha/n, beta = 0.75.
const float kTypicalK[3] = {1.0f, 2e-5f, -0.75f};

struct Problem {
  size_t half, c, s;
  std::vector<float> src, k;
  Problem(size_t half_, size_t c_, size_t s_, uint32_t seed, std::vector<float> k_ = {},
          bool edge = false)
      : half(half_), c(c_), s(s_), k(k_.empty() ? std::vector<float>(kTypicalK, kTypicalK + 3) : k_) {
    src = edge ? testing::EdgeFloats(c * s, seed) : testing::RandomFloats(c * s, -30, 30, seed);
  }
  size_t size() const { return c * s; }
  std::vector<float> Want(TensorFormat f) const {
    std::vector<float> want(size());
    lrn_internal::LrnRef(src.data(), half, c, s, k.data(), want.data(), f);
    return want;
  }
  std::string Name(TensorFormat f) const {
    return std::string(FormatName(f)) + " half=" + std::to_string(half) +
           " c=" + std::to_string(c) + " s=" + std::to_string(s) + " k=" + std::to_string(k[0]) +
           "," + std::to_string(k[1]) + "," + std::to_string(k[2]);
  }
  // Runs `fn` into a guarded buffer and checks guards and the bound.
  void Check(LrnFn fn, TensorFormat f, size_t misalign = 0) const {
    const auto want = Want(f);
    const auto bounds = lrn_internal::LrnBounds(src.data(), half, c, s, k.data(), f);
    GuardedBuffer<float> got(size() + misalign);
    float* dst = got.data() + misalign;
    fn(src.data(), half, c, s, k.data(), dst, f);
    ASSERT_TRUE(got.GuardsIntact()) << Name(f);
    const auto m = lrn_internal::CheckLrn(absl::MakeConstSpan(dst, size()), want, bounds);
    ASSERT_FALSE(m) << Name(f) << " misalign=" << misalign << ": " << m->ToString();
  }
};

const size_t kChannels[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64};
const size_t kSpatial[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 49, 65};
const size_t kHalves[] = {0, 1, 2, 3, 7, kHuge};

class LrnKernel : public ::testing::TestWithParam<std::string> {};

// Every kernel vs the reference, every tail, both formats, every half.
TEST_P(LrnKernel, MatchesReferenceOnAllTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(LrnKernels(), GetParam());
  for (TensorFormat f : kFormats) {
    for (size_t half : kHalves) {
      for (size_t c : kChannels) {
        for (size_t s : kSpatial) {
          const Problem p(half, c, s, static_cast<uint32_t>(c * 1000 + s * 10 + half % 10));
          p.Check(kernel->fn, f, (c + s) % 16);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

// Several NCHW chunks (1024 positions; flat below 512), CNN shapes, windows
// wider than the tensor.
TEST_P(LrnKernel, LargeShapes) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(LrnKernels(), GetParam());
  const size_t shapes[][3] = {{2, 64, 1100}, {2, 96, 729}, {5, 20, 513}, {2, 256, 49},
                              {kHuge, 40, 100}, {100, 37, 45}, {2, 1000, 3}, {0, 3, 1500},
                              {2, 16, 2100},    {1, 8, 1024}};
  for (TensorFormat f : kFormats) {
    for (const auto& sh : shapes) {
      Problem(sh[0], sh[1], sh[2], static_cast<uint32_t>(sh[1] + sh[2])).Check(kernel->fn, f, 3);
      if (HasFatalFailure()) return;
    }
  }
}

// Other coefficients: positive, fractional and zero exponents, k0 = 0.
TEST_P(LrnKernel, Coefficients) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(LrnKernels(), GetParam());
  const std::vector<std::vector<float>> ks = {{1, 1e-4f, -0.75f}, {2, 1e-4f, 0.75f},
                                              {1, 1, -0.5f},      {0.5f, 0.1f, 2.0f},
                                              {1, 1e-4f, 0.0f},   {0, 1, -1.0f},
                                              {3, 0.01f, -3.5f},  {1, 0, -0.75f}};
  for (TensorFormat f : kFormats) {
    for (const auto& k : ks) {
      for (size_t half : {0, 2, 5}) {
        Problem(half, 37, 41, 7, k).Check(kernel->fn, f);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Many random tensors and exponents: the AVX-512 pow (2^(log(b) e log2(e)))
// stays inside the bound with the exponent's extra rounding.
TEST_P(LrnKernel, ManySeedsAndExponents) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(LrnKernels(), GetParam());
  const std::vector<std::vector<float>> ks = {
      {1, 2e-5f, -0.75f}, {1, 1e-4f, -0.75f}, {0.5f, 0.1f, 2.0f}, {3, 0.01f, -3.5f},
      {0, 1, -1.0f},      {1, 1, -0.5f},      {1e-3f, 1, 0.3f},  {2, 1e-4f, 0.75f}};
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    for (TensorFormat f : kFormats) {
      for (const auto& k : ks) {
        Problem(2, 48, 67, seed * 131, k).Check(kernel->fn, f);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Huge, tiny, denormal, zero and infinite inputs (and sums that overflow):
// no crash, finite results within the bound, NaN where the reference has it.
TEST_P(LrnKernel, EdgeValues) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(LrnKernels(), GetParam());
  for (TensorFormat f : kFormats) {
    for (size_t c : {3, 16, 37}) {
      for (size_t half : {size_t{0}, size_t{1}, size_t{2}, kHuge}) {
        Problem(half, c, 23, static_cast<uint32_t>(c + half % 7), {}, /*edge=*/true)
            .Check(kernel->fn, f);
        if (HasFatalFailure()) return;
      }
    }
    // Squares that underflow to zero and to denormals with k0 = 0 (pow of 0).
    Problem p(1, 5, 19, 3, {0.0f, 1.0f, -0.75f});
    for (size_t i = 0; i < p.src.size(); ++i) p.src[i] = (i % 3 == 0) ? 0.0f : 1e-30f * (i % 5);
    p.Check(kernel->fn, f);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, LrnKernel, ::testing::ValuesIn(testing::KernelNames(LrnKernels())),
                         testing::KernelNamePrinter());

// The reference against the formula in double (SPEC.md), indexed independently.
TEST(LrnRef, MatchesFormula) {
  const Problem p(2, 7, 5, 1, {1.0f, 0.01f, -0.75f});
  for (TensorFormat f : kFormats) {
    const auto got = p.Want(f);
    for (size_t c = 0; c < p.c; ++c) {
      for (size_t s = 0; s < p.s; ++s) {
        double sum = 0;
        for (int i = static_cast<int>(c) - 2; i <= static_cast<int>(c) + 2; ++i) {
          if (i < 0 || i >= static_cast<int>(p.c)) continue;
          const double x = p.src[testing::ChannelOffset(f, i, s, p.c, p.s)];
          sum += x * x;
        }
        const size_t at = testing::ChannelOffset(f, c, s, p.c, p.s);
        const double want = p.src[at] * std::pow(1.0 + 0.01 * sum, -0.75);
        EXPECT_NEAR(got[at], want, 1e-5 * std::fabs(want)) << c << " " << s;
      }
    }
  }
}

TEST(LrnApi, UsesBestKernelAndHandlesEmptyTensors) {
  const Problem p(2, 17, 19, 3);
  for (TensorFormat f : kFormats) {
    GuardedBuffer<float> got(p.size());
    ASSERT_TRUE(LrnLayerCrossChannels(p.src.data(), p.half, p.c, p.s, p.k.data(), got.data(), f).ok());
    const auto bounds = lrn_internal::LrnBounds(p.src.data(), p.half, p.c, p.s, p.k.data(), f);
    EXPECT_FALSE(lrn_internal::CheckLrn(got.span(), p.Want(f), bounds)) << FormatName(f);
    EXPECT_TRUE(got.GuardsIntact());
  }
  EXPECT_TRUE(LrnLayerCrossChannels(nullptr, 2, 0, 5, nullptr, nullptr, TensorFormat::kNchw).ok());
  EXPECT_TRUE(LrnLayerCrossChannels(nullptr, 2, 4, 0, nullptr, nullptr, TensorFormat::kNhwc).ok());
}

TEST(LrnApi, RejectsBadInputAndWritesNothing) {
  const size_t c = 4, s = 8;
  const Problem p(1, c, s, 2);
  const float* src = p.src.data();
  const float* k = p.k.data();
  GuardedBuffer<float> dst(c * s);
  const auto nchw = TensorFormat::kNchw;
  auto expect_bad = [](const absl::Status& st, const char* needle) {
    EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument) << st;
    EXPECT_NE(st.message().find(needle), absl::string_view::npos) << st;
  };
  expect_bad(LrnLayerCrossChannels(src, 1, c, s, k, dst.data(), TensorFormat::kUnknown), "format");
  expect_bad(LrnLayerCrossChannels(src, 1, c, s, k, dst.data(), static_cast<TensorFormat>(2)),
             "format");
  expect_bad(LrnLayerCrossChannels(nullptr, 1, c, s, k, dst.data(), nchw), "src");
  expect_bad(LrnLayerCrossChannels(src, 1, c, s, nullptr, dst.data(), nchw), "k");
  expect_bad(LrnLayerCrossChannels(src, 1, c, s, k, nullptr, nchw), "dst");
  expect_bad(LrnLayerCrossChannels(src, 1, size_t{1} << 31, size_t{1} << 31, k, dst.data(), nchw),
             "overflows");
  expect_bad(LrnLayerCrossChannels(src, 1, size_t{1} << 62, 1, k, dst.data(), nchw), "overflows");
  EXPECT_TRUE(dst.Untouched());
  // Any overlap of dst with src (in place included) or with k.
  for (size_t offset : {0, 1, 5, 31}) {
    GuardedBuffer<float> buf(2 * c * s);
    std::copy(p.src.begin(), p.src.end(), buf.data());
    const std::vector<float> before = buf.ToVector();
    expect_bad(LrnLayerCrossChannels(buf.data(), 1, c, s, k, buf.data() + offset, nchw), "dst");
    EXPECT_EQ(std::memcmp(buf.ToVector().data(), before.data(), before.size() * 4), 0) << offset;
  }
  {
    GuardedBuffer<float> buf(c * s + 3);
    float* kk = buf.data() + c * s;
    kk[0] = 1, kk[1] = 1e-4f, kk[2] = -0.75f;
    const std::vector<float> before = buf.ToVector();
    expect_bad(LrnLayerCrossChannels(src, 1, c, s, buf.data() + 2, buf.data(), nchw), "k");
    EXPECT_EQ(std::memcmp(buf.ToVector().data(), before.data(), before.size() * 4), 0);
  }
}

TEST(LrnApi, AdjacentBuffersAreAccepted) {
  const size_t c = 4, s = 8;
  const Problem p(1, c, s, 2);
  std::vector<float> buf(2 * c * s + 3);
  std::copy(p.src.begin(), p.src.end(), buf.begin());
  float* k = buf.data() + 2 * c * s;
  k[0] = 1, k[1] = 1e-4f, k[2] = -0.75f;
  EXPECT_TRUE(LrnLayerCrossChannels(buf.data(), 1, c, s, k, buf.data() + c * s,
                                    TensorFormat::kNhwc).ok());
}

TEST(LrnApi, MaxIsaCap) { testing::ExpectCapSelects(LrnKernels()); }

}  // namespace
}  // namespace synops
