// The accuracy contract of normalize (SPEC.md §5 sum bound), for tests, the
// fuzzer and synbench: per-element bounds on |kernel - reference|, the SPEC
// sum bound n * 2^-23 * sum |terms| of every reduction propagated through the
// variant's formula (testing::ErrVal). +Inf marks elements without a bound
// (e.g. a variance that may be zero with eps = 0, NaN or Inf inputs).
#ifndef SYNOPS_OPS_NORMALIZE_NORMALIZE_ACCURACY_H_
#define SYNOPS_OPS_NORMALIZE_NORMALIZE_ACCURACY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/types/span.h"
#include "core/types.h"
#include "testing/tolerance.h"

namespace synops {
namespace normalize_internal {

std::vector<double> NormalizeV1Bounds(const float* src, size_t batch, size_t channels,
                                      size_t spatial, const float* scale, float eps,
                                      bool across_spatial, TensorFormat format);
// V2 (and 16bV2 with src converted to FP32), V3, V4.
std::vector<double> NormalizeV2Bounds(const float* src, size_t batch, size_t channels,
                                      size_t spatial, const float* scale, const float* shift,
                                      float eps, TensorFormat format);
std::vector<double> NormalizeV3Bounds(const float* src, size_t batch, size_t channels,
                                      size_t spatial, const float* scale, const float* shift,
                                      float eps, TensorFormat format);
std::vector<double> NormalizeV4Bounds(const float* src, size_t batch, size_t channels,
                                      size_t spatial, const float* scale, const float* shift,
                                      float eps, TensorFormat format);

// FP32 outputs: |got - want| <= bound (see testing::CompareWithinBounds).
std::optional<testing::Mismatch> CheckFp32(absl::Span<const float> got,
                                           absl::Span<const float> want,
                                           absl::Span<const double> bounds);
// BF16 outputs against the FP32 reference `want` (16bV2's math on the same
// inputs): within one BF16 ULP of Fp32ToBf16(want) (SPEC.md §5), or, where
// the FP32 bound itself is wider, within bound + one BF16 ULP.
std::optional<testing::Mismatch> CheckBf16(absl::Span<const uint16_t> got,
                                           absl::Span<const float> want,
                                           absl::Span<const double> bounds);

}  // namespace normalize_internal
}  // namespace synops

#endif  // SYNOPS_OPS_NORMALIZE_NORMALIZE_ACCURACY_H_
