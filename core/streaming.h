// When kernels switch to non-temporal (streaming) stores.
#ifndef SYNOPS_CORE_STREAMING_H_
#define SYNOPS_CORE_STREAMING_H_

#include <cstddef>

namespace synops {

// Outputs of at least this many bytes are written with non-temporal stores
// (on x86): they would not stay in cache for the next layer anyway, and
// streaming saves the read-for-ownership of every dst line (+24% at 64 MiB
// on Sapphire Rapids for eltwise). Below it, dst stays cached for its consumer.
inline constexpr size_t kStreamingStoreMinBytes = size_t{16} << 20;

}  // namespace synops

#endif  // SYNOPS_CORE_STREAMING_H_
