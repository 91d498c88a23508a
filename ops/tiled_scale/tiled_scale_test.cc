#include "ops/tiled_scale/tiled_scale.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/tiled_scale/tiled_scale_kernels.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using ::synops::testing::GuardedBuffer;

const TensorFormat kFormats[] = {TensorFormat::kNchw, TensorFormat::kNhwc};

struct Problem {
  size_t c, h, w;
  std::vector<float> src, ver, hor;

  Problem(size_t c_, size_t h_, size_t w_, uint32_t seed, bool edge = false)
      : c(c_), h(h_), w(w_) {
    src = edge ? testing::EdgeFloats(c * h * w, seed) : testing::RandomFloats(c * h * w, -4, 4, seed);
    ver = edge ? testing::EdgeFloats(c * w, seed + 1) : testing::RandomFloats(c * w, -2, 2, seed + 1);
    hor = edge ? testing::EdgeFloats(c * h, seed + 2) : testing::RandomFloats(c * h, -2, 2, seed + 2);
  }
  size_t size() const { return c * h * w; }
  std::vector<float> Want(TensorFormat f) const {
    std::vector<float> want(size());
    tiled_scale_internal::TiledScale2D32fRef(src.data(), c, h, w, f, ver.data(), hor.data(),
                                             want.data());
    return want;
  }
  std::string Name(TensorFormat f) const {
    return std::string(FormatName(f)) + " c=" + std::to_string(c) + " h=" + std::to_string(h) +
           " w=" + std::to_string(w);
  }
};

// Channel and width counts around every vector length (4, 8, 16 lanes) and
// the NHWC table limits; 1025 channels take the per-pixel path.
const size_t kChannels[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 48, 65, 300};
const size_t kWidths[] = {1, 2, 3, 4, 5, 7, 8, 9, 13, 15, 16, 17, 23, 31, 32, 33, 56, 65};
const size_t kHeights[] = {1, 2, 3, 5, 17};

class TiledScaleKernel : public ::testing::TestWithParam<std::string> {};

// Every kernel vs the reference, bit-exact, every tail, both formats, and
// output pointers at every alignment within a vector.
TEST_P(TiledScaleKernel, MatchesReferenceOnAllTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(TiledScale2D32fKernels(), GetParam());
  for (TensorFormat f : kFormats) {
    for (size_t c : kChannels) {
      for (size_t w : kWidths) {
        for (size_t h : kHeights) {
          const Problem p(c, h, w, static_cast<uint32_t>(c * 10000 + w * 100 + h));
          const auto want = p.Want(f);
          const size_t misalign = (c + w + h) % 16;  // varies the alignment of dst
          GuardedBuffer<float> got(p.size() + misalign);
          float* dst = got.data() + misalign;
          kernel->fn(p.src.data(), c, h, w, f, p.ver.data(), p.hor.data(), dst);
          ASSERT_TRUE(got.GuardsIntact()) << p.Name(f);
          const auto m = testing::CompareBitExactOrNan(absl::MakeConstSpan(dst, p.size()), want);
          ASSERT_FALSE(m) << p.Name(f) << " misalign=" << misalign << ": " << m->ToString();
        }
      }
    }
  }
}

// Tall planes (the NCHW one-span-per-plane path), many channels (the NHWC
// per-pixel path) and wide rows (aligned row spans), at every alignment of dst.
TEST_P(TiledScaleKernel, LargeShapesAndAlignments) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(TiledScale2D32fKernels(), GetParam());
  const size_t shapes[][3] = {{3, 700, 3},  {2, 300, 7},  {1025, 3, 5}, {1000, 2, 3},
                              {5, 40, 200}, {3, 70, 33},  {2, 80, 65},  {4, 40, 56},
                              {3, 100, 17}, {2, 50, 100}, {3, 9, 300},  {2, 30, 1}};
  for (TensorFormat f : kFormats) {
    for (const auto& s : shapes) {
      const Problem p(s[0], s[1], s[2], static_cast<uint32_t>(s[0] + s[1] + s[2]));
      const auto want = p.Want(f);
      for (size_t misalign = 0; misalign < 16; misalign += 3) {
        GuardedBuffer<float> got(p.size() + misalign);
        float* dst = got.data() + misalign;
        kernel->fn(p.src.data(), p.c, p.h, p.w, f, p.ver.data(), p.hor.data(), dst);
        ASSERT_TRUE(got.GuardsIntact()) << p.Name(f);
        const auto m = testing::CompareBitExactOrNan(absl::MakeConstSpan(dst, p.size()), want);
        ASSERT_FALSE(m) << p.Name(f) << " misalign=" << misalign << ": " << m->ToString();
      }
    }
  }
}

