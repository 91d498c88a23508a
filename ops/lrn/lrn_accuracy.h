// The accuracy contract of lrn (SPEC.md §5 sum bound), for tests, the fuzzer
// and synbench.
#ifndef SYNOPS_OPS_LRN_LRN_ACCURACY_H_
#define SYNOPS_OPS_LRN_LRN_ACCURACY_H_

#include <cstddef>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "core/types.h"
#include "testing/tolerance.h"

namespace synops {
namespace lrn_internal {

// ULP error bounds of the kernels' and the reference's exp and log together
// (Highway's Exp <= 1 ULP and Log <= 2 ULP, glibc's expf/logf <= 1 ULP).
inline constexpr double kExpUlps = 2;
inline constexpr double kLogUlps = 3;

// Per-element bound on |kernel - reference|: the sum bound n * 2^-23 *
// sum(src[i]^2) of the window (n = its size), propagated through
// b = k0 + k1 * sum, log b, * k2, exp and the final product (testing::ErrVal),
// with the exp/log ULP errors above. +Inf where no bound exists (b <= 0,
// overflow, NaN or Inf inputs).
std::vector<double> LrnBounds(const float* src, size_t half, size_t channels, size_t spatial,
                              const float* k, TensorFormat format);

// The first element of `got` outside its bound around `want`
// (testing::CompareWithinBounds: NaN must match NaN; elements without a
// bound accept anything).
std::optional<testing::Mismatch> CheckLrn(absl::Span<const float> got,
                                          absl::Span<const float> want,
                                          absl::Span<const double> bounds);

}  // namespace lrn_internal
}  // namespace synops

#endif  // SYNOPS_OPS_LRN_LRN_ACCURACY_H_
