// Kernel tables of normalize. Kernels receive validated, non-empty arguments
// (eps by value); V4 kernels get a `buf` of `channels` floats.
#ifndef SYNOPS_OPS_NORMALIZE_NORMALIZE_KERNELS_H_
#define SYNOPS_OPS_NORMALIZE_NORMALIZE_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dispatch.h"
#include "core/types.h"

namespace synops {

using NormalizeV1Fn = void (*)(const float* src, size_t batch, size_t channels, size_t spatial,
                               const float* scale, float eps, bool across_spatial,
                               TensorFormat format, float* buf, float* dst);
// V2, V3 and V4.
using NormalizeFn = void (*)(const float* src, size_t batch, size_t channels, size_t spatial,
                             const float* scale, const float* shift, float eps,
                             TensorFormat format, float* buf, float* dst);
using Normalize16bV2Fn = void (*)(const uint16_t* src, size_t batch, size_t channels,
                                  size_t spatial, const float* scale, const float* shift,
                                  float eps, TensorFormat format, float* buf, uint16_t* dst);

// ref, then Highway's sse41/avx2/avx512 (x86) or neon (aarch64).
const KernelTable<NormalizeV1Fn>& NormalizeV1Kernels();
const KernelTable<NormalizeFn>& NormalizeV2Kernels();
const KernelTable<NormalizeFn>& NormalizeV3Kernels();
const KernelTable<NormalizeFn>& NormalizeV4Kernels();
const KernelTable<Normalize16bV2Fn>& Normalize16bV2Kernels();

namespace normalize_internal {
void NormalizeV1Ref(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, float eps, bool across_spatial, TensorFormat format,
                    float* buf, float* dst);
void NormalizeV2Ref(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, const float* shift, float eps, TensorFormat format,
                    float* buf, float* dst);
void NormalizeV3Ref(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, const float* shift, float eps, TensorFormat format,
                    float* buf, float* dst);
void NormalizeV4Ref(const float* src, size_t batch, size_t channels, size_t spatial,
                    const float* scale, const float* shift, float eps, TensorFormat format,
                    float* buf, float* dst);
void Normalize16bV2Ref(const uint16_t* src, size_t batch, size_t channels, size_t spatial,
                       const float* scale, const float* shift, float eps, TensorFormat format,
                       float* buf, uint16_t* dst);
// Whether NCHW items beyond the L1d whose rows of at most 64 positions are
// not whole vectors run V1 and V2 as flat periods (normalize_hwy.cc's
// FewPositions) instead of row passes: on Intel cores, not on AMD's, where
// the row passes measured faster. SetFlatPeriodsForTesting(1 or 0) forces
// either, -1 gives the choice back to the CPU.
bool FlatPeriods();
void SetFlatPeriodsForTesting(int flat);
std::vector<Kernel<NormalizeV1Fn>> NormalizeV1HwyKernels();
std::vector<Kernel<NormalizeFn>> NormalizeV2HwyKernels();
std::vector<Kernel<NormalizeFn>> NormalizeV3HwyKernels();
std::vector<Kernel<NormalizeFn>> NormalizeV4HwyKernels();
std::vector<Kernel<Normalize16bV2Fn>> Normalize16bV2HwyKernels();
}  // namespace normalize_internal

}  // namespace synops

#endif  // SYNOPS_OPS_NORMALIZE_NORMALIZE_KERNELS_H_