// ±0, ±Inf, huge, tiny and denormal factors: still bit-exact.
TEST_P(TiledScaleKernel, EdgeValues) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(TiledScale2D32fKernels(), GetParam());
  for (TensorFormat f : kFormats) {
    for (size_t c : {3, 16, 37}) {
      const Problem p(c, 9, 21, static_cast<uint32_t>(c), /*edge=*/true);
      const auto want = p.Want(f);
      std::vector<float> got(p.size());
      kernel->fn(p.src.data(), p.c, p.h, p.w, f, p.ver.data(), p.hor.data(), got.data());
      const auto m = testing::CompareBitExactOrNan(got, want);
      ASSERT_FALSE(m) << p.Name(f) << ": " << m->ToString();
    }
  }
}

// The products are rounded in the order (src * ver) * hor.
TEST_P(TiledScaleKernel, MultipliesInSpecOrder) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(TiledScale2D32fKernels(), GetParam());
  // (3e38 * 10) * 0.01 = Inf, while 3e38 * (10 * 0.01) is finite.
  for (TensorFormat f : kFormats) {
    const size_t c = 2, h = 3, w = 40;
    std::vector<float> src(c * h * w, 3e38f), ver(c * w, 10.0f), hor(c * h, 0.01f), got(c * h * w);
    kernel->fn(src.data(), c, h, w, f, ver.data(), hor.data(), got.data());
    for (float v : got) ASSERT_EQ(v, std::numeric_limits<float>::infinity()) << FormatName(f);
  }
}

TEST_P(TiledScaleKernel, InPlace) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(TiledScale2D32fKernels(), GetParam());
  const size_t shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {16, 4, 16}, {17, 9, 33},
                              {64, 7, 7}, {2, 600, 5}, {1025, 2, 3}, {5, 3, 100}};
  for (TensorFormat f : kFormats) {
    for (const auto& s : shapes) {
      const Problem p(s[0], s[1], s[2], 11);
      const auto want = p.Want(f);
      for (size_t misalign : {0, 1, 6}) {
        std::vector<float> buf(p.size() + misalign);
        std::copy(p.src.begin(), p.src.end(), buf.begin() + misalign);
        float* io = buf.data() + misalign;
        kernel->fn(io, p.c, p.h, p.w, f, p.ver.data(), p.hor.data(), io);
        const auto m = testing::CompareBitExactOrNan(absl::MakeConstSpan(io, p.size()), want);
        ASSERT_FALSE(m) << p.Name(f) << " misalign=" << misalign << ": " << m->ToString();
      }
    }
  }
}

