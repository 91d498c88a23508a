// conv16b: validation, the API contract, and every algorithm against a
// double-precision oracle at the SPEC.md §4 bound (and bit-exact against
// ref::direct on integer data) over a grid reaching every rule and tail.
#include "conv16b/conv16b.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bf16/bf16.h"
#include "conv16b/conv16b_check.h"
#include "conv16b/conv16b_internal.h"
#include "conv16b/conv16b_kernels.h"
#include "core/cpu.h"
#include "core/dispatch.h"
#include "gtest/gtest.h"
#include "testing/avx_state.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using conv16b_check::Problem;

ConvParams Params(size_t srcC, size_t srcH, size_t srcW, size_t dstC, size_t ky, size_t kx,
                  size_t stride = 1, size_t dilation = 1, size_t pad = 0, size_t group = 1) {
  ConvParams p;
  p.srcC = srcC;
  p.srcH = srcH;
  p.srcW = srcW;
  p.dstC = dstC;
  p.kernelY = ky;
  p.kernelX = kx;
  p.strideY = p.strideX = stride;
  p.dilationY = p.dilationX = dilation;
  p.padY = p.padX = p.padH = p.padW = pad;
  p.group = group;
  conv16b_check::SetOutputSize(&p);
  return p;
}

// ---------------------------------------------------------------- validation

void ExpectInvalid(size_t batch, const ConvParams& p, const std::string& name) {
  auto conv = Convolution16b::Create(batch, p);
  ASSERT_FALSE(conv.ok()) << name;
  EXPECT_EQ(conv.status().code(), absl::StatusCode::kInvalidArgument) << name;
  EXPECT_NE(std::string(conv.status().message()).find(name), std::string::npos)
      << conv.status().message() << " does not name " << name;
}

TEST(Conv16bValidation, EveryRule) {
  const ConvParams ok = Params(8, 10, 12, 6, 3, 3, 1, 1, 1, 2);
  ASSERT_TRUE(Convolution16b::Create(1, ok).ok());
  ExpectInvalid(0, ok, "batch");
  struct Field {
    const char* name;
    size_t ConvParams::*field;
  };
  const Field positive[] = {{"srcC", &ConvParams::srcC},         {"srcH", &ConvParams::srcH},
                            {"srcW", &ConvParams::srcW},         {"dstC", &ConvParams::dstC},
                            {"dstH", &ConvParams::dstH},         {"dstW", &ConvParams::dstW},
                            {"kernelY", &ConvParams::kernelY},   {"kernelX", &ConvParams::kernelX},
                            {"dilationY", &ConvParams::dilationY}, {"dilationX", &ConvParams::dilationX},
                            {"strideY", &ConvParams::strideY},   {"strideX", &ConvParams::strideX},
                            {"group", &ConvParams::group}};
  for (const Field& f : positive) {
    ConvParams p = ok;
    p.*(f.field) = 0;
    ExpectInvalid(1, p, f.name);
  }
  ConvParams p = ok;
  p.group = 3;  // divides dstC 6, not srcC 8
  ExpectInvalid(1, p, "group");
  p = ok;
  p.dstC = 7;
  ExpectInvalid(1, p, "group");
  p = ok;
  p.srcF = TensorFormat::kUnknown;
  ExpectInvalid(1, p, "srcF");
  p = ok;
  p.dstF = static_cast<TensorFormat>(2);
  ExpectInvalid(1, p, "dstF");
  p = ok;
  p.dstF = TensorFormat::kNchw;  // srcF is NHWC
  ExpectInvalid(1, p, "dstF");
  for (int t : {1, 2, 3, 4, 5, 6, 8, -1, 9}) {
    p = ok;
    p.srcT = static_cast<DataType>(t);
    ExpectInvalid(1, p, "srcT");
    p = ok;
    p.dstT = static_cast<DataType>(t);
    ExpectInvalid(1, p, "dstT");
  }
  for (int a : {-1, 11, 100}) {
    p = ok;
    p.activation = static_cast<Activation>(a);
    ExpectInvalid(1, p, "activation");
  }
  p = ok;
  p.dstH = 9;
  ExpectInvalid(1, p, "dstH");
  p = ok;
  p.dstW = 13;
  ExpectInvalid(1, p, "dstW");
  p = Params(3, 4, 4, 2, 5, 1);  // kernel taller than the padded source
  p.dstH = 1;
  p.dstW = 4;
  ExpectInvalid(1, p, "dstH");
  p = Params(3, 4, 4, 2, 1, 3, 1, 3);  // dilated kernel wider than the source
  p.dstW = 1;
  ExpectInvalid(1, p, "dstW");
  p = ok;
  p.padY = ~size_t{0};  // srcH + padY overflows
  ExpectInvalid(1, p, "dstH");
  p = ok;
  p.dilationX = ~size_t{0} / 2;  // dilation * (kernel - 1) overflows
  ExpectInvalid(1, p, "dstW");
  p = Params(1 << 20, 1 << 16, 1 << 16, 1, 1, 1);  // bytes overflow
  ExpectInvalid(1 << 20, p, "src size");
  p = Params(1, 1, 1, size_t{1} << 62, 1, 1);
  ExpectInvalid(1, p, "size");
}

