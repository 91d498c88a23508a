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

}  // namespace
}  // namespace testing
}  // namespace synops
