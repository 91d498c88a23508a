#include "ops/lrn/lrn_accuracy.h"

#include <cmath>

#include "ops/lrn/lrn_kernels.h"

namespace synops {
namespace lrn_internal {

using testing::ErrVal;

std::vector<double> LrnBounds(const float* src, size_t half, size_t channels, size_t spatial,
                              const float* k, TensorFormat format) {
  std::vector<double> bounds(channels * spatial);
  const size_t cs = format == TensorFormat::kNchw ? spatial : 1;
  const size_t ss = format == TensorFormat::kNchw ? 1 : channels;
  for (size_t s = 0; s < spatial; ++s) {
    for (size_t c = 0; c < channels; ++c) {
      size_t lo, hi;
      Window(c, half, channels, &lo, &hi);
      testing::ErrSumAcc acc;
      for (size_t i = lo; i <= hi; ++i) {
        const ErrVal x = testing::Exact(src[i * cs + s * ss]);
        acc.Add(testing::ErrMul(x, x));
      }
      const ErrVal sum = acc.Result();
      const ErrVal b =
          testing::ErrAdd(testing::Exact(k[0]), testing::ErrMul(testing::Exact(k[1]), sum));
      const ErrVal y = testing::ErrMul(testing::ErrLog(b, kLogUlps), testing::Exact(k[2]));
      const ErrVal out =
          testing::ErrMul(testing::Exact(src[c * cs + s * ss]), testing::ErrExp(y, kExpUlps));
      const double e = out.e;
      bounds[c * cs + s * ss] = std::isfinite(out.v) && e == e ? e : HUGE_VAL;
    }
  }
  return bounds;
}

std::optional<testing::Mismatch> CheckLrn(absl::Span<const float> got,
                                          absl::Span<const float> want,
                                          absl::Span<const double> bounds) {
  return testing::CompareWithinBounds(got, want, bounds);
}

}  // namespace lrn_internal
}  // namespace synops