TEST(Conv16bApi, ForwardBeforeSetParamsAndBadPointers) {
  const ConvParams p = Params(4, 5, 5, 4, 3, 3, 1, 1, 1);
  auto conv = Convolution16b::Create(2, p, 0x24);
  ASSERT_TRUE(conv.ok());
  EXPECT_NE((*conv)->Info().find("compatibility=0x24"), std::string::npos) << (*conv)->Info();
  EXPECT_EQ((*conv)->compatibility(), 0x24u);
  std::vector<float> src(2 * 4 * 25, 1.0f), dst(2 * 4 * 25, 0.0f);
  EXPECT_EQ((*conv)->Forward(src.data(), nullptr, dst.data()).code(),
            absl::StatusCode::kFailedPrecondition);
  std::vector<float> w(3 * 3 * 4 * 4, 0.5f);
  EXPECT_EQ((*conv)->SetParams(nullptr, nullptr, nullptr).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*conv)->Forward(src.data(), nullptr, dst.data()).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE((*conv)->SetParams(w.data(), nullptr, nullptr).ok());
  EXPECT_GE((*conv)->InternalBufferSize(), w.size() * 2);
  EXPECT_EQ((*conv)->Forward(nullptr, nullptr, dst.data()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*conv)->Forward(src.data(), nullptr, nullptr).code(), absl::StatusCode::kInvalidArgument);
  // dst overlapping src (in place) is rejected.
  EXPECT_EQ((*conv)->Forward(src.data(), nullptr, src.data()).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE((*conv)->Forward(src.data(), nullptr, dst.data()).ok());
}

TEST(Conv16bApi, ParamsRequiredExceptIdentityReluGelu) {
  for (int a = 0; a < kActivationCount; ++a) {
    ConvParams p = Params(2, 3, 3, 2, 1, 1);
    p.activation = static_cast<Activation>(a);
    auto conv = Convolution16b::Create(1, p);
    ASSERT_TRUE(conv.ok());
    std::vector<float> w(4, 1.0f);
    const absl::Status s = (*conv)->SetParams(w.data(), nullptr, nullptr);
    const bool optional = a == 0 || a == 1 || a == 10;
    EXPECT_EQ(s.ok(), optional) << ActivationName(p.activation) << ": " << s;
    if (!optional) {
      EXPECT_NE(std::string(s.message()).find("params"), std::string::npos);
    }
  }
}

// ---------------------------------------------------------------- algorithms

class Conv16bAlgorithm : public ::testing::TestWithParam<std::string> {
 protected:
  // Runs `pr` with the parameter's algorithm (skipping geometries it does
  // not support) and checks it against the oracle; on integer data also
  // bit-exactly against ref::direct when dst is FP32.
  void Check(const Problem& pr, bool integers, const std::string& what) {
    const conv16b_internal::AlgorithmSpec* spec = conv16b_internal::FindAlgorithm(GetParam());
    ASSERT_NE(spec, nullptr);
    auto geometry = conv16b_internal::Validate(pr.batch, pr.p);
    ASSERT_TRUE(geometry.ok()) << what << ": " << geometry.status();
    if (!spec->supports(*geometry)) return;
    ++checked_;
    const std::string repro = conv16b_check::ProblemString(pr) + " (" + what + ")";
    auto got = conv16b_check::Run(pr, GetParam(), /*with_buf=*/checked_ % 2 == 0);
    ASSERT_TRUE(got.ok()) << repro << ": " << got.status();
    const conv16b_check::Oracle oracle = conv16b_check::ComputeOracle(pr);
    if (auto m = conv16b_check::CompareToOracle(*got, oracle)) {
      FAIL() << repro << ": " << m->ToString();
    }
    if (integers && pr.p.dstT == DataType::k32f) {
      auto ref = conv16b_check::Run(pr, "ref::direct");
      ASSERT_TRUE(ref.ok());
      if (auto m = testing::CompareBitExact(*got, *ref)) FAIL() << repro << ": " << m->ToString();
    }
  }

  void SetUp() override {
    const conv16b_internal::AlgorithmSpec* spec = conv16b_internal::FindAlgorithm(GetParam());
    ASSERT_NE(spec, nullptr);
    if (!CpuSupports(spec->isa)) {
      GTEST_SKIP() << GetParam() << " needs " << IsaName(spec->isa) << ", which this CPU lacks";
    }
  }

  int checked_ = 0;
};

struct Case {
  size_t batch;
  ConvParams p;
};

// The shape grid: kernel sizes, strides, dilations, padding (asymmetric too),
// groups and depthwise, channel counts around the vector widths (16, 32) and
// widths around the pixel tiles.
std::vector<Case> Grid() {
  std::vector<Case> cases;
  auto add = [&](size_t batch, ConvParams p) { cases.push_back({batch, p}); };
  // p with padding y (top), x (left), h (bottom), w (right).
  auto padded = [&](size_t batch, ConvParams p, size_t y, size_t x, size_t h, size_t w) {
    p.padY = y;
    p.padX = x;
    p.padH = h;
    p.padW = w;
    conv16b_check::SetOutputSize(&p);
    add(batch, p);
  };
  add(1, Params(3, 9, 11, 5, 3, 3, 1, 1, 1));
  add(4, Params(16, 6, 7, 16, 1, 1));
  add(1, Params(17, 5, 13, 33, 1, 1));
  add(1, Params(32, 4, 25, 48, 1, 1));
  add(1, Params(31, 7, 12, 31, 3, 3, 1, 1, 1));
  add(1, Params(8, 9, 9, 64, 3, 3, 2, 1, 1));
  add(2, Params(6, 11, 10, 7, 3, 3, 1, 2, 2));
  add(1, Params(4, 11, 12, 9, 5, 5, 1, 1, 2));
  add(1, Params(3, 14, 15, 8, 7, 7, 2, 1, 3));
  add(1, Params(5, 9, 13, 6, 1, 7, 1, 1, 0));
  add(1, Params(5, 13, 9, 6, 7, 1, 1, 1, 0));
  add(1, Params(12, 8, 8, 12, 3, 3, 1, 1, 1, 3));    // grouped
  add(1, Params(6, 7, 9, 18, 3, 3, 1, 1, 1, 6));     // depthwise multiplier 3
  add(2, Params(32, 9, 10, 32, 3, 3, 1, 1, 1, 32));  // depthwise
  add(1, Params(19, 8, 21, 19, 5, 5, 2, 1, 2, 19));  // depthwise, stride 2
  add(1, Params(16, 8, 8, 16, 3, 3, 1, 2, 2, 16));   // depthwise, dilation 2
  add(1, Params(24, 5, 13, 24, 3, 3, 1, 1, 1, 24));  // depthwise, 13 = 8 + 4 + 1 pixels
  // Depthwise with the sliding window of the FP32 algorithms (stride ==
  // dilation): 5x5 and 7x7 over widths that are not whole tiles, and
  // stride 2 with dilation 2.
  add(1, Params(20, 7, 17, 20, 5, 5, 1, 1, 2, 20));
  add(1, Params(12, 8, 15, 12, 7, 7, 1, 1, 3, 12));
  add(1, Params(16, 11, 13, 16, 3, 3, 2, 2, 2, 16));
  // Depthwise with stride or dilation > 1 wide enough for the FP32
  // algorithms to read a BF16 NHWC source in place: edge segments of
  // padded copies on both sides around the in-place pixels (19 channels:
  // the last vector reads past a pixel), none at all (no padding, 16
  // channels), dilation 2, and two items.
  add(2, Params(19, 5, 45, 19, 3, 3, 2, 1, 1, 19));
  add(1, Params(16, 4, 40, 16, 3, 3, 2, 1, 0, 16));
  add(1, Params(24, 5, 30, 24, 3, 3, 1, 2, 2, 24));
  add(1, Params(8, 6, 41, 8, 5, 5, 2, 1, 2, 8));
  // The same on 16 lanes (nhwc_depthwise_strided: >= 32 channels): edges
  // on both sides with 35 channels (the last vector reads 13 past a pixel),
  // no padding with 48, stride 3 with a 4x4 kernel, and rows too narrow for
  // the in-place pixels (the FP32 ring).
  add(2, Params(35, 5, 45, 35, 3, 3, 2, 1, 1, 35));
  add(1, Params(48, 4, 40, 48, 3, 3, 2, 1, 0, 48));
  add(1, Params(40, 7, 50, 40, 4, 4, 3, 1, 1, 40));
  add(1, Params(32, 6, 12, 32, 3, 3, 2, 1, 1, 32));
  // nhwc_depthwise_dot (BF16 in place at every stride): stride 1 with 33
  // channels (a pair of vectors and a single one, 15 read past a pixel),
  // 64 channels over 14 pixels (too narrow for a middle segment: the whole
  // row from one padded copy), and stride 4 over a 1-pixel row whose
  // window lies in the left padding (the copied columns end before the
  // image).
  add(1, Params(33, 5, 30, 33, 3, 3, 1, 1, 1, 33));
  // 3x3 at stride 1 with 2 x 32 + 16 channels (the paired tile's last 16
  // channels, stored by the fused epilogue) over two 8-pixel tiles.
  add(1, Params(80, 4, 16, 80, 3, 3, 1, 1, 1, 80));
  // 3x3 at stride 2 (the paired stride-2 tiles) over 15 pixels in place:
  // tiles of 8 and 7 pixels, the last ending dst, with 32 + 16 channels.
  add(1, Params(48, 5, 31, 48, 3, 3, 2, 1, 0, 48));
  // ... with padding 1 read wholly in place (lead_zero: pixel 0's left
  // padding column taken as zeros): 7 pixels with 32 + 16 channels over two
  // items, 8 + 8 pixels, and 8 + 7 with 64 channels.
  add(2, Params(48, 5, 14, 48, 3, 3, 2, 1, 1, 48));
  add(1, Params(32, 4, 32, 32, 3, 3, 2, 1, 1, 32));
  add(1, Params(64, 3, 30, 64, 3, 3, 2, 1, 1, 64));
  // ... and over 3 pixels in place between one-pixel edges (the sliding
  // stride-2 tiles of the AVX-512 FP32 rows take every width, 1 to 8).
  add(1, Params(32, 5, 9, 32, 3, 3, 2, 1, 1, 32));
  // 7x7 at stride 1 (the 7-pixel sliding tile): 48 channels (a pair of
  // vectors and a single one) with edge segments around 16 middle pixels,
  // and 32 without padding (14 output pixels in place, two whole tiles).
  add(1, Params(48, 9, 30, 48, 7, 7, 1, 1, 3, 48));
  add(1, Params(32, 8, 20, 32, 7, 7, 1, 1, 0, 32));
  // nhwc_depthwise_slide (whole FP32 rows, sliding tiles on 16 lanes): 5x5
  // with 48 channels over 19 pixels, and 3x3 with stride 2 in y only.
  add(1, Params(48, 6, 19, 48, 5, 5, 1, 1, 2, 48));
  ConvParams stride_y = Params(40, 9, 12, 40, 3, 3, 1, 1, 1, 40);
  stride_y.strideY = 2;
  conv16b_check::SetOutputSize(&stride_y);
  add(1, stride_y);
  // Edge copies too wide for the ring slot (the FP32 ring instead, whose
  // weights a dot row must not shift): 34 channels, 1x2 dilation 3, left
  // padding 3 over 18 columns (found by the fuzzer).
  ConvParams ring_fallback = Params(34, 1, 18, 34, 1, 2, 1, 3, 0, 34);
  ring_fallback.padX = 3;
  conv16b_check::SetOutputSize(&ring_fallback);
  add(1, ring_fallback);
  add(2, Params(64, 6, 14, 64, 3, 3, 1, 1, 1, 64));
  // nhwc_depthwise_rows (FP32 NHWC sources: whole FP32 rows, per-tap tiles
  // at stride 2): 5x5 with 48 channels over 8 output pixels, and 256
  // channels over 10 (two balanced tiles, a vector pair and the fused
  // stores of every vector).
  add(1, Params(48, 7, 15, 48, 5, 5, 2, 1, 2, 48));
  add(1, Params(256, 3, 20, 256, 3, 3, 2, 1, 1, 256));
  ConvParams wide_stride = Params(32, 5, 1, 32, 3, 3, 4, 1, 0, 32);
  wide_stride.padX = 5;
  conv16b_check::SetOutputSize(&wide_stride);
  add(1, wide_stride);
  ConvParams asym = Params(7, 10, 12, 10, 3, 4);
  asym.padY = 2;
  asym.padX = 0;
  asym.padH = 1;
  asym.padW = 3;
  asym.strideX = 2;
  conv16b_check::SetOutputSize(&asym);
  add(1, asym);
  ConvParams rect = Params(9, 13, 8, 11, 2, 3);
  rect.strideY = 3;
  rect.dilationX = 2;
  rect.padW = 1;
  conv16b_check::SetOutputSize(&rect);
  add(3, rect);
  add(1, Params(1, 5, 40, 1, 3, 3, 1, 1, 1));  // one channel, wide row
  // Stems read in place, each kernel row's last pair half (9 values): 64
  // output channels (tiles of 4 blocks), 48 (2 blocks + 1).
  add(1, Params(3, 9, 26, 64, 3, 3, 2, 1, 1));
  add(1, Params(3, 7, 30, 48, 3, 3, 1, 1, 1));
  // Groups of 16 output channels (one vector), a row of 55 = 28 + 27 pixels:
  // the widest single-block tiles of the BF16 GEMM.
  add(1, Params(32, 3, 55, 32, 3, 3, 1, 1, 1, 2));
  // Single-block groups with padding read in place (GemmRowArgs::edges:
  // each row's first and last pixels read zeros at the padding columns):
  // rows of 3 pixels, of 57 = 3 x 19 (a middle tile), 5x5 at stride 2 (two
  // padding columns), 3x3 at stride 2 with dilation 2, padding on one side
  // only (left, then right), and 5x5 at stride 1 (padding 2 reaches pixel
  // 1: the padded copy).
  add(2, Params(8, 5, 3, 8, 3, 3, 1, 1, 1, 2));
  add(1, Params(12, 3, 57, 6, 3, 3, 1, 1, 1, 3));
  add(1, Params(16, 9, 31, 16, 5, 5, 2, 1, 2, 2));
  add(1, Params(16, 7, 20, 16, 3, 3, 2, 2, 2, 4));
  padded(1, Params(8, 6, 17, 8, 3, 3, 1, 1, 0, 2), 1, 1, 1, 0);
  padded(1, Params(8, 6, 17, 8, 3, 3, 1, 1, 0, 2), 1, 0, 1, 1);
  add(1, Params(8, 6, 12, 8, 5, 5, 1, 1, 2, 2));
  // Input-channel groups of 32 (the AMX rule), widths around its 16-pixel tiles.
  add(1, Params(64, 5, 19, 40, 3, 3, 1, 1, 1));
  add(2, Params(32, 4, 16, 16, 1, 1));
  add(1, Params(96, 3, 33, 33, 1, 1, 2));
  // Strided 1x1 without padding whose pixels tile the source rows (srcW ==
  // strideX * dstW: the FP32 GEMM merges its output rows): stride 2 over
  // 14 columns, 3 over 12, and 2 in x with 3 in y.
  add(2, Params(40, 6, 14, 36, 1, 1, 2));
  add(1, Params(24, 7, 12, 20, 1, 1, 3));
  ConvParams strided_1x1 = Params(33, 8, 10, 18, 1, 1, 2);
  strided_1x1.strideY = 3;
  conv16b_check::SetOutputSize(&strided_1x1);
  add(1, strided_1x1);
  add(1, Params(64, 5, 17, 34, 3, 3, 1, 2, 2, 2));
  // AMX strided rows of at most 16 pixels run in pairs (one 32-pixel
  // block for two rows): 5 rows of 7 (the last alone), 3 rows of 16.
  add(1, Params(64, 9, 13, 40, 3, 3, 2, 1, 1));
  add(2, Params(32, 6, 31, 48, 3, 3, 2, 1, 1));
  add(2, Params(32, 3, 7, 20, 3, 3, 1, 1, 1));  // narrower than one tile
  // AMX reading BF16 NHWC in place (no padding, stride 1): a run of 39
  // pixels (a 16-pixel last block moved back), 22 (two 16-pixel blocks), 15 (too short:
  // padded copy), and a 3x3 without padding (run 34 over the source grid).
  add(1, Params(32, 3, 13, 40, 1, 1));
  add(1, Params(32, 4, 13, 16, 1, 1));  // 52 = 32 + 20: a 32-pixel block moved back
  add(2, Params(32, 2, 11, 16, 1, 1));
  add(1, Params(32, 3, 5, 16, 1, 1));
  add(1, Params(32, 6, 9, 16, 3, 3));
  // 1x1 with two 32-channel groups, and 1x1 with padding (amx nchw_gemm's
  // zero borders in NCHW).
  add(2, Params(64, 3, 10, 48, 1, 1, 1, 1, 0, 2));
  add(1, Params(32, 4, 6, 20, 1, 1, 1, 1, 1));
  // AMX im2row: seven 4-channel kernel rows in one 32-element chunk.
  add(1, Params(4, 12, 9, 20, 7, 1, 1, 1, 0));
  // AMX flat runs over rows sharing their zero gap (max(padX, padW)
  // columns between image rows): asymmetric borders, the last row's right
  // border spilling past the buffer (padH 0), a dilated wide kernel, and a
  // border only on the right.
  padded(2, Params(32, 5, 9, 24, 3, 3), 0, 2, 0, 1);
  padded(1, Params(32, 4, 7, 16, 3, 5, 1, 2), 1, 3, 0, 4);
  padded(1, Params(64, 6, 6, 40, 1, 3), 0, 0, 0, 2);
  return cases;
}

// Every grid case in both formats, all four type combinations, with the
// activations taking turns (tensors not filled yet).
std::vector<Problem> GridProblems() {
  std::vector<Problem> problems;
  int turn = 0;
  for (const Case& c : Grid()) {
    for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
      for (DataType st : {DataType::k32f, DataType::k16b}) {
        for (DataType dt : {DataType::k32f, DataType::k16b}) {
          Problem pr;
          pr.batch = c.batch;
          pr.p = c.p;
          pr.p.srcF = pr.p.dstF = f;
          pr.p.srcT = st;
          pr.p.dstT = dt;
          pr.p.activation = static_cast<Activation>(turn++ % kActivationCount);
          problems.push_back(pr);
        }
      }
    }
  }
  return problems;
}

