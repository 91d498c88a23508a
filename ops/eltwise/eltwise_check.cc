#include "ops/eltwise/eltwise_check.h"

#include <vector>

namespace synops {
namespace eltwise_check {
namespace {

std::vector<double> SumBounds(absl::Span<const float> want) {
  std::vector<double> bound(want.size());
  for (size_t i = 0; i < want.size(); ++i) bound[i] = testing::RelBound(want[i]);
  return bound;
}

}  // namespace

std::optional<testing::Mismatch> Check(EltwiseOp op, absl::Span<const float> got,
                                       absl::Span<const float> want) {
  switch (op) {
    case EltwiseOp::kSum:
      return testing::CompareWithin(got, want, SumBounds(want));
    case EltwiseOp::kProduct:
      return testing::CompareBitExactOrNan(got, want);
    case EltwiseOp::kMax:
    case EltwiseOp::kMin:
      break;
  }
  return testing::CompareBitExact(got, want);
}

double BoundFraction(EltwiseOp op, absl::Span<const float> got, absl::Span<const float> want) {
  if (op == EltwiseOp::kSum) return testing::BoundFraction(got, want, SumBounds(want));
  return testing::ExactFraction(Check(op, got, want));
}

}  // namespace eltwise_check
}  // namespace synops
