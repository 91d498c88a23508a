#include "ops/unary/unary.h"

#include <cfloat>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "core/streaming.h"
#include "gtest/gtest.h"
#include "ops/unary/unary_accuracy.h"
#include "ops/unary/unary_kernels.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using ::synops::testing::GuardedBuffer;
using ::synops::unary_internal::CheckUnary;
using ::synops::unary_internal::IsBitExact;
using ::synops::unary_internal::UnaryOperation32fRef;

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

bool UnderQemu() { return std::getenv("SYNOPS_UNDER_QEMU") != nullptr; }

std::vector<UnaryOp> AllOps() {
  std::vector<UnaryOp> ops;
  for (int i = 0; i < kNumUnaryOps; ++i) ops.push_back(static_cast<UnaryOp>(i));
  return ops;
}

// Values every op is tried on: signed zeros, infinities, NaNs with payloads,
// denormals, integers and half-integers around every rounding boundary, the
// largest values.
std::vector<float> SpecialValues() {
  std::vector<float> v;
  const uint32_t bits[] = {
      0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u,  // ±0, ±Inf
      0x7FC00000u, 0xFFC00000u, 0x7FC00001u, 0x7F800001u,  // quiet / signalling NaN
      0xFF812345u, 0x7FBFFFFFu, 0xFFFFFFFFu,               // payloads
      0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu,  // denormals
      0x00400000u, 0x00800000u, 0x80800000u,               // FLT_MIN
      0x7F7FFFFFu, 0xFF7FFFFFu,                            // ±FLT_MAX
      0x4F000000u, 0xCF000000u, 0x4EFFFFFFu, 0x4F000001u,  // ±2^31 and neighbours
      0x4B000000u, 0x4AFFFFFFu, 0x4AFFFFFEu, 0x4B000001u,  // 2^23 and 2^23 - 0.5
      0xCB000000u, 0xCAFFFFFFu, 0xCAFFFFFEu, 0xCB000001u,
      0x4B7FFFFFu, 0x4B800000u, 0x3EFFFFFFu, 0x3F000001u,  // 2^24 - 1, 2^24, 0.5±
      0xBEFFFFFFu, 0xBF000001u, 0x3F7FFFFFu, 0xBF7FFFFFu,
  };
  for (uint32_t b : bits) v.push_back(FromBits(b));
  for (float x : {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 1.0f, 2.0f, 0.49999997f, 1.25f, 1.75f, 8388607.5f,
                  8388608.0f, 16777215.0f, 16777216.0f, 1e10f, 1e30f, 3.14159265f, 1.5707964f,
                  88.72283f, 88.7229f, 89.0f, -87.33f, -87.34f, -103.9f, -104.0f, 104.0f,
                  39000.0f, 3.92f, 3.93f, 4.0f, 9.0f, 1e-20f, 1e-38f, 1e-45f}) {
    v.push_back(x);
    v.push_back(-x);
  }
  return v;
}

// Random inputs mixed with the special values.
std::vector<float> MixedInputs(size_t n, uint32_t seed) {
  std::vector<float> v = testing::RandomFloats(n, -10.0f, 10.0f, seed);
  const std::vector<float> special = SpecialValues();
  for (size_t i = 0; i < n; i += 3) v[i] = special[(i / 3 + seed) % special.size()];
  return v;
}

class UnaryKernel : public ::testing::TestWithParam<std::string> {};

// Every op over every tail length, guards intact, contract held; in place too.
TEST_P(UnaryKernel, AllOpsAllTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(UnaryOperation32fKernels(), GetParam());
  for (UnaryOp op : AllOps()) {
    for (size_t n : testing::TailSizes()) {
      const std::vector<float> src = MixedInputs(n, static_cast<uint32_t>(n * 31 + 7));
      std::vector<float> ref(n);
      UnaryOperation32fRef(src.data(), n, op, ref.data());
      GuardedBuffer<float> dst(n);
      kernel->fn(src.data(), n, op, dst.data());
      ASSERT_TRUE(dst.GuardsIntact()) << UnaryOpName(op) << " n=" << n;
      auto m = CheckUnary(op, src, dst.span(), ref);
      ASSERT_FALSE(m) << UnaryOpName(op) << " n=" << n << ": " << m->ToString();

      GuardedBuffer<float> inplace(n);
      if (n > 0) std::memcpy(inplace.data(), src.data(), n * sizeof(float));
      kernel->fn(inplace.data(), n, op, inplace.data());
      ASSERT_TRUE(inplace.GuardsIntact()) << UnaryOpName(op) << " in place n=" << n;
      m = testing::CompareBitExact(inplace.span(), dst.span());
      ASSERT_FALSE(m) << UnaryOpName(op) << " in place n=" << n << ": " << m->ToString();
    }
  }
}

