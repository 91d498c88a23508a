#include "ops/softmax/softmax_check.h"

#include "testing/tolerance.h"

namespace synops {
namespace softmax_check {

std::vector<double> Bounds(absl::Span<const float> want, size_t count) {
  std::vector<double> bound(want.size());
  for (size_t i = 0; i < want.size(); ++i) bound[i] = testing::SoftmaxBound(count, want[i]);
  return bound;
}

}  // namespace softmax_check
}  // namespace synops
