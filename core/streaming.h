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

// Kernels that read their input again after a reduction pass (normalize V4:
// norms, then outputs; NCHW V1/V2: chunks re-read from L2) stream outputs of at least this many bytes, where
// src + dst no longer fit the 2 MiB L2 of a Sapphire Rapids core: stores
// that allocate dst would evict the src lines the second pass is about to
// read. Measured on one core (normalize_bench, V4, 56x56 positions): 256
// channels (3.1 MiB) NHWC -14% time (0.296 -> 0.254 ms), NCHW -14%; 128
// channels (1.6 MiB) -8% / -10%. In L2 (64 channels, 784 KiB) streaming
// made the same two-pass loop +43% slower, hence the threshold. NCHW V1 / V2
// at 256 channels: 0.270 -> 0.253 ms / 0.281 -> 0.267 ms; 512 channels -10%.
inline constexpr size_t kRereadStreamingMinBytes = size_t{1} << 20;

}  // namespace synops

#endif  // SYNOPS_CORE_STREAMING_H_
