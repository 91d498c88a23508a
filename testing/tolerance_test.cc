// The comparison rules every test, fuzzer and synbench check relies on.
#include "testing/tolerance.h"

#include <cmath>
#include <limits>
#include <vector>

#include "gtest/gtest.h"

namespace synops {
namespace testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

size_t FirstWithin(const std::vector<float>& got, const std::vector<float>& want,
                   const std::vector<double>& bound) {
  auto m = CompareWithin(got, want, bound);
  return m ? m->index : got.size();
}
size_t FirstWithinBounds(const std::vector<float>& got, const std::vector<float>& want,
                         const std::vector<double>& bound) {
  auto m = CompareWithinBounds(got, want, bound);
  return m ? m->index : got.size();
}

TEST(Tolerance, CompareWithinChecksEveryKindOfValue) {
  const double inf_bound = HUGE_VAL;
  // Each case alone at index 1, after an element that matches.
  struct Case {
    float got, want;
    double bound;
    bool ok;
  } cases[] = {
      {1.0f, 1.5f, 0.5, true},         {1.0f, 1.5f, 0.49, false},
      {kNan, kNan, 0.0, true},         {kNan, 1.0f, inf_bound, false},
      {1.0f, kNan, inf_bound, false},  {kInf, kInf, 0.0, true},
      {-kInf, kInf, inf_bound, false}, {kInf, 3e38f, inf_bound, false},
      {3e38f, kInf, inf_bound, false}, {-3e38f, 3e38f, inf_bound, true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FirstWithin({0.0f, c.got}, {0.0f, c.want}, {0.0, c.bound}), c.ok ? 2u : 1u)
        << c.got << " vs " << c.want << " within " << c.bound;
    // An infinite bound accepts anything in CompareWithinBounds.
    EXPECT_EQ(FirstWithinBounds({0.0f, c.got}, {0.0f, c.want}, {0.0, c.bound}),
              c.ok || c.bound == inf_bound ? 2u : 1u)
        << c.got << " vs " << c.want << " within " << c.bound;
  }
  EXPECT_EQ(FirstWithin({1.0f}, {1.0f, 2.0f}, {0.0, 0.0}), 1u) << "sizes differ";
}

TEST(Tolerance, BitExactComparisons) {
  const float other_nan = -kNan;
  EXPECT_FALSE(CompareBitExact(std::vector<float>{1.0f, 0.0f}, std::vector<float>{1.0f, 0.0f}));
  auto m = CompareBitExact(std::vector<float>{1.0f, 0.0f}, std::vector<float>{1.0f, -0.0f});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 1u);
  EXPECT_TRUE(CompareBitExact(std::vector<float>{kNan}, std::vector<float>{other_nan}));
  EXPECT_FALSE(CompareBitExactOrNan(std::vector<float>{2.0f, kNan}, std::vector<float>{2.0f, other_nan}));
  m = CompareBitExactOrNan(std::vector<float>{2.0f, kNan, 0.0f},
                           std::vector<float>{2.0f, other_nan, -0.0f});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 2u);
  m = CompareBitExactOrNan(std::vector<float>{2.0f}, std::vector<float>{2.0f, 1.0f});
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 1u);
}

TEST(Tolerance, ErrSumAccIsErrSum) {
  const std::vector<ErrVal> terms = {{1.0, 1e-7}, {-3.5, 0.0}, {1e3, 2e-5}, {0.25, 0.0}};
  ErrSumAcc acc;
  for (const ErrVal& t : terms) acc.Add(t);
  EXPECT_EQ(acc.Result().v, ErrSum(terms).v);
  EXPECT_EQ(acc.Result().e, ErrSum(terms).e);
  ErrSumAcc huge;
  huge.Add(Exact(3e38));
  huge.Add(Exact(-3e38));
  EXPECT_EQ(huge.Result().e, HUGE_VAL) << "a partial sum may overflow FP32";
}

TEST(Tolerance, BoundFractionSaysHowCloseToFailing) {
  const std::vector<double> bound = {0.5, 0.5, HUGE_VAL, 0.0};
  EXPECT_EQ(BoundFraction({1, 2, 3, 4}, {1, 2, 3, 4}, bound), 0.0);
  EXPECT_DOUBLE_EQ(BoundFraction({1.25f, 2, 3, 4}, {1, 2, 3, 4}, bound), 0.5);
  EXPECT_DOUBLE_EQ(BoundFraction({1, 2.75f, 3, 4}, {1, 2, 3, 4}, bound), 1.5);
  EXPECT_EQ(BoundFraction({1, 2, 1e30f, 4}, {1, 2, 3, 4}, bound), 0.0);      // unbounded element
  EXPECT_EQ(BoundFraction({1, 2, 3, 4.5f}, {1, 2, 3, 4}, bound), HUGE_VAL);  // beyond a zero bound
  EXPECT_EQ(BoundFraction({kNan, 2, 3, 4}, {kNan, 2, 3, 4}, bound), 0.0);
  EXPECT_EQ(BoundFraction({kNan, 2, 3, 4}, {1, 2, 3, 4}, bound), HUGE_VAL);
  EXPECT_EQ(BoundFraction({kInf, 2, 3, 4}, {kInf, 2, 3, 4}, bound), 0.0);
  EXPECT_EQ(BoundFraction({-kInf, 2, 3, 4}, {kInf, 2, 3, 4}, bound), HUGE_VAL);
  EXPECT_EQ(BoundFraction({1, 2}, {1, 2, 3}, bound), HUGE_VAL);
}

TEST(Tolerance, Bf16UlpBoundAndFraction) {
  const float want[] = {1.0f, 1.0f, 1.0f, kNan};
  // 1.0 is 0x3F80; its BF16 neighbours are 0x3F81 and 0x3F7F.
  const std::vector<uint16_t> exact = {0x3F80, 0x3F80, 0x3F80, 0x7FC0};
  const std::vector<uint16_t> one = {0x3F80, 0x3F81, 0x3F7F, 0x7FC0};
  const std::vector<uint16_t> two = {0x3F80, 0x3F82, 0x3F80, 0x7FC0};
  EXPECT_FALSE(CompareWithinOneBf16Ulp(exact, want));
  EXPECT_FALSE(CompareWithinOneBf16Ulp(one, want));
  auto m = CompareWithinOneBf16Ulp(two, want);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->index, 1u);
  EXPECT_EQ(Bf16UlpFraction(exact, want), 0.0);
  EXPECT_EQ(Bf16UlpFraction(one, want), 1.0);
  EXPECT_EQ(Bf16UlpFraction(two, want), 2.0);
  EXPECT_EQ(Bf16UlpFraction({0x3F80, 0x3F80, 0x3F80, 0x3F80}, want), HUGE_VAL);  // a number for NaN
  EXPECT_EQ(ExactFraction(std::nullopt), 0.0);
  EXPECT_EQ(ExactFraction(Mismatch{}), HUGE_VAL);
}

}  // namespace
}  // namespace testing
}  // namespace synops