// Tensors 4, 16 and 32 bytes past a 64-byte boundary (Run's misalign;
// the grid's are aligned): the AVX2 3x3 stride-2 depthwise tiles take
// their 32-byte two-pass tile only where rows and dst are 32-byte aligned,
// the sliding tile otherwise. Depthwise 3x3 stride 2 with 32, 48 and 64
// channels, with and without padding, and a dense 3x3 and 1x1.
TEST_P(Conv16bAlgorithm, MisalignedTensors) {
  std::mt19937 rng(11);
  int turn = 0;
  for (const ConvParams& c :
       {Params(32, 5, 17, 32, 3, 3, 2, 1, 1, 32), Params(48, 4, 31, 48, 3, 3, 2, 1, 0, 48),
        Params(64, 3, 30, 64, 3, 3, 2, 1, 1, 64), Params(24, 5, 9, 40, 3, 3, 1, 1, 1),
        Params(32, 3, 13, 48, 1, 1)}) {
    for (size_t misalign : {4, 16, 32}) {
      for (DataType st : {DataType::k32f, DataType::k16b}) {
        for (DataType dt : {DataType::k32f, DataType::k16b}) {
          Problem pr;
          pr.p = c;
          pr.p.srcF = pr.p.dstF = TensorFormat::kNhwc;
          pr.p.srcT = st;
          pr.p.dstT = dt;
          pr.p.activation = static_cast<Activation>(turn++ % kActivationCount);
          pr.misalign = misalign;
          conv16b_check::FillRandom(&pr, false, &rng);
          Check(pr, false, "misaligned by " + std::to_string(misalign));
        }
      }
    }
  }
}

TEST_P(Conv16bAlgorithm, GridAllFormatsAndTypes) {
  std::mt19937 rng(42);
  for (Problem pr : GridProblems()) {
    conv16b_check::FillRandom(&pr, false, &rng);
    Check(pr, false, "grid");
  }
  EXPECT_GT(checked_, 0);
}

// The AVX512-BF16 GEMM's pixel lists (NHWC dst, whole 4-block tiles,
// padding; fused identity or ReLU): rows with kernel rows cut, and the
// other rows' pixels by the kernel columns inside (left and right edges,
// 5x5's two columns on each side), over two items, FP32 and BF16 sources
// and destinations; the other activations through the row sums.
TEST_P(Conv16bAlgorithm, PixelListsEveryEdge) {
  std::mt19937 rng(17);
  ConvParams asym = Params(16, 9, 10, 64, 3, 4);
  asym.padY = 2;
  asym.padX = 0;
  asym.padH = 0;
  asym.padW = 3;
  conv16b_check::SetOutputSize(&asym);
  const Case shapes[] = {{2, Params(32, 7, 7, 128, 3, 3, 1, 1, 1)},
                         {1, Params(23, 9, 11, 64, 5, 5, 1, 1, 2)},
                         {1, Params(16, 10, 13, 64, 3, 3, 2, 1, 1)},
                         {1, Params(16, 9, 9, 64, 3, 3, 1, 2, 2)},
                         {1, Params(32, 6, 8, 128, 3, 3, 1, 1, 1, 2)},
                         {1, Params(16, 1, 20, 64, 3, 3, 1, 1, 1)},
                         {1, asym}};
  for (const Case& c : shapes) {
    for (Activation a : {Activation::kIdentity, Activation::kRelu, Activation::kLeakyRelu}) {
      for (int types = 0; types < 4; ++types) {
        Problem pr;
        pr.batch = c.batch;
        pr.p = c.p;
        pr.p.srcF = pr.p.dstF = TensorFormat::kNhwc;
        pr.p.srcT = types % 2 ? DataType::k16b : DataType::k32f;
        pr.p.dstT = types / 2 ? DataType::k32f : DataType::k16b;
        pr.p.activation = a;
        conv16b_check::FillRandom(&pr, false, &rng);
        Check(pr, false, "pixel lists");
      }
    }
  }
}

TEST_P(Conv16bAlgorithm, EveryActivation) {
  std::mt19937 rng(7);
  const Case shapes[] = {{1, Params(20, 6, 9, 35, 3, 3, 1, 1, 1)},
                         {2, Params(24, 7, 8, 24, 3, 3, 1, 1, 1, 24)},
                         {1, Params(32, 5, 18, 20, 3, 3, 1, 1, 1)},
                         // The stride-2 paired tiles of the grid's case,
                         // fused stores included: a 7-pixel tile ends dst.
                         {1, Params(48, 5, 31, 48, 3, 3, 2, 1, 0, 48)},
                         // nhwc_depthwise_slide's fused stores (16 lanes):
                         // tiles of 7 and 6 pixels.
                         {1, Params(32, 4, 13, 32, 3, 3, 1, 1, 1, 32)}};
  for (const Case& c : shapes) {
    for (int a = 0; a < kActivationCount; ++a) {
      // Both output types for every activation and format: the stores
      // differ per type (and per activation class on x86).
      for (int fd = 0; fd < 4; ++fd) {
        const TensorFormat f = fd % 2 ? TensorFormat::kNhwc : TensorFormat::kNchw;
        Problem pr;
        pr.batch = c.batch;
        pr.p = c.p;
        pr.p.srcF = pr.p.dstF = f;
        pr.p.srcT = a % 2 ? DataType::k16b : DataType::k32f;
        pr.p.dstT = fd / 2 ? DataType::k32f : DataType::k16b;
        pr.p.activation = static_cast<Activation>(a);
        conv16b_check::FillRandom(&pr, false, &rng);
        // Scale the source so that sums spread over the activations' curves.
        if (pr.p.srcT == DataType::k32f) {
          float* s = reinterpret_cast<float*>(pr.src.data());
          for (size_t i = 0; i < pr.src.size() / 4; ++i) s[i] *= 3.0f;
        }
        Check(pr, false, ActivationName(pr.p.activation));
      }
    }
  }
}

