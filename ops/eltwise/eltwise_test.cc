#include "ops/eltwise/eltwise.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ops/eltwise/eltwise_check.h"
#include "ops/eltwise/eltwise_kernels.h"
#include "testing/test_util.h"

namespace synops {
namespace {

using ::synops::testing::GuardedBuffer;

constexpr EltwiseOp kOps[] = {EltwiseOp::kProduct, EltwiseOp::kSum, EltwiseOp::kMax,
                              EltwiseOp::kMin};

// `count` inputs of `size` floats and their weights.
struct Inputs {
  std::vector<std::vector<float>> data;
  std::vector<const float*> ptrs;
  std::vector<float> weight;

  Inputs(size_t count, size_t size, uint32_t seed, bool edge = false) {
    for (size_t i = 0; i < count; ++i) {
      // Values near 1 keep products of many inputs finite.
      data.push_back(edge ? testing::EdgeFloats(size, seed + i)
                          : testing::RandomFloats(size, -2.0f, 2.0f, seed + i));
    }
    for (auto& d : data) ptrs.push_back(d.data());
    weight = testing::RandomFloats(count, -3.0f, 3.0f, seed + 1000);
  }
};

std::vector<float> Reference(const Inputs& in, size_t size, EltwiseOp op) {
  std::vector<float> want(size);
  eltwise_internal::EltwiseRef(in.ptrs.data(), in.weight.data(), in.ptrs.size(), size, op,
                               want.data());
  return want;
}

const size_t kCounts[] = {2, 3, 4, 5, 6, 7, 8, 9, 13};

class EltwiseKernel : public ::testing::TestWithParam<std::string> {};

// Every kernel vs the reference, every tail, every grouping of inputs.
TEST_P(EltwiseKernel, MatchesReferenceOnAllTails) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(EltwiseKernels(), GetParam());
  std::vector<size_t> sizes = testing::TailSizes();
  for (size_t n : {2047, 2048, 2049, 4096 + 33}) sizes.push_back(n);  // around the block size
  for (EltwiseOp op : kOps) {
    for (size_t count : kCounts) {
      for (size_t size : sizes) {
        const Inputs in(count, size, static_cast<uint32_t>(count * 10000 + size));
        const auto want = Reference(in, size, op);
        GuardedBuffer<float> got(size);
        kernel->fn(in.ptrs.data(), in.weight.data(), count, size, op, got.data());
        ASSERT_TRUE(got.GuardsIntact()) << EltwiseOpName(op) << " count=" << count << " size=" << size;
        const auto m = eltwise_check::Check(op, got.span(), want);
        ASSERT_FALSE(m) << EltwiseOpName(op) << " count=" << count << " size=" << size << ": "
                        << m->ToString();
      }
    }
  }
}

// ±0, ±Inf, huge, tiny and denormal values: Product, Max, Min stay bit-exact.
TEST_P(EltwiseKernel, EdgeValues) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(EltwiseKernels(), GetParam());
  for (EltwiseOp op : kOps) {
    for (size_t count : {2, 3, 6}) {
      const size_t size = 1000;
      const Inputs in(count, size, static_cast<uint32_t>(count), /*edge=*/true);
      const auto want = Reference(in, size, op);
      std::vector<float> got(size);
      kernel->fn(in.ptrs.data(), in.weight.data(), count, size, op, got.data());
      const auto m = eltwise_check::Check(op, got, want);
      ASSERT_FALSE(m) << EltwiseOpName(op) << " count=" << count << ": " << m->ToString();
    }
  }
}

// Max(a, b) = a > b ? a : b: on ties (+0 vs -0) the second operand wins, and
// so does a NaN in either position. Exactly the same in every kernel.
TEST_P(EltwiseKernel, MaxMinTiesAndNaNFollowTheContract) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(EltwiseKernels(), GetParam());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float a_pat[] = {0.0f, -0.0f, 1.0f, nan, 2.0f, -0.0f};
  const float b_pat[] = {-0.0f, 0.0f, nan, 1.0f, 2.0f, -0.0f};
  const size_t size = 6 * 23;
  std::vector<float> a(size), b(size);
  for (size_t j = 0; j < size; ++j) a[j] = a_pat[j % 6], b[j] = b_pat[j % 6];
  const float* src[] = {a.data(), b.data()};
  for (EltwiseOp op : {EltwiseOp::kMax, EltwiseOp::kMin}) {
    std::vector<float> got(size);
    kernel->fn(src, nullptr, 2, size, op, got.data());
    for (size_t j = 0; j < size; ++j) {
      const float want = op == EltwiseOp::kMax ? eltwise_internal::MaxOf(a[j], b[j])
                                               : eltwise_internal::MinOf(a[j], b[j]);
      ASSERT_TRUE(testing::BitEqual(got[j], want)) << EltwiseOpName(op) << " j=" << j;
      if (j % 6 < 2) {
        ASSERT_EQ(std::signbit(got[j]), std::signbit(b[j])) << j;  // tie: the second
      }
    }
  }
  // The same with inputs of the same bit patterns through three-input folds.
  std::vector<float> c(size, -0.0f);
  const float* src3[] = {a.data(), b.data(), c.data()};
  for (EltwiseOp op : {EltwiseOp::kMax, EltwiseOp::kMin}) {
    std::vector<float> got(size), want(size);
    kernel->fn(src3, nullptr, 3, size, op, got.data());
    eltwise_internal::EltwiseRef(src3, nullptr, 3, size, op, want.data());
    ASSERT_FALSE(testing::CompareBitExact(got, want)) << EltwiseOpName(op);
  }
}