// Arrays past the streaming-store threshold (the AVX-512 loop then streams
// and prefetches), with a misaligned dst, against the reference; in place too.
TEST_P(UnaryKernel, StreamingSizes) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(UnaryOperation32fKernels(), GetParam());
  const size_t n = StreamingStoreMinBytes() / sizeof(float) + 77;
  const std::vector<float> src = MixedInputs(n, 11);
  std::vector<float> ref(n), got(n + 1);
  for (UnaryOp op : {UnaryOp::kAbs, UnaryOp::kRcp, UnaryOp::kSqrt, UnaryOp::kExp, UnaryOp::kSin}) {
    UnaryOperation32fRef(src.data(), n, op, ref.data());
    got[n] = 42.0f;
    kernel->fn(src.data(), n, op, got.data() + 1);
    auto m = CheckUnary(op, src, absl::MakeConstSpan(got.data() + 1, n), ref);
    ASSERT_FALSE(m) << UnaryOpName(op) << ": " << m->ToString();
    std::vector<float> inplace = src;
    kernel->fn(inplace.data(), n, op, inplace.data());
    m = testing::CompareBitExact(inplace, absl::MakeConstSpan(got.data() + 1, n));
    ASSERT_FALSE(m) << UnaryOpName(op) << " in place: " << m->ToString();
  }
}

// Known answers of the bit-exact ops (SPEC.md §3 and §6), for every kernel.
TEST_P(UnaryKernel, BitExactKnownAnswers) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(UnaryOperation32fKernels(), GetParam());
  struct Case {
    UnaryOp op;
    uint32_t in, out;
  } cases[] = {
      {UnaryOp::kAbs, 0x80000000u, 0x00000000u},   {UnaryOp::kAbs, 0xFFC00001u, 0x7FC00001u},
      {UnaryOp::kAbs, 0xFF800001u, 0x7F800001u},   {UnaryOp::kNeg, 0x00000000u, 0x80000000u},
      {UnaryOp::kNeg, 0x7F800001u, 0xFF800001u},   {UnaryOp::kNot, 0x3F800000u, 0xC07FFFFFu},
      {UnaryOp::kNot, 0x00000000u, 0xFFFFFFFFu},   {UnaryOp::kZero, 0xFFC00000u, 0x00000000u},
      {UnaryOp::kZero, 0x80000000u, 0x00000000u},  {UnaryOp::kRound, Bits(2.5f), Bits(2.0f)},
      {UnaryOp::kRound, Bits(-2.5f), Bits(-2.0f)}, {UnaryOp::kRound, Bits(3.5f), Bits(4.0f)},
      {UnaryOp::kRound, Bits(0.5f), Bits(0.0f)},   {UnaryOp::kRound, Bits(-0.5f), 0x80000000u},
      {UnaryOp::kRound, Bits(-0.2f), 0x80000000u}, {UnaryOp::kRound, Bits(8388607.5f), Bits(8388608.0f)},
      {UnaryOp::kRound, 0x4F000001u, 0x4F000001u}, {UnaryOp::kRound, 0x7F800001u, 0x7FC00001u},
      {UnaryOp::kCeil, Bits(-0.5f), 0x80000000u},  {UnaryOp::kCeil, Bits(1.0000001f), Bits(2.0f)},
      {UnaryOp::kCeil, 0x00000001u, Bits(1.0f)},   {UnaryOp::kCeil, 0xCF000001u, 0xCF000001u},
      {UnaryOp::kCeil, 0xFF800001u, 0xFFC00001u},  {UnaryOp::kFloor, Bits(-0.5f), Bits(-1.0f)},
      {UnaryOp::kFloor, 0x80000001u, Bits(-1.0f)}, {UnaryOp::kFloor, 0x80000000u, 0x80000000u},
      {UnaryOp::kFloor, 0x7F7FFFFFu, 0x7F7FFFFFu}, {UnaryOp::kFloor, 0x7FC00001u, 0x7FC00001u},
      {UnaryOp::kSign, 0x80000000u, 0x00000000u},  {UnaryOp::kSign, 0x00000001u, Bits(1.0f)},
      {UnaryOp::kSign, 0x80000001u, Bits(-1.0f)},  {UnaryOp::kSign, 0xFF800000u, Bits(-1.0f)},
      {UnaryOp::kSign, 0x7F800001u, 0x7F800001u},  {UnaryOp::kSign, 0xFFC12345u, 0xFFC12345u},
      {UnaryOp::kRcp, 0x80000000u, 0xFF800000u},   {UnaryOp::kRcp, Bits(4.0f), Bits(0.25f)},
      {UnaryOp::kRcp, 0x00000001u, 0x7F800000u},   {UnaryOp::kRcp, 0x7F800000u, 0x00000000u},
      {UnaryOp::kRcp, 0x7F000000u, 0x00400000u},   {UnaryOp::kSqrt, 0x80000000u, 0x80000000u},
      {UnaryOp::kSqrt, Bits(4.0f), Bits(2.0f)},    {UnaryOp::kSqrt, 0x00000001u, Bits(3.7433921e-23f)},
      {UnaryOp::kSqrt, 0x7F800000u, 0x7F800000u},
  };
  for (const Case& c : cases) {
    float src[1] = {FromBits(c.in)}, dst[1];
    kernel->fn(src, 1, c.op, dst);
    EXPECT_EQ(Bits(dst[0]), c.out) << UnaryOpName(c.op) << "(0x" << std::hex << c.in << ")";
  }
}

