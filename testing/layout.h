// Format-aware element offsets for tests, fuzzers and synbench drivers, so
// every op's checks index NCHW/NHWC tensors the same way (SPEC.md §1).
#ifndef SYNOPS_TESTING_LAYOUT_H_
#define SYNOPS_TESTING_LAYOUT_H_

#include <cstddef>

#include "core/types.h"

namespace synops {
namespace testing {

// Offset of channel `c` at spatial position `s` (s = h*W + w) of a
// `channels` x `spatial` tensor: c*spatial + s (NCHW) or s*channels + c (NHWC).
inline size_t ChannelOffset(TensorFormat format, size_t c, size_t s, size_t channels,
                            size_t spatial) {
  return format == TensorFormat::kNchw ? c * spatial + s : s * channels + c;
}

}  // namespace testing
}  // namespace synops

#endif  // SYNOPS_TESTING_LAYOUT_H_