// Tensors large enough for streaming stores (rows of whole cache lines),
// and the same shapes with a misaligned dst (ordinary stores).
TEST_P(TiledScaleKernel, LargeTensors) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(TiledScale2D32fKernels(), GetParam());
  const size_t elems = StreamingStoreMinBytes() / sizeof(float);
  const size_t shapes[][3] = {{elems / (64 * 64), 64, 64}, {32, elems / (32 * 32), 32},
                              {48, elems / (48 * 16) + 1, 16}};
  for (TensorFormat f : kFormats) {
    for (const auto& s : shapes) {
      const Problem p(s[0], s[1], s[2], 5);
      const auto want = p.Want(f);
      for (size_t misalign : {0, 3}) {
        // 64-byte aligned storage, so misalign 0 takes the streaming path.
        std::vector<float> buf(p.size() + 16 + misalign);
        float* dst = buf.data() + (16 - reinterpret_cast<uintptr_t>(buf.data()) / 4 % 16) % 16 + misalign;
        kernel->fn(p.src.data(), p.c, p.h, p.w, f, p.ver.data(), p.hor.data(), dst);
        const auto m = testing::CompareBitExactOrNan(absl::MakeConstSpan(dst, p.size()), want);
        ASSERT_FALSE(m) << p.Name(f) << " misalign=" << misalign << ": " << m->ToString();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, TiledScaleKernel,
                         ::testing::ValuesIn(testing::KernelNames(TiledScale2D32fKernels())),
                         testing::KernelNamePrinter());

// The reference against the SPEC formula, indexed independently.
TEST(TiledScaleRef, MatchesFormula) {
  const Problem p(3, 4, 5, 1);
  for (TensorFormat f : kFormats) {
    const auto got = p.Want(f);
    for (size_t c = 0; c < p.c; ++c) {
      for (size_t y = 0; y < p.h; ++y) {
        for (size_t x = 0; x < p.w; ++x) {
          float want;
          if (f == TensorFormat::kNchw) {
            const size_t i = (c * p.h + y) * p.w + x;
            want = p.src[i] * p.ver[c * p.w + x];
            ASSERT_EQ(got[i], want * p.hor[c * p.h + y]);
          } else {
            const size_t i = (y * p.w + x) * p.c + c;
            want = p.src[i] * p.ver[x * p.c + c];
            ASSERT_EQ(got[i], want * p.hor[y * p.c + c]);
          }
        }
      }
    }
  }
}

TEST(TiledScaleApi, UsesBestKernelAndHandlesEmptyTensors) {
  const Problem p(7, 5, 9, 3);
  for (TensorFormat f : kFormats) {
    std::vector<float> got(p.size());
    ASSERT_TRUE(TiledScale2D32f(p.src.data(), p.c, p.h, p.w, f, p.ver.data(), p.hor.data(),
                                got.data()).ok());
    EXPECT_FALSE(testing::CompareBitExactOrNan(got, p.Want(f))) << FormatName(f);
    // In place through the API.
    std::vector<float> io = p.src;
    ASSERT_TRUE(TiledScale2D32f(io.data(), p.c, p.h, p.w, f, p.ver.data(), p.hor.data(),
                                io.data()).ok());
    EXPECT_FALSE(testing::CompareBitExactOrNan(io, p.Want(f))) << FormatName(f);
  }
  EXPECT_TRUE(TiledScale2D32f(nullptr, 0, 5, 5, TensorFormat::kNchw, nullptr, nullptr, nullptr).ok());
  EXPECT_TRUE(TiledScale2D32f(nullptr, 4, 0, 5, TensorFormat::kNhwc, nullptr, nullptr, nullptr).ok());
  EXPECT_TRUE(TiledScale2D32f(nullptr, 4, 5, 0, TensorFormat::kNchw, nullptr, nullptr, nullptr).ok());
}

TEST(TiledScaleApi, RejectsBadInputAndWritesNothing) {
  const size_t c = 4, h = 4, w = 4;
  Problem p(c, h, w, 2);
  GuardedBuffer<float> dst(c * h * w);
  const auto kBad = absl::StatusCode::kInvalidArgument;
  auto expect_bad = [&](const absl::Status& s, const char* needle) {
    EXPECT_EQ(s.code(), kBad) << s;
    EXPECT_NE(s.message().find(needle), absl::string_view::npos) << s;
  };
  const float* src = p.src.data();
  const float* ver = p.ver.data();
  const float* hor = p.hor.data();
  const auto nchw = TensorFormat::kNchw;
  expect_bad(TiledScale2D32f(src, c, h, w, TensorFormat::kUnknown, ver, hor, dst.data()), "format");
  expect_bad(TiledScale2D32f(src, c, h, w, static_cast<TensorFormat>(2), ver, hor, dst.data()),
             "format");
  expect_bad(TiledScale2D32f(nullptr, c, h, w, nchw, ver, hor, dst.data()), "src");
  expect_bad(TiledScale2D32f(src, c, h, w, nchw, nullptr, hor, dst.data()), "ver");
  expect_bad(TiledScale2D32f(src, c, h, w, nchw, ver, nullptr, dst.data()), "hor");
  expect_bad(TiledScale2D32f(src, c, h, w, nchw, ver, hor, nullptr), "dst");
  // Byte sizes that overflow, of the tensor and of the scale arrays alone.
  expect_bad(TiledScale2D32f(src, size_t{1} << 21, size_t{1} << 21, size_t{1} << 21, nchw, ver,
                             hor, dst.data()),
             "overflows");
  expect_bad(TiledScale2D32f(src, size_t{1} << 62, 1, 1, nchw, ver, hor, dst.data()), "overflows");
  expect_bad(TiledScale2D32f(src, size_t{1} << 40, 0, size_t{1} << 40, nchw, ver, hor, dst.data()),
             "channels*width");
  EXPECT_TRUE(dst.Untouched());
  // dst partially overlapping src; dst overlapping ver or hor. Each buffer
  // holds one input followed by room for dst, so the overlap is the only one.
  for (const char* input : {"src", "ver", "hor"}) {
    GuardedBuffer<float> buf(2 * c * h * w);
    const std::string which = input;
    const float* s = src;
    const float* v = ver;
    const float* z = hor;
    if (which == "src") s = buf.data();
    if (which == "ver") v = buf.data();
    if (which == "hor") z = buf.data();
    expect_bad(TiledScale2D32f(s, c, h, w, nchw, v, z, buf.data() + 3), input);
    EXPECT_TRUE(buf.Untouched()) << input;
  }
  const Problem fresh(c, h, w, 2);
  EXPECT_FALSE(testing::CompareBitExact(p.src, fresh.src));
  EXPECT_FALSE(testing::CompareBitExact(p.ver, fresh.ver));
  EXPECT_FALSE(testing::CompareBitExact(p.hor, fresh.hor));
}

TEST(TiledScaleApi, MaxIsaCap) { testing::ExpectCapSelects(TiledScale2D32fKernels()); }

}  // namespace
}  // namespace synops
