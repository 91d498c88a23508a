// SPEC.md's accuracy contract of channel_sum, for its tests, fuzzer and
// synbench: each channel's sum within the sum bound of its terms.
#ifndef SYNOPS_OPS_CHANNEL_SUM_CHANNEL_SUM_CHECK_H_
#define SYNOPS_OPS_CHANNEL_SUM_CHANNEL_SUM_CHECK_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/types.h"

namespace synops {
namespace channel_sum_check {

// Per channel c: testing::SumBound(spatial, sum over s of |src[c, s]|), the
// bound on |kernel - reference| (compare with testing::CompareWithin).
std::vector<double> Bounds(const uint16_t* src, size_t channels, size_t spatial,
                           TensorFormat format);

}  // namespace channel_sum_check
}  // namespace synops

#endif  // SYNOPS_OPS_CHANNEL_SUM_CHANNEL_SUM_CHECK_H_
