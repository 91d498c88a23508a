// When kernels switch to non-temporal (streaming) stores: thresholds derived
// from the running CPU's caches (core/cpu.h GetCacheSizes), so a core with
// 1 MiB of L2 and one with 2 MiB each get the choice measured for its size.
#ifndef SYNOPS_CORE_STREAMING_H_
#define SYNOPS_CORE_STREAMING_H_

#include <cstddef>

#include "core/cpu.h"

namespace synops {

// Outputs of at least 8 L2s (16 MiB on a Sapphire Rapids core, 8 MiB on
// Zen 5) are written with non-temporal stores (on x86): they would not stay
// in cache for the next layer anyway, and streaming saves the
// read-for-ownership of every dst line (+24% at 64 MiB on Sapphire Rapids
// for eltwise, where 16 MiB was measured as the point to switch). Below it,
// dst stays cached for its consumer.
inline size_t StreamingStoreMinBytes() { return 8 * GetCacheSizes().l2; }

// Kernels that read their input again after a reduction pass (normalize V4:
// norms, then outputs; NCHW V1/V2: chunks re-read from L2) stream outputs of
// at least half the L2: src + dst then no longer fit it, and stores that
// allocate dst would evict the src lines the second pass is about to read.
// Measured on one Sapphire Rapids core (2 MiB L2; normalize_bench, V4, 56x56
// positions): 256 channels (3.1 MiB) NHWC -14% time (0.296 -> 0.254 ms), NCHW
// -14%; 128 channels (1.6 MiB) -8% / -10%. In L2 (64 channels, 784 KiB)
// streaming made the same two-pass loop +43% slower, hence the threshold.
// NCHW V1 / V2 at 256 channels: 0.270 -> 0.253 ms / 0.281 -> 0.267 ms; 512
// channels -10%.
inline size_t RereadStreamingMinBytes() { return GetCacheSizes().l2 / 2; }

}  // namespace synops

#endif  // SYNOPS_CORE_STREAMING_H_