// Approximate ops at their fixed points: log(±0) = -Inf, log(x<0) = NaN,
// exp overflow/underflow, rsqrt(+0) = +Inf, and NaN in gives NaN out.
TEST_P(UnaryKernel, ApproximateSpecialValues) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(UnaryOperation32fKernels(), GetParam());
  const std::vector<float> src = SpecialValues();
  std::vector<float> dst(src.size());
  for (UnaryOp op : AllOps()) {
    if (IsBitExact(op)) continue;
    kernel->fn(src.data(), src.size(), op, dst.data());
    std::vector<float> ref(src.size());
    UnaryOperation32fRef(src.data(), src.size(), op, ref.data());
    const auto m = CheckUnary(op, src, dst, ref);
    ASSERT_FALSE(m) << m->ToString();
  }
  const float inf = std::numeric_limits<float>::infinity();
  auto one = [&](UnaryOp op, float x) {
    float out;
    kernel->fn(&x, 1, op, &out);
    return out;
  };
  EXPECT_EQ(one(UnaryOp::kLog, 0.0f), -inf);
  EXPECT_EQ(one(UnaryOp::kLog, -0.0f), -inf);
  EXPECT_TRUE(std::isnan(one(UnaryOp::kLog, -1.0f)));
  EXPECT_TRUE(std::isnan(one(UnaryOp::kLog, -inf)));
  EXPECT_EQ(one(UnaryOp::kLog, inf), inf);
  EXPECT_EQ(one(UnaryOp::kLog, 1.0f), 0.0f);
  EXPECT_EQ(one(UnaryOp::kExp, inf), inf);
  EXPECT_EQ(one(UnaryOp::kExp, 89.0f), inf);
  EXPECT_EQ(one(UnaryOp::kExp, 1e30f), inf);
  EXPECT_EQ(one(UnaryOp::kExp, -inf), 0.0f);
  EXPECT_EQ(one(UnaryOp::kExp, -1e30f), 0.0f);
  EXPECT_EQ(one(UnaryOp::kExp, 0.0f), 1.0f);
  EXPECT_EQ(one(UnaryOp::kRsqrt, 0.0f), inf);
  EXPECT_EQ(one(UnaryOp::kRsqrt, inf), 0.0f);
  EXPECT_EQ(one(UnaryOp::kTanh, inf), 1.0f);
  EXPECT_EQ(one(UnaryOp::kTanh, -inf), -1.0f);
  EXPECT_EQ(one(UnaryOp::kErf, inf), 1.0f);
  EXPECT_EQ(one(UnaryOp::kErf, -inf), -1.0f);
  EXPECT_EQ(Bits(one(UnaryOp::kErf, -0.0f)), 0x80000000u);
  EXPECT_EQ(Bits(one(UnaryOp::kTanh, -0.0f)), 0x80000000u);
  EXPECT_EQ(Bits(one(UnaryOp::kSin, -0.0f)), 0x80000000u);
  EXPECT_EQ(one(UnaryOp::kCos, 0.0f), 1.0f);
  for (UnaryOp op : AllOps()) {
    if (op == UnaryOp::kNot || op == UnaryOp::kZero) continue;
    EXPECT_TRUE(std::isnan(one(op, std::numeric_limits<float>::quiet_NaN()))) << UnaryOpName(op);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, UnaryKernel,
                         ::testing::ValuesIn(testing::KernelNames(UnaryOperation32fKernels())),
                         testing::KernelNamePrinter());