TEST_P(Conv16bAlgorithm, IntegersExact) {
  std::mt19937 rng(3);
  const Activation acts[] = {Activation::kIdentity, Activation::kRelu, Activation::kLeakyRelu,
                             Activation::kRestrictRange, Activation::kPrelu};
  int turn = 0;
  for (const Case& c : Grid()) {
    for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
      Problem pr;
      pr.batch = c.batch;
      pr.p = c.p;
      pr.p.srcF = pr.p.dstF = f;
      pr.p.srcT = turn % 2 ? DataType::k16b : DataType::k32f;
      pr.p.dstT = DataType::k32f;
      pr.p.activation = acts[turn++ % 5];
      conv16b_check::FillRandom(&pr, true, &rng);
      Check(pr, true, "integers");
    }
  }
}

// A problem of `shape` in format f, BF16 source, dst type `dst`, no
// activation (the tensors are left to fill).
Problem Bf16Source(const ConvParams& shape, TensorFormat f, DataType dst) {
  Problem pr;
  pr.p = shape;
  pr.p.srcF = pr.p.dstF = f;
  pr.p.srcT = DataType::k16b;
  pr.p.dstT = dst;
  pr.p.activation = Activation::kIdentity;
  return pr;
}

// An infinite source pixel reaches only the outputs whose windows hold it:
// every other output is the exact integer sum ref::direct gives, so no
// padding lane, im2row row tail or copy past a run multiplies it by a zero
// weight (0 * Inf = NaN). Inside its windows the sums are +-Inf or NaN as
// ref's (every NaN alike).
TEST_P(Conv16bAlgorithm, InfiniteSourceStaysInItsWindows) {
  std::mt19937 rng(13);
  for (const ConvParams& shape :
       {Params(3, 9, 11, 20, 3, 3, 2, 1, 1), Params(3, 12, 13, 16, 7, 7, 2, 1, 3),
        Params(3, 9, 26, 64, 3, 3, 2, 1, 1),
        Params(16, 6, 9, 20, 3, 3, 1, 1, 1), Params(5, 6, 9, 20, 1, 1),
        Params(24, 6, 9, 24, 3, 3, 1, 1, 1, 24), Params(40, 7, 12, 40, 3, 3, 2, 1, 1, 40)}) {
    for (const auto& [f, whole] : {std::pair{TensorFormat::kNchw, true},
                                   std::pair{TensorFormat::kNhwc, true},
                                   std::pair{TensorFormat::kNhwc, false}}) {
      Problem pr = Bf16Source(shape, f, DataType::k32f);
      conv16b_check::FillRandom(&pr, true, &rng);
      uint16_t* src = reinterpret_cast<uint16_t*>(pr.src.data());
      // Three whole pixels (every channel) +Inf: the element after a
      // window's run in a row is the next pixel's first channel. Or only
      // their first channel: the windows holding one infinite product sum
      // to +-Inf, which an Inf times a zero weight (a padding lane) would
      // turn into NaN.
      const ConvParams& q = pr.p;
      for (const auto& [y, x] : {std::pair<size_t, size_t>{1, 3}, {q.srcH / 2, q.srcW / 2},
                                 {q.srcH - 2, q.srcW - 3}}) {
        for (size_t c = 0; c < (whole ? q.srcC : 1); ++c) {
          src[f == TensorFormat::kNhwc ? (y * q.srcW + x) * q.srcC + c
                                       : (c * q.srcH + y) * q.srcW + x] = 0x7F80;
        }
      }
      auto geometry = conv16b_internal::Validate(pr.batch, pr.p);
      ASSERT_TRUE(geometry.ok());
      if (!conv16b_internal::FindAlgorithm(GetParam())->supports(*geometry)) continue;
      ++checked_;
      auto got = conv16b_check::Run(pr, GetParam());
      auto ref = conv16b_check::Run(pr, "ref::direct");
      ASSERT_TRUE(got.ok() && ref.ok());
      if (auto m = testing::CompareBitExactOrNan(*got, *ref)) {
        FAIL() << conv16b_check::ProblemString(pr) << ": " << m->ToString();
      }
      const size_t infinite = static_cast<size_t>(
          std::count_if(ref->begin(), ref->end(), [](float r) { return !std::isfinite(r); }));
      EXPECT_GT(infinite, 0u);
      EXPECT_LT(infinite, ref->size());
    }
  }
}

// BF16 output of values that are FP32 denormals or round across the normal
// boundary: src is zero, so every output is the bias, and its rounding must
// be bit-identical to ref::direct (vcvtne2ps2bf16 alone would flush these).
// Whole blocks of 16 output channels too (32 and 64: the GEMM tiles' fused
// epilogue, in place and through pixel lists).
TEST_P(Conv16bAlgorithm, DenormalOutputsRoundLikeRef) {
  const uint32_t patterns[] = {0x00000001u, 0x00007FFFu, 0x00008000u, 0x00018000u,
                               0x007FFFFFu, 0x007F8000u, 0x007F7FFFu, 0x00400000u,
                               0x80000001u, 0x807FFFFFu, 0x80008000u, 0x00800000u};
  for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
    for (const ConvParams& shape : {Params(32, 3, 20, 40, 1, 1), Params(64, 4, 5, 24, 3, 3, 1, 1, 1),
                                    Params(32, 3, 20, 32, 1, 1), Params(64, 4, 5, 64, 3, 3, 1, 1, 1),
                                    Params(12, 4, 9, 12, 3, 3, 1, 1, 1, 12),
                                    Params(40, 5, 40, 40, 3, 3, 2, 1, 1, 40)}) {
      Problem pr = Bf16Source(shape, f, DataType::k16b);
      std::mt19937 rng(5);
      conv16b_check::FillRandom(&pr, false, &rng);
      std::fill(pr.src.begin(), pr.src.end(), uint8_t{0});
      for (size_t c = 0; c < pr.bias.size(); ++c) {
        std::memcpy(&pr.bias[c], &patterns[c % std::size(patterns)], sizeof(float));
      }
      auto geometry = conv16b_internal::Validate(pr.batch, pr.p);
      ASSERT_TRUE(geometry.ok());
      const auto* spec = conv16b_internal::FindAlgorithm(GetParam());
      if (!spec->supports(*geometry)) continue;
      ++checked_;
      auto got = conv16b_check::Run(pr, GetParam());
      auto ref = conv16b_check::Run(pr, "ref::direct");
      ASSERT_TRUE(got.ok() && ref.ok());
      if (auto m = testing::CompareBitExact(*got, *ref)) {
        FAIL() << conv16b_check::ProblemString(pr) << ": " << m->ToString();
      }
    }
  }
}

// Size choices follow the detected caches (DepthwiseF32's bands of output
// rows, the GEMMs' merged 1x1 rows, the in-place depthwise's whole-row
// copy): with a tiny L2 (bands of one row), 64 KiB (1x1 128->100 over 6x5:
// 3 rows merged), a huge one (one band, all 6 rows merged) and a 4 KiB L1d
// (depthwise s2 over 13 columns: the whole-row BF16 copy instead of the
// 7 KiB FP32 ring) every algorithm gives the same bits, and they match the
// oracle.
TEST_P(Conv16bAlgorithm, CacheSizesChangeNoResult) {
  std::mt19937 rng(11);
  ConvParams nchw_1x1 = Params(128, 6, 5, 100, 1, 1);
  nchw_1x1.srcF = nchw_1x1.dstF = TensorFormat::kNchw;
  // Two groups of 72 output channels (five blocks, the last partial):
  // with a small L2 the FP32 GEMM runs them in chunks of blocks, fused
  // into NHWC and through the sums into NCHW.
  const ConvParams grouped = Params(32, 5, 7, 144, 3, 3, 1, 1, 1, 2);
  ConvParams grouped_nchw = grouped;
  grouped_nchw.srcF = grouped_nchw.dstF = TensorFormat::kNchw;
  for (const ConvParams& p : {Params(40, 9, 13, 40, 3, 3, 2, 1, 1, 40),  // depthwise s2
                              Params(24, 7, 10, 24, 5, 5, 1, 1, 2, 24),  // depthwise 5x5
                              Params(32, 6, 9, 48, 3, 3, 1, 1, 1), Params(128, 6, 5, 100, 1, 1),
                              nchw_1x1, grouped, grouped_nchw,
                              Params(64, 9, 13, 64, 3, 3, 1, 1, 1, 4),  // 16-channel groups
                              Params(48, 12, 16, 40, 1, 1, 2),  // strided 1x1, merged rows
                              // 1x1, rows of 50: merged 6 at a time (300 pixels) + 1
                              Params(32, 7, 50, 32, 1, 1),
                              // AVX512-BF16 pixel lists, 8 blocks in chunks
                              Params(32, 7, 7, 128, 3, 3, 1, 1, 1),
                              Params(3, 20, 22, 32, 7, 7, 2, 1, 3)}) {  // stem
    Problem pr;
    pr.batch = 2;
    pr.p = p;
    pr.p.srcT = DataType::k16b;
    conv16b_check::FillRandom(&pr, false, &rng);
    auto geometry = conv16b_internal::Validate(pr.batch, pr.p);
    ASSERT_TRUE(geometry.ok());
    if (!conv16b_internal::FindAlgorithm(GetParam())->supports(*geometry)) continue;
    std::vector<std::vector<float>> got;
    // The L2 sets merged rows, passes and the GEMMs' chunks of blocks
    // over every output row (4 KiB: two blocks each in FP32 and AMX, a
    // 4-block tile in BF16: 72 channels as 4 + 1 blocks); the L1d the GEMM's row
    // calls of a few blocks (16 KiB: 100 channels as 4 + 3 blocks) and the
    // AMX im2row bands (1 MiB: the whole image in one band, else 32 pixels).
    for (const auto& [l1d, l2] : {std::pair{size_t{32} << 10, size_t{4} << 10},
                                  std::pair{size_t{32} << 10, size_t{64} << 10},
                                  std::pair{size_t{32} << 10, size_t{1} << 30},
                                  std::pair{size_t{16} << 10, size_t{1} << 30},
                                  std::pair{size_t{4} << 10, size_t{1} << 30},
                                  std::pair{size_t{1} << 20, size_t{1} << 30}}) {
      const CacheSizes sizes = {l1d, l2, size_t{8} << 20};
      SetCacheSizesForTesting(&sizes);
      auto out = conv16b_check::Run(pr, GetParam());
      SetCacheSizesForTesting(nullptr);
      ASSERT_TRUE(out.ok()) << out.status();
      got.push_back(*out);
    }
    for (size_t i = 1; i < got.size(); ++i) {
      EXPECT_FALSE(testing::CompareBitExact(got[0], got[i]))
          << conv16b_check::ProblemString(pr) << ", sizes " << i;
    }
    if (auto m = conv16b_check::CompareToOracle(got[0], conv16b_check::ComputeOracle(pr))) {
      FAIL() << conv16b_check::ProblemString(pr) << ": " << m->ToString();
    }
  }
}

