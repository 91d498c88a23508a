#include "ops/shuffle/shuffle.h"

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/shuffle/shuffle_kernels.h"
#include "testing/layout.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using ::synops::testing::GuardedBuffer;

const TensorFormat kFormats[] = {TensorFormat::kNchw, TensorFormat::kNhwc};

// Floats with arbitrary bit patterns (NaNs with payloads, signalling NaNs,
// -0, denormals): a copy must keep every bit.
std::vector<float> RandomBits(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) {
    const uint32_t bits = rng();
    std::memcpy(&x, &bits, sizeof(x));
  }
  return v;
}

// One problem: inputs and the reference outputs.
struct Problem {
  size_t c0, c1, spatial;
  TensorFormat format;
  int type;
  std::vector<float> src0, src1, want0, want1;

  Problem(size_t c0_, size_t c1_, size_t spatial_, TensorFormat f, int t, uint32_t seed)
      : c0(c0_), c1(c1_), spatial(spatial_), format(f), type(t) {
    src0 = RandomBits(In0() * spatial, seed);
    src1 = RandomBits(In1() * spatial, seed + 1);
    want0.resize(Out0() * spatial);
    want1.resize(Out1() * spatial);
    shuffle_internal::ShuffleRef(src0.data(), src1.data(), c0, c1, spatial, want0.data(),
                                 want1.data(), format, type);
  }
  size_t Half() const { return (c0 + c1) / 2; }
  size_t In0() const { return type == 0 ? c0 : Half(); }
  size_t In1() const { return type == 0 ? c1 : Half(); }
  size_t Out0() const { return type == 0 ? Half() : c0; }
  size_t Out1() const { return type == 0 ? Half() : c1; }
  std::string Name() const {
    return std::string(FormatName(format)) + " type=" + std::to_string(type) +
           " c0=" + std::to_string(c0) + " c1=" + std::to_string(c1) +
           " spatial=" + std::to_string(spatial);
  }
};

// Runs `kernel` into guarded outputs offset by `misalign` floats and checks
// them bit for bit against the reference.
void Check(const Kernel<ShuffleFn>& kernel, const Problem& p, size_t misalign) {
  GuardedBuffer<float> got0(p.want0.size() + misalign), got1(p.want1.size() + misalign);
  float* d0 = got0.data() + misalign;
  float* d1 = got1.data() + misalign;
  kernel.fn(p.src0.data(), p.src1.data(), p.c0, p.c1, p.spatial, d0, d1, p.format, p.type);
  ASSERT_TRUE(got0.GuardsIntact()) << p.Name();
  ASSERT_TRUE(got1.GuardsIntact()) << p.Name();
  auto m = testing::CompareBitExact(absl::MakeConstSpan(d0, p.want0.size()), p.want0);
  ASSERT_FALSE(m) << p.Name() << " misalign=" << misalign << " dst0: " << m->ToString();
  m = testing::CompareBitExact(absl::MakeConstSpan(d1, p.want1.size()), p.want1);
  ASSERT_FALSE(m) << p.Name() << " misalign=" << misalign << " dst1: " << m->ToString();
}

// Channel counts whose halves hit every tail of 4-, 8- and 16-lane vectors.
const size_t kChannels[] = {0, 2, 4, 6, 8, 10, 14, 16, 18, 30, 32, 34, 62, 64, 66, 116};

class ShuffleKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(ShuffleKernel, MatchesReferenceOnAllTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(ShuffleKernels(), GetParam());
  for (TensorFormat f : kFormats) {
    for (int type : {0, 1}) {
      for (size_t c0 : kChannels) {
        for (size_t c1 : kChannels) {
          if (c0 + c1 == 0) continue;
          for (size_t spatial : {1, 3, 17}) {
            const Problem p(c0, c1, spatial, f, type, static_cast<uint32_t>(c0 * 1000 + c1 + spatial));
            Check(*kernel, p, (c0 + c1 + spatial) % 16);
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

// Larger planes (NCHW copies of every length around the vector widths) and
// every output alignment.
TEST_P(ShuffleKernel, PlanesAndAlignments) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(ShuffleKernels(), GetParam());
  for (TensorFormat f : kFormats) {
    for (int type : {0, 1}) {
      for (size_t spatial : {4, 15, 16, 17, 33, 49, 64, 100, 257}) {
        for (size_t misalign = 0; misalign < 16; misalign += 5) {
          const Problem p(6, 10, spatial, f, type, static_cast<uint32_t>(spatial));
          Check(*kernel, p, misalign);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// Outputs large enough for streaming stores: aligned (streaming) and
// misaligned outputs, channel halves that are and are not multiples of 16.
TEST_P(ShuffleKernel, LargeOutputs) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(ShuffleKernels(), GetParam());
  const size_t bytes = StreamingStoreMinBytes();
  const size_t shapes[][2] = {{64, 64}, {32, 96}, {36, 28}};
  for (TensorFormat f : kFormats) {
    for (int type : {0, 1}) {
      for (const auto& cs : shapes) {
        const size_t spatial = bytes / ((cs[0] + cs[1]) * sizeof(float)) + 1;
        const Problem p(cs[0], cs[1], spatial, f, type, 9);
        for (size_t misalign : {0, 3}) {
          // 64-byte aligned outputs for misalign 0.
          std::vector<float> b0(p.want0.size() + 32), b1(p.want1.size() + 32);
          auto aligned = [](std::vector<float>& b) {
            return b.data() + (16 - reinterpret_cast<uintptr_t>(b.data()) / 4 % 16) % 16;
          };
          float* d0 = aligned(b0) + misalign;
          float* d1 = aligned(b1) + misalign;
          kernel->fn(p.src0.data(), p.src1.data(), p.c0, p.c1, p.spatial, d0, d1, f, type);
          auto m = testing::CompareBitExact(absl::MakeConstSpan(d0, p.want0.size()), p.want0);
          ASSERT_FALSE(m) << p.Name() << " misalign=" << misalign << " dst0: " << m->ToString();
          m = testing::CompareBitExact(absl::MakeConstSpan(d1, p.want1.size()), p.want1);
          ASSERT_FALSE(m) << p.Name() << " misalign=" << misalign << " dst1: " << m->ToString();
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, ShuffleKernel,
                         ::testing::ValuesIn(testing::KernelNames(ShuffleKernels())),
                         testing::KernelNamePrinter());

// The reference against SPEC.md's definition, written with format-aware
// offsets and inputs whose values name their tensor, channel and position.
TEST(ShuffleRef, MatchesSpecDefinition) {
  auto tag = [](size_t tensor, size_t c, size_t s) {
    return static_cast<float>(tensor * 1000000 + c * 1000 + s);
  };
  for (TensorFormat f : kFormats) {
    const size_t c0 = 6, c1 = 4, c = 5, sp = 7;
    // type 0: S = src0 (6 channels) then src1 (4 channels).
    std::vector<float> a(c0 * sp), b(c1 * sp), d0(c * sp), d1(c * sp);
    for (size_t s = 0; s < sp; ++s) {
      for (size_t j = 0; j < c0; ++j) a[testing::ChannelOffset(f, j, s, c0, sp)] = tag(0, j, s);
      for (size_t j = 0; j < c1; ++j) b[testing::ChannelOffset(f, j, s, c1, sp)] = tag(1, j, s);
    }
    shuffle_internal::ShuffleRef(a.data(), b.data(), c0, c1, sp, d0.data(), d1.data(), f, 0);
    for (size_t s = 0; s < sp; ++s) {
      for (size_t k = 0; k < c; ++k) {
        for (int out = 0; out < 2; ++out) {
          const size_t j = 2 * k + out;  // index into S
          const float want = j < c0 ? tag(0, j, s) : tag(1, j - c0, s);
          const std::vector<float>& d = out == 0 ? d0 : d1;
          ASSERT_EQ(d[testing::ChannelOffset(f, k, s, c, sp)], want) << FormatName(f) << k << s;
        }
      }
    }
    // type 1: src0, src1 have 5 channels; T interleaves them; dst0 gets 6, dst1 4.
    std::vector<float> x(c * sp), y(c * sp), e0(c0 * sp), e1(c1 * sp);
    for (size_t s = 0; s < sp; ++s) {
      for (size_t k = 0; k < c; ++k) {
        x[testing::ChannelOffset(f, k, s, c, sp)] = tag(0, k, s);
        y[testing::ChannelOffset(f, k, s, c, sp)] = tag(1, k, s);
      }
    }
    shuffle_internal::ShuffleRef(x.data(), y.data(), c0, c1, sp, e0.data(), e1.data(), f, 1);
    for (size_t s = 0; s < sp; ++s) {
      for (size_t j = 0; j < c0 + c1; ++j) {
        const float want = tag(j % 2, j / 2, s);  // T[j]
        const float got = j < c0 ? e0[testing::ChannelOffset(f, j, s, c0, sp)]
                                 : e1[testing::ChannelOffset(f, j - c0, s, c1, sp)];
        ASSERT_EQ(got, want) << FormatName(f) << " j=" << j << " s=" << s;
      }
    }
  }
}

TEST(ShuffleApi, UsesBestKernelAndHandlesEmptyProblems) {
  for (TensorFormat f : kFormats) {
    for (int type : {0, 1}) {
      const Problem p(10, 6, 33, f, type, 3);
      std::vector<float> d0(p.want0.size()), d1(p.want1.size());
      ASSERT_TRUE(ShuffleLayerForward(p.src0.data(), p.src1.data(), p.c0, p.c1, p.spatial,
                                      d0.data(), d1.data(), f, type).ok());
      EXPECT_FALSE(testing::CompareBitExact(d0, p.want0)) << p.Name();
      EXPECT_FALSE(testing::CompareBitExact(d1, p.want1)) << p.Name();
    }
  }
  const auto nchw = TensorFormat::kNchw;
  EXPECT_TRUE(ShuffleLayerForward(nullptr, nullptr, 4, 4, 0, nullptr, nullptr, nchw, 0).ok());
  EXPECT_TRUE(ShuffleLayerForward(nullptr, nullptr, 0, 0, 9, nullptr, nullptr, nchw, 1).ok());
  // channels0 == 0: src0 (type 0) and dst0 (type 1) are empty and may be null.
  const Problem p(0, 4, 5, TensorFormat::kNhwc, 0, 1);
  std::vector<float> d0(p.want0.size()), d1(p.want1.size());
  ASSERT_TRUE(ShuffleLayerForward(nullptr, p.src1.data(), 0, 4, 5, d0.data(), d1.data(),
                                  TensorFormat::kNhwc, 0).ok());
  EXPECT_FALSE(testing::CompareBitExact(d0, p.want0));
  EXPECT_FALSE(testing::CompareBitExact(d1, p.want1));
}

TEST(ShuffleApi, RejectsBadInputAndWritesNothing) {
  const size_t c0 = 4, c1 = 6, sp = 8, c = 5;
  const std::vector<float> a(c0 * sp, 1.0f), b(c1 * sp, 2.0f);
  GuardedBuffer<float> d0(c * sp), d1(c * sp);
  const auto kBad = absl::StatusCode::kInvalidArgument;
  const auto nchw = TensorFormat::kNchw;
  auto expect_bad = [&](const absl::Status& s, const char* needle) {
    EXPECT_EQ(s.code(), kBad) << s;
    EXPECT_NE(s.message().find(needle), absl::string_view::npos) << s;
  };
  auto call = [&](const float* s0, const float* s1, size_t ch0, size_t ch1, size_t spatial,
                  float* o0, float* o1, TensorFormat f, int type) {
    return ShuffleLayerForward(s0, s1, ch0, ch1, spatial, o0, o1, f, type);
  };
  expect_bad(call(a.data(), b.data(), c0, c1, sp, d0.data(), d1.data(), nchw, 2), "type");
  expect_bad(call(a.data(), b.data(), c0, c1, sp, d0.data(), d1.data(), nchw, -1), "type");
  expect_bad(call(a.data(), b.data(), c0, c1, sp, d0.data(), d1.data(), TensorFormat::kUnknown, 0),
             "format");
  expect_bad(call(a.data(), b.data(), c0, c1, sp, d0.data(), d1.data(),
                  static_cast<TensorFormat>(7), 1),
             "format");
  expect_bad(call(a.data(), b.data(), 3, c1, sp, d0.data(), d1.data(), nchw, 0), "channels0");
  expect_bad(call(a.data(), b.data(), c0, 5, sp, d0.data(), d1.data(), nchw, 1), "channels1");
  expect_bad(call(a.data(), b.data(), 3, 5, 0, d0.data(), d1.data(), nchw, 0), "channels0");
  expect_bad(call(nullptr, b.data(), c0, c1, sp, d0.data(), d1.data(), nchw, 0), "src0");
  expect_bad(call(a.data(), nullptr, c0, c1, sp, d0.data(), d1.data(), nchw, 0), "src1");
  expect_bad(call(a.data(), b.data(), c0, c1, sp, nullptr, d1.data(), nchw, 0), "dst0");
  expect_bad(call(a.data(), b.data(), c0, c1, sp, d0.data(), nullptr, nchw, 0), "dst1");
  // Byte sizes that overflow.
  expect_bad(call(a.data(), b.data(), size_t{1} << 62, c1, 2, d0.data(), d1.data(), nchw, 0),
             "overflows");
  expect_bad(call(a.data(), b.data(), c0, c1, size_t{1} << 62, d0.data(), d1.data(), nchw, 1),
             "overflows");
  EXPECT_TRUE(d0.Untouched());
  EXPECT_TRUE(d1.Untouched());

  // Every forbidden overlap, each in a buffer of its own so it is the only one:
  // an output on an input (type 0 and 1), and the outputs on each other.
  for (int type : {0, 1}) {
    for (const char* which : {"dst0/src0", "dst0/src1", "dst1/src0", "dst1/src1", "dst1/dst0"}) {
      GuardedBuffer<float> shared(4 * c * sp), o0(c * sp + 2), o1(c * sp + 2);
      const std::string w = which;
      const float* s0 = a.data();
      const float* s1 = b.data();
      float* p0 = o0.data();
      float* p1 = o1.data();
      if (w == "dst0/src0") s0 = shared.data(), p0 = shared.data() + 3;
      if (w == "dst0/src1") s1 = shared.data(), p0 = shared.data() + 3;
      if (w == "dst1/src0") s0 = shared.data(), p1 = shared.data() + 3;
      if (w == "dst1/src1") s1 = shared.data(), p1 = shared.data() + 3;
      if (w == "dst1/dst0") p0 = shared.data(), p1 = shared.data() + 3;
      const absl::Status s = call(s0, s1, c0, c1, sp, p0, p1, nchw, type);
      EXPECT_EQ(s.code(), kBad) << which << ": " << s;
      EXPECT_NE(s.message().find(w.substr(0, 4)), absl::string_view::npos) << s;
      EXPECT_NE(s.message().find(w.substr(5)), absl::string_view::npos) << s;
      EXPECT_TRUE(shared.Untouched()) << which;
      EXPECT_TRUE(o0.Untouched() && o1.Untouched()) << which;
    }
  }
}

TEST(ShuffleApi, MaxIsaCap) { testing::ExpectCapSelects(ShuffleKernels()); }

}  // namespace
}  // namespace synops
