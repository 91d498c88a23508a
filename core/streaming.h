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

// Kernels that read their input again after a reduction pass (NCHW V1/V2:
// chunks re-read from L2; normalize V4, norms then outputs, through
// SecondPassStreams below) stream outputs of at least half the L2: src + dst then no longer fit it, and stores that
// allocate dst would evict the src lines the second pass is about to read.
// Measured on one Sapphire Rapids core (2 MiB L2; normalize_bench, V4, 56x56
// positions): 256 channels (3.1 MiB) NHWC -14% time (0.296 -> 0.254 ms), NCHW
// -14%; 128 channels (1.6 MiB) -8% / -10%. In L2 (64 channels, 784 KiB)
// streaming made the same two-pass loop +43% slower, hence the threshold.
// NCHW V1 / V2 at 256 channels: 0.270 -> 0.253 ms / 0.281 -> 0.267 ms; 512
// channels -10%.
inline size_t RereadStreamingMinBytes() { return GetCacheSizes().l2 / 2; }

// Whether a second pass that reads all of src_bytes again, in order, and
// writes dst_bytes (normalize V4's output pass) streams its stores: from
// RereadStreamingMinBytes, unless src and dst together fit the L3 of a CPU
// whose L3 takes cached stores faster than memory takes streaming ones
// (CacheSizes::l3_beats_streaming). normalize_bench, V4 AVX-512 at 56x56
// positions, cached -> streamed stores, us: Emerald Rapids (2 MiB L2, 300
// MiB L3) NHWC 256 channels (3.1 MiB) 449 -> 289, 512 channels 928 -> 684,
// NCHW 256 435 -> 335 (BM_ReadThenCopy 437-458, 916-931); Zen 5 (1 MiB L2,
// 32 MiB L3) NHWC / NCHW 256 channels 77-84 / 80 -> 97-99, 512 channels
// 158-162 / 160-171 -> 200-202 (BM_ReadThenCopy 72, 149-153). (NCHW V1
// and V2 re-read chunks from the L2 instead, which cached stores evict:
// they stream from RereadStreamingMinBytes on both.)
inline bool SecondPassStreams(size_t src_bytes, size_t dst_bytes) {
  const CacheSizes c = GetCacheSizes();
  if (src_bytes < RereadStreamingMinBytes()) return false;
  return !(c.l3_beats_streaming && src_bytes + dst_bytes <= c.l3);
}

}  // namespace synops

#endif  // SYNOPS_CORE_STREAMING_H_