// SetParams and Forward return with the upper halves of the vector
// registers clean (testing/avx_state.h): the AVX2 rows with a BF16 dst
// left them dirty (an out-of-line store taking __m256 arguments), and the
// caller's legacy-SSE code after them ran up to 4x slower on Zen 5. Every
// grid problem the algorithm takes (formats, types, activations).
TEST_P(Conv16bAlgorithm, ForwardLeavesAvxStateClean) {
  if (!testing::AvxStateObservable()) GTEST_SKIP() << "no XINUSE to read on this CPU";
  const auto* spec = conv16b_internal::FindAlgorithm(GetParam());
  std::mt19937 rng(17);
  for (Problem pr : GridProblems()) {
    auto geometry = conv16b_internal::Validate(pr.batch, pr.p);
    ASSERT_TRUE(geometry.ok());
    if (!spec->supports(*geometry)) continue;
    ++checked_;
    conv16b_check::FillRandom(&pr, false, &rng);
    const std::string repro = conv16b_check::ProblemString(pr);
    testing::ClearAvxUpperState();
    auto conv = conv16b_internal::CreateWithAlgorithm(pr.batch, pr.p, 0, GetParam());
    ASSERT_TRUE(conv.ok()) << repro << ": " << conv.status();
    ASSERT_TRUE((*conv)
                    ->SetParams(pr.weight.data(), pr.bias.data(),
                                pr.params.empty() ? nullptr : pr.params.data())
                    .ok());
    EXPECT_FALSE(testing::AvxUpperStateDirty()) << repro << ": after SetParams";
    const size_t bytes = pr.batch * pr.p.dstC * pr.p.dstH * pr.p.dstW *
                         (pr.p.dstT == DataType::k16b ? 2 : 4);
    std::vector<uint8_t> dst(bytes);
    testing::ClearAvxUpperState();
    ASSERT_TRUE((*conv)->Forward(pr.src.data(), nullptr, dst.data()).ok()) << repro;
    ASSERT_FALSE(testing::AvxUpperStateDirty()) << repro << ": after Forward";
  }
  EXPECT_GT(checked_, 0);
}

TEST_P(Conv16bAlgorithm, ConcurrentForwardIsIdentical) {
  if (std::getenv("SYNOPS_UNDER_QEMU") != nullptr) {
    // Seen here: qemu-aarch64 never returns from pthread_create (a five-line
    // std::thread program hangs too). Natively this test runs on every ISA.
    GTEST_SKIP() << "threads hang under qemu-user on this machine";
  }
  Problem pr;
  pr.batch = 2;
  pr.p = Params(18, 6, 13, 20, 3, 3, 1, 1, 1);
  auto geometry = conv16b_internal::Validate(pr.batch, pr.p);
  const auto* spec = conv16b_internal::FindAlgorithm(GetParam());
  ConvParams nchw = Params(32, 5, 19, 20, 1, 1);
  nchw.srcF = nchw.dstF = TensorFormat::kNchw;
  ConvParams strided = Params(32, 5, 30, 32, 3, 3, 2, 1, 1, 32);
  strided.srcT = DataType::k16b;
  ConvParams rows = Params(32, 5, 14, 32, 3, 3, 2, 1, 1, 32);
  rows.srcT = DataType::k32f;
  for (const ConvParams& other : {Params(16, 6, 13, 16, 3, 3, 1, 1, 1, 16),  // depthwise
                                  Params(32, 5, 19, 20, 3, 3, 1, 1, 1),      // 32-channel groups
                                  nchw,
                                  Params(3, 9, 13, 20, 3, 3, 2, 1, 1),  // a stem (im2row)
                                  Params(32, 6, 13, 32, 3, 3, 1, 1, 1, 32),  // 32-ch depthwise
                                  strided,  // depthwise from BF16 with stride 2
                                  rows}) {  // from FP32 with stride 2 over 7 pixels
    if (spec->supports(*geometry)) break;
    pr.p = other;
    geometry = conv16b_internal::Validate(pr.batch, pr.p);
  }
  ASSERT_TRUE(spec->supports(*geometry)) << GetParam();
  pr.p.srcT = DataType::k32f;  // where the algorithm takes FP32 sources
  if (!spec->supports(*conv16b_internal::Validate(pr.batch, pr.p))) pr.p.srcT = DataType::k16b;
  pr.p.dstT = DataType::k16b;
  pr.p.activation = Activation::kGelu;
  std::mt19937 rng(5);
  conv16b_check::FillRandom(&pr, false, &rng);
  auto conv = conv16b_internal::CreateWithAlgorithm(pr.batch, pr.p, 0, GetParam());
  ASSERT_TRUE(conv.ok()) << conv.status();
  ASSERT_TRUE((*conv)->SetParams(pr.weight.data(), pr.bias.data(), nullptr).ok());
  const size_t count = pr.batch * pr.p.dstC * pr.p.dstH * pr.p.dstW;
  constexpr int kThreads = 4;
  std::vector<std::vector<uint16_t>> out(kThreads, std::vector<uint16_t>(count, 0));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<uint8_t> buf((*conv)->ExternalBufferSize());
      for (int rep = 0; rep < 3; ++rep) {
        EXPECT_TRUE((*conv)->Forward(pr.src.data(), t % 2 ? buf.data() : nullptr, out[t].data()).ok());
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(out[t], out[0]) << "thread " << t;
}

INSTANTIATE_TEST_SUITE_P(All, Conv16bAlgorithm, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto& s : conv16b_internal::Algorithms()) names.push_back(s.name);
                           return names;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& ch : n) if (ch == ':') ch = '_';
                           return n;
                         });

// The selection rules of conv16b_internal::Algorithms().
TEST(Conv16bSelection, Rules) {
  const ConvParams dense = Params(16, 8, 8, 16, 3, 3, 1, 1, 1);
  const ConvParams depthwise = Params(16, 8, 8, 16, 3, 3, 1, 1, 1, 16);
  auto info = [](const ConvParams& p) { return (*Convolution16b::Create(1, p))->Info(); };
  SetMaxIsa(Isa::kRef);
  EXPECT_EQ(info(dense).rfind("ref::direct", 0), 0u) << info(dense);
  SetMaxIsa(std::nullopt);
  const auto& all = conv16b_internal::Algorithms();
  for (const ConvParams& p : {dense, depthwise}) {
    auto g = conv16b_internal::Validate(1, p);
    std::string want = "ref::direct";
    for (const auto& s : all) {
      if (!s.test_only && IsaAllowed(s.isa) && s.supports(*g)) {
        want = s.name;
        break;
      }
    }
    EXPECT_EQ(info(p).rfind(want, 0), 0u) << info(p) << " vs " << want;
  }
}