// ---- Dense sweeps: (kernel, op) pairs. ----

using KernelOp = std::tuple<std::string, UnaryOp>;

std::vector<KernelOp> KernelOps(bool bit_exact) {
  std::vector<KernelOp> params;
  for (const std::string& k : testing::KernelNames(UnaryOperation32fKernels())) {
    for (UnaryOp op : AllOps()) {
      if (IsBitExact(op) == bit_exact) params.emplace_back(k, op);
    }
  }
  return params;
}

std::string KernelOpName(const ::testing::TestParamInfo<KernelOp>& info) {
  return std::get<0>(info.param) + "_" + UnaryOpName(std::get<1>(info.param));
}

constexpr size_t kBatch = 1 << 16;

// Runs `kernel` and the reference on batches of `inputs` (generated by
// `next` until it returns false) and checks the contract.
// Largest ULP distance from the rounded double function seen by the sweeps
// of approximate ops (finite results only), printed for reference.
int64_t g_max_ulp = 0;

template <typename Next>
void Sweep(const Kernel<UnaryOperation32fFn>& kernel, UnaryOp op, Next next, size_t* count) {
  std::vector<float> src, got(kBatch), ref(kBatch);
  src.reserve(kBatch);
  bool more = true;
  while (more) {
    src.clear();
    float x;
    while (src.size() < kBatch && (more = next(&x))) src.push_back(x);
    kernel.fn(src.data(), src.size(), op, got.data());
    UnaryOperation32fRef(src.data(), src.size(), op, ref.data());
    const auto m = CheckUnary(op, src, absl::MakeConstSpan(got.data(), src.size()),
                              absl::MakeConstSpan(ref.data(), src.size()));
    ASSERT_FALSE(m) << kernel.name << " " << UnaryOpName(op) << ": " << m->ToString()
                    << " input 0x" << std::hex << Bits(src[m->index]);
    if (!IsBitExact(op)) {
      for (size_t i = 0; i < src.size(); ++i) {
        if ((op == UnaryOp::kSin || op == UnaryOp::kCos) && std::fabs(src[i]) > 39000.0f) continue;
        const float want = static_cast<float>(unary_internal::Exact(op, src[i]));
        if (std::isfinite(want) && std::isfinite(got[i]) && want != 0.0f &&
            std::fpclassify(want) != FP_SUBNORMAL) {
          g_max_ulp = std::max(g_max_ulp, testing::UlpDistance(got[i], want));
        }
      }
    }
    *count += src.size();
  }
}

class UnaryBitExactSweep : public ::testing::TestWithParam<KernelOp> {};