// dst == src[k] for every position k, and dst == every src at once.
TEST_P(EltwiseKernel, InPlace) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(EltwiseKernels(), GetParam());
  for (EltwiseOp op : kOps) {
    for (size_t count : {2, 3, 5, 9}) {
      for (size_t size : {1, 17, 100, 2048 + 5, 5000}) {
        for (size_t k = 0; k < count; ++k) {
          Inputs in(count, size, static_cast<uint32_t>(size + k));
          const auto want = Reference(in, size, op);
          float* dst = in.data[k].data();
          kernel->fn(in.ptrs.data(), in.weight.data(), count, size, op, dst);
          const auto m = eltwise_check::Check(op, absl::MakeConstSpan(dst, size), want);
          ASSERT_FALSE(m) << EltwiseOpName(op) << " count=" << count << " size=" << size
                          << " dst=src[" << k << "]: " << m->ToString();
        }
        // Every input is the same array, which is also dst.
        Inputs in(1, size, 7);
        std::vector<const float*> same(count, in.data[0].data());
        std::vector<float> want(size);
        std::vector<float> w(count, 0.5f);
        eltwise_internal::EltwiseRef(same.data(), w.data(), count, size, op, want.data());
        kernel->fn(same.data(), w.data(), count, size, op, in.data[0].data());
        const auto m = eltwise_check::Check(op, in.data[0], want);
        ASSERT_FALSE(m) << EltwiseOpName(op) << " all aliased, count=" << count << " size=" << size
                        << ": " << m->ToString();
      }
    }
  }
}