// The NCHW source rows of the FP32 algorithms round like Fp32ToBf16 (SPEC
// §2) bit for bit: ties, NaN payloads, denormals, infinities; every
// channel and pixel tail of the 8 x 8 (AVX2) and 4 x 4 transposes.
TEST(Conv16bKernels, PlanarRowToF32RoundsLikeSpec) {
#if defined(__x86_64__)
  using Fn = Kernel<conv16b_internal::PlanarRowToF32Fn>;
  const Fn fns[] = {{"avx2", Isa::kAvx2, conv16b_internal::PlanarRowToF32Avx2},
                    {"sse41", Isa::kSse41, conv16b_internal::PlanarRowToF32Sse41}};
  std::mt19937 rng(5);
  int ran = 0;
  for (const Fn& f : fns) {
    if (!CpuSupports(f.isa)) continue;
    ++ran;
    for (size_t channels : {1, 3, 4, 7, 8, 13}) {
      for (size_t width : {1, 4, 5, 9, 16}) {
        const size_t plane = width + 3;
        std::vector<float> s32(channels * plane);
        std::vector<uint16_t> s16(channels * plane);
        for (size_t i = 0; i < s32.size(); ++i) {
          uint32_t bits = rng();
          if (i % 5 == 0) bits = (bits & 0xFFFF0000u) | 0x8000u;  // a tie
          if (i % 7 == 0) bits = 0x7F800000u | (bits & 0x807FFFFFu);  // Inf or NaN
          if (i % 11 == 0) bits &= 0x807FFFFFu;  // denormal
          std::memcpy(&s32[i], &bits, 4);
          s16[i] = static_cast<uint16_t>(rng());
        }
        for (bool fp32 : {true, false}) {
          std::vector<float> got(channels * width, -1.0f);
          f.fn(fp32 ? static_cast<const void*>(s32.data()) : s16.data(), fp32, plane, channels, width,
               got.data());
          for (size_t c = 0; c < channels; ++c) {
            for (size_t x = 0; x < width; ++x) {
              const uint16_t want16 = fp32 ? Fp32ToBf16(s32[c * plane + x]) : s16[c * plane + x];
              uint32_t got_bits;
              std::memcpy(&got_bits, &got[x * channels + c], 4);
              ASSERT_EQ(got_bits, uint32_t{want16} << 16)
                  << f.name << " fp32 " << fp32 << " channels " << channels << " width " << width
                  << " at c " << c << " x " << x;
            }
          }
        }
      }
    }
  }
  if (ran == 0) GTEST_SKIP() << "needs SSE4.1";
#else
  GTEST_SKIP() << "x86 kernels";
#endif
}

// The NHWC source rows of the FP32 algorithms (RoundRowF32Fn) round like
// Fp32ToBf16 bit for bit (ties, NaN payloads, denormals, infinities) over
// every tail of 4, 8 and 16 lanes, and write nothing past the row.
TEST(Conv16bKernels, RoundRowF32RoundsLikeSpec) {
#if defined(__x86_64__)
  using Fn = Kernel<conv16b_internal::RoundRowF32Fn>;
  const Fn fns[] = {{"avx512", Isa::kAvx512, conv16b_internal::RoundRowF32Avx512},
                    {"avx2", Isa::kAvx2, conv16b_internal::RoundRowF32Avx2},
                    {"sse41", Isa::kSse41, conv16b_internal::RoundRowF32Sse41}};
  std::mt19937 rng(7);
  int ran = 0;
  for (const Fn& f : fns) {
    if (!CpuSupports(f.isa)) continue;
    ++ran;
    // Rows without NaN too: AVX2 rounds NaN-free vector pairs another way.
    for (const bool nans : {true, false}) {
      for (size_t n : {1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 64}) {
        std::vector<float> src(n);
        for (size_t i = 0; i < n; ++i) {
          uint32_t bits = rng();
          if (i % 5 == 0) bits = (bits & 0xFFFF0000u) | 0x8000u;  // a tie
          if (nans && i % 7 == 0) bits = 0x7F800000u | (bits & 0x807FFFFFu);  // Inf or NaN
          if (nans && i % 7 == 3) bits = 0x7F800001u | (bits & 0x8000FFFFu);  // NaN, low bits
          if (!nans && i % 7 == 0) bits = (bits & 0x80000000u) | 0x7F800000u;  // Inf
          if (i % 11 == 0) bits &= 0x807FFFFFu;  // denormal
          std::memcpy(&src[i], &bits, 4);
        }
        std::vector<float> got(n + 16, -1.0f);
        f.fn(src.data(), n, got.data());
        for (size_t i = 0; i < n + 16; ++i) {
          uint32_t got_bits;
          std::memcpy(&got_bits, &got[i], 4);
          const uint32_t want = i < n ? uint32_t{Fp32ToBf16(src[i])} << 16 : 0xBF800000u;
          ASSERT_EQ(got_bits, want) << f.name << " n " << n << " at " << i << " nans " << nans;
        }
      }
    }
  }
  if (ran == 0) GTEST_SKIP() << "needs SSE4.1";
#else
  GTEST_SKIP() << "x86 kernels";
#endif
}

// The stems' finiteness scan (whole last pairs only without Inf or NaN)
// finds one non-finite value at any position of any length: both unrolled
// vectors and the masked tail; the largest finite exponent, denormals and
// negative values are finite. The values past n (an Inf) are not read.
TEST(Conv16bKernels, AllFiniteFindsEveryInfAndNan) {
#if defined(__x86_64__)
  if (!CpuSupports(Isa::kAvx512)) GTEST_SKIP() << "needs AVX-512";
  std::mt19937 rng(3);
  for (size_t n : {0, 1, 31, 32, 33, 63, 64, 65, 100, 130}) {
    std::vector<uint16_t> v(n + 40, 0x7F80);
    for (size_t i = 0; i < n; ++i) {
      // Finite: exponents 0 (denormal, zero) to 0xFE, either sign.
      v[i] = static_cast<uint16_t>((rng() & 0x807F) | ((rng() % 0xFF) << 7));
    }
    if (n > 0) v[rng() % n] = 0x7F7F;  // the largest finite
    ASSERT_TRUE(conv16b_internal::AllFiniteBf16Avx512(v.data(), n)) << n;
    for (size_t at = 0; at < n; ++at) {
      for (int bad : {0x7F80, 0xFF80, 0x7FC0, 0xFF81, 0x7F81}) {
        const uint16_t keep = v[at];
        v[at] = static_cast<uint16_t>(bad);
        ASSERT_FALSE(conv16b_internal::AllFiniteBf16Avx512(v.data(), n))
            << n << " at " << at << " " << bad;
        v[at] = keep;
      }
    }
  }
#else
  GTEST_SKIP() << "x86 kernels";
#endif
}

// The biases that let the vdpbf16ps rows round without a denormal test:
// zero, or at least 2^-100 in magnitude; not the float just below it, a
// denormal, NaN.
TEST(Conv16bKernels, BiasZeroOrLarge) {
  using conv16b_internal::BiasZeroOrLarge;
  const float inf = std::numeric_limits<float>::infinity();
  for (float b : {0.0f, -0.0f, 0x1p-100f, -0x1p-100f, 1.0f, -3e38f, inf, -inf}) {
    const float v[3] = {1.0f, b, 0.0f};
    EXPECT_TRUE(BiasZeroOrLarge(v, 3)) << b;
  }
  for (float b : {std::nextafter(0x1p-100f, 0.0f), -0x1.fffffep-101f, 0x1p-126f, 0x1p-149f,
                  -0x1p-149f, std::numeric_limits<float>::quiet_NaN()}) {
    const float v[3] = {1.0f, b, 0.0f};
    EXPECT_FALSE(BiasZeroOrLarge(v, 3)) << b;
    EXPECT_TRUE(BiasZeroOrLarge(v, 1)) << b;
  }
}

// The GEMM row's fused epilogue (NHWC dst, the activations of a few FP32
// operations) stores exactly what the row of sums and StoreRow store, bit
// for bit, with NaN, infinities, BF16 ties and denormals among the sums:
// every vector activation, BF16 and FP32 dst, a channel offset (group > 0).
TEST(Conv16bKernels, FusedEpilogueMatchesStoreRow) {
#if defined(__x86_64__)
  struct Fn {
    const char* name;
    Isa isa;
    conv16b_internal::GemmRowF32Fn row;
    conv16b_internal::StoreRowFn store;
  };
  const Fn fns[] = {
      {"avx2", Isa::kAvx2, conv16b_internal::GemmRowF32Avx2, conv16b_internal::StoreRowAvx2},
      {"sse41", Isa::kSse41, conv16b_internal::GemmRowF32Sse41, conv16b_internal::StoreRowSse41}};
  constexpr size_t kWidth = 13, kK = 1, kOcg = 32, kGroups = 2, kBase = kOcg;  // group 1
  ConvParams p = Params(kK * kGroups, 1, kWidth, kOcg * kGroups, 1, 1, 1, 1, 0, kGroups);
  std::mt19937 rng(11);
  // One input channel and weight 1: each sum is its source value. The
  // source holds FP32 values that are not BF16 (the fused store rounds
  // them), as a test of the store; the kernels never see such sums.
  std::vector<float> src(kWidth * 16 + 16);
  alignas(64) float weight[2 * 16];  // the kernels load weights aligned
  std::fill(std::begin(weight), std::end(weight), 1.0f);
  for (float& v : src) {
    uint32_t bits = rng();
    switch (rng() % 6) {
      case 0: bits = (bits & 0xFFFF0000u) | 0x8000u; break;  // a tie
      case 1: bits = 0x7F800000u | (bits & 0x807FFFFFu); break;  // Inf or NaN
      case 2: bits &= 0x807FFFFFu; break;  // denormal
      default: break;
    }
    std::memcpy(&v, &bits, 4);
  }
  std::vector<float> bias(kOcg * kGroups), params(kOcg * kGroups);
  for (size_t c = 0; c < bias.size(); ++c) {
    bias[c] = c % 3 == 0 ? 0.0f : 0.25f * static_cast<float>(static_cast<int>(c) - 30);
    params[c] = 0.125f * static_cast<float>(c % 5) + 0.5f;
  }
  int ran = 0;
  for (const Fn& f : fns) {
    if (!CpuSupports(f.isa)) continue;
    ++ran;
    for (Activation act : {Activation::kIdentity, Activation::kRelu, Activation::kLeakyRelu,
                           Activation::kRestrictRange, Activation::kPrelu, Activation::kHswish,
                           Activation::kHardSigmoid}) {
      for (DataType dt : {DataType::k16b, DataType::k32f}) {
        p.dstT = dt;
        p.activation = act;
        auto g = conv16b_internal::Validate(1, p);
        ASSERT_TRUE(g.ok());
        conv16b_internal::Epilogue e;
        e.bias = bias.data();
        e.activation = act;
        e.params = params.data();
        const float* rows[1] = {src.data()};
        std::vector<float> sums(kWidth * kOcg);
        conv16b_internal::GemmRowF32Args a;
        a.rows = rows;
        a.offset = 0;
        a.pixel_stride = 1;
        a.kx_stride = 1;
        a.kernel_y = a.kernel_x = a.channels = 1;
        a.weight = weight;
        a.nblocks = kOcg / 16;
        a.width = kWidth;
        a.out = sums.data();
        const size_t es = dt == DataType::k16b ? 2 : 4;
        std::vector<uint8_t> want(kWidth * p.dstC * es, 0xA5), got(want);
        f.row(a);
        f.store(*g, e, sums.data(), kOcg, 0, 0, kBase, kOcg, want.data());
        conv16b_internal::FusedStoreArgs fused;
        fused.epilogue = &e;
        fused.channels = kOcg;
        fused.channel_base = kBase;
        fused.dst = got.data() + kBase * es;
        fused.pixel_stride = p.dstC;
        fused.bf16 = dt == DataType::k16b;
        a.fused = &fused;
        std::fill(sums.begin(), sums.end(), -7.0f);
        f.row(a);
        for (size_t i = 0; i < want.size(); i += es) {
          ASSERT_EQ(std::memcmp(&want[i], &got[i], es), 0)
              << f.name << " activation " << static_cast<int>(act) << " bf16 " << fused.bf16
              << " pixel " << i / es / p.dstC << " channel " << i / es % p.dstC;
        }
        if (act != Activation::kRelu || dt != DataType::k16b) continue;
        // ReLU within the BF16 rounding (kReluPack): ref::direct's
        // std::max(0.0f, v), so negative sums give +0; NaN stays NaN.
        for (size_t x = 0; x < kWidth; ++x) {
          for (size_t oc = 0; oc < kOcg; ++oc) {
            const float v = src[x] + bias[kBase + oc];
            uint16_t out;
            std::memcpy(&out, &got[(x * p.dstC + kBase + oc) * es], es);
            if (std::isnan(v)) {
              ASSERT_TRUE(std::isnan(Bf16ToFp32(out))) << f.name << " pixel " << x;
            } else {
              ASSERT_EQ(out, Fp32ToBf16(std::max(0.0f, v)))
                  << f.name << " pixel " << x << " channel " << oc << " sum " << v;
            }
          }
        }
      }
    }
  }
  if (ran == 0) GTEST_SKIP() << "needs SSE4.1";
#else
  GTEST_SKIP() << "x86 kernels";
#endif
}