// 2^24 bit patterns spread over all 2^32 (natively; 2^20 under qemu; all
// 2^32 with SYNOPS_UNARY_EXHAUSTIVE=1), plus
// every sign and exponent with its 64 lowest and highest mantissas, plus a
// dense run over [2^22, 2^24] where rounding to integers changes behaviour.
TEST_P(UnaryBitExactSweep, MatchesReference) {
  const auto& [name, op] = GetParam();
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(UnaryOperation32fKernels(), name);
  const uint32_t stride = std::getenv("SYNOPS_UNARY_EXHAUSTIVE") ? 1 : UnderQemu() ? 4096 : 256;
  size_t count = 0;
  uint64_t k = 0;
  Sweep(*kernel, op, [&](float* x) {
    if (k * stride >= (uint64_t{1} << 32)) return false;
    // A pseudo-random offset inside each stride covers every low bit.
    const uint32_t off = static_cast<uint32_t>((k * 2654435761u) >> 7) % stride;
    *x = FromBits(static_cast<uint32_t>(k * stride + off));
    ++k;
    return true;
  }, &count);
  uint32_t se = 0, m = 0;
  Sweep(*kernel, op, [&](float* x) {
    if (se == 512) return false;
    const uint32_t mant = m < 64 ? m : 0x7FFFFFu - (m - 64);
    *x = FromBits((se << 23) | mant);
    if (++m == 128) m = 0, ++se;
    return true;
  }, &count);
  const uint32_t dense_stride = UnderQemu() ? 97 : 7;
  for (uint32_t sign : {0u, 0x80000000u}) {
    uint32_t b = 0x4A800000u;  // 2^22
    Sweep(*kernel, op, [&](float* x) {
      if (b > 0x4B800000u) return false;  // 2^24
      *x = FromBits(sign | b);
      b += dense_stride;
      return true;
    }, &count);
  }
  EXPECT_GT(count, UnderQemu() ? (1u << 20) : (1u << 24));
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryBitExactSweep, ::testing::ValuesIn(KernelOps(true)),
                         KernelOpName);

// The reference's bit-exact ops against independent oracles (double
// arithmetic, whose single rounding to float is exact for these operations).
TEST(UnaryRef, BitExactOpsMatchDoubleOracles) {
  const uint32_t stride = UnderQemu() ? 65521 : 4093;
  std::vector<float> src, out(1);
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += stride) src.push_back(FromBits(static_cast<uint32_t>(b)));
  for (float x : SpecialValues()) src.push_back(x);
  out.resize(src.size());
  auto quiet = [](float x) { return FromBits(Bits(x) | 0x00400000u); };
  struct Oracle {
    UnaryOp op;
    float (*f)(float);
  };
  for (UnaryOp op : AllOps()) {
    if (!IsBitExact(op)) continue;
    UnaryOperation32fRef(src.data(), src.size(), op, out.data());
    for (size_t i = 0; i < src.size(); ++i) {
      const float x = src[i];
      const double d = x;
      float want;
      switch (op) {
        case UnaryOp::kAbs: want = FromBits(Bits(x) & 0x7FFFFFFFu); break;
        case UnaryOp::kNeg: want = FromBits(Bits(x) ^ 0x80000000u); break;
        case UnaryOp::kNot: want = FromBits(~Bits(x)); break;
        case UnaryOp::kZero: want = 0.0f; break;
        case UnaryOp::kCeil: want = std::isnan(x) ? quiet(x) : static_cast<float>(std::ceil(d)); break;
        case UnaryOp::kFloor: want = std::isnan(x) ? quiet(x) : static_cast<float>(std::floor(d)); break;
        case UnaryOp::kRound: want = std::isnan(x) ? quiet(x) : static_cast<float>(std::nearbyint(d)); break;
        case UnaryOp::kRcp: want = static_cast<float>(1.0 / d); break;
        case UnaryOp::kSqrt: want = static_cast<float>(std::sqrt(d)); break;
        case UnaryOp::kSign: want = std::isnan(x) ? x : x > 0 ? 1.0f : x < 0 ? -1.0f : 0.0f; break;
        default: want = NAN;
      }
      if (std::isnan(want) && (op == UnaryOp::kRcp || op == UnaryOp::kSqrt)) {
        ASSERT_TRUE(std::isnan(out[i])) << UnaryOpName(op) << " 0x" << std::hex << Bits(x);
        continue;  // the CPU's NaN rules (default NaN, payload) are not double's
      }
      ASSERT_EQ(Bits(out[i]), Bits(want)) << UnaryOpName(op) << " 0x" << std::hex << Bits(x);
    }
  }
}