// Outputs large enough for streaming stores, with a dst that is not aligned
// to a cache line (the head is written with ordinary stores).
TEST_P(EltwiseKernel, LargeUnalignedOutput) {
  const auto* kernel = SYNOPS_KERNEL_OR_SKIP(EltwiseKernels(), GetParam());
  const size_t size = StreamingStoreMinBytes() / sizeof(float) + 37;
  for (size_t count : {2, 5}) {
    const Inputs in(count, size, static_cast<uint32_t>(count));
    for (EltwiseOp op : {EltwiseOp::kSum, EltwiseOp::kMax}) {
      const auto want = Reference(in, size, op);
      for (size_t misalign : {0, 5}) {
        GuardedBuffer<float> got(size + misalign);
        kernel->fn(in.ptrs.data(), in.weight.data(), count, size, op, got.data() + misalign);
        ASSERT_TRUE(got.GuardsIntact());
        const auto m =
            eltwise_check::Check(op, absl::MakeConstSpan(got.data() + misalign, size), want);
        ASSERT_FALSE(m) << EltwiseOpName(op) << " count=" << count << " misalign=" << misalign
                        << ": " << m->ToString();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, EltwiseKernel,
                         ::testing::ValuesIn(testing::KernelNames(EltwiseKernels())),
                         testing::KernelNamePrinter());

// The reference follows the seed's per-element evaluation order.
TEST(EltwiseRef, SeedOrder) {
  const float a[] = {3.0f}, b[] = {5.0f}, c[] = {7.0f};
  const float* src[] = {a, b, c};
  const float w[] = {0.1f, 0.2f, 0.3f};
  float got;
  eltwise_internal::EltwiseRef(src, w, 3, 1, EltwiseOp::kSum, &got);
  volatile float p0 = 3.0f * 0.1f, p1 = 5.0f * 0.2f, p2 = 7.0f * 0.3f;  // no contraction
  volatile float s01 = p0 + p1;
  EXPECT_TRUE(testing::BitEqual(got, s01 + p2));
  eltwise_internal::EltwiseRef(src, w, 3, 1, EltwiseOp::kProduct, &got);
  EXPECT_EQ(got, 105.0f);
  eltwise_internal::EltwiseRef(src, w, 3, 1, EltwiseOp::kMin, &got);
  EXPECT_EQ(got, 3.0f);
  eltwise_internal::EltwiseRef(src, w, 3, 1, EltwiseOp::kMax, &got);
  EXPECT_EQ(got, 7.0f);
}

TEST(EltwiseApi, UsesBestKernelAndHandlesZeroSize) {
  const Inputs in(3, 100, 5);
  for (EltwiseOp op : kOps) {
    std::vector<float> got(100);
    ASSERT_TRUE(EltwiseLayerForward(in.ptrs.data(), in.weight.data(), 3, 100, op, got.data()).ok());
    const auto m = eltwise_check::Check(op, got, Reference(in, 100, op));
    EXPECT_FALSE(m) << EltwiseOpName(op) << ": " << m->ToString();
  }
  // Product, Max and Min need no weights.
  std::vector<float> got(100);
  EXPECT_TRUE(EltwiseLayerForward(in.ptrs.data(), nullptr, 3, 100, EltwiseOp::kMax, got.data()).ok());
  // size 0: nothing is read or written, pointers may be null.
  EXPECT_TRUE(EltwiseLayerForward(nullptr, nullptr, 2, 0, EltwiseOp::kSum, nullptr).ok());
  // In place through the API.
  Inputs io(2, 100, 9);
  const auto want = Reference(io, 100, EltwiseOp::kProduct);
  ASSERT_TRUE(EltwiseLayerForward(io.ptrs.data(), nullptr, 2, 100, EltwiseOp::kProduct,
                                  io.data[1].data()).ok());
  EXPECT_FALSE(testing::CompareBitExact(io.data[1], want));
}

TEST(EltwiseApi, RejectsBadInputAndWritesNothing) {
  const size_t size = 64;
  Inputs in(3, size, 1);
  GuardedBuffer<float> dst(size);
  const auto kBad = absl::StatusCode::kInvalidArgument;
  const float* const* src = in.ptrs.data();
  const float* w = in.weight.data();
  auto call = [&](const float* const* s, const float* wt, size_t count, size_t n, EltwiseOp op,
                  float* d) { return EltwiseLayerForward(s, wt, count, n, op, d); };
  auto expect_bad = [&](const absl::Status& s, const char* needle) {
    EXPECT_EQ(s.code(), kBad) << s;
    EXPECT_NE(s.message().find(needle), absl::string_view::npos) << s;
  };
  expect_bad(call(src, w, 3, size, static_cast<EltwiseOp>(-1), dst.data()), "type");
  expect_bad(call(src, w, 3, size, static_cast<EltwiseOp>(4), dst.data()), "type");
  expect_bad(call(src, w, 1, size, EltwiseOp::kSum, dst.data()), "count");
  expect_bad(call(src, w, 0, size, EltwiseOp::kMax, dst.data()), "count");
  expect_bad(call(src, w, 1, 0, EltwiseOp::kMax, dst.data()), "count");  // even if empty
  expect_bad(call(nullptr, w, 3, size, EltwiseOp::kSum, dst.data()), "src");
  expect_bad(call(src, w, 3, size, EltwiseOp::kSum, nullptr), "dst");
  expect_bad(call(src, nullptr, 3, size, EltwiseOp::kSum, dst.data()), "weight");
  std::vector<const float*> with_null = in.ptrs;
  with_null[2] = nullptr;
  expect_bad(call(with_null.data(), w, 3, size, EltwiseOp::kProduct, dst.data()), "src[2]");
  // Byte sizes that overflow.
  expect_bad(call(src, w, 3, size_t{1} << 62, EltwiseOp::kProduct, dst.data()), "size");
  expect_bad(call(src, w, ~size_t{0} / 4, size, EltwiseOp::kProduct, dst.data()), "count");
  // dst partially overlapping an input.
  expect_bad(call(src, w, 3, size - 1, EltwiseOp::kMin, in.data[1].data() + 1), "src[1]");
  expect_bad(call(src, w, 3, size, EltwiseOp::kMin, in.data[0].data() + size - 1), "src[0]");
  EXPECT_TRUE(dst.Untouched());

  // dst overlapping the weights.
  {
    GuardedBuffer<float> buf(size + 3);
    std::memcpy(buf.data(), w, 3 * sizeof(float));
    const std::vector<float> before = buf.ToVector();
    expect_bad(call(src, buf.data(), 3, size, EltwiseOp::kSum, buf.data() + 1), "weight");
    EXPECT_FALSE(testing::CompareBitExact(buf.ToVector(), before));
  }
  // dst overlapping the pointer array itself.
  {
    std::vector<float> buf(4 * size);
    std::memcpy(buf.data(), in.ptrs.data(), 3 * sizeof(float*));
    const std::vector<float> before = buf;
    const auto* table = reinterpret_cast<const float* const*>(buf.data());
    expect_bad(call(table, w, 3, size, EltwiseOp::kSum, buf.data() + 2), "pointer array");
    EXPECT_FALSE(testing::CompareBitExact(buf, before));
  }
  // Inputs untouched by all of the above.
  EXPECT_FALSE(testing::CompareBitExact(in.data[0], testing::RandomFloats(size, -2.0f, 2.0f, 1)));
}

TEST(EltwiseApi, MaxIsaCap) { testing::ExpectCapSelects(EltwiseKernels()); }

}  // namespace
}  // namespace synops