// nhwc_depthwise_dot runs wherever AVX512-BF16 does (tests, the fuzzer,
// synbench), but Create takes it on a CPU with AMX (half-rate vdpbf16ps)
// only instead of nhwc_depthwise_strided with a source image beyond the L2,
// whatever SYNOPS_MAX_ISA allows; without AMX always.
TEST(Conv16bSelection, DotDepthwiseChosenByCpuAndImageSize) {
#if defined(__x86_64__)
  ConvParams p1 = Params(32, 8, 8, 32, 3, 3, 1, 1, 1, 32);
  ConvParams p2 = Params(32, 8, 8, 32, 3, 3, 2, 1, 1, 32);  // a 4 KiB image
  p1.srcT = p2.srcT = DataType::k16b;
  auto g1 = conv16b_internal::Validate(1, p1);
  auto g2 = conv16b_internal::Validate(1, p2);
  ASSERT_TRUE(g1.ok() && g2.ok());
  const auto* dot = conv16b_internal::FindAlgorithm("avx512bf16::nhwc_depthwise_dot");
  ASSERT_NE(dot, nullptr);
  EXPECT_TRUE(dot->supports(*g1));
  EXPECT_TRUE(dot->supports(*g2));
  const bool half_rate = GetCpuFeatures().bf16_dot_half_rate;
  for (const size_t l2 : {size_t{1} << 20, size_t{2} << 10}) {
    const CacheSizes sizes = {size_t{32} << 10, l2, size_t{8} << 20};
    SetCacheSizesForTesting(&sizes);
    const bool beyond = l2 < (size_t{4} << 10);
    EXPECT_TRUE(conv16b_internal::DotDepthwiseChosen(*g1, false));
    EXPECT_TRUE(conv16b_internal::DotDepthwiseChosen(*g2, false));
    EXPECT_FALSE(conv16b_internal::DotDepthwiseChosen(*g1, true));
    EXPECT_EQ(conv16b_internal::DotDepthwiseChosen(*g2, true), beyond);
    for (Isa max : {Isa::kAvx512Bf16, Isa::kAmxBf16}) {
      const auto available = [max](Isa isa) { return isa <= max; };
      EXPECT_EQ(conv16b_internal::SelectAlgorithm(*g1, available).name,
                std::string(!half_rate ? "avx512bf16::nhwc_depthwise_dot"
                                       : "avx512bf16::nhwc_depthwise_slide"));
      EXPECT_EQ(conv16b_internal::SelectAlgorithm(*g2, available).name,
                std::string(!half_rate || beyond ? "avx512bf16::nhwc_depthwise_dot"
                                                 : "avx512bf16::nhwc_depthwise_strided"));
    }
    SetCacheSizesForTesting(nullptr);
  }
#else
  GTEST_SKIP() << "x86 algorithms";
#endif
}

// FP32 NHWC depthwise at stride 2 reads whole rows (nhwc_depthwise_rows)
// where the source image is beyond the L2, with many channels or over
// narrow rows; the 16-channel blocks of nhwc_depthwise otherwise.
TEST(Conv16bSelection, RowsDepthwiseByImageSizeChannelsAndWidth) {
#if defined(__x86_64__)
  auto pick = [](const ConvParams& p) -> std::string {
    auto g = conv16b_internal::Validate(1, p);
    EXPECT_TRUE(g.ok());
    return conv16b_internal::SelectAlgorithm(*g, [](Isa isa) { return isa <= Isa::kAmxBf16; })
        .name;
  };
  ConvParams wide = Params(32, 8, 40, 32, 3, 3, 2, 1, 1, 32);  // 20 output pixels, 40 KiB
  ConvParams narrow = Params(32, 8, 16, 32, 3, 3, 2, 1, 1, 32);  // 8 output pixels
  ConvParams many = Params(256, 4, 40, 256, 3, 3, 2, 1, 1, 256);
  wide.srcT = narrow.srcT = many.srcT = DataType::k32f;
  ConvParams bf16 = wide;
  bf16.srcT = DataType::k16b;
  ConvParams nchw = wide;
  nchw.srcF = nchw.dstF = TensorFormat::kNchw;
  for (const size_t l2 : {size_t{2} << 20, size_t{32} << 10}) {
    const CacheSizes sizes = {size_t{32} << 10, l2, size_t{8} << 20};
    SetCacheSizesForTesting(&sizes);
    const bool beyond = l2 < (size_t{40} << 10);
    EXPECT_EQ(pick(wide), beyond ? "avx512bf16::nhwc_depthwise_rows" : "avx512bf16::nhwc_depthwise");
    EXPECT_EQ(pick(narrow), "avx512bf16::nhwc_depthwise_rows");
    EXPECT_EQ(pick(many), "avx512bf16::nhwc_depthwise_rows");
    EXPECT_NE(pick(bf16), "avx512bf16::nhwc_depthwise_rows");
    EXPECT_EQ(pick(nchw), "avx512bf16::nhwc_depthwise");
    SetCacheSizesForTesting(nullptr);
  }
#else
  GTEST_SKIP() << "x86 algorithms";
#endif
}