class UnaryApproxSweep : public ::testing::TestWithParam<KernelOp> {};

// Every approximate op over its whole SPEC range: bit patterns with an odd
// stride (~2M points per sign natively, 16x fewer under qemu, every one with
// SYNOPS_UNARY_EXHAUSTIVE=1), plus a run of
// consecutive floats at each end and around 1.
TEST_P(UnaryApproxSweep, WithinSpecBounds) {
  const auto& [name, op] = GetParam();
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(UnaryOperation32fKernels(), name);
  g_max_ulp = 0;
  float hi;  // largest |x| of the specified range (then a little beyond)
  switch (op) {
    case UnaryOp::kCos:
    case UnaryOp::kSin:
      hi = 39000.0f;
      break;
    case UnaryOp::kExp:
      hi = 104.0f;
      break;
    default:
      hi = std::numeric_limits<float>::infinity();
  }
  const uint32_t top = Bits(hi);
  const uint32_t stride = std::getenv("SYNOPS_UNARY_EXHAUSTIVE")
                              ? 1
                              : (top / (UnderQemu() ? (1u << 17) : (1u << 21))) | 1;
  size_t count = 0;
  for (uint32_t sign : {0u, 0x80000000u}) {
    uint64_t b = 0;
    Sweep(*kernel, op, [&](float* x) {
      if (b > top) return false;
      *x = FromBits(sign | static_cast<uint32_t>(b));
      b += stride;
      return true;
    }, &count);
    for (uint32_t center : {0u, top, Bits(1.0f), Bits(0.5f), Bits(88.0f), Bits(87.0f)}) {
      uint32_t i = 0;
      Sweep(*kernel, op, [&](float* x) {
        if (i == 4096) return false;
        *x = FromBits(sign | (center - 2048 + i++));
        return true;
      }, &count);
    }
  }
  // Multiples of pi/2 (Sin/Cos cancellation) and uniform values in a middle range.
  std::vector<float> extra = testing::RandomFloats(UnderQemu() ? 1 << 14 : 1 << 18, -10.f, 10.f, 5);
  for (int k = -24000; k <= 24000; k += UnderQemu() ? 37 : 1) {
    const float x = static_cast<float>(k * 1.5707963267948966);
    extra.push_back(x);
    extra.push_back(std::nextafter(x, 0.0f));
    extra.push_back(std::nextafter(x, 1e9f));
  }
  size_t e = 0;
  Sweep(*kernel, op, [&](float* x) {
    if (e == extra.size()) return false;
    *x = extra[e++];
    return true;
  }, &count);
  EXPECT_GT(count, UnderQemu() ? (1u << 18) : (1u << 22));
  std::printf("%s %s: max %lld ULP (1e-7 absolute allowed for sin, cos, erf, tanh)\n",
              name.c_str(), UnaryOpName(op), static_cast<long long>(g_max_ulp));
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryApproxSweep, ::testing::ValuesIn(KernelOps(false)),
                         KernelOpName);

// ---- Public API. ----

TEST(UnaryApi, UsesBestKernelAndHandlesEdges) {
  const std::vector<float> src = MixedInputs(1000, 3);
  for (UnaryOp op : AllOps()) {
    std::vector<float> got(src.size()), ref(src.size());
    ASSERT_TRUE(UnaryOperation32f(src.data(), src.size(), op, got.data()).ok());
    UnaryOperation32fRef(src.data(), src.size(), op, ref.data());
    const auto m = CheckUnary(op, src, got, ref);
    ASSERT_FALSE(m) << m->ToString();
    std::vector<float> inplace = src;
    ASSERT_TRUE(UnaryOperation32f(inplace.data(), inplace.size(), op, inplace.data()).ok());
    ASSERT_FALSE(testing::CompareBitExact(inplace, got)) << UnaryOpName(op);
  }
  EXPECT_TRUE(UnaryOperation32f(nullptr, 0, UnaryOp::kExp, nullptr).ok());
  GuardedBuffer<float> dst(0);
  EXPECT_TRUE(UnaryOperation32f(src.data(), 0, UnaryOp::kAbs, dst.data()).ok());
  EXPECT_TRUE(dst.GuardsIntact());
}