// The rules of every CPU class, whatever this CPU has: SelectAlgorithm with
// the ISAs of a simulated x86 class (an ISA tier is available when it is at
// most the class's tier). So the geometry rules that send problems to AMX
// are tested on machines without AMX too.
TEST(Conv16bSelection, RulesOfEveryCpuClass) {
#if defined(__x86_64__)
  auto pick = [](const ConvParams& p, Isa max) -> std::string {
    auto g = conv16b_internal::Validate(1, p);
    EXPECT_TRUE(g.ok());
    return conv16b_internal::SelectAlgorithm(*g, [max](Isa isa) { return isa <= max; }).name;
  };
  const ConvParams dense = Params(16, 8, 8, 16, 3, 3, 1, 1, 1);  // 16 channels per group
  const ConvParams depthwise = Params(16, 8, 8, 16, 3, 3, 1, 1, 1, 16);
  const ConvParams amx = Params(64, 8, 8, 16, 3, 3, 1, 1, 1, 2);  // 32 channels per group
  ConvParams nchw = Params(64, 8, 8, 16, 1, 1);
  nchw.srcF = nchw.dstF = TensorFormat::kNchw;
  ConvParams nchw_s2 = nchw;
  nchw_s2.strideX = nchw_s2.strideY = 2;
  conv16b_check::SetOutputSize(&nchw_s2);
  ConvParams nchw3 = amx;
  nchw3.srcF = nchw3.dstF = TensorFormat::kNchw;
  const ConvParams stem = Params(3, 16, 16, 32, 3, 3, 2, 1, 1);
  // Depthwise with 32 channels or more, FP32 NHWC (no dot algorithm):
  // whole rows and sliding tiles at stride 1; the 16-channel blocks when
  // dilated or NCHW.
  ConvParams dw_f32 = Params(32, 8, 8, 32, 3, 3, 1, 1, 1, 32);
  dw_f32.srcT = DataType::k32f;
  ConvParams dw_dilated = Params(32, 8, 8, 32, 3, 3, 1, 2, 2, 32);
  dw_dilated.srcT = DataType::k32f;
  ConvParams dw_nchw = dw_f32;
  dw_nchw.srcF = dw_nchw.dstF = TensorFormat::kNchw;
  ConvParams dw_tail = Params(40, 8, 8, 40, 3, 3, 1, 1, 1, 40);  // 2.5 vectors
  dw_tail.srcT = DataType::k32f;
  for (Isa max : {Isa::kAmxBf16, Isa::kAvx512Bf16}) {
    EXPECT_EQ(pick(dw_f32, max), "avx512bf16::nhwc_depthwise_slide");
    EXPECT_EQ(pick(dw_dilated, max), "avx512bf16::nhwc_depthwise");
    EXPECT_EQ(pick(dw_nchw, max), "avx512bf16::nhwc_depthwise");
    EXPECT_EQ(pick(dw_tail, max), "avx512bf16::nhwc_depthwise");
  }
  EXPECT_EQ(pick(dw_f32, Isa::kAvx512), "avx512::nhwc_depthwise_slide");
  EXPECT_EQ(pick(dw_dilated, Isa::kAvx512), "avx512::nhwc_depthwise");
  EXPECT_EQ(pick(dw_f32, Isa::kAvx2), "avx2::nhwc_depthwise");
  // AMX-BF16 (Sapphire Rapids).
  EXPECT_EQ(pick(amx, Isa::kAmxBf16), "amx_bf16::nhwc_gemm");
  EXPECT_EQ(pick(dense, Isa::kAmxBf16), "amx_bf16::nhwc_im2row");
  EXPECT_EQ(pick(stem, Isa::kAmxBf16), "amx_bf16::nhwc_im2row");
  EXPECT_EQ(pick(nchw, Isa::kAmxBf16), "amx_bf16::nchw_gemm");
  EXPECT_EQ(pick(nchw_s2, Isa::kAmxBf16), "amx_bf16::nhwc_gemm");
  EXPECT_EQ(pick(nchw3, Isa::kAmxBf16), "amx_bf16::nhwc_gemm");
  EXPECT_EQ(pick(depthwise, Isa::kAmxBf16), "avx512bf16::nhwc_depthwise");
  // AVX512-BF16 without AMX (Zen 4/5, Cooper Lake); where vdpbf16ps runs
  // at half rate (this CPU's hardware, whatever SYNOPS_MAX_ISA says: AMX
  // CPUs capped) the FP32 GEMM instead.
  const bool half_rate = GetCpuFeatures().bf16_dot_half_rate;
  for (const ConvParams& p : {dense, amx, nchw}) {
    EXPECT_EQ(pick(p, Isa::kAvx512Bf16), half_rate ? "avx512::nhwc_gemm" : "avx512bf16::nhwc_gemm");
  }
  EXPECT_EQ(pick(stem, Isa::kAvx512Bf16),
            half_rate ? "avx512::nhwc_gemm" : "avx512bf16::nhwc_im2row");
  EXPECT_EQ(pick(depthwise, Isa::kAvx512Bf16), "avx512bf16::nhwc_depthwise");
  // AVX-512 (Skylake-X): the FP32 GEMM for stems too.
  EXPECT_EQ(pick(dense, Isa::kAvx512), "avx512::nhwc_gemm");
  EXPECT_EQ(pick(stem, Isa::kAvx512), "avx512::nhwc_gemm");
  EXPECT_EQ(pick(depthwise, Isa::kAvx512), "avx512::nhwc_depthwise");
  // AVX2 + FMA (every x86 core since Haswell / Zen 1 without AVX-512).
  for (const ConvParams& p : {dense, amx, nchw, stem}) {
    EXPECT_EQ(pick(p, Isa::kAvx2), "avx2::nhwc_gemm");
  }
  EXPECT_EQ(pick(depthwise, Isa::kAvx2), "avx2::nhwc_depthwise");
  // SSE4.1, the floor of the x86 ladder.
  EXPECT_EQ(pick(dense, Isa::kSse41), "sse41::nhwc_gemm");
  EXPECT_EQ(pick(depthwise, Isa::kSse41), "sse41::nhwc_depthwise");
  // Nothing vectorized.
  EXPECT_EQ(pick(dense, Isa::kRef), "ref::direct");
  EXPECT_EQ(pick(depthwise, Isa::kRef), "ref::direct");
#else
  GTEST_SKIP() << "the x86 CPU classes";
#endif
}

// The test-only amx_emu::* algorithms (//conv16b:amx_emu) are registered
// (the linker kept them), never selected, and follow the same geometry rules
// as the amx_bf16::* algorithms they emulate.
TEST(Conv16bSelection, EmulatedAmxFollowsTheAmxRules) {
#if defined(__x86_64__)
  for (const char* name : {"nchw_gemm", "nhwc_gemm", "nhwc_im2row"}) {
    const auto* hw = conv16b_internal::FindAlgorithm(std::string("amx_bf16::") + name);
    const auto* emu = conv16b_internal::FindAlgorithm(std::string("amx_emu::") + name);
    ASSERT_NE(hw, nullptr) << name;
    ASSERT_NE(emu, nullptr) << "amx_emu::" << name << " is not registered";
    EXPECT_FALSE(hw->test_only);
    EXPECT_TRUE(emu->test_only);
    for (const Case& c : Grid()) {
      for (TensorFormat f : {TensorFormat::kNchw, TensorFormat::kNhwc}) {
        ConvParams p = c.p;
        p.srcF = p.dstF = f;
        auto g = conv16b_internal::Validate(c.batch, p);
        ASSERT_TRUE(g.ok());
        EXPECT_EQ(hw->supports(*g), emu->supports(*g)) << name << " " << conv16b_check::ProblemString({c.batch, p});
        const auto& chosen =
            conv16b_internal::SelectAlgorithm(*g, [](Isa) { return true; });
        EXPECT_FALSE(chosen.test_only) << chosen.name;
      }
    }
  }
#else
  GTEST_SKIP() << "AMX is x86 only";
#endif
}

// On a CPU with AMX: every grid case (both formats, all type combinations)
// gives the same bits through amx_bf16::* and the emulator's amx_emu::*,
// so the emulated tests speak for the hardware path.
TEST(Conv16bSelection, EmulatedAmxIsBitIdenticalToAmx) {
#if defined(__x86_64__)
  if (!CpuSupports(Isa::kAmxBf16)) {
    GTEST_SKIP() << "needs AMX-BF16 (amx_bf16::* against amx_emu::*), which this CPU lacks: "
                 << CpuFeaturesString();
  }
  std::mt19937 rng(11);
  int compared = 0;
  for (const char* name : {"nchw_gemm", "nhwc_gemm", "nhwc_im2row"}) {
    const std::string hw = std::string("amx_bf16::") + name, emu = std::string("amx_emu::") + name;
    for (Problem pr : GridProblems()) {
      auto g = conv16b_internal::Validate(pr.batch, pr.p);
      ASSERT_TRUE(g.ok());
      if (!conv16b_internal::FindAlgorithm(hw)->supports(*g)) continue;
      conv16b_check::FillRandom(&pr, false, &rng);
      auto a = conv16b_check::Run(pr, hw);
      auto b = conv16b_check::Run(pr, emu);
      ASSERT_TRUE(a.ok() && b.ok()) << hw;
      if (auto m = testing::CompareBitExact(*b, *a)) {
        FAIL() << emu << " vs " << hw << " " << conv16b_check::ProblemString(pr) << ": " << m->ToString();
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
#else
  GTEST_SKIP() << "AMX is x86 only";
#endif
}

}  // namespace
}  // namespace synops

namespace synops {
namespace {

// Every ActivateKernels() entry against the SPEC formula in double: <= 4
// ULP or 1e-6 absolute, whichever is larger, on a dense grid of [-40, 40],
// the region around 0 and the parameters' thresholds.
class Conv16bActivation : public ::testing::TestWithParam<std::string> {};

TEST_P(Conv16bActivation, WithinSpecError) {
  const auto* k = SYNOPS_KERNEL_OR_SKIP(conv16b_internal::ActivateKernels(), GetParam());
  std::vector<float> grid;
  for (float v = -40.0f; v <= 40.0f; v += 1.0f / 512) grid.push_back(v);
  for (float v = 1e-30f; v < 1.0f; v *= 1.7f) {
    grid.push_back(v);
    grid.push_back(-v);
  }
  grid.push_back(0.0f);
  grid.push_back(-0.0f);
  for (Activation a : {Activation::kElu, Activation::kMish, Activation::kSwish,
                       Activation::kGelu}) {
    for (float p0 : {1.0f, 0.5f, 1.702f, 20.0f, 3.0f}) {
      const float params[2] = {p0, 0.0f};
      std::vector<float> got = grid;
      k->fn(a, params, got.data(), got.size());
      std::vector<float> nan(5, std::numeric_limits<float>::quiet_NaN());
      k->fn(a, params, nan.data(), nan.size());
      for (float v : nan) ASSERT_TRUE(std::isnan(v)) << "activation " << static_cast<int>(a);
      for (size_t i = 0; i < grid.size(); ++i) {
        const double want = conv16b_check::ActivateDouble(grid[i], a, params, 0);
        const double ulp =
            std::nextafter(std::fabs(static_cast<float>(want)), INFINITY) -
            std::fabs(static_cast<float>(want));
        const double err = std::fabs(static_cast<double>(got[i]) - want);
        ASSERT_LE(err, std::max(4 * ulp, 1e-6))
            << "activation " << static_cast<int>(a) << " p0 " << p0 << " v " << grid[i]
            << ": got " << got[i] << " want " << want;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Conv16bActivation,
                         ::testing::ValuesIn(testing::KernelNames(
                             conv16b_internal::ActivateKernels())),
                         testing::KernelNamePrinter());

}  // namespace
}  // namespace synops