TEST(UnaryApi, RejectsBadInputAndWritesNothing) {
  std::vector<float> src(64, 1.0f);
  GuardedBuffer<float> dst(64);
  const auto kBad = absl::StatusCode::kInvalidArgument;
  EXPECT_EQ(UnaryOperation32f(nullptr, 64, UnaryOp::kAbs, dst.data()).code(), kBad);
  EXPECT_EQ(UnaryOperation32f(src.data(), 64, UnaryOp::kAbs, nullptr).code(), kBad);
  EXPECT_EQ(UnaryOperation32f(src.data(), 64, static_cast<UnaryOp>(-1), dst.data()).code(), kBad);
  EXPECT_EQ(UnaryOperation32f(src.data(), 64, static_cast<UnaryOp>(17), dst.data()).code(), kBad);
  EXPECT_EQ(UnaryOperation32f(src.data(), size_t{1} << 62, UnaryOp::kAbs, dst.data()).code(), kBad);
  EXPECT_EQ(UnaryOperation32f(src.data(), ~size_t{0}, UnaryOp::kAbs, dst.data()).code(), kBad);
  EXPECT_TRUE(dst.Untouched());
  // Partial overlap either way; the same array is fine.
  EXPECT_EQ(UnaryOperation32f(src.data(), 32, UnaryOp::kNeg, src.data() + 1).code(), kBad);
  EXPECT_EQ(UnaryOperation32f(src.data() + 1, 32, UnaryOp::kNeg, src.data()).code(), kBad);
  EXPECT_EQ(UnaryOperation32f(src.data(), 32, UnaryOp::kNeg, src.data() + 31).code(), kBad);
  for (float x : src) EXPECT_EQ(x, 1.0f);
  EXPECT_TRUE(UnaryOperation32f(src.data(), 32, UnaryOp::kNeg, src.data() + 32).ok());
  EXPECT_TRUE(UnaryOperation32f(src.data(), 32, UnaryOp::kNeg, src.data()).ok());
  EXPECT_EQ(src[0], -1.0f);
  const absl::Status s = UnaryOperation32f(src.data(), 8, static_cast<UnaryOp>(99), dst.data());
  EXPECT_NE(s.message().find("type"), absl::string_view::npos) << s;
}

TEST(UnaryApi, Names) {
  for (UnaryOp op : AllOps()) EXPECT_EQ(ParseUnaryOp(UnaryOpName(op)), op);
  EXPECT_STREQ(UnaryOpName(UnaryOp::kRsqrt), "rsqrt");
  EXPECT_EQ(static_cast<int>(UnaryOp::kZero), 16);
  EXPECT_FALSE(ParseUnaryOp("nosuch").has_value());
  EXPECT_STREQ(UnaryOpName(static_cast<UnaryOp>(17)), "unknown");
}

TEST(UnaryApi, MaxIsaCap) {
  testing::ExpectCapSelects(UnaryOperation32fKernels());
  // Capped at ref, the API runs the reference: bit-identical results.
  const std::optional<Isa> saved = MaxIsa();
  SetMaxIsa(Isa::kRef);
  std::vector<float> src = MixedInputs(100, 9), got(100), ref(100);
  ASSERT_TRUE(UnaryOperation32f(src.data(), 100, UnaryOp::kSin, got.data()).ok());
  UnaryOperation32fRef(src.data(), 100, UnaryOp::kSin, ref.data());
  EXPECT_FALSE(testing::CompareBitExact(got, ref));
  SetMaxIsa(saved);
}

}  // namespace
}  // namespace synops
